import Foundation
import Testing

/// MIFARE Classic through the real pcscd and vpcd on both reader faces: what only they show (the
/// ATR's card name leading detection, the readers' own errors on a wrong key through pcscd).
/// Breadth is in the in-process Classic suites.
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .virtualReader)
struct ClassicEndToEnd {
  /// Formats a factory 1K, writes a message of the full capacity (716 bytes: a Text record with
  /// 706 characters, header 7 bytes, status byte and "en") and reads it back.
  @Test(arguments: ["acr122u", "part3"])
  func formatAFactory1KAndFillIt(face: String) throws {
    let emulator = try Emulator(tag: "mifare-classic-1k", extra: ["--reader", face])
    defer { emulator.stop() }
    let format = try runNFCTag(["format", "--reader", e2eReader])
    #expect(format.status == 0, "\(format.stderr)")
    let text = String(repeating: "c", count: 706)
    let write = try runNFCTag(["write", "text", text, "--lang", "en", "--reader", e2eReader])
    #expect(write.status == 0, "\(write.stderr)")
    let read = try runNFCTag(["read", "--format", "json", "--reader", e2eReader])
    #expect(read.status == 0, "\(read.stderr)")
    #expect(read.stdout.contains(#""text":"\#(text)""#))
    let tooBig = try runNFCTag(["write", "text", text + "c", "--lang", "en", "--reader", e2eReader])
    #expect(tooBig.status == 73, "\(tooBig.stderr)")
  }

  /// A card whose NDEF sector keys are none of the known ones: 77, the sector named, the card
  /// unchanged.
  @Test(arguments: ["acr122u", "part3"])
  func aWrongKeyIs77AndChangesNothing(face: String) throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-classic-e2e-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let image = directory.appendingPathComponent("card.mfd")
    #expect(try runTool(["write", "text", "kept", "--reader", "sim:mifare-classic-1k-ndef:\(image.path)"]).status == 0)
    var card = [UInt8](try Data(contentsOf: image))
    card.replaceSubrange(112..<118, with: [0x5A, 0x6B, 0x7C, 0x8D, 0x9E, 0xAF])  // sector 1 key A
    card.replaceSubrange(122..<128, with: [0x5A, 0x6B, 0x7C, 0x8D, 0x9E, 0xAF])  // and key B
    try Data(card).write(to: image)
    let emulator = try Emulator(tag: "mifare-classic-1k", image: image, extra: ["--reader", face])
    let write = try runNFCTag(["write", "text", "changed", "--reader", e2eReader])
    emulator.stop()
    #expect(write.status == 77, "\(write.stderr)")
    #expect(write.stderr.contains("no key opened sector 1"))
    #expect([UInt8](try Data(contentsOf: image)) == card)
  }
}
