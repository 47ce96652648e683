import Foundation
import Testing

/// MIFARE Classic through the tool in process, on the `sim:` reader with an image file that keeps
/// the card between commands: format, write, read, info, scan, erase, lock, --keys, and the exit
/// statuses of a wrong key and a bad keys file.
@Suite struct ClassicCLI {
  /// A fresh folder; `sim:KIND[@FACE]:FOLDER/card.mfd`.
  func simulator(_ kind: String, face: String = "acr122u") throws -> (reader: String, image: String) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-classic-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let image = directory.appendingPathComponent("card.mfd").path
    return ("sim:\(kind)@\(face):\(image)", image)
  }

  func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

  @Test(arguments: ["acr122u", "part3"])
  func formatWriteReadEraseOnAFactory1K(face: String) throws {
    let (reader, image) = try simulator("mifare-classic-1k", face: face)
    let before = try runTool(["read", "--reader", reader])
    #expect(before.status == 65, "\(before.stderr)")
    #expect(before.stderr.contains("no MIFARE Application Directory"))
    let format = try runTool(["format", "--reader", reader])
    #expect(format.status == 0, "\(format.stderr)")
    #expect(Array(try bytes(image)[16..<20]) == [0x14, 0x01, 0x03, 0xE1])
    let write = try runTool(["write", "text", "hello classic", "--reader", reader])
    #expect(write.status == 0, "\(write.stderr)")
    let read = try runTool(["read", "--format", "json", "--reader", reader])
    #expect(read.status == 0, "\(read.stderr)")
    #expect(read.stdout.contains("hello classic"))
    let scan = try runTool(["scan", "--format", "json", "--reader", reader])
    #expect(scan.stdout.contains("\"platform\":\"mifare-classic\""), "\(scan.stdout)")
    let erase = try runTool(["erase", "--reader", reader])
    #expect(erase.status == 0, "\(erase.stderr)")
    #expect(try runTool(["read", "--format", "json", "--reader", reader]).stdout == "{\"records\":[]}\n")
  }

  @Test func infoNamesTheKeysAndTheConditions() throws {
    let (reader, _) = try simulator("mifare-classic-4k-ndef")
    let info = try runTool(["info", "--reader", reader])
    #expect(info.status == 0, "\(info.stderr)")
    #expect(info.stdout.contains("MIFARE Classic 4K"))
    #expect(info.stdout.contains("sector 16: key A: the MAD public key A0A1A2A3A4A5; data read key A or B, write key B"))
    #expect(info.stdout.contains("sector 39: key A: the NDEF public key D3F7D3F7D3F7"))
  }

  @Test func aSectorNoKeyOpensIs77AndNothingChanges() throws {
    let (reader, image) = try simulator("mifare-classic-1k-ndef")
    #expect(try runTool(["write", "text", "first", "--reader", reader]).status == 0)
    var card = try bytes(image)
    let secret: [UInt8] = [0x5A, 0x6B, 0x7C, 0x8D, 0x9E, 0xAF]
    card.replaceSubrange(112..<118, with: secret)  // sector 1: key A
    card.replaceSubrange(122..<128, with: secret)  // and key B
    try Data(card).write(to: URL(fileURLWithPath: image))
    let refused = try runTool(["write", "text", "second", "--reader", reader])
    #expect(refused.status == 77, "\(refused.stderr)")
    #expect(refused.stderr.contains("no key opened sector 1"))
    #expect(!refused.stderr.contains("5A6B") && !refused.stderr.lowercased().contains("5a6b"))
    #expect(try bytes(image) == card)
    // The key from a keys file opens it; comments and blank lines are skipped.
    let keys = URL(fileURLWithPath: image).deletingLastPathComponent().appendingPathComponent("keys.txt")
    try Data("# site keys\n\n5a6b7c8d9eaf  # sector 1\n".utf8).write(to: keys)
    let written = try runTool(["write", "text", "second", "--keys", keys.path, "--reader", reader])
    #expect(written.status == 0, "\(written.stderr)")
    #expect(try runTool(["read", "--keys", keys.path, "--reader", reader]).stdout.contains("second"))
    try Data("5a6b7c8d9eaf\nnot a key\n".utf8).write(to: keys)
    let badFile = try runTool(["read", "--keys", keys.path, "--reader", reader])
    #expect(badFile.status == 64)
    #expect(badFile.stderr.contains("line 2 of the keys file"))
  }

  @Test func lockNeedsYesAndIsPermanent() throws {
    let (reader, image) = try simulator("mifare-classic-mini-ndef")
    #expect(try runTool(["write", "uri", "https://example.org", "--reader", reader]).status == 0)
    #expect(try runTool(["lock", "--reader", reader]).status == 64)
    let lock = try runTool(["lock", "--yes", "--reader", reader])
    #expect(lock.status == 0, "\(lock.stderr)")
    #expect(Array(try bytes(image)[118..<122]) == [0x07, 0x8F, 0x0F, 0x43])
    #expect(try runTool(["write", "text", "x", "--reader", reader]).status == 77)
    #expect(try runTool(["read", "--reader", reader]).stdout.contains("example.org"))
  }
}

