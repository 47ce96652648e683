import NFCEmulator
import NFCReaders
import NFCTags
import NFCTransport
import Testing

/// Value blocks on the host side (MF1S50yyX §8.6.2.1, §8.2.5) over both reader faces against the
/// virtual card: the block format, INCREMENT/DECREMENT with TRANSFER, and the key the access bits
/// grant each operation.
@Suite struct ClassicValueHost {
  static let uid: [UInt8] = [0xA1, 0xB2, 0xC3, 0xD4]
  static let keyA: [UInt8] = [0x11, 0x12, 0x13, 0x14, 0x15, 0x16]
  static let keyB: [UInt8] = [0x21, 0x22, 0x23, 0x24, 0x25, 0x26]

  @Test func theBlockFormatRoundTripsAndRejectsSpoiledCopies() {
    for (value, address) in [(Int32(0), UInt8(4)), (100, 5), (-1, 6), (Int32.min, 8), (Int32.max, 62)] {
      let block = MIFAREClassicValueBlock(value: value, address: address)
      #expect(block.bytes == MIFAREClassicVirtualTag.valueBlock(value, address: address))
      #expect(MIFAREClassicValueBlock(block: block.bytes) == block)
      for i in 0..<16 {
        var spoiled = block.bytes
        spoiled[i] ^= 0x01
        #expect(MIFAREClassicValueBlock(block: spoiled) == nil, "byte \(i) of \(value)")
      }
    }
    #expect(MIFAREClassicValueBlock(block: [UInt8](repeating: 0, count: 16)) == nil)
    #expect(MIFAREClassicValueBlock(block: [0x01, 0x00]) == nil)
  }

  /// A card whose sector 1 has keys of its own and `groups` as access conditions (block 4's,
  /// blocks 5 and 6's, the trailer's), block 4 holding `value`.
  static func card(groups: [UInt8], value: Int32) throws -> MIFAREClassicVirtualTag {
    var image = try MIFAREClassicVirtualTag(chip: .classic1K, uid: uid).memoryImage
    let access = MIFAREClassicAccessConditions(groups: groups.map { MIFAREClassicAccessBits(bits: $0) }).bytes
    image.replaceSubrange(64..<80, with: MIFAREClassicValueBlock(value: value, address: 4).bytes)
    image.replaceSubrange(112..<128, with: keyA + access + [0x00] + keyB)
    return try MIFAREClassicVirtualTag(chip: .classic1K, image: image, uid: uid)
  }

  static func connect(_ tag: MIFAREClassicVirtualTag, face: ReaderFaceKind) throws -> MIFAREClassicTag {
    let transport = SimulatedAPDUTransport(readerName: face.simulatedReaderName, card: try face.makeFace(tag: tag))
    let platform = try #require(try makePlatform(for: try detectTarget(on: transport)) as? MIFAREClassicTag)
    platform.keys = MIFAREClassicKeyList(extra: [keyA, keyB])
    return platform
  }

  @Test(arguments: classicKeyFaces)
  func initIncrementDecrementOnAFactoryCard(face: ReaderFaceKind) throws {
    let tag = try MIFAREClassicVirtualTag(chip: .classic1K, uid: Self.uid)
    let platform = try Self.connect(tag, face: face)
    #expect(throws: TagError.self) { try platform.readValue(block: 5) }  // zeros: no value block
    try platform.initializeValue(100, block: 5)
    #expect(try platform.readValue(block: 5) == MIFAREClassicValueBlock(value: 100, address: 5))
    #expect(try platform.changeValue(block: 5, .increment(20)).value == 120)
    #expect(try platform.changeValue(block: 5, .decrement(150)).value == -30)
    #expect(tag.storedBlock(5) == MIFAREClassicVirtualTag.valueBlock(-30, address: 5))
    // A 4K's 16-block sectors too.
    let big = try MIFAREClassicVirtualTag(chip: .classic4K, uid: Self.uid)
    let onBig = try Self.connect(big, face: face)
    try onBig.initializeValue(7, block: 200)
    #expect(try onBig.changeValue(block: 200, .increment(1)).value == 8)
  }

  /// Access bits 110 on block 4 (MF1S50yyX Table 8: read A|B, write B, increment B, decrement
  /// A|B): the increment and the write are done with key B, the read and the decrement with
  /// whichever key opens first.
  @Test(arguments: classicKeyFaces)
  func eachOperationUsesAKeyTheAccessBitsGrant(face: ReaderFaceKind) throws {
    let tag = try Self.card(groups: [0b110, 0b000, 0b000, 0b011], value: 10)
    let platform = try Self.connect(tag, face: face)
    #expect(try platform.readValue(block: 4).value == 10)
    #expect(try platform.changeValue(block: 4, .increment(5)).value == 15)
    #expect(try platform.changeValue(block: 4, .decrement(3)).value == 12)
    try platform.initializeValue(-4, block: 4)
    #expect(MIFAREClassicValueBlock(block: try #require(tag.storedBlock(4)))?.value == -4)
  }

  /// Access bits 010 (read only) and 001 (read and decrement only): what no key may do is
  /// refused and the block keeps its value.
  @Test(arguments: classicKeyFaces)
  func whatNoKeyMayDoIsRefusedAndChangesNothing(face: ReaderFaceKind) throws {
    let readOnly = try Self.card(groups: [0b010, 0b000, 0b000, 0b011], value: 50)
    let onReadOnly = try Self.connect(readOnly, face: face)
    #expect(throws: TagError.self) { try onReadOnly.changeValue(block: 4, .decrement(1)) }
    #expect(throws: TagError.self) { try onReadOnly.initializeValue(1, block: 4) }
    #expect(try onReadOnly.readValue(block: 4).value == 50)
    let decrementOnly = try Self.card(groups: [0b001, 0b000, 0b000, 0b011], value: 50)
    let onDecrementOnly = try Self.connect(decrementOnly, face: face)
    #expect(throws: TagError.self) { try onDecrementOnly.changeValue(block: 4, .increment(1)) }
    #expect(try onDecrementOnly.changeValue(block: 4, .decrement(10)).value == 40)
    // A result past the 32-bit range is not asked of the card.
    try onDecrementOnly.initializeValue(0, block: 5)
    let onMin = try Self.connect(decrementOnly, face: face)
    _ = try onMin.changeValue(block: 5, .decrement(UInt32(Int32.max)))
    #expect(throws: TagError.self) { try onMin.changeValue(block: 5, .decrement(2)) }
    #expect(try onMin.readValue(block: 5).value == -Int32.max)
  }

  @Test func blockZeroTrailersAndBlocksPastTheCardHoldNoValue() throws {
    let platform = try Self.connect(try MIFAREClassicVirtualTag(chip: .classic1K, uid: Self.uid), face: .acr122u)
    for block in [0, 3, 7, 63, 64, -1] {
      let error = #expect(throws: TagError.self) { try platform.readValue(block: block) }
      guard case .unsupported? = error else { Issue.record("block \(block): \(String(describing: error))"); continue }
    }
  }
}
