import NFCTransport

/// What a PC/SC Part 3 contactless ATR says about the card. PC/SC Part 3 §3.1.3.2.3.
public struct PartThreeATR: Hashable, Sendable {
  /// What kind of card the ATR describes.
  public enum Kind: Hashable, Sendable {
    /// A storage card: standard byte (SS) and card name (NN NN).
    case storage(standard: UInt8, name: [UInt8])
    /// An ISO 14443-4 (ISO-DEP) card with its historical bytes.
    case isoDEP(historicalBytes: [UInt8])
    /// SCM's own form for a Topaz (card type 44h) or FeliCa (43h) card: `3B 82 80 01 02 44 TCK`
    /// and `3B 8C 80 01 04 43 FD IDm(8) timeout TCK` (SCL3711 Reference Manual v1.3 §5.3.3.3–4).
    case scm(cardMode: UInt8, cardType: UInt8)
    /// Not a contactless ATR this parser knows.
    case other
  }
  /// The ATR as the reader gave it.
  public let bytes: [UInt8]
  /// What the ATR says the card is.
  public let kind: Kind
  /// True when the check byte is right (XOR of bytes 1… is 0).
  public let checksumValid: Bool

  /// Parses `bytes`; an ATR of neither known form is ``Kind/other``.
  public init(_ bytes: [UInt8]) {
    self.bytes = bytes
    checksumValid = bytes.count > 1 && bytes.dropFirst().reduce(0, ^) == 0
    if bytes.count == 20, bytes.starts(with: [0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06]) {
      kind = .storage(standard: bytes[12], name: [bytes[13], bytes[14]])
    } else if bytes.count == 7, bytes.starts(with: [0x3B, 0x82, 0x80, 0x01, 0x02, 0x44]) {
      kind = .scm(cardMode: bytes[4], cardType: bytes[5])
    } else if bytes.count == 17, bytes.starts(with: [0x3B, 0x8C, 0x80, 0x01]), bytes[5] == 0x43, bytes[6] == 0xFD {
      kind = .scm(cardMode: bytes[4], cardType: bytes[5])
    } else if bytes.count >= 5, bytes[0] == 0x3B, bytes[1] & 0xF0 == 0x80, bytes[2] == 0x80, bytes[3] == 0x01 {
      let n = Int(bytes[1] & 0x0F)
      kind = bytes.count >= 4 + n ? .isoDEP(historicalBytes: Array(bytes[4..<(4 + n)])) : .other
    } else {
      kind = .other
    }
  }

  /// The historical bytes of an ISO-DEP card (from its ATS or ATQB), empty for any other kind.
  public var historicalBytes: [UInt8] {
    if case .isoDEP(let bytes) = kind { return bytes }
    return []
  }

  /// The NFC Forum platform, nil when the card is none (MIFARE Classic) or unknown.
  public var platform: TagPlatform? {
    switch kind {
    case .storage(let ss, let name):
      switch (name.first ?? 0, name.last ?? 0) {
      case (0x00, 0x03), (0x00, 0x3A), (0x00, 0x3D): return .type2
      case (0x00, 0x30), (0x00, 0x2F), (0xF0, 0x04): return .type1
      case (0x00, 0x3B), (0xF0, 0x11), (0xF0, 0x12): return .type3
      default: break
      }
      if (0x09...0x0C).contains(ss) { return .type5 }
      return nil
    case .isoDEP: return .type4
    case .scm(_, let type): return type == 0x44 ? .type1 : .type3
    case .other: return nil
    }
  }

  /// The card name, for people.
  public var cardName: String {
    switch kind {
    case .storage(let ss, let name):
      switch (name.first ?? 0, name.last ?? 0) {
      case (0x00, 0x01): return "MIFARE Classic 1K"
      case (0x00, 0x02): return "MIFARE Classic 4K"
      case (0x00, 0x03): return "MIFARE Ultralight family"
      case (0x00, 0x26): return "MIFARE Mini"
      case (0x00, 0x2F): return "Jewel"
      case (0x00, 0x30), (0xF0, 0x04): return "Topaz/Jewel"
      case (0x00, 0x3A): return "MIFARE Ultralight C"
      case (0x00, 0x3B), (0xF0, 0x11): return "FeliCa"
      case (0xF0, 0x12): return "FeliCa 424K"
      case (0x00, 0x3D): return "MIFARE Ultralight EV1"
      case (0x00, 0x14): return "ICODE SLI"
      default: return (0x09...0x0C).contains(ss) ? "ISO 15693 card" : "storage card \(hexString(name))"
      }
    case .isoDEP: return "ISO 14443-4 (ISO-DEP) card"
    case .scm(_, let type): return type == 0x44 ? "Topaz/Jewel" : "FeliCa"
    case .other: return "unknown card"
    }
  }
}