extension ClassicCLI {
  /// `dump --memory` writes the `.mfd` layout other tools read: every block, trailers with the
  /// keys that opened them.
  @Test func dumpMemoryIsTheMFDLayout() throws {
    let (reader, image) = try simulator("mifare-classic-1k-ndef")
    #expect(try runTool(["write", "text", "dumped", "--reader", reader]).status == 0)
    let dump = try runTool(["dump", "--memory", "--format", "raw", "--reader", reader])
    #expect(dump.status == 0, "\(dump.stderr)")
    var expected = try bytes(image)
    for sector in 0..<16 { expected.replaceSubrange(sector * 64 + 58 ..< sector * 64 + 64, with: [UInt8](repeating: 0, count: 6)) }
    #expect([UInt8](dump.stdoutBytes) == expected)
  }
}

extension ClassicCLI {
  /// A dump written back with `write image`: the data blocks by default, the trailers with
  /// --all, block 0 skipped with a note; permanent access bits need --yes.
  @Test func aDumpRoundTripsThroughWriteImage() throws {
    let (source, _) = try simulator("mifare-classic-1k-ndef")
    #expect(try runTool(["write", "text", "restored message", "--reader", source]).status == 0)
    let dump = try runTool(["dump", "--memory", "--format", "raw", "--reader", source])
    let image = URL(fileURLWithPath: try simulator("x").image).deletingLastPathComponent().appendingPathComponent("dump.mfd")
    try FileManager.default.createDirectory(at: image.deletingLastPathComponent(), withIntermediateDirectories: true)
    try dump.stdoutBytes.write(to: image)
    let (target, _) = try simulator("mifare-classic-1k-ndef")
    let restore = try runTool(["write", "image", image.path, "--reader", target])
    #expect(restore.status == 0, "\(restore.stderr)")
    #expect(try runTool(["read", "--reader", target]).stdout.contains("restored message"))
    // A card whose trailers the image makes permanent: --all without --yes writes nothing.
    var locked = [UInt8](dump.stdoutBytes)
    locked.replaceSubrange(118..<121, with: [0x07, 0x8F, 0x0F])
    try Data(locked).write(to: image)
    let refused = try runTool(["write", "image", image.path, "--all", "--reader", target])
    #expect(refused.status == 64, "\(refused.stderr)")
    #expect(refused.stderr.contains("block 7"))
    locked.replaceSubrange(118..<121, with: [0x00, 0x00, 0x00])  // invalid: would block the sector
    try Data(locked).write(to: image)
    let invalid = try runTool(["write", "image", image.path, "--all", "--yes", "--reader", target])
    #expect(invalid.status == 65, "\(invalid.stderr)")
    #expect(invalid.stderr.contains("sector 1"))
  }
}

extension ClassicCLI {
  /// A key from a keys file never shows in the APDU trace: the authentications are masked.
  @Test(arguments: ["acr122u", "part3"])
  func keysStayOutOfTheTrace(face: String) throws {
    let (reader, image) = try simulator("mifare-classic-1k-ndef", face: face)
    #expect(try runTool(["write", "text", "traced", "--reader", reader]).status == 0)
    var card = try bytes(image)
    let secret: [UInt8] = [0x5A, 0x6B, 0x7C, 0x8D, 0x9E, 0xAF]
    card.replaceSubrange(112..<118, with: secret)
    try Data(card).write(to: URL(fileURLWithPath: image))
    let keys = URL(fileURLWithPath: image).deletingLastPathComponent().appendingPathComponent("keys")
    try Data("5A6B7C8D9EAF\n".utf8).write(to: keys)
    let read = try runTool(["read", "--trace", "--keys", keys.path, "--reader", reader])
    #expect(read.status == 0, "\(read.stderr)")
    #expect(read.stderr.contains("FF 00 00 00") || read.stderr.lowercased().contains("ff 00 00 00")
            || read.stderr.lowercased().contains("ff 82") || read.stderr.lowercased().contains("ff 86"), "no trace: \(read.stderr)")
    let flat = read.stderr.lowercased().replacingOccurrences(of: " ", with: "")
    #expect(!flat.contains("5a6b7c8d9eaf"))
  }
}

