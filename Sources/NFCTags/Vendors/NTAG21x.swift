// NXP Type 2 products: MIFARE Ultralight, Ultralight EV1, NTAG210/212/213/215/216.
//
// Source: nfcpy `tt2_nxp.py` VERSION_MAP and dump tables, Flipper Zero
// `nfc_data_generator.c`, libfreefare `ntag21x.c`.

/// An NXP Type 2 chip, identified by its GET_VERSION (60h) answer, with its memory map.
///
/// Page numbers are absolute. Footer pages (CFG0, CFG1, PWD, PACK) exist on Ultralight EV1 and
/// NTAG21x only; the original Ultralight (MF0ICU1) has none and does not answer GET_VERSION.
public enum Type2Product: String, Hashable, Sendable, CaseIterable {
  /// MIFARE Ultralight MF0ICU1: 16 pages, no GET_VERSION, no FAST_READ.
  case ultralight
  /// MIFARE Ultralight EV1 MF0UL11 (or MF0ULH11): 20 pages.
  case ultralightEV1MF0UL11
  /// MIFARE Ultralight EV1 MF0UL21 (or MF0ULH21): 41 pages.
  case ultralightEV1MF0UL21
  /// NTAG210: 20 pages, 48 user bytes.
  case ntag210
  /// NTAG212: 41 pages, 128 user bytes.
  case ntag212
  /// NTAG213: 45 pages, 144 user bytes.
  case ntag213
  /// NTAG215: 135 pages, 504 user bytes.
  case ntag215
  /// NTAG216: 231 pages, 888 user bytes.
  case ntag216

  /// Identifies a product from an 8-byte GET_VERSION answer (NXP vendor 04); nil when unknown.
  ///
  /// Matches product type (byte 2), subtype (byte 3; 01 or 02 for Ultralight EV1, 02 for NTAG
  /// 213/215/216, 01 for NTAG210/212) and storage size (byte 6). NTAG21xF parts (subtype 04)
  /// are not matched. Source: nfcpy `tt2_nxp.py` VERSION_MAP, Flipper `nfc_data_generator.c`;
  /// the NTAG21xF subtype: proxmark3 `cmdhfmfu.c`.
  public init?(version: [UInt8]) {
    guard version.count == 8, version[0] == 0x00, version[1] == 0x04 else { return nil }
    switch (version[2], version[3], version[6]) {
    case (0x03, 0x01, 0x0B), (0x03, 0x02, 0x0B): self = .ultralightEV1MF0UL11
    case (0x03, 0x01, 0x0E), (0x03, 0x02, 0x0E): self = .ultralightEV1MF0UL21
    case (0x04, 0x01, 0x0B): self = .ntag210
    case (0x04, 0x01, 0x0E): self = .ntag212
    case (0x04, 0x02, 0x0F): self = .ntag213
    case (0x04, 0x02, 0x11): self = .ntag215
    case (0x04, 0x02, 0x13): self = .ntag216
    default: return nil
    }
  }

  /// The chip name for people ("NTAG215", "MIFARE Ultralight EV1 (MF0UL11)").
  public var name: String {
    switch self {
    case .ultralight: return "MIFARE Ultralight (MF0ICU1)"
    case .ultralightEV1MF0UL11: return "MIFARE Ultralight EV1 (MF0UL11)"
    case .ultralightEV1MF0UL21: return "MIFARE Ultralight EV1 (MF0UL21)"
    case .ntag210: return "NTAG210"
    case .ntag212: return "NTAG212"
    case .ntag213: return "NTAG213"
    case .ntag215: return "NTAG215"
    case .ntag216: return "NTAG216"
    }
  }

  /// The GET_VERSION answer of this product (nil for the original Ultralight), for emulators.
  public var versionBytes: [UInt8]? {
    switch self {
    case .ultralight: return nil
    case .ultralightEV1MF0UL11: return [0x00, 0x04, 0x03, 0x01, 0x01, 0x00, 0x0B, 0x03]
    case .ultralightEV1MF0UL21: return [0x00, 0x04, 0x03, 0x01, 0x01, 0x00, 0x0E, 0x03]
    case .ntag210: return [0x00, 0x04, 0x04, 0x01, 0x01, 0x00, 0x0B, 0x03]
    case .ntag212: return [0x00, 0x04, 0x04, 0x01, 0x01, 0x00, 0x0E, 0x03]
    case .ntag213: return [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03]
    case .ntag215: return [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03]
    case .ntag216: return [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x13, 0x03]
    }
  }

  /// Number of pages, 0 to the last (PACK on EV1/NTAG21x).
  public var totalPages: Int {
    switch self {
    case .ultralight: return 16
    case .ultralightEV1MF0UL11, .ntag210: return 20
    case .ultralightEV1MF0UL21, .ntag212: return 41
    case .ntag213: return 45
    case .ntag215: return 135
    case .ntag216: return 231
    }
  }

