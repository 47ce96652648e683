import NDEF
@testable import NFCEmulator
import NFCReaders
import NFCTags
import NFCTestSupport
import NFCTransport
import Testing

/// Tag data is hostile: whatever a tag or an image holds, and whatever a reader answers, the
/// platforms and the emulator answer with errors, never a trap.
///
/// Each case records what every step did (``HostileCase``): a returned value must keep the
/// platform's invariants, and a failure must be a ``TagError`` (or, for detection, a
/// ``PollError``) of a kind that input can cause. Across the seeds of each tag kind, reads (and
/// with faithful answers, writes) must both succeed and fail, so the cases are not vacuous.
@Suite struct HostileTags {
  /// Every kind NFCEmulator builds itself but `ntag213-locked`, whose images are NTAG213 images
  /// (its factory tag is locked, so writes on it never succeed; the NTAG213 cases cover its
  /// memory). A kind with an external model (the NTAG 424 DNA) is built only once its module
  /// registered it, which another suite of this process may or may not have done. The MIFARE
  /// Classic kinds enter in their NDEF-formatted form (a factory card holds no MAD, so no read of
  /// one could ever succeed): their images walk the MAD, the trailers and the TLVs across sectors.
  /// The DESFire kinds are out: their image is a structure, not memory (most random bytes are not
  /// one), and a factory card holds no NDEF application; DESFireCommandTests and
  /// DESFireNDEFImageTests give them hostile frames and every cut of an image.
  static let kinds = VirtualTagKind.allCases.filter {
    $0 != .ntag213Locked && $0.externalModel == nil && $0.desfireChip == nil
      && ![.mifareClassic1K, .mifareClassic4K, .mifareClassicMini].contains($0)
  }

  /// What garbage memory may cause on top on a MIFARE Classic: trailers whose keys no key in the
  /// list matches; on a Type 4 tag: a CC whose read access byte is not 00, so the NDEF file is
  /// read-protected, which `read` refuses as unsupported (rare among the images: the draws that
  /// reach it came when the image grew by the UID's 7 bytes).
  static func imageFailures(_ kind: VirtualTagKind) -> Set<FailureKind> {
    if [.mifareClassic1KNDEF, .mifareClassic4KNDEF, .mifareClassicMiniNDEF].contains(kind) {
      return imageFailures.union([.authenticationFailed])
    }
    return kind == .type4 ? imageFailures.union([.unsupported]) : imageFailures
  }

  /// What garbage memory behind a faithful reader may cause: the tag is not NDEF, its structures
  /// are bad, it is locked or full, or it refuses a command (random passwords, locks, MC bits).
  static let imageFailures: Set<FailureKind> = [.notFormatted, .malformed, .readOnly, .insufficientCapacity, .transceive]
  /// What a reader that damages answers may cause on top: detection failing, an unusable
  /// identifier or answer (unsupported), a read-back that differs.
  static let damageFailures = imageFailures.union([.poll, .unsupported, .verifyFailed])

  /// Every outcome each step had across the cases of one test, to show both kinds occurred.
  struct Tally {
    private(set) var seen: [HostileStep: Set<StepOutcome>] = [:]
    private(set) var cases = 0
    mutating func add(_ report: HostileCase) {
      cases += 1
      for (step, outcome) in report.outcomes { seen[step, default: []].insert(outcome) }
    }
    func returned(_ step: HostileStep) -> Bool { seen[step]?.contains(.returned) == true }
    func threw(_ step: HostileStep) -> Bool { seen[step]?.contains { $0 != .returned } == true }
  }

  @Test(arguments: kinds)
  func randomMemoryImages(kind: VirtualTagKind) throws {
    let size = try kind.makeTag(uid: nil).memoryImage.count
    var random = SplitMix64(state: 0x5EED)
    var tally = Tally()
    for round in 0..<150 {
      var image = (0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }
      if round % 3 == 0, let factory = try? kind.makeTag(uid: nil).memoryImage {
        // Mostly sane: the factory image with a few bytes changed, so parsing gets deep.
        image = factory
        for _ in 0..<4 { image[Int.random(in: 0..<size, using: &random)] = UInt8.random(in: 0...255, using: &random) }
      }
      let tag = try kind.makeTag(image: image)  // any bytes of the right size make a tag
      let face = try kind.defaultFace.makeFace(tag: tag)
      let report = HostileCase.run(SimulatedAPDUTransport(readerName: kind.defaultFace.simulatedReaderName, card: face), clean: true)
      tally.add(report)
      #expect(report.outcomes[.detect] == .returned, "\(kind) image \(round): a faithful reader identifies any card")
      #expect(report.violations.isEmpty, "\(kind) image \(round): \(report.violations)")
      #expect(report.unexpected(Self.imageFailures(kind)).isEmpty, "\(kind) image \(round): \(report.unexpected(Self.imageFailures(kind)))")
    }
    #expect(tally.cases == 150)
    #expect(tally.returned(.read) && tally.threw(.read), "\(kind): reads \(tally.seen[.read] ?? [])")
    #expect(tally.returned(.write) && tally.threw(.write), "\(kind): writes \(tally.seen[.write] ?? [])")
  }

  /// A 4K's NDEF read takes two MAD sectors' authentications and reads before the message (12
  /// exchanges after detection), each answer damaged one time in two: no seed of 150 reads it
  /// whole, so the "reads succeed too" check cannot hold; its damaged answers are still run, by
  /// the Classic suites' 1K and Mini.
  static let damageKinds = kinds.filter { $0 != .mifareClassic4KNDEF }

  @Test(arguments: damageKinds)
  func damagedAnswers(kind: VirtualTagKind) throws {
    var tally = Tally()
    for seed in 0..<150 as Range<UInt64> {
      let tag = try kind.makeTag(uid: nil)
      let face = try kind.defaultFace.makeFace(tag: tag)
      let transport = CorruptingAPDUTransport(SimulatedAPDUTransport(readerName: kind.defaultFace.simulatedReaderName, card: face), seed: seed)
      let report = HostileCase.run(transport, clean: false)
      tally.add(report)
      #expect(report.violations.isEmpty, "\(kind) seed \(seed): \(report.violations)")
      #expect(report.unexpected(Self.damageFailures.union(Self.imageFailures(kind))).isEmpty, "\(kind) seed \(seed): \(report.unexpected(Self.damageFailures.union(Self.imageFailures(kind))))")
    }
    #expect(tally.cases == 150)
    #expect(tally.returned(.read) && tally.threw(.read), "\(kind): reads \(tally.seen[.read] ?? [])")
  }

  @Test(arguments: kinds)
  func wrongSizedImagesAreRefusedWithAMessage(kind: VirtualTagKind) throws {
    let size = try kind.makeTag(uid: nil).memoryImage.count
    for count in [0, 1, size - 1, size + 1] where count >= 0 {
      #expect(throws: EmulatorError.self) { try kind.makeTag(image: [UInt8](repeating: 0, count: count)) }
    }
  }
}
