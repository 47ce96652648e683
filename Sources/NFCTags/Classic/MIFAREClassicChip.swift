/// The MIFARE Classic chips: their memory layout, ATQA, SAK and names. NXP MF1S20yyX (Mini),
/// MF1S50yyX (1K) and MF1S70yyX (4K) datasheets.
public enum MIFAREClassicChip: String, CaseIterable, Sendable {
  case mini, classic1K, classic4K

  /// Sectors: 5, 16, 40 (MF1S70yyX §8.6.1: 32 sectors of 4 blocks, then 8 of 16).
  public var sectorCount: Int {
    switch self {
    case .mini: return 5
    case .classic1K: return 16
    case .classic4K: return 40
    }
  }

  /// Blocks of 16 bytes: 20, 64, 256.
  public var blockCount: Int { sectorCount <= 32 ? sectorCount * 4 : 128 + (sectorCount - 32) * 16 }

  /// The whole memory in bytes, trailers included (the `.mfd` size): 320, 1024, 4096.
  public var memorySize: Int { blockCount * 16 }

  /// ATQA as sent (2 bytes, most significant first) for a 4-byte NUID or a 7-byte UID:
  /// 1K `00 04`/`00 44` (MF1S50yyX §9.4, Table 11), 4K `00 02`/`00 42` (MF1S70yyX §9.4, Table 11),
  /// Mini `00 04`/`00 44` (MF1S20yyX §9.4).
  public func atqa(uidLength: Int) -> [UInt8] {
    let base: UInt8 = self == .classic4K ? 0x02 : 0x04
    return [0x00, uidLength == 7 ? base | 0x40 : base]
  }

  /// SAK: 1K 08 (MF1S50yyX §9.4, Table 12), 4K 18 (MF1S70yyX §9.4, Table 12), Mini 09 (MF1S20yyX §9.4).
  public var sak: UInt8 {
    switch self {
    case .mini: return 0x09
    case .classic1K: return 0x08
    case .classic4K: return 0x18
    }
  }

  /// The card name a PC/SC Part 3 reader puts in the ATR (PC/SC Part 3 Supplemental Document,
  /// "Card Name" table): 1K `00 01`, 4K `00 02`, Mini `00 26`.
  public var partThreeName: [UInt8] {
    switch self {
    case .mini: return [0x00, 0x26]
    case .classic1K: return [0x00, 0x01]
    case .classic4K: return [0x00, 0x02]
    }
  }

  /// "MIFARE Classic 1K" and so on.
  public var productName: String {
    switch self {
    case .mini: return "MIFARE Classic Mini"
    case .classic1K: return "MIFARE Classic 1K"
    case .classic4K: return "MIFARE Classic 4K"
    }
  }

  /// The chip a PC/SC Part 3 ATR's card name gives ("MIFARE Classic 1K", "MIFARE Classic 4K",
  /// "MIFARE Mini"), nil for another card.
  public init?(cardName: String) {
    switch cardName {
    case "MIFARE Classic 1K": self = .classic1K
    case "MIFARE Classic 4K": self = .classic4K
    case "MIFARE Mini", "MIFARE Classic Mini": self = .mini
    default: return nil
    }
  }

  /// The sector that holds `block`.
  public func sector(of block: Int) -> Int { block < 128 ? block / 4 : 32 + (block - 128) / 16 }

  /// The first block of `sector`.
  public func firstBlock(of sector: Int) -> Int { sector < 32 ? sector * 4 : 128 + (sector - 32) * 16 }

  /// The trailer block of `sector`.
  public func trailer(of sector: Int) -> Int { sector < 32 ? sector * 4 + 3 : 128 + (sector - 32) * 16 + 15 }

  /// Which access-bit group (0–2 data, 3 trailer) governs `block` (MF1S70yyX §8.7.3: in a
  /// 16-block sector groups of 5 blocks).
  public func accessGroup(of block: Int) -> Int {
    let offset = block - firstBlock(of: sector(of: block))
    return block < 128 ? offset : min(offset / 5, 3)
  }
}
