// NTAG213/215/216 "UID and NFC counter mirror": where the room is, and the CFG0/ACCESS bytes.
//
// Sources: NXP NTAG213/215/216 and NTAG213F/216F data sheets, §8.7 "UID and NFC counter mirror"
// (the example of §8.7.3.1: URL "http://www.nxp.com/index.html?m=" + 21 zeros after a Lock
// Control TLV, mirrored from page 0Ch byte 1, CFG0 byte 0 = D4h, MIRROR_PAGE = 0Ch); bit
// positions as in Flipper's `MfUltralightConfigPages` (docs/tag-types.md): CFG0 byte 0 is
// MIRROR_CONF bits 7–6, MIRROR_BYTE bits 5–4, STRG_MOD_EN bit 2; CFG0 byte 2 is MIRROR_PAGE;
// ACCESS (CFG1 byte 0) has NFC_CNT_EN bit 4 and NFC_CNT_PWD_PROT bit 3.

import NFCTags

/// What the tag mirrors into the room: `--mirror uid|counter|uid+counter`.
public enum MirrorMode: String, Sendable, Hashable, CaseIterable {
  /// The 7-byte UID as 14 ASCII hex characters.
  case uid
  /// The 24-bit NFC counter as 6 ASCII hex characters (needs NFC_CNT_EN).
  case counter
  /// Both, joined by an `x` the tag inserts itself: 14 + 1 + 6 = 21 characters.
  case uidAndCounter = "uid+counter"

  /// The chip's mirror mode (NFCTags' table of the MIRROR_CONF bits).
  public var tagMode: NTAG21xMirrorMode {
    switch self {
    case .uid: return .uid
    case .counter: return .counter
    case .uidAndCounter: return .uidAndCounter
    }
  }

  /// The room the template must leave, in ASCII characters (bytes).
  public var roomLength: Int { tagMode.length }

  /// MIRROR_CONF (2 bits): 01b UID, 10b NFC counter, 11b both.
  public var mirrorConf: UInt8 { tagMode.rawValue }

  /// True when the NFC counter is mirrored, so NFC_CNT_EN must be set.
  public var usesCounter: Bool { self != .uid }
}

/// Where the mirror goes on an NTAG21x, and the configuration that makes the tag fill it.
public struct MirrorPlan: Hashable, Sendable {
  /// ACCESS bit 4: the NFC counter counts (and can be mirrored).
  public static let nfcCounterEnable = NTAG21xConfiguration.nfcCounterEnable
  /// ACCESS bit 3: the NFC counter is readable only after PWD_AUTH.
  public static let nfcCounterPasswordProtect = NTAG21xConfiguration.nfcCounterPasswordProtect

  /// The mirror mode.
  public var mode: MirrorMode
  /// MIRROR_PAGE (CFG0 byte 2): the page of the first mirrored byte, 4 or more.
  public var page: UInt8
  /// MIRROR_BYTE (0–3): the first mirrored byte within ``page``.
  public var byte: UInt8
  /// Absolute byte address of the first mirrored byte (page × 4 + byte).
  public var address: Int { Int(page) * 4 + Int(byte) }

  /// A plan as given (see ``compute(messageBytes:roomOffsetInMessage:mode:tlvAddress:tlvHeaderLength:userPages:)``).
  public init(mode: MirrorMode, page: UInt8, byte: UInt8) {
    self.mode = mode
    self.page = page
    self.byte = byte
  }

  /// The NDEF TLV header length for a message of `length` bytes as this package writes it:
  /// 2 (`03 LL`) below 255 bytes, 4 (`03 FF hh ll`) from 255 on.
  public static func tlvHeaderLength(forMessageLength length: Int) -> Int { length < 255 ? 2 : 4 }

