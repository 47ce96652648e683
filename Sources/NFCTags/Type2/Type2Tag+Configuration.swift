import NFCTransport

/// NTAG213/215/216 UID and NFC counter mirror: what the tag shows in place of some bytes of user
/// memory on every READ and FAST_READ.
///
/// The MIRROR byte of CFG0 holds MIRROR_CONF (bits 7–6: 01 UID, 10 NFC counter, 11 both) and
/// MIRROR_BYTE (bits 5–4), CFG0 byte 2 the MIRROR_PAGE; ACCESS (CFG1 byte 0) bit 4 is NFC_CNT_EN.
/// The UID shows as 14 ASCII hex characters, the counter as 6, both as UID `x` counter (21).
/// Source: nfc-protocols.md §7.2 (NXP NTAG213/215/216 data sheet §8.7 "UID and NFC counter
/// mirror"; Flipper `MfUltralightConfigPages`).
public struct NTAG21xMirror: Sendable, Equatable {
  /// What the mirror shows.
  public enum Mode: UInt8, Sendable, CaseIterable {
    case uid = 1, counter = 2, uidAndCounter = 3

    /// ASCII characters the mirror takes.
    public var length: Int {
      switch self {
      case .uid: return 14
      case .counter: return 6
      case .uidAndCounter: return 21
      }
    }
  }

  public var mode: Mode
  /// The page the first mirrored character goes to (MIRROR_PAGE).
  public var page: UInt8
  /// The byte in that page, 0–3 (MIRROR_BYTE).
  public var byte: UInt8

  public init(mode: Mode, page: UInt8, byte: UInt8) {
    self.mode = mode; self.page = page; self.byte = byte
  }

  /// Where the mirror starts and ends, as byte addresses in the tag's memory.
  public var addresses: Range<Int> {
    let start = Int(page) * 4 + Int(byte)
    return start ..< start + mode.length
  }

  /// CFG0 (4 bytes) and ACCESS with this mirror set; everything else kept. The counter mirror
  /// turns NFC_CNT_EN on.
  public func applied(toCFG0 cfg0: [UInt8], access: UInt8) -> (cfg0: [UInt8], access: UInt8) {
    var out = cfg0
    guard out.count == 4 else { return (cfg0, access) }
    out[0] = (out[0] & 0x0F) | (mode.rawValue << 6) | ((byte & 0x03) << 4)
    out[2] = page
    let newAccess = mode == .uid ? access : access | 0x10
    return (out, newAccess)
  }

  /// CFG0 with the mirror turned off (MIRROR_CONF 00), everything else kept.
  public static func cleared(cfg0: [UInt8]) -> [UInt8] {
    guard cfg0.count == 4 else { return cfg0 }
    var out = cfg0
    out[0] &= 0x3F
    return out
  }
}

/// What CFG0 and CFG1 say about protection and the mirror.
public struct Type2Configuration: Sendable, Equatable {
  /// CFG0: MIRROR, RFU, MIRROR_PAGE, AUTH0.
  public var cfg0: [UInt8]
  /// CFG1: ACCESS, RFU, RFU, RFU.
  public var cfg1: [UInt8]
  /// False when the configuration could not be read because reads are password-protected.
  public var readable: Bool

  /// ACCESS (CFG1 byte 0): PROT, CFGLCK, NFC_CNT_EN, NFC_CNT_PWD_PROT, AUTHLIM.
  public var access: UInt8 { cfg1.first ?? 0 }

  /// First protected page; FFh (factory) or beyond the last page: no protection.
  public var auth0: UInt8 { cfg0.count == 4 ? cfg0[3] : 0xFF }
  /// True when the mirror is on (MIRROR_CONF ≠ 00).
  public var mirrorOn: Bool { cfg0.count == 4 && cfg0[0] & 0xC0 != 0 }
}