extension ClassicCLI {
  /// `provision` writes the Classic cards the feeder presents: NDEF-formatted ones as they are,
  /// factory ones formatted first (the MAD, the NDEF sectors), each holding its row's URL.
  @Test func provisionWritesFormattedAndFactoryClassicCards() throws {
    let dir = URL(fileURLWithPath: try simulator("x").image).deletingLastPathComponent()
    let feed = "sim:mifare-classic-1k-ndef+feed=2,seed=5,images=\(dir.appendingPathComponent("img").path)"
    let run = try runTool(["provision", "--count", "2", "--url", "https://example.com/{n:03}", "--json", "--timeout", "2",
                           "--ledger", dir.appendingPathComponent("l.sqlite").path, "--reader", feed])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains(#"{"event":"summary","done":2,"failed":0,"skipped":0,"remaining":0}"#))
    let images = dir.appendingPathComponent("img2")
    let factory = "sim:mifare-classic-1k/mifare-classic-4k/mifare-classic-mini+feed=3,seed=5,images=\(images.path)"
    let formatted = try runTool(["provision", "--count", "3", "--url", "https://example.com/{n:03}", "--json", "--timeout", "2",
                                 "--ledger", dir.appendingPathComponent("m.sqlite").path, "--reader", factory])
    #expect(formatted.status == 0, "\(formatted.stderr)")
    #expect(formatted.stdout.contains(#"{"event":"summary","done":3,"failed":0,"skipped":0,"remaining":0}"#), "\(formatted.stdout)")
    // A tag's image is saved when the next one comes, and the last one when the run ends.
    let saved = try FileManager.default.contentsOfDirectory(atPath: images.path).sorted()
    #expect(saved.count == 3, "\(saved)")
    for (n, (name, kind)) in zip(saved, ["mifare-classic-1k", "mifare-classic-4k", "mifare-classic-mini"]).enumerated() {
      let read = try runTool(["read", "--reader", "sim:\(kind):\(images.appendingPathComponent(name).path)"])
      #expect(read.stdout.contains("https://example.com/00\(n + 1)"), "\(name): \(read.stdout)\(read.stderr)")
    }
  }
}

extension ClassicCLI {
  /// `dump --memory --format json` of a Classic: the memory and each sector's key and conditions.
  @Test func jsonDumpCarriesTheSectors() throws {
    let (reader, _) = try simulator("mifare-classic-mini-ndef")
    let dump = try runTool(["dump", "--memory", "--format", "json", "--reader", reader])
    #expect(dump.status == 0, "\(dump.stderr)")
    #expect(dump.stdout.hasPrefix(#"{"kind":"memory","platform":"mifare-classic","length":320,"hex":"a1b2c3d4"#))
    #expect(dump.stdout.contains(#""sectors":{"sector0":{"keyType":"A","key":"the MAD public key A0A1A2A3A4A5","accessBits":"787788","conditions":"100 100 100 011","gpb":"c1"}"#))
    #expect(dump.stdout.contains(#""sector4":{"keyType":"A","key":"the NDEF public key D3F7D3F7D3F7""#))
  }
}

extension ClassicCLI {
  /// `value`: init, increment, decrement and read a value block on both faces, the value printed
  /// and kept in the card's image; what is not a value block is 65, a closed sector 77, and the
  /// command line's own mistakes 64.
  @Test(arguments: ["acr122u", "part3"])
  func valueBlocksThroughTheTool(face: String) throws {
    let (reader, image) = try simulator("mifare-classic-1k", face: face)
    let initial = try runTool(["value", "5", "--init", "100", "--reader", reader])
    #expect(initial.status == 0, "\(initial.stderr)")
    #expect(initial.stdout == "100\n")
    #expect(try runTool(["value", "5", "--increment", "25", "--reader", reader]).stdout == "125\n")
    #expect(try runTool(["value", "5", "--decrement", "200", "--reader", reader]).stdout == "-75\n")
    #expect(try runTool(["value", "5", "--reader", reader]).stdout == "-75\n")
    let stored = Array(try bytes(image)[80..<96])
    #expect(stored == [0xB5, 0xFF, 0xFF, 0xFF, 0x4A, 0x00, 0x00, 0x00, 0xB5, 0xFF, 0xFF, 0xFF, 0x05, 0xFA, 0x05, 0xFA])
    let notValue = try runTool(["value", "6", "--reader", reader])
    #expect(notValue.status == 65, "\(notValue.stderr)")
    #expect(notValue.stderr.contains("block 6 is not a value block"))
    #expect(try runTool(["value", "7", "--reader", reader]).status == 65)  // a trailer
    for args in [["value", "0"], ["value", "5", "--init", "1", "--increment", "1"], ["value", "5", "--decrement", "2147483648"]] {
      let refused = try runTool(args + ["--reader", reader])
      #expect(refused.status == 64, "\(args): \(refused.stderr)")
    }
    // Sector 1 behind keys of its own: 77 without them, done with --keys.
    var card = try bytes(image)
    card.replaceSubrange(112..<118, with: [0x5A, 0x6B, 0x7C, 0x8D, 0x9E, 0xAF])
    card.replaceSubrange(122..<128, with: [0x5A, 0x6B, 0x7C, 0x8D, 0x9E, 0xAF])
    try Data(card).write(to: URL(fileURLWithPath: image))
    let closed = try runTool(["value", "5", "--increment", "1", "--reader", reader])
    #expect(closed.status == 77, "\(closed.stderr)")
    #expect(closed.stderr.contains("no key opened sector 1"))
    let keys = URL(fileURLWithPath: image).deletingLastPathComponent().appendingPathComponent("keys")
    try Data("5A6B7C8D9EAF\n".utf8).write(to: keys)
    #expect(try runTool(["value", "5", "--increment", "1", "--keys", keys.path, "--reader", reader]).stdout == "-74\n")
  }
}
