/// Which key a MIFARE Classic access condition grants an operation to.
///
/// NXP MF1S50yyX (MIFARE Classic EV1 1K) datasheet §8.7.1–§8.7.3, Tables 7 and 8; the same tables
/// in MF1S70yyX (4K) and MF1S20yyX (Mini).
public enum MIFAREClassicKeyRight: Hashable, Sendable {
  case never, keyA, keyB, keyAOrB

  /// True when an authentication with `key` is granted.
  public func allows(_ key: MIFAREClassicKeyType) -> Bool {
    switch self {
    case .never: return false
    case .keyA: return key == .a
    case .keyB: return key == .b
    case .keyAOrB: return true
    }
  }
}

/// Key A (authentication command `60`) or key B (`61`). MF1S50yyX §9.1, Table 9.
public enum MIFAREClassicKeyType: UInt8, Hashable, Sendable {
  case a = 0x60, b = 0x61
}

/// The access bits C1 C2 C3 of one block group of a sector (MF1S50yyX §8.7.1): a number 0–7 read
/// as `C1 C2 C3`, so `0b001` is C3 set (the trailer's transport configuration).
public struct MIFAREClassicAccessBits: Hashable, Sendable {
  /// C1 (bit 2), C2 (bit 1), C3 (bit 0).
  public let bits: UInt8

  /// The condition `C1 C2 C3` (each 0 or 1).
  public init(c1: UInt8, c2: UInt8, c3: UInt8) {
    bits = (c1 & 1) << 2 | (c2 & 1) << 1 | (c3 & 1)
  }

  /// The condition numbered `bits` (C1 C2 C3 as a 3-bit number).
  public init(bits: UInt8) { self.bits = bits & 0x07 }

  var c1: UInt8 { bits >> 2 & 1 }
  var c2: UInt8 { bits >> 1 & 1 }
  var c3: UInt8 { bits & 1 }

  // MARK: - Data blocks (MF1S50yyX §8.7.3, Table 8)

  /// Who may read a data block.
  public var dataRead: MIFAREClassicKeyRight {
    switch bits {
    case 0b000, 0b010, 0b100, 0b110, 0b001: return .keyAOrB
    case 0b011, 0b101: return .keyB
    default: return .never
    }
  }

  /// Who may write a data block.
  public var dataWrite: MIFAREClassicKeyRight {
    switch bits {
    case 0b000: return .keyAOrB
    case 0b100, 0b110, 0b011: return .keyB
    default: return .never
    }
  }

  /// Who may increment a value block.
  public var dataIncrement: MIFAREClassicKeyRight {
    switch bits {
    case 0b000: return .keyAOrB
    case 0b110: return .keyB
    default: return .never
    }
  }

  /// Who may decrement, transfer and restore.
  public var dataDecrementTransferRestore: MIFAREClassicKeyRight {
    switch bits {
    case 0b000, 0b110, 0b001: return .keyAOrB
    default: return .never
    }
  }

  // MARK: - Sector trailers (MF1S50yyX §8.7.2, Table 7)

  /// Who may write key A (never readable).
  public var trailerKeyAWrite: MIFAREClassicKeyRight {
    switch bits {
    case 0b000, 0b001: return .keyA
    case 0b100, 0b011: return .keyB
    default: return .never
    }
  }

  /// Who may read the access bits (and GPB).
  public var trailerAccessBitsRead: MIFAREClassicKeyRight {
    switch bits {
    case 0b000, 0b010, 0b001: return .keyA
    default: return .keyAOrB
    }
  }

  /// Who may write the access bits (and GPB).
  public var trailerAccessBitsWrite: MIFAREClassicKeyRight {
    switch bits {
    case 0b001: return .keyA
    case 0b011, 0b101: return .keyB
    default: return .never
    }
  }

  /// Who may read key B.
  public var trailerKeyBRead: MIFAREClassicKeyRight {
    switch bits {
    case 0b000, 0b010, 0b001: return .keyA
    default: return .never
    }
  }

  /// Who may write key B.
  public var trailerKeyBWrite: MIFAREClassicKeyRight {
    switch bits {
    case 0b000, 0b001: return .keyA
    case 0b100, 0b011: return .keyB
    default: return .never
    }
  }

