/// A Type 5 chip recognised from its UID (MSB first: `E0`, manufacturer, then the chip's own
/// bytes). Sources: Flipper `slix.c` `slix_get_type` (ICODE type byte 01 with type indicator
/// 01 = SLIX2, 02 = SLIX; 02 SLIX-S; 03 SLIX-L), SL2S2602 §9.2 (80 blocks, block 79 the counter),
/// NXP community thread 2093136 (ICODE SLI/SLIX 28 blocks), Flipper SLIX-L files (8 blocks).
public struct Type5Chip: Hashable, Sendable {
  public var name: String
  /// Blocks GET SYSTEM INFORMATION reports; nil when not known.
  public var totalBlocks: Int?
  /// Blocks that hold user data (NDEF may use them); nil when not known.
  public var userBlocks: Int?
  /// True when the chip is known to answer READ MULTIPLE BLOCKS (23h) and LOCK BLOCK (22h).
  public var knownCommandSet: Bool

  /// The chip for a UID given least significant byte first; nil when it is not recognised.
  public init?(uid: [UInt8]) {
    guard uid.count == 8, uid[7] == 0xE0 else { return nil }
    let manufacturer = uid[6], type = uid[5], indicator = (uid[4] >> 3) & 0x03
    switch (manufacturer, type) {
    case (0x04, 0x01) where indicator == 0x01:
      self.init(name: "ICODE SLIX2 (SL2S2602)", totalBlocks: 80, userBlocks: 79, knownCommandSet: true)
    case (0x04, 0x01) where indicator == 0x02:
      self.init(name: "ICODE SLIX (SL2S2002)", totalBlocks: 28, userBlocks: 28, knownCommandSet: true)
    case (0x04, 0x01):
      self.init(name: "ICODE SLI", totalBlocks: 28, userBlocks: 28, knownCommandSet: true)
    case (0x04, 0x02):
      self.init(name: "ICODE SLIX-S", totalBlocks: nil, userBlocks: nil, knownCommandSet: true)
    case (0x04, 0x03):
      self.init(name: "ICODE SLIX-L", totalBlocks: 8, userBlocks: 8, knownCommandSet: true)
    case (0x04, _):
      self.init(name: "NXP ISO 15693 tag", totalBlocks: nil, userBlocks: nil, knownCommandSet: false)
    case (0x02, _):
      self.init(name: "ST ISO 15693 tag", totalBlocks: nil, userBlocks: nil, knownCommandSet: false)
    case (0x07, _):
      self.init(name: "TI Tag-it ISO 15693 tag", totalBlocks: nil, userBlocks: nil, knownCommandSet: false)
    default:
      return nil
    }
  }

  init(name: String, totalBlocks: Int?, userBlocks: Int?, knownCommandSet: Bool) {
    self.name = name
    self.totalBlocks = totalBlocks
    self.userBlocks = userBlocks
    self.knownCommandSet = knownCommandSet
  }
}
