import NFCReaders
import NFCTags
import NFCTransport
import Testing
@testable import NFCEmulator

/// Where a read costs a round trip per block, as a write does (the uTrust 3700 F's READ BINARY of
/// one page, the OMNIKEY 5022's of one ISO 15693 block), a write reads only the blocks its plan
/// does not fill; tear-safety (the length 00 first and last, the read-back) is unchanged.
@Suite struct WriteReads {
  /// READ BINARY APDUs (`FF B0`) a write sent on `face`, and the write's total.
  func readsOfAWrite(_ tag: any VirtualTag, on face: ReaderFaceKind, message: [UInt8]) throws -> (reads: Int, total: Int) {
    let recorder = RecordingTransport(SimulatedAPDUTransport(readerName: "\(face.simulatedReaderName) 00 00",
                                                             card: try face.makeFace(tag: tag)))
    let platform = try makePlatform(for: try detectTarget(on: recorder))
    let before = recorder.sent.count
    try platform.writeNDEF(message, verify: false)
    let sent = recorder.sent[before...]
    return (sent.filter { $0.starts(with: [0xFF, 0xB0]) }.count, sent.count)
  }

  /// NTAG215 on the uTrust: the CC (pages 0–3, 4 READ BINARY), the TLV walk's page 4 (4) and the
  /// last page's READ (4): 12 READ BINARY, not one per page of the message.
  @Test func aUTrustWriteReadsOnlyThePagesItDoesNotFill() throws {
    let message = longMessage(480, seed: 3)
    let (reads, _) = try readsOfAWrite(try Type2VirtualTag(chip: .ntag215), on: .utrust3700f, message: message)
    #expect(reads <= 12)
  }

  /// The OMNIKEY 5022 with a 16-byte READ BINARY still reads the area first: a READ brings 4
  /// pages for one round trip, where writing them costs 4.
  @Test func anOMNIKEYType2WriteStillComparesThePages() throws {
    let message = longMessage(480, seed: 3)
    let (reads, _) = try readsOfAWrite(try Type2VirtualTag(chip: .ntag215), on: .omnikey5022, message: message)
    #expect(reads >= 30)
  }

  /// ICODE SLIX2 on the OMNIKEY 5022: one block per READ BINARY, so only the CC, the first data
  /// block (the TLV walk) and the Terminator's block are read.
  @Test func anOMNIKEYICODEWriteReadsOnlyTheBlocksItDoesNotFill() throws {
    let message = longMessage(300, seed: 4)
    let (reads, _) = try readsOfAWrite(try ICODESLIX2VirtualTag(), on: .omnikey5022, message: message)
    #expect(reads <= 4)
  }

  /// The same message written again without the comparison: every page is written again, and the
  /// tag reads the message (the read-back passes).
  @Test func rewritingTheSameMessageOnTheUTrustWritesItAgain() throws {
    let tag = try Type2VirtualTag(chip: .ntag213)
    let message = longMessage(100, seed: 6)
    for _ in 0..<2 {
      let transport = SimulatedAPDUTransport(readerName: "\(ReaderFaceKind.utrust3700f.simulatedReaderName) 00 00",
                                             card: try ReaderFaceKind.utrust3700f.makeFace(tag: tag))
      try makePlatform(for: try detectTarget(on: transport)).writeNDEF(message, verify: true)
    }
    let transport = SimulatedAPDUTransport(readerName: "\(ReaderFaceKind.utrust3700f.simulatedReaderName) 00 00",
                                           card: try ReaderFaceKind.utrust3700f.makeFace(tag: tag))
    #expect(try makePlatform(for: try detectTarget(on: transport)).readNDEF() == message)
  }

  /// A tear at every command of a write on the uTrust (pages written without being read first)
  /// leaves the old message, the new one or an empty one, never a part.
  @Test func tearingOnTheUTrustNeverLeavesAPartialMessage() throws {
    let old = uriMessage("https://example.org/old/message/that/spans/several/pages")
    let new = longMessage(120, seed: 5)
    func freshTag() throws -> any VirtualCard {
      let face = try ReaderFaceKind.utrust3700f.makeFace(tag: try Type2VirtualTag(chip: .ntag213))
      let (_, platform) = try connectPartThree(face)
      try platform.writeNDEF(old, verify: true)
      return face
    }
    let outcomes = try tearAtEveryCommand(old: old, new: new, freshFace: freshTag)
    #expect(outcomes["old", default: 0] > 0)
    #expect(outcomes["new", default: 0] > 0)
    #expect(outcomes["empty", default: 0] > 0)
  }
}
