import NDEF
@testable import NFCEmulator
import NFCReaders
import NFCTags
import NFCTestSupport
import NFCTransport
import Testing

/// A reader whose answers are damaged: bytes flipped, answers cut short or lengthened.
final class CorruptingTransport: APDUTransport {
  let base: any APDUTransport
  var random: SplitMix64
  init(_ base: any APDUTransport, seed: UInt64) {
    self.base = base
    random = SplitMix64(state: seed)
  }
  var readerName: String { base.readerName }
  var atr: [UInt8] { base.atr }
  func transmit(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    var reply = try base.transmit(apdu)
    switch Int.random(in: 0..<6, using: &random) {
    case 0 where !reply.isEmpty:
      let i = Int.random(in: 0..<reply.count, using: &random)
      reply[i] = UInt8.random(in: 0...255, using: &random)
    case 1 where !reply.isEmpty: reply.removeLast(Int.random(in: 1...reply.count, using: &random))
    case 2: reply += (0..<Int.random(in: 1...40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
    default: break
    }
    return reply
  }
}

/// Tag data is hostile: whatever a tag or an image holds, and whatever a reader answers, the
/// platforms and the emulator answer with errors, never a trap.
@Suite struct HostileTags {
  static let kinds = VirtualTagKind.allCases.filter { (try? $0.makeTag(uid: nil)) != nil }

  func run(_ transport: any APDUTransport) {
    guard let target = try? detectTarget(on: transport), let platform = try? makePlatform(for: target) else { return }
    _ = try? platform.queryNDEFStatus()
    _ = try? platform.readNDEF()
    _ = try? platform.info()
    _ = try? platform.readMemory()
    _ = try? platform.writeNDEF([0xD1, 0x01, 0x04, 0x54, 0x02, 0x65, 0x6E, 0x78], verify: true)
  }

  @Test(arguments: kinds)
  func randomMemoryImages(kind: VirtualTagKind) throws {
    let size = try kind.makeTag(uid: nil).memoryImage.count
    var random = SplitMix64(state: 0x5EED)
    for round in 0..<150 {
      var image = (0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }
      if round % 3 == 0, let factory = try? kind.makeTag(uid: nil).memoryImage {
        // Mostly sane: the factory image with a few bytes changed, so parsing gets deep.
        image = factory
        for _ in 0..<4 { image[Int.random(in: 0..<size, using: &random)] = UInt8.random(in: 0...255, using: &random) }
      }
      guard let tag = try? kind.makeTag(image: image), let face = try? kind.defaultFace.makeFace(tag: tag) else { continue }
      run(SimulatedAPDUTransport(readerName: kind.defaultFace.simulatedReaderName, card: face))
    }
  }

  @Test(arguments: kinds)
  func damagedAnswers(kind: VirtualTagKind) throws {
    for seed in 0..<150 as Range<UInt64> {
      let tag = try kind.makeTag(uid: nil)
      let face = try kind.defaultFace.makeFace(tag: tag)
      run(CorruptingTransport(SimulatedAPDUTransport(readerName: kind.defaultFace.simulatedReaderName, card: face), seed: seed))
    }
  }

  @Test(arguments: kinds)
  func wrongSizedImagesAreRefusedWithAMessage(kind: VirtualTagKind) throws {
    let size = try kind.makeTag(uid: nil).memoryImage.count
    for count in [0, 1, size - 1, size + 1] where count >= 0 {
      #expect(throws: EmulatorError.self) { try kind.makeTag(image: [UInt8](repeating: 0, count: count)) }
    }
  }
}