  /// Places the mirror over the room of a message written in an NDEF TLV.
  ///
  /// The first mirrored byte is at `tlvAddress + tlvHeaderLength + roomOffsetInMessage`. On
  /// NTAG21x the data area starts at page 4 byte 0 (address 16); the NDEF TLV is there on a
  /// factory NTAG215/216, and at address 21 on a factory NTAG213, after its Lock Control TLV
  /// (`01 03 A0 0C 34`). The message must lie in user memory without reserved bytes inside it,
  /// which holds on NTAG21x (its lock bytes are after user memory).
  /// - Parameters:
  ///   - messageBytes: the encoded message (``RenderedMessage/bytes``).
  ///   - roomOffsetInMessage: where the room starts in `messageBytes` (``RenderedMessage/mirrorRoom``).
  ///   - mode: the mirror mode; the room is ``MirrorMode/roomLength`` bytes of ASCII `0`.
  ///   - tlvAddress: absolute address of the NDEF TLV's type byte (03h).
  ///   - tlvHeaderLength: 2 (1-byte length) or 4 (`FF hh ll`).
  ///   - userPages: the chip's user pages (NTAG213: 4…0x27, NTAG215: 4…0x81, NTAG216: 4…0xE1).
  /// - Throws: ``MirrorPlanError`` when the room is not in the message or not all `0`s, the
  ///   header length does not fit the message, MIRROR_PAGE would be below 4, or the mirrored
  ///   bytes would run past user memory (data sheet §8.7: the whole mirror must be in user memory).
  public static func compute(messageBytes: [UInt8], roomOffsetInMessage: Int, mode: MirrorMode,
                             tlvAddress: Int = 16, tlvHeaderLength: Int,
                             userPages: ClosedRange<Int>) throws(MirrorPlanError) -> MirrorPlan {
    let length = mode.roomLength
    guard roomOffsetInMessage >= 0, roomOffsetInMessage <= messageBytes.count - length else {
      throw MirrorPlanError(
        "the \(length)-byte mirror room at offset \(roomOffsetInMessage) is not inside the \(messageBytes.count)-byte message")
    }
    guard messageBytes[roomOffsetInMessage ..< roomOffsetInMessage + length].allSatisfy({ $0 == 0x30 }) else {
      throw MirrorPlanError("the message does not hold \(length) ASCII '0's at offset \(roomOffsetInMessage)")
    }
    guard tlvHeaderLength == 2 || tlvHeaderLength == 4 else {
      throw MirrorPlanError("an NDEF TLV header is 2 or 4 bytes, not \(tlvHeaderLength)")
    }
    guard tlvHeaderLength == 4 || messageBytes.count < 255 else {
      throw MirrorPlanError("a \(messageBytes.count)-byte message needs the 3-byte TLV length (a 4-byte header)")
    }
    guard tlvAddress >= 0 else { throw MirrorPlanError("the NDEF TLV address \(tlvAddress) is negative") }
    let start = tlvAddress + tlvHeaderLength + roomOffsetInMessage
    let page = start / 4
    guard page >= 4 else {
      throw MirrorPlanError("MIRROR_PAGE would be \(page); the mirror starts at page 4 or later")
    }
    let userEnd = (userPages.upperBound + 1) * 4
    guard start >= userPages.lowerBound * 4, start + length <= userEnd, let pageByte = UInt8(exactly: page) else {
      let memory = "pages \(userPages.lowerBound)–\(userPages.upperBound), bytes \(userPages.lowerBound * 4)–\(userEnd - 1)"
      throw MirrorPlanError("the mirror (bytes \(start)–\(start + length - 1)) runs past user memory (\(memory))")
    }
    return MirrorPlan(mode: mode, page: pageByte, byte: UInt8(start % 4))
  }

  /// CFG0 byte 0 (MIRROR) with ``mode`` and ``byte``: MIRROR_CONF in bits 7–6, MIRROR_BYTE in
  /// bits 5–4; STRG_MOD_EN (bit 2) and the other low bits kept from `current`.
  public func mirrorByte(from current: UInt8) -> UInt8 {
    NTAG21xConfiguration.mirrorByte(mode.tagMode, startingAt: Int(byte), keeping: current)
  }

  /// The CFG0 page and ACCESS byte that turn the mirror on.
  ///
  /// CFG0: byte 0 from ``mirrorByte(from:)``, byte 2 = ``page``; byte 1 (RFU) and byte 3
  /// (AUTH0) unchanged. ACCESS: for a counter mode, NFC_CNT_EN set and NFC_CNT_PWD_PROT cleared
  /// (so a phone, which does not authenticate, sees the counter); otherwise unchanged.
  /// - Parameters:
  ///   - cfg0: the 4 bytes of the CFG0 page as read from the tag.
  ///   - access: CFG1 byte 0 as read from the tag.
  /// - Returns: the new CFG0 page and ACCESS byte.
  /// - Throws: ``MirrorPlanError`` when `cfg0` is not 4 bytes.
  public func apply(to cfg0: [UInt8], access: UInt8) throws(MirrorPlanError) -> ([UInt8], UInt8) {
    guard cfg0.count == 4 else { throw MirrorPlanError("CFG0 is a 4-byte page, not \(cfg0.count) bytes") }
    var page = cfg0
    page[0] = mirrorByte(from: cfg0[0])
    page[2] = self.page
    var newAccess = access
    if mode.usesCounter {
      newAccess |= Self.nfcCounterEnable
      newAccess &= ~Self.nfcCounterPasswordProtect
    }
    return (page, newAccess)
  }
}

/// Why a mirror cannot be placed.
public struct MirrorPlanError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What is wrong.
  public var reason: String
  /// An error with `reason`.
  public init(_ reason: String) { self.reason = reason }
  public var description: String { reason }
}
