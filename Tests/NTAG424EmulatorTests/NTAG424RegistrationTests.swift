import NFCEmulator
import NFCSession
import NFCTransport
import Testing
@testable import NTAG424Emulator

/// `NTAG424Emulator.register()`: once it ran, every way of making a tag by kind builds the virtual
/// 424 DNA, as in nfctag-provision (the refusal without it is NFCEmulatorTests' and nfctagTests').
@Suite struct NTAG424RegistrationTests {
  /// The kind's factory tag and its image, through `VirtualTagKind`; a second registration
  /// changes nothing.
  @Test func theKindIsBuiltOnceRegistered() throws {
    registerVirtualNTAG424()
    registerVirtualNTAG424()
    #expect(VirtualTagFactories.shared.canMake(.ntag424dna))
    let uid = hex424("04A1B2C3D4E5F6")
    let tag = try #require(try VirtualTagKind.ntag424dna.makeTag(uid: uid) as? NTAG424DNAVirtualTag)
    #expect(tag.identifier == uid && tag.productName == "NTAG 424 DNA")
    let loaded = try VirtualTagKind.ntag424dna.makeTag(image: tag.memoryImage, uid: uid)
    #expect(loaded is NTAG424DNAVirtualTag && loaded.memoryImage == tag.memoryImage)
    // The model's own checks come through the factory with their reason.
    let short = #expect(throws: EmulatorError.self) { try VirtualTagKind.ntag424dna.makeTag(image: [0x00]) }
    #expect(short?.reason == .failed)
  }

  /// A feed's UIDs for the kind are UIDs its model accepts (FeederTests checks the other kinds).
  @Test func feederUIDsAreAccepted() throws {
    registerVirtualNTAG424()
    for (seed, index) in [(0 as UInt64, 1), (1, 2), (UInt64.max, 3), (1 << 40, 999_999)] {
      let uid = FeederUIDs.uid(for: .ntag424dna, seed: seed, index: index)
      #expect(try VirtualTagKind.ntag424dna.makeTag(uid: uid).identifier == uid)
    }
  }

  /// A `sim:ntag424dna` reader of a session: the tag is identified as a Type 4 tag with its UID.
  @Test func aSimulatedReaderShowsTheTag() throws {
    registerVirtualNTAG424()
    let poller = try SessionReaders.simulator("sim:ntag424dna")
    let targets = try poller.waitForTargets(timeoutMilliseconds: 1000)
    #expect(targets.map(\.platform) == [.type4])
    #expect(targets.first?.identifier == NTAG424DNAVirtualTag.defaultUID)
  }
}
