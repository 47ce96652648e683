import Foundation
import NFCReaders
import NFCTags
import NFCTestSupport
import NFCTransport
import Testing
@testable import NFCEmulator

/// The tag feeder's UIDs, tags and images, and the simulator's feed spec.
@Suite struct FeederUIDTests {
  @Test func uidsAreDeterministicAndValidForNTAG() throws {
    #expect(FeederUIDs.uid(for: .ntag213, seed: 7, index: 42) == FeederUIDs.uid(for: .ntag213, seed: 7, index: 42))
    for index in 1...2000 {
      let uid = FeederUIDs.uid(for: .ntag213, seed: 3, index: index)
      #expect(uid.count == 7 && uid[0] == 0x04)
      #expect(uid[3] != 0x88, "UID3 is never the cascade tag")
      let tag = try VirtualTagKind.ntag213.makeTag(uid: uid)
      let memory = tag.memoryImage
      #expect(memory[3] == 0x88 ^ uid[0] ^ uid[1] ^ uid[2])          // BCC0
      #expect(memory[8] == uid[3] ^ uid[4] ^ uid[5] ^ uid[6])         // BCC1
    }
  }

  @Test func feedsWithDifferentSeedsNeverShareAUID() {
    var one = Set<[UInt8]>(), two = Set<[UInt8]>()
    for index in 1...20_000 {
      one.insert(FeederUIDs.uid(for: .ntag213, seed: 1, index: index))
      two.insert(FeederUIDs.uid(for: .ntag213, seed: 2, index: index))
    }
    #expect(one.count == 20_000 && two.count == 20_000)             // distinct within a feed
    #expect(one.isDisjoint(with: two))
    #expect(FeederUIDs.uid(for: .ntag213, seed: 0, index: 1) != FeederUIDs.uid(for: .ntag213, seed: 1, index: 1))
  }

  /// Every kind NFCEmulator builds itself; the NTAG 424 DNA's are checked in NTAG424EmulatorTests.
  @Test func everyKindGetsAUIDItsModelAccepts() throws {
    for kind in VirtualTagKind.allCases where kind.externalModel == nil {
      for (seed, index) in [(0 as UInt64, 1), (1, 2), (UInt64.max, 3), (1 << 40, 999_999)] {
        let uid = FeederUIDs.uid(for: kind, seed: seed, index: index)
        let tag = try kind.makeTag(uid: uid)
        #expect(tag.identifier == uid, "\(kind)")
      }
    }
    #expect(FeederUIDs.uid(for: .felicaLiteS, seed: 0, index: 1).prefix(2) == [0x01, 0x2E])
    #expect(FeederUIDs.uid(for: .icodeSLIX2, seed: 0, index: 1).suffix(4) == [0x08, 0x01, 0x04, 0xE0])
  }

  @Test func thePermutationIsABijection() {
    var seen = Set<UInt64>()
    for x in 0..<(1 << 12) as Range<UInt64> { seen.insert(FeederUIDs.permute(x, bits: 12)) }
    #expect(seen.count == 1 << 12)
  }
}