extension Type2Tag {
  /// Reads CFG0 and CFG1 with one READ. A tag whose reads are password-protected refuses it:
  /// then the tag is reselected and the result says `readable: false`.
  /// - Throws: ``TagError/unsupported(_:)`` for chips without configuration pages.
  public func readConfiguration() throws(TagError) -> Type2Configuration {
    _ = try beginOperation()
    guard let product, let cfg0 = product.cfg0Page else {
      throw .unsupported("\(product?.name ?? "this Type 2 chip") has no configuration pages")
    }
    do {
      let bytes = try commands.read(page: cfg0)
      return Type2Configuration(cfg0: Array(bytes[0..<4]), cfg1: Array(bytes[4..<8]), readable: true)
    } catch .readRefused {
      try reselectAfterMute(command: "READ")
      return Type2Configuration(cfg0: [0, 0, 0, 0], cfg1: [0x80, 0, 0, 0], readable: false)
    }
  }

  /// Authenticates with `password` when the configuration says the tag is protected (AUTH0 within
  /// the chip's pages, or reads refused).
  /// - Returns: the PACK the tag answered, or nil when the tag is not protected.
  /// - Throws: ``TagError/authenticationFailed(_:)`` when the tag refuses the password.
  public func authenticateIfProtected(password: [UInt8], configuration: Type2Configuration) throws(TagError) -> [UInt8]? {
    guard let product else { return nil }
    guard !configuration.readable || Int(configuration.auth0) < product.totalPages else { return nil }
    return try authenticate(password: password)
  }

  /// Sets the UID/NFC counter mirror (NTAG213/215/216): ACCESS first (NFC_CNT_EN for the
  /// counter), then CFG0. Pages that already hold the values are not written.
  /// - Throws: ``TagError/unsupported(_:)`` for other chips or a mirror that does not lie inside
  ///   user memory.
  public func setMirror(_ mirror: NTAG21xMirror, configuration: Type2Configuration) throws(TagError) {
    _ = try beginOperation()
    guard let product, [.ntag213, .ntag215, .ntag216].contains(product),
          let cfg0Page = product.cfg0Page, let cfg1Page = product.cfg1Page else {
      throw .unsupported("the UID and counter mirror is an NTAG213/215/216 feature; this is \(chipName)")
    }
    let user = product.userPages
    guard mirror.byte < 4, Int(mirror.page) >= user.lowerBound,
          mirror.addresses.upperBound <= (user.upperBound + 1) * 4 else {
      throw .unsupported("a mirror of \(mirror.mode.length) characters at page \(mirror.page) byte \(mirror.byte) does not lie inside user memory")
    }
    guard configuration.readable, configuration.cfg0.count == 4 else {
      throw .unsupported("the configuration pages are read-protected")
    }
    try writeConfiguration(mirror.applied(toCFG0: configuration.cfg0, access: configuration.access),
                           current: configuration, cfg0Page: cfg0Page, cfg1Page: cfg1Page)
  }

  /// Turns the mirror off (so that a rewrite reads back what it wrote).
  public func clearMirror(configuration: Type2Configuration) throws(TagError) {
    _ = try beginOperation()
    guard configuration.mirrorOn, let cfg0Page = product?.cfg0Page, let cfg1Page = product?.cfg1Page else { return }
    try writeConfiguration((NTAG21xMirror.cleared(cfg0: configuration.cfg0), configuration.access),
                           current: configuration, cfg0Page: cfg0Page, cfg1Page: cfg1Page)
  }

  private func writeConfiguration(_ new: (cfg0: [UInt8], access: UInt8), current: Type2Configuration,
                                  cfg0Page: Int, cfg1Page: Int) throws(TagError) {
    if new.access != current.access, current.cfg1.count == 4 {
      try commands.write(page: cfg1Page, [new.access] + current.cfg1[1...])
    }
    if new.cfg0 != current.cfg0 { try commands.write(page: cfg0Page, new.cfg0) }
  }
}
