import NFCReaders
import NFCTags
import NFCTransport
import Testing
@testable import NFCEmulator

/// A face whose first READ BINARY of page 4 (the first page of a Type 2 tag's data area) is
/// answered `6F 00` (no precise diagnosis): the reader failed, the tag's bytes are not known.
private final class DataAreaReadFails: VirtualCard {
  let base: any VirtualCard
  private(set) var spoiled = false
  init(_ base: any VirtualCard) { self.base = base }
  var atr: [UInt8] { base.atr }
  func powerOn() { base.powerOn() }
  func powerOff() { base.powerOff() }
  func reset() { base.reset() }
  func control(code: UInt32, _ data: [UInt8]) -> [UInt8]? { base.control(code: code, data) }
  func transmit(_ apdu: [UInt8]) -> [UInt8] {
    guard !spoiled, apdu.starts(with: [0xFF, 0xB0, 0x00, 0x04]) else { return base.transmit(apdu) }
    spoiled = true
    return [0x6F, 0x00]
  }
}

/// `info` on a Type 2 tag needs its data area (docs/faults.md): when the reader fails the read of
/// it, `info` fails as `read` does, on every face. On the faces that read a Type 2 tag by READ
/// BINARY, the CC (pages 0–3) comes in a read of its own, and a failed read of page 4 used to be
/// taken for TLVs that do not parse: `info` said "capacity 0 bytes" and succeeded.
@Suite struct Type2InfoReadFailure {
  fileprivate func platform(on face: ReaderFaceKind) throws -> (DataAreaReadFails, any NDEFTagPlatform) {
    let tag = try Type2VirtualTag(chip: .ntag213)
    let card = DataAreaReadFails(try face.makeFace(tag: tag))
    let transport = SimulatedAPDUTransport(readerName: "\(face.simulatedReaderName) 00 00", card: card)
    return (card, try makePlatform(for: try detectTarget(on: transport)))
  }

  @Test(arguments: [ReaderFaceKind.utrust3700f, .omnikey5022, .omnikey5422, .scl3711])
  func aFailedReadOfTheDataAreaFailsInfo(face: ReaderFaceKind) throws {
    let (card, platform) = try platform(on: face)
    #expect {
      let info = try platform.info()
      Issue.record("info succeeded: capacity \(info.ndef.capacity), \(info.details.map(\.text))")
    } throws: { error in
      guard let error = error as? TagError, case .transceive(.status(0x6F00), _, .some(4)) = error else { return false }
      return true
    }
    #expect(card.spoiled)
    // The tag is as it was: the next info reads it whole.
    #expect(try platform.info().ndef.capacity == 137)
  }
}
