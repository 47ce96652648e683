import Testing
@testable import NFCEmulator

/// The extension point for kinds whose model is in another module: each test uses a table of its
/// own (`VirtualTagFactories()`), never the process's `shared` one, which NTAG424EmulatorTests
/// fills when they run in the same process. The `VirtualTagKind.makeTag` cases of such kinds are
/// one line each, a lookup in `shared`.
@Suite struct VirtualTagFactoriesTests {
  /// Only the NTAG 424 DNA's model is outside NFCEmulator; every other kind is built here.
  @Test func whichKindsTakeAFactory() {
    #expect(VirtualTagKind.allCases.filter { $0.externalModel != nil } == [.ntag424dna])
    #expect(VirtualTagKind.ntag424dna.externalModel == .init(productName: "NTAG 424 DNA", module: "NTAG424Emulator"))
    let table = VirtualTagFactories()
    #expect(VirtualTagKind.allCases.filter { !table.canMake($0) } == [.ntag424dna])
  }

  /// Without a registered factory, the kind is refused with a typed reason and a line that states
  /// the fact, for a factory tag and for an image alike.
  @Test func anUnregisteredKindIsRefusedWithItsReason() {
    let table = VirtualTagFactories()
    let line = "the virtual NTAG 424 DNA is in the NTAG424Emulator module, which this program does not link"
    let made = #expect(throws: EmulatorError.self) { try table.makeTag(.ntag424dna, uid: nil) }
    #expect(made?.reason == .kindNotLinked(.ntag424dna))
    #expect(made?.message == line)
    #expect(made?.workingFace == nil)
    let loaded = #expect(throws: EmulatorError.self) { try table.makeTag(.ntag424dna, image: [], uid: nil) }
    #expect(loaded == EmulatorError.kindNotLinked(.ntag424dna))
    #expect("\(EmulatorError.kindNotLinked(.ntag424dna))" == line)
    // Every other failure keeps the general reason.
    #expect(EmulatorError("an image has 288 bytes").reason == .failed)
  }

  /// A registered factory builds the kind, factory-fresh and from an image; registering again
  /// replaces it (a second `register()` of the same module changes nothing).
  @Test func aRegisteredFactoryBuildsTheKind() throws {
    let table = VirtualTagFactories()
    // A stand-in model: a Type 4 tag, so that this test needs nothing outside NFCEmulator.
    let register = {
      table.register(.ntag424dna, make: { uid throws(EmulatorError) in try Type4VirtualTag(uid: uid) },
                     loadImage: { image, uid throws(EmulatorError) in try Type4VirtualTag(image: image, uid: uid) })
    }
    register()
    register()
    #expect(table.canMake(.ntag424dna))
    let uid: [UInt8] = [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06]
    let fresh = try table.makeTag(.ntag424dna, uid: uid)
    #expect(fresh is Type4VirtualTag && fresh.identifier == uid)
    let loaded = try table.makeTag(.ntag424dna, image: fresh.memoryImage, uid: uid)
    #expect(loaded.memoryImage == fresh.memoryImage)
    // The factory's own errors come through as they are.
    let refused = #expect(throws: EmulatorError.self) { try table.makeTag(.ntag424dna, uid: [0x04]) }
    #expect(refused?.reason == .failed)
  }
}