  /// True when key B is readable, so it cannot serve for authentication: the grey rows of
  /// Table 7 (MF1S50yyX §8.7.2: "If Key B may be read in the corresponding Sector Trailer it cannot
  /// serve for authentication"; an authentication with key B then makes the card refuse every
  /// following memory access).
  public var keyBIsData: Bool { trailerKeyBRead != .never }
}

/// The four conditions of a sector as bytes 6–8 of its trailer hold them, each bit stored twice
/// (once inverted). MF1S50yyX §8.7.1, Figure 10.
public struct MIFAREClassicAccessConditions: Hashable, Sendable {
  /// The conditions of block groups 0, 1, 2 and of the trailer (group 3). In a 16-block sector of
  /// the 4K (MF1S70yyX §8.7.3) groups 0–2 are blocks 0–4, 5–9 and 10–14.
  public let groups: [MIFAREClassicAccessBits]

  /// The factory conditions `FF 07 80`: data blocks 000, trailer 001 (transport configuration).
  public static let transport = MIFAREClassicAccessConditions(
    groups: [.init(bits: 0), .init(bits: 0), .init(bits: 0), .init(bits: 0b001)])

  /// Four conditions, groups 0–2 then the trailer.
  public init(groups: [MIFAREClassicAccessBits]) {
    var four = Array(groups.prefix(4))
    while four.count < 4 { four.append(.init(bits: 0)) }
    self.groups = four
  }

  /// Decodes trailer bytes 6–8; nil when a bit and its inverted copy agree (the format is
  /// violated: MF1S50yyX §8.7.1 "the whole sector is irreversibly blocked").
  public init?(bytes: [UInt8]) {
    guard bytes.count == 3 else { return nil }
    let b6 = bytes[0], b7 = bytes[1], b8 = bytes[2]
    let c1 = b7 >> 4, c2 = b8 & 0x0F, c3 = b8 >> 4
    guard b6 & 0x0F == ~c1 & 0x0F, b6 >> 4 == ~c2 & 0x0F, b7 & 0x0F == ~c3 & 0x0F else { return nil }
    groups = (0..<4).map { i in
      MIFAREClassicAccessBits(c1: c1 >> UInt8(i), c2: c2 >> UInt8(i), c3: c3 >> UInt8(i))
    }
  }

  /// Trailer bytes 6–8 for these conditions.
  public var bytes: [UInt8] {
    var c1: UInt8 = 0, c2: UInt8 = 0, c3: UInt8 = 0
    for (i, group) in groups.enumerated() {
      c1 |= group.c1 << UInt8(i)
      c2 |= group.c2 << UInt8(i)
      c3 |= group.c3 << UInt8(i)
    }
    return [(~c2 & 0x0F) << 4 | (~c1 & 0x0F), c1 << 4 | (~c3 & 0x0F), c3 << 4 | c2]
  }
}

extension MIFAREClassicAccessConditions {
  /// True when no key may ever write these access bits again (trailer conditions other than
  /// 001, 011 and 101: MF1S50yyX §8.7.2, Table 7): whatever they forbid is forbidden for good.
  /// Writing such a trailer is permanent; callers ask for an explicit confirmation first.
  public var isPermanent: Bool { groups[3].trailerAccessBitsWrite == .never }

  /// Decodes trailer bytes 6–8, naming the violation.
  /// - Throws: ``MIFAREClassicError/accessBitsInvalid(_:)`` when a bit and its inverted copy agree.
  public static func decode(_ bytes: [UInt8]) throws(MIFAREClassicError) -> MIFAREClassicAccessConditions {
    guard let conditions = MIFAREClassicAccessConditions(bytes: bytes) else {
      throw .accessBitsInvalid(Array(bytes.prefix(3)))
    }
    return conditions
  }

  /// The conditions of the groups as `C1C2C3` digits, groups 0–2 then the trailer ("000 000 000 001").
  public var summary: String {
    groups.map { g in "\(g.bits >> 2 & 1)\(g.bits >> 1 & 1)\(g.bits & 1)" }.joined(separator: " ")
  }
}

extension MIFAREClassicKeyRight: CustomStringConvertible {
  /// "never", "key A", "key B", "key A or B".
  public var description: String {
    switch self {
    case .never: return "never"
    case .keyA: return "key A"
    case .keyB: return "key B"
    case .keyAOrB: return "key A or B"
    }
  }
}
