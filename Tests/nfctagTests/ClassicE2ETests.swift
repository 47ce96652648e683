import Foundation
import Testing

/// MIFARE Classic through the real pcscd and vpcd on both reader faces: what only they show (the
/// ATR's card name leading detection, the readers' own errors on a wrong key through pcscd).
/// Breadth is in the in-process Classic suites.
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .virtualReader)
struct ClassicEndToEnd {
  /// Provisions a factory 1K (the run formats it, then writes the row's message), then formats
  /// it again and writes a message of the full capacity (716 bytes: a Text record with 706
  /// characters, header 7 bytes, status byte and "en") and reads it back.
  @Test(arguments: ["acr122u", "part3"])
  func provisionAndFillAFactory1K(face: String) throws {
    let emulator = try Emulator(tag: "mifare-classic-1k", extra: ["--reader", face])
    defer { emulator.stop() }
    let ledger = emulator.image.deletingLastPathComponent().appendingPathComponent("l.sqlite")
    let provision = try runNFCTag(["provision", "--count", "1", "--url", "https://example.com/c/{n:03}", "--json",
                                   "--ledger", ledger.path, "--reader", e2eReader, "--timeout", "5"])
    #expect(provision.status == 0, "\(provision.stderr)")
    #expect(provision.stdout.contains(#"{"event":"summary","done":1,"failed":0,"skipped":0,"remaining":0}"#), "\(provision.stdout)")
    let provisioned = try runNFCTag(["read", "--reader", e2eReader])
    #expect(provisioned.stdout.contains("https://example.com/c/001"), "\(provisioned.stdout)\(provisioned.stderr)")
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

  /// A factory 4K through every command, one card per step list: format; the full 3,356 bytes
  /// (a Text record of 3,346 characters: header 7 bytes, status byte, "en") written and read
  /// back; `dump --memory` raw and JSON; erase; lock, then a write refused (77). Then a second
  /// card made from that dump with its MAD CRC spoiled and its NDEF sectors empty: reported and
  /// not trusted (65, nothing written), `write image` of the dump restores it, and its dump
  /// equals the first. Then a factory-fresh card: `write image --all` of the dump gives the same
  /// dump and the message.
  @Test(arguments: ["acr122u", "part3"])
  func aFactory4KThroughEveryCommand(face: String) throws {
    let emulator = try Emulator(tag: "mifare-classic-4k", extra: ["--reader", face])
    let directory = emulator.image.deletingLastPathComponent()
    let dumpFile = directory.appendingPathComponent("dump.mfd")
    let dump: [UInt8]
    do {
      defer { emulator.stop() }
      #expect(try runNFCTag(["format", "--reader", e2eReader]).status == 0)
      let text = String(repeating: "d", count: 3346)
      let write = try runNFCTag(["write", "text", text, "--lang", "en", "--reader", e2eReader])
      #expect(write.status == 0, "\(write.stderr)")
      let read = try runNFCTag(["read", "--format", "json", "--reader", e2eReader])
      #expect(read.stdout.contains(#""text":"\#(text)""#), "\(read.stderr)")
      #expect(try runNFCTag(["write", "text", text + "d", "--lang", "en", "--reader", e2eReader]).status == 73)
      let raw = try runNFCTag(["dump", "--memory", "--format", "raw", "--reader", e2eReader])
      #expect(raw.status == 0, "\(raw.stderr)")
      dump = [UInt8](raw.stdoutBytes)
      try raw.stdoutBytes.write(to: dumpFile)
      let json = try runNFCTag(["dump", "--memory", "--format", "json", "--reader", e2eReader])
      #expect(json.stdout.hasPrefix(#"{"kind":"memory","platform":"mifare-classic","length":4096,"#), "\(json.stderr)")
      #expect(json.stdout.contains(#""sector39":{"keyType":"A","key":"the NDEF public key D3F7D3F7D3F7""#))
      #expect(try runNFCTag(["erase", "--reader", e2eReader]).status == 0)
      #expect(try runNFCTag(["read", "--format", "json", "--reader", e2eReader]).stdout == "{\"records\":[]}\n")
      #expect(try runNFCTag(["lock", "--yes", "--reader", e2eReader]).status == 0)
      let refused = try runNFCTag(["write", "text", "x", "--reader", e2eReader])
      #expect(refused.status == 77, "\(refused.stderr)")
    }
    try #require(dump.count == 4096)
    // The second card: the dump's keys A, key B FF…FF (the dump shows it as zeros), the NDEF
    // sectors' data zeroed, MAD1's CRC spoiled.
    var card = dump
    for sector in 0..<40 {
      let trailer = sector < 32 ? sector * 64 + 48 : 2048 + (sector - 32) * 256 + 240
      card.replaceSubrange(trailer + 10 ..< trailer + 16, with: [UInt8](repeating: 0xFF, count: 6))
      if sector != 0 && sector != 16 {
        let first = sector < 32 ? sector * 64 : 2048 + (sector - 32) * 256
        card.replaceSubrange(first ..< trailer, with: [UInt8](repeating: 0, count: trailer - first))
      }
    }
    card[16] ^= 0xFF
    let spoiled = directory.appendingPathComponent("spoiled.mfd")
    try Data(card).write(to: spoiled)
    do {
      let second = try Emulator(tag: "mifare-classic-4k", image: spoiled, extra: ["--reader", face])
      defer { second.stop() }
      let untrusted = try runNFCTag(["read", "--reader", e2eReader])
      #expect(untrusted.status == 65, "\(untrusted.stderr)")
      #expect(untrusted.stderr.contains("not trusted"), "\(untrusted.stderr)")
      #expect(try runNFCTag(["write", "text", "x", "--reader", e2eReader]).status == 65)
      let restore = try runNFCTag(["write", "image", dumpFile.path, "--reader", e2eReader])
      #expect(restore.status == 0, "\(restore.stderr)")
      let again = try runNFCTag(["dump", "--memory", "--format", "raw", "--reader", e2eReader])
      #expect([UInt8](again.stdoutBytes) == dump, "\(again.stderr)")
    }
    // A third card, factory-fresh (keys FF…FF): `write image --all` makes it the dump's card.
    let third = try Emulator(tag: "mifare-classic-4k", extra: ["--reader", face])
    defer { third.stop() }
    let restore = try runNFCTag(["write", "image", dumpFile.path, "--all", "--reader", e2eReader])
    #expect(restore.status == 0, "\(restore.stderr)")
    let again = try runNFCTag(["dump", "--memory", "--format", "raw", "--reader", e2eReader])
    #expect([UInt8](again.stdoutBytes) == dump, "\(again.stderr)")
    let read = try runNFCTag(["read", "--format", "json", "--reader", e2eReader])
    #expect(read.stdout.contains(#""text":"\#(String(repeating: "d", count: 3346))""#), "\(read.stderr)")
  }

  /// A card whose NDEF sector keys are none of the known ones: 77, the sector named, the card
  /// unchanged. With the key second in a keys file, `read` opens the sector after nine refused
  /// keys A, the card selected again after each (through pcscd: InListPassiveTarget on the
  /// ACR122U, a reconnect with a reset on the Part 3 reader).
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
    let keys = directory.appendingPathComponent("keys.txt")
    try "# sector 1\n000102030405\n5A6B7C8D9EAF\n".write(to: keys, atomically: true, encoding: .utf8)
    let emulator = try Emulator(tag: "mifare-classic-1k", image: image, extra: ["--reader", face])
    let write = try runNFCTag(["write", "text", "changed", "--reader", e2eReader])
    // The keys file's second key opens sector 1 after every other key A was refused: the card,
    // silent after each refusal, is selected again each time through pcscd.
    let read = try runNFCTag(["read", "--keys", keys.path, "--reader", e2eReader])
    emulator.stop()
    #expect(write.status == 77, "\(write.stderr)")
    #expect(write.stderr.contains("no key opened sector 1"))
    #expect(read.status == 0, "\(read.stderr)")
    #expect(read.stdout.contains("kept"), "\(read.stdout)")
    #expect([UInt8](try Data(contentsOf: image)) == card)
  }
}