@Suite struct TagFeederTests {
  func temporaryDirectory() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("feeder-\(UUID().uuidString)").path
  }

  @Test func kindsTakeTurnsAndImagesAreSavedInTheImageFormat() throws {
    let directory = temporaryDirectory() + "/nested"
    let feeder = try TagFeeder(settings: FeedSettings(kinds: [.ntag213, .ntag213Locked, .ntag210], count: 4, seed: 9,
                                                      imageDirectory: directory))
    var kinds: [VirtualTagKind] = []
    var names: [String] = []
    while let fed = try feeder.next() {
      kinds.append(fed.kind)
      #expect(fed.tag.respond(to: [0xA2, 0x04, 0x03, 0x01, 0xAB, 0xFE]) == (fed.kind == .ntag213Locked ? .nak(0) : .ack))
      let path = try #require(try feeder.save(fed))
      names.append(URL(fileURLWithPath: path).lastPathComponent)
      let saved = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
      #expect(saved == fed.tag.memoryImage)
      #expect(try fed.kind.makeTag(image: saved).identifier == fed.tag.identifier)
    }
    #expect(kinds == [.ntag213, .ntag213Locked, .ntag210, .ntag213])
    #expect(names.first == "0001-" + hexString(FeederUIDs.uid(for: .ntag213, seed: 9, index: 1)) + ".bin")
    #expect(Set(names).count == 4)
    #expect(try feeder.next() == nil)
  }

  @Test func theLockedTagReadsAsReadOnlyAndNTAG210IsSmall() throws {
    for (kind, expected, capacity) in [(VirtualTagKind.ntag213Locked, NDEFStatus.readOnly, 144), (.ntag210, .readWrite, 48)] {
      let face = try kind.defaultFace.makeFace(tag: try kind.makeTag(uid: nil))
      let target = try detectTarget(on: SimulatedAPDUTransport(card: face))
      let platform = try makePlatform(for: target)
      let status = try platform.queryNDEFStatus()
      #expect(status.status == expected, "\(kind)")
      #expect(status.capacity > 0 && status.capacity < capacity, "\(kind): \(status.capacity)")
      if kind == .ntag213Locked {
        let error = tagError { () throws(TagError) in try platform.writeNDEF([0xD1, 0x01, 0x01, 0x54, 0x00], verify: true) }
        guard case .readOnly? = error else { Issue.record("got \(String(describing: error))"); continue }
      }
    }
  }

  @Test func badFeedsAreRefused() {
    #expect(throws: EmulatorError.self) { try TagFeeder(settings: FeedSettings(kinds: [], count: 1)) }
    #expect(throws: EmulatorError.self) { try TagFeeder(settings: FeedSettings(kinds: [.ntag213], count: 0)) }
    #expect(throws: EmulatorError.self) { try TagFeeder(settings: FeedSettings(kinds: [.icodeSLIX2], count: 1), face: .acr122u) }
    #expect(throws: EmulatorError.self) { try TagFeeder(settings: FeedSettings(kinds: [.ntag213], count: 1, imageDirectory: "/proc/nope")) }
  }

  @Test func departures() {
    var departure = TagDeparture(handMilliseconds: 300)
    #expect(departure.deadline == nil)                                // nobody talked to it: it stays
    #expect(!departure.hasLeft(at: 1e9))
    departure.answered([0xFF, 0xCA, 0x00, 0x00, 0x00], at: 10)
    #expect(departure.deadline == 10.3)
    #expect(!departure.hasLeft(at: 10.2) && departure.hasLeft(at: 10.3))
    departure.answered([0xFF, 0x00, 0x40, 0x2E, 0x04, 0x01, 0x01, 0x01, 0x01], at: 11)
    #expect(departure.leaving && departure.hasLeft(at: 11))
  }

  /// On an ACR1252U or ACR1552U the feedback goes through `SCardControl`: the LED escape keeps the
  /// tag, the buzzer escape after it makes it leave.
  @Test func anACSBuzzerEscapeEndsTheFeedback() {
    var departure = TagDeparture(handMilliseconds: 5000)
    departure.controlled([0xE0, 0x00, 0x00, 0x29, 0x01, 0x02], at: 20)
    #expect(!departure.leaving && departure.deadline == 25)
    departure.controlled([0xE0, 0x00, 0x00, 0x18, 0x00], at: 21)
    #expect(!departure.leaving)
    departure.controlled([0xE0, 0x00, 0x00, 0x28, 0x01, 0x0A], at: 22)
    #expect(departure.leaving && departure.hasLeft(at: 22))
  }
}

@Suite struct SimulatorSpecParsing {
  @Test func feedOptions() throws {
    let spec = try SimulatorSpec(parsing: "sim:ntag213/ntag213-locked/ntag210+feed=30,seed=2,images=/tmp/a:b,hand-ms=50,latency=acr122u")
    #expect(spec.kinds == [.ntag213, .ntag213Locked, .ntag210])
    #expect(spec.face == .acr122u)
    #expect(spec.latency == .acr122u)
    #expect(spec.feed == FeedSettings(kinds: [.ntag213, .ntag213Locked, .ntag210], count: 30, seed: 2,
                                      imageDirectory: "/tmp/a:b", handMilliseconds: 50))
    let plain = try SimulatorSpec(parsing: "sim:icode-slix2+latency=acr122u,image=/tmp/x.bin")
    #expect(plain.face == .part3 && plain.imagePath == "/tmp/x.bin" && plain.feed == nil)
    #expect(try SimulatorSpec(parsing: "sim:ntag215@part3:/tmp/y.bin").imagePath == "/tmp/y.bin")
  }

  @Test(arguments: ["sim:ntag213/ntag215", "sim:ntag213+feed=0", "sim:ntag213+seed=1", "sim:ntag213+feed=2,feed=3",
                    "sim:ntag213+feed=2,image=/x", "sim:ntag213+bogus=1", "sim:ntag213+feed", "sim:ntag213+latency=fast",
                    "sim:ntag213+feed=2,hand-ms=-1", "sim:/ntag213+feed=2"])
  func badSpecsAreRefused(text: String) {
    #expect(throws: EmulatorError.self) { try SimulatorSpec(parsing: text) }
  }
}
