import Foundation
import NFCEmulator
import NFCSession
import NFCTransport
import Testing
@testable import NTAG424Emulator

/// An image file keeps its tag's UID (docs/emulator.md "Image files"): a 424 DNA provisioned with
/// keys derived for its UID, saved by a feed as `NNNN-UID.bin` and loaded again, is the same tag,
/// so its SUNs still verify. The UID trails the memory (7 bytes); an image of the old size (no
/// UID) still loads, with the default UID or `--uid`'s; a UID given when loading wins.
@Suite struct NTAG424ImageUIDTests {
  static let uid = hex424("04A1B2C3D4E5F6")
  static let other = hex424("04112233445566")

  @Test(arguments: [VirtualTagKind.ntag424dna, .type4])
  func theImageCarriesTheUID(kind: VirtualTagKind) throws {
    registerVirtualNTAG424()
    let tag = try kind.makeTag(uid: Self.uid)
    let image = tag.memoryImage
    #expect(Array(image.suffix(7)) == Self.uid)
    #expect(try kind.makeTag(image: image).identifier == Self.uid)
    #expect(try kind.makeTag(image: image, uid: Self.other).identifier == Self.other)   // --uid wins
    // The old layout, without the UID: still a tag, with the default UID or the one given.
    let old = Array(image.dropLast(7))
    #expect(try kind.makeTag(image: old).identifier == kind.makeTag(uid: nil).identifier)
    #expect(try kind.makeTag(image: old, uid: Self.uid).identifier == Self.uid)
    #expect(try kind.makeTag(image: old, uid: Self.uid).memoryImage == image)
  }

  /// An image file of the old layout opened with a UID is written back whole, with it, so the
  /// next load without `--uid` is the same tag.
  @Test func anOldImageFileIsWrittenBackWithItsUID() throws {
    registerVirtualNTAG424()
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("424-uid-\(UUID().uuidString).bin").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let fresh = try VirtualTagKind.ntag424dna.makeTag(uid: nil).memoryImage
    try ImageFile.write(Array(fresh.dropLast(7)), to: path)
    let (file, tag) = try ImageFile.open(path: path, kind: .ntag424dna, uid: Self.uid)
    #expect(tag.identifier == Self.uid)
    _ = tag.respond(to: [0x00, 0xA4, 0x04, 0x0C, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00])
    _ = tag.respond(to: [0x90, 0x8D, 0x00, 0x00, 0x09, 0x02, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x03, 0x00])  // WriteData of NLEN 0003
    try file.saveIfChanged(tag)
    let (_, again) = try ImageFile.open(path: path, kind: .ntag424dna, uid: nil)
    #expect(again.identifier == Self.uid)
  }

  /// A `sim:ntag424dna:IMAGE` reader of a saved tag shows the saved UID.
  @Test func aSimulatedReaderOfASavedImageShowsItsUID() throws {
    registerVirtualNTAG424()
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("0001-\(hexString(Self.uid)).bin").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    try ImageFile.write(try VirtualTagKind.ntag424dna.makeTag(uid: Self.uid).memoryImage, to: path)
    let poller = try SessionReaders.simulator("sim:ntag424dna:" + path)
    let targets = try poller.waitForTargets(timeoutMilliseconds: 1000)
    #expect(targets.map(\.identifier) == [Self.uid])
  }
}
