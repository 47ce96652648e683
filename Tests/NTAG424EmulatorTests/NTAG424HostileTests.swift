import NFCEmulator
import NFCReaders
import NFCTags
import NFCTestSupport
import NFCTransport
import Testing
@testable import NTAG424Emulator

/// Tag data is hostile, for the virtual 424 DNA as NFCEmulatorTests' HostileTags check it for the
/// kinds NFCEmulator builds: any image of the right size makes a tag that a faithful reader
/// identifies as Type 4, and the Type 4 platform's reads and writes on it, or through a reader
/// that damages answers, return or throw (`TagError`, `PollError`), never trap. Across the seeds
/// reads both succeed and fail, so the cases are not vacuous.
@Suite struct NTAG424HostileTests {
  static let message: [UInt8] = [0xD1, 0x01, 0x04, 0x55, 0x04, 0x61, 0x2E, 0x62]  // URI https://a.b

  @Test func randomImages() throws {
    let factory = try NTAG424DNAVirtualTag().memoryImage
    var random = SplitMix64(state: 0x5EED)
    var reads = (returned: 0, threw: 0)
    for round in 0..<150 {
      var image = (0..<factory.count).map { _ in UInt8.random(in: 0...255, using: &random) }
      if round % 3 == 0 {
        // Mostly sane: the factory image with a few bytes changed, so parsing gets deep.
        image = factory
        for _ in 0..<4 { image[Int.random(in: 0..<image.count, using: &random)] = UInt8.random(in: 0...255, using: &random) }
      }
      let tag = try NTAG424DNAVirtualTag(image: image)  // any bytes of the right size make a tag
      let face = try ReaderFaceKind.acr122u.makeFace(tag: tag)
      let target = try detectTarget(on: SimulatedAPDUTransport(card: face))
      #expect(target.platform == .type4, "image \(round): a faithful reader identifies any card")
      guard let platform = try? makePlatform(for: target) else { continue }
      do {
        _ = try platform.readNDEF()
        reads.returned += 1
      } catch {
        reads.threw += 1
      }
      _ = try? platform.writeNDEF(Self.message, verify: true)
    }
    #expect(reads.returned > 0 && reads.threw > 0, "\(reads)")
  }

  @Test func damagedAnswers() throws {
    var reads = (returned: 0, threw: 0)
    for seed in 0..<150 as Range<UInt64> {
      let face = try ReaderFaceKind.acr122u.makeFace(tag: try NTAG424DNAVirtualTag())
      let transport = CorruptingAPDUTransport(SimulatedAPDUTransport(card: face), seed: seed)
      guard let target = try? detectTarget(on: transport), let platform = try? makePlatform(for: target) else { continue }
      do {
        _ = try platform.readNDEF()
        reads.returned += 1
      } catch {
        reads.threw += 1
      }
      _ = try? platform.writeNDEF(Self.message, verify: true)
    }
    #expect(reads.returned > 0 && reads.threw > 0, "\(reads)")
  }
}
