import NFCEmulator
import NFCReaders
import NFCTags
import NFCTransport
import Testing
@testable import NTAG424Emulator

/// A link that records the commands it passes on.
private final class RecordingLink: Transceiver {
  let base: any Transceiver
  private(set) var sent: [[UInt8]] = []
  init(_ base: any Transceiver) { self.base = base }
  var capabilities: LinkCapabilities { base.capabilities }
  var updates: Int { sent.filter { $0.count > 1 && $0[0] == 0x00 && $0[1] == 0xD6 }.count }
  func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    sent.append(command)
    return try base.transceive(command)
  }
}

/// The Type 4 platform's write on a virtual NTAG 424 DNA: NLEN and the message in one UPDATE
/// BINARY only once GetVersion named the chip on the connection (`info`), and only while the
/// command fits one 128-byte frame (NT4H2421Gx datasheet §8.2.3.1: single-frame ISOUpdateBinary
/// on a StandardData file is tearing protected); otherwise NLEN 0000, the data, NLEN.
@Suite struct NTAG424SingleFrameWriteTests {
  private func platform(_ tag: NTAG424DNAVirtualTag, face kind: ReaderFaceKind) throws -> (Type4Tag, RecordingLink) {
    let face = try kind.makeFace(tag: tag)
    face.powerOff()
    face.powerOn()
    let target = try detectTarget(on: SimulatedAPDUTransport(readerName: kind.simulatedReaderName, card: face))
    let link = RecordingLink(target.link)
    return (Type4Tag(identifier: target.identifier, link: link, atr: target.atr), link)
  }

  private func message(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 5 &+ 3) } }

  @Test(arguments: [ReaderFaceKind.acr122u, .part3])
  func oneUpdateOnlyAfterGetVersionNamedThe424(face kind: ReaderFaceKind) throws {
    let tag = try NTAG424DNAVirtualTag()
    let (unnamed, before) = try platform(tag, face: kind)
    try unnamed.writeNDEF(message(40), verify: true)
    #expect(before.updates == 3 && !unnamed.protectsSingleFrameWrites)

    let (named, after) = try platform(tag, face: kind)
    #expect(try named.info().chip == "NTAG 424 DNA")
    #expect(named.protectsSingleFrameWrites)
    let sentBefore = after.sent.count
    try named.writeNDEF(message(117), verify: true)
    let writes = after.sent[sentBefore...].filter { $0.count > 1 && $0[1] == 0xD6 }
    #expect(writes.count == 1 && writes.first?.count == 5 + 119)
    try named.writeNDEF(message(118), verify: true)
    #expect(after.updates == 1 + 3)
    #expect(try platform(tag, face: kind).0.readNDEF() == message(118))
  }
}
