import NFCTags
import NFCTestSupport
import NFCTransport
import Testing

/// A write plan needs the old contents only of the blocks it does not fill; the blocks it fills
/// may be left unread, and are then written, in the same tear-safe order.
@Suite struct TLVWriteReadsTests {
  /// A 22-byte message at page 4 of a 64-byte area: the header 03 16 and the message fill pages
  /// 4–9, the Terminator shares page 10 with 3 bytes that are kept.
  func plan() throws -> (TLVWritePlan, [UInt8]) {
    var bytes = (0..<96).map { UInt8(truncatingIfNeeded: $0 | 0x80) }
    bytes.replaceSubrange(16..<19, with: hex("03 00 FE"))
    let layout = try TLVLayout.parse(memory: TLVMemoryImage(bytes), area: TLVArea(start: 16, end: 80))
    return (try TLVWriter.plan(message: (1...22).map { UInt8($0) }, layout: layout), bytes)
  }

  @Test func onlyTheBlocksThePlanDoesNotFillMustBeRead() throws {
    let (plan, _) = try plan()
    #expect(plan.touchedBlocks(blockSize: 4) == [4, 5, 6, 7, 8, 9, 10])
    #expect(plan.filledBlocks(blockSize: 4) == [4, 5, 6, 7, 8, 9])
    #expect(plan.blocksToRead(blockSize: 4, comparing: false) == [10])
    #expect(plan.blocksToRead(blockSize: 4, comparing: true) == [4, 5, 6, 7, 8, 9, 10])
  }

  @Test func unreadFilledBlocksAreWrittenInTheTearSafeOrder() throws {
    let (plan, bytes) = try plan()
    let last = Array(bytes[40..<44])
    let writes = try plan.orderedWrites(blockSize: 4, current: [10: last])
    #expect(writes.map(\.block) == [4, 5, 6, 7, 8, 9, 10, 4])
    #expect(writes.first?.bytes == hex("03 00 01 02"), "the length 00 first")
    #expect(writes.last?.bytes == hex("03 16 01 02"), "the length last")
    var written = bytes
    for write in writes { written.replaceSubrange((write.block * 4)..<(write.block * 4 + 4), with: write.bytes) }
    var expected = bytes
    for (address, value) in plan.bytes { expected[address] = value }
    #expect(written == expected)
    #expect(written[41..<44] == bytes[41..<44])  // the bytes after the Terminator are kept
  }

  @Test func aBlockThePlanDoesNotFillMustStillBeRead() throws {
    let (plan, _) = try plan()
    #expect(throws: TagError.self) { try plan.orderedWrites(blockSize: 4, current: [:]) }
  }
}