  /// The user (NDEF) pages.
  public var userPages: ClosedRange<Int> {
    switch self {
    case .ultralight, .ultralightEV1MF0UL11, .ntag210: return 4...0x0F
    case .ultralightEV1MF0UL21, .ntag212: return 4...0x23
    case .ntag213: return 4...0x27
    case .ntag215: return 4...0x81
    case .ntag216: return 4...0xE1
    }
  }

  /// User memory in bytes.
  public var userMemorySize: Int { userPages.count * 4 }

  /// CC byte 2 as shipped (data-area size / 8); smaller than user memory on NTAG215/216.
  public var ccDataAreaSize: UInt8 {
    switch self {
    case .ultralight, .ultralightEV1MF0UL11, .ntag210: return 0x06
    case .ultralightEV1MF0UL21, .ntag212: return 0x10
    case .ntag213: return 0x12
    case .ntag215: return 0x3E
    case .ntag216: return 0x6D
    }
  }

  /// The page of the dynamic lock bytes (3 lock bytes + RFU), when the chip has one.
  public var dynamicLockPage: Int? {
    switch self {
    case .ultralight, .ultralightEV1MF0UL11, .ntag210: return nil
    case .ultralightEV1MF0UL21, .ntag212: return 0x24
    case .ntag213: return 0x28
    case .ntag215: return 0x82
    case .ntag216: return 0xE2
    }
  }

  /// The bits of the three dynamic lock bytes the chip defines (page-lock and block-lock bits);
  /// the others are RFUI, so "all set" is judged on these. NXP NTAG213/215/216 data sheet
  /// Rev. 3.2 §8.5.2: NTAG213 locks 2 pages per bit (12 bits: byte 0, byte 1 bits 0–3) with 6
  /// block-locking bits (byte 2 bits 0–5); NTAG215 16 pages per bit (byte 0) with 4 block-locking
  /// bits (byte 1 bits 0–3), byte 2 RFUI; NTAG216 16 pages per bit (14 bits: byte 0, byte 1 bits
  /// 0–5) with 7 block-locking bits (byte 2 bits 0–6). nil for the chips whose layout is not
  /// taken from a data sheet here (Ultralight EV1 MF0UL21, NTAG212): all 24 bits count.
  public var dynamicLockDefinedBits: [UInt8]? {
    switch self {
    case .ntag213: return [0xFF, 0x0F, 0x3F]
    case .ntag215: return [0xFF, 0x0F, 0x00]
    case .ntag216: return [0xFF, 0x3F, 0x7F]
    default: return nil
    }
  }

  /// How many of the dynamic lock bytes' defined bits are set: `none`, `some` or `all` (RFUI
  /// bits are not looked at).
  public func dynamicLockExtent(_ bytes: [UInt8]) -> String {
    let defined = dynamicLockDefinedBits ?? [0xFF, 0xFF, 0xFF]
    guard bytes.count == defined.count else { return bytes.allSatisfy { $0 == 0 } ? "none" : "some" }
    let set = zip(bytes, defined).map { $0 & $1 }
    return set.allSatisfy { $0 == 0 } ? "none" : (set == defined ? "all" : "some")
  }

  /// CFG0 (MIRROR, RFU, MIRROR_PAGE, AUTH0); nil on the original Ultralight.
  public var cfg0Page: Int? { self == .ultralight ? nil : totalPages - 4 }
  /// CFG1 (ACCESS: PROT bit 7, CFGLCK bit 6, AUTHLIM bits 2–0).
  public var cfg1Page: Int? { self == .ultralight ? nil : totalPages - 3 }
  /// PWD (write-only; reads as 00 00 00 00).
  public var passwordPage: Int? { self == .ultralight ? nil : totalPages - 2 }
  /// PACK (2 bytes + 2 RFU; reads as 00).
  public var packPage: Int? { self == .ultralight ? nil : totalPages - 1 }

  /// True when the chip answers FAST_READ (3Ah), READ_SIG (3Ch) and PWD_AUTH (1Bh).
  public var hasExtendedCommands: Bool { self != .ultralight }

  /// The TLVs written by ``Type2Tag/format()`` at page 4, as the chip ships: NTAG213 carries a
  /// Lock Control TLV for its 12 dynamic lock bits at byte 160 (`01 03 A0 0C 34`); the others
  /// an empty NDEF TLV and a Terminator. Source: nfcpy `_format`, Flipper `nfc_data_generator.c`.
  public var factoryTLVs: [UInt8] {
    switch self {
    case .ntag213: return [0x01, 0x03, 0xA0, 0x0C, 0x34, 0x03, 0x00, 0xFE]
    default: return [0x03, 0x00, 0xFE]
    }
  }
}

// MARK: - UID and NFC counter mirror, NFC counter (NTAG213/215/216)

extension Type2Product {
  /// True when the chip has the UID and NFC counter ASCII mirror configured by MIRROR_CONF,
  /// MIRROR_BYTE and MIRROR_PAGE in CFG0: NTAG213/215/216. (NTAG210/212 mirror the UID with
  /// another CFG0 layout, not described here.) Source: docs/tag-types.md.
  public var mirrorSupported: Bool { self == .ntag213 || self == .ntag215 || self == .ntag216 }

  /// True when the chip has the 24-bit NFC counter (NFC_CNT_EN in ACCESS, READ_CNT `39 02`):
  /// NTAG213/215/216.
  public var nfcCounterSupported: Bool { mirrorSupported }

  /// True when a mirror of `mode` starting at byte `byte` (0–3) of `page` lies in the user
  /// memory: the chip shows no mirror that starts below page 4 or ends past the last user page.
  public func mirrorFits(_ mode: NTAG21xMirrorMode, page: Int, byte: Int) -> Bool {
    guard mirrorSupported, mode != .none, page >= 4, (0...3).contains(byte) else { return false }
    return page * 4 + byte + mode.length <= (userPages.upperBound + 1) * 4
  }
}

/// What the NTAG213/215/216 ASCII mirror shows (MIRROR_CONF, CFG0 byte 0 bits 7–6).
public enum NTAG21xMirrorMode: UInt8, Sendable, CaseIterable {
  /// 00b: no mirror (as shipped).
  case none = 0
  /// 01b: the 7-byte UID as 14 upper-case hex characters.
  case uid = 1
  /// 10b: the 24-bit NFC counter as 6 upper-case hex characters, most significant first.
  case counter = 2
  /// 11b: the UID, `x` (78h), then the counter: 21 characters.
  case uidAndCounter = 3

  /// The characters the mirror shows.
  public var length: Int {
    switch self {
    case .none: return 0
    case .uid: return 14
    case .counter: return 6
    case .uidAndCounter: return 21
    }
  }
}

/// The NTAG213/215/216 configuration bits (CFG0 and CFG1) and the NFC counter command. Bit
/// positions: NXP NTAG213/215/216 data sheet §8.5.7 as restated by Flipper Zero's
/// `MfUltralightConfigPages` and the NTAG213F/216F data sheet; docs/tag-types.md has the sources.
public enum NTAG21xConfiguration {
  /// CFG0 byte 0 (MIRROR): MIRROR_CONF, bits 7–6 (``NTAG21xMirrorMode``).
  public static let mirrorConfigurationShift = 6
  public static let mirrorConfigurationMask: UInt8 = 0xC0
  /// CFG0 byte 0: MIRROR_BYTE, bits 5–4: the byte of MIRROR_PAGE where the mirror starts.
  public static let mirrorByteShift = 4
  public static let mirrorByteMask: UInt8 = 0x30
  /// CFG0 byte 0: STRG_MOD_EN, bit 2 (strong modulation; set as shipped, byte 0 = 04h).
  public static let strongModulation: UInt8 = 0x04
  /// The byte of CFG0 that holds MIRROR_PAGE (page numbers below 4 switch the mirror off).
  public static let mirrorPageByte = 2
  /// The byte of CFG0 that holds AUTH0.
  public static let auth0Byte = 3
  /// CFG1 byte 0 (ACCESS), bit 7: PROT, the password also protects reads.
  public static let protectReads: UInt8 = 0x80
  /// ACCESS bit 6: CFGLCK, CFG0 and CFG1 locked for good.
  public static let configurationLock: UInt8 = 0x40
  /// ACCESS bit 4: NFC_CNT_EN, the NFC counter counts (on the first READ or FAST_READ after the
  /// tag enters the field) and can be read.
  public static let nfcCounterEnable: UInt8 = 0x10
  /// ACCESS bit 3: NFC_CNT_PWD_PROT, READ_CNT (and the counter mirror) need PWD_AUTH first.
  public static let nfcCounterPasswordProtect: UInt8 = 0x08
  /// ACCESS bits 2–0: AUTHLIM.
  public static let authenticationLimitMask: UInt8 = 0x07
  /// READ_CNT for the NFC counter (number 02): the answer is 3 bytes, least significant first.
  public static let readCounter: [UInt8] = [0x39, 0x02]
  /// The character between the UID and the counter in the combined mirror (`x`).
  public static let mirrorSeparator: UInt8 = 0x78

  /// CFG0 byte 0 for `mode` starting at `byte` (0–3), keeping the other bits of `current`
  /// (STRG_MOD_EN, RFU).
  public static func mirrorByte(_ mode: NTAG21xMirrorMode, startingAt byte: Int, keeping current: UInt8) -> UInt8 {
    (current & ~(mirrorConfigurationMask | mirrorByteMask)) | (mode.rawValue << UInt8(mirrorConfigurationShift))
      | ((UInt8(truncatingIfNeeded: byte) & 0x03) << UInt8(mirrorByteShift))
  }
}
