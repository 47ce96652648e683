import Foundation
import Testing

/// One virtual tag of each NFC Forum type, in the reader face that can talk to it.
struct VirtualKind: CustomTestStringConvertible, Sendable {
  var tag: String
  var face: String
  var platform: String

  var emulateArguments: [String] { ["--reader", face] }
  /// The in-process simulator with the same tag and face, over an image file.
  func simulator(_ image: URL) -> String { "sim:\(tag)@\(face):\(image.path)" }
  var testDescription: String { "\(tag) behind \(face)" }
}

let everyType: [VirtualKind] = [
  VirtualKind(tag: "topaz512", face: "acr122u", platform: "type1"),
  VirtualKind(tag: "ntag215", face: "acr122u", platform: "type2"),
  VirtualKind(tag: "felica-lite-s", face: "acr122u", platform: "type3"),
  VirtualKind(tag: "type4", face: "acr122u", platform: "type4"),
  VirtualKind(tag: "icode-slix2", face: "part3", platform: "type5"),
  // The same Type 2 and Type 4 tags behind the generic Part 3 reader.
  VirtualKind(tag: "ntag213", face: "part3", platform: "type2"),
  VirtualKind(tag: "type4", face: "part3", platform: "type4"),
]

/// Every tag type through the real pcscd: the real `nfctag` binary against `nfctag emulate`.
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .virtualReader)
struct EveryTypeEndToEnd {
  @Test(arguments: everyType)
  func writeReadDumpFormatEraseAndLock(kind: VirtualKind) throws {
    let emulator = try Emulator(tag: kind.tag, extra: kind.emulateArguments)
    defer { emulator.stop() }
    func nfctag(_ arguments: String...) throws -> RunResult {
      try runNFCTag(arguments + ["--reader", e2eReader, "--timeout", "10"])
    }

    let text = try nfctag("write", "text", "Hello, \(kind.platform)", "--lang", "en")
    #expect(text.status == 0, "\(text.stderr)")
    #expect(text.stderr.contains("verified"))
    let read = try nfctag("read", "--format", "json")
    #expect(read.stdout.contains(#""text":"Hello, \#(kind.platform)""#), "\(read.stdout) \(read.stderr)")

    #expect(try nfctag("write", "url", "https://example.org/\(kind.platform)").status == 0)
    let scan = try nfctag("scan", "--json")
    #expect(scan.status == 0, "\(scan.stderr)")
    #expect(scan.stdout.contains(#""uri":"https://example.org/\#(kind.platform)""#))
    #expect(scan.stdout.contains(#""platform":"\#(kind.platform)""#))

    // The NDEF bytes: one URI record (MB ME SR, 18-byte payload), code 04 (https://), "example…".
    let ndef = try nfctag("dump", "--format", "json")
    #expect(ndef.stdout.contains(#""kind":"ndef""#))
    #expect(ndef.stdout.contains("d1011255046578616d706c65"), "\(ndef.stdout)")

    // The whole memory in the image-file layout: it loads as a virtual tag that holds the same
    // message (secrets such as an NTAG's PWD read as zeros, so the bytes may differ there).
    let memory = try nfctag("dump", "--memory", "--format", "raw")
    #expect(memory.status == 0, "\(memory.stderr)")
    let image = try Data(contentsOf: emulator.image)
    // A Type 4 image file carries the tag's 7-byte UID after the memory (docs/tag-types.md); a
    // dump is the memory alone, which loads as an image of the older form.
    #expect(image.count - memory.stdoutBytes.count == (kind.platform == "type4" ? 7 : 0), "\(image.count) \(memory.stdoutBytes.count)")
    #expect(memory.stdoutBytes.prefix(64) == image.prefix(64))
    let dumped = emulator.image.deletingLastPathComponent().appendingPathComponent("dumped.bin")
    try memory.stdoutBytes.write(to: dumped)
    let reloaded = try runNFCTag(["read", "--format", "json", "--reader", kind.simulator(dumped)])
    #expect(reloaded.stdout.contains(#""uri":"https://example.org/\#(kind.platform)""#), "\(reloaded.stderr)")

    let info = try nfctag("info", "--json")
    #expect(info.status == 0, "\(info.stderr)")
    #expect(info.stdout.contains(#""status":"readWrite""#), "\(info.stdout)")

    #expect(try nfctag("erase").status == 0)
    #expect(try nfctag("read", "--format", "json").stdout == "{\"records\":[]}\n")
    #expect(try nfctag("write", "text", "again").status == 0)
    let format = try nfctag("format")
    #expect(format.status == 0, "\(format.stderr)")
    #expect(try nfctag("read", "--format", "json").stdout == "{\"records\":[]}\n")

    // Too large: 73, and nothing written.
    #expect(try nfctag("write", "text", "kept").status == 0)
    let before = try Data(contentsOf: emulator.image)
    let big = try nfctag("write", "text", String(repeating: "x", count: 2000))
    #expect(big.status == 73, "\(big.stderr)")
    #expect(big.stderr.contains("nothing was written"))
    #expect(try Data(contentsOf: emulator.image) == before)

    // Lock: refused without --yes, then permanent; a write after it is 77 and changes nothing.
    #expect(try nfctag("lock").status == 64)
    let lock = try nfctag("lock", "--yes")
    #expect(lock.status == 0, "\(lock.stderr)")
    let locked = try Data(contentsOf: emulator.image)
    let refused = try nfctag("write", "text", "not allowed")
    #expect(refused.status == 77, "\(refused.stderr)")
    #expect(refused.stderr.contains("read-only"))
    #expect(try Data(contentsOf: emulator.image) == locked)
    #expect(try nfctag("read").stdout.contains("kept"))
    #expect(try nfctag("info", "--json").stdout.contains(#""status":"readOnly""#))
    #expect(try nfctag("erase").status == 77)
  }

  /// The tag leaves after command k of a write, for every k the write takes (in CI; a plain
  /// `make test` cuts after the first three commands, every third one and the last two): the tool
  /// says 74 and "tap again", and the tag then holds the old message, the new one, or an empty one.
  @Test(.virtualReaderEarly, arguments: everyType.prefix(5))
  func tearingAtEveryCommandOfAWrite(kind: VirtualKind) throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-tear-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let image = directory.appendingPathComponent("tag.bin")
    let simulator = kind.simulator(image)
    let oldText = "old message"
    let newText = String(repeating: "new message ", count: 3)
    #expect(try runNFCTag(["write", "text", oldText, "--reader", simulator]).status == 0)
    let original = try Data(contentsOf: image)

    // How many APDUs the whole write takes (detection included), counted from the trace.
    let probe = directory.appendingPathComponent("probe.bin")
    try original.write(to: probe)
    let traced = try runNFCTag(["write", "text", newText, "--trace", "--reader", kind.simulator(probe)])
    #expect(traced.status == 0, "\(traced.stderr)")
    let commands = traced.stderr.split(separator: "\n").filter { $0.hasPrefix("trace: >") }.count
    #expect(commands >= 3)

    let cuts = (1...commands).filter { fullCounts || $0 <= 3 || $0 % 3 == 0 || $0 >= commands - 1 }
    var tears = 0
    for k in cuts {
      try original.write(to: image)
      let torn = try Emulator(tag: kind.tag, image: image, extra: kind.emulateArguments + ["--remove-after", String(k)])
      let write = try runNFCTag(["write", "text", newText, "--reader", e2eReader, "--timeout", "5"])
      _ = torn.waitForExit()
      torn.stop()
      if write.status != 0 {
        tears += 1
        #expect(write.status == 74, "tear after command \(k) of \(commands): \(write.stderr)")
        #expect(write.stderr.contains("tap"), "tear after command \(k): \(write.stderr)")
        #expect(write.stderr.split(separator: "\n").count == 1)
      }
      let after = try runNFCTag(["read", "--format", "json", "--reader", simulator])
      #expect(after.status == 0, "after a tear at command \(k) of \(commands): \(after.stderr)")
      let outcome = after.stdout
      #expect(outcome.contains(oldText) || outcome.contains(newText) || outcome == "{\"records\":[]}\n",
              "after a tear at command \(k) of \(commands): \(outcome)")
    }
    #expect(tears >= cuts.count - 1, "only the last command may complete the write")
  }
}

/// `write --append` and `write --lock --yes` on every type, through the in-process simulator (the
/// same code above the card transport; no pcscd needed, so these run everywhere).
@Suite struct EveryTypeAppendAndLock {
  @Test(arguments: everyType)
  func appendThenWriteAndLockInOneCommand(kind: VirtualKind) throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-append-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let reader = kind.simulator(directory.appendingPathComponent("tag.bin"))
    func nfctag(_ arguments: String...) throws -> RunResult { try runNFCTag(arguments + ["--reader", reader]) }

    #expect(try nfctag("write", "text", "first").status == 0)
    let append = try nfctag("write", "url", "https://example.org/second", "--append")
    #expect(append.status == 0, "\(append.stderr)")
    let both = try nfctag("read", "--format", "json")
    #expect(both.stdout.contains(#""text":"first""#), "\(both.stdout)")
    #expect(both.stdout.contains(#""uri":"https://example.org/second""#), "\(both.stdout)")

    let unconfirmed = try nfctag("write", "text", "final", "--lock")
    #expect(unconfirmed.status == 64, "\(unconfirmed.stderr)")
    #expect(try nfctag("read", "--format", "json").stdout == both.stdout, "nothing written without --yes")

    let locked = try nfctag("write", "text", "final", "--lock", "--yes")
    #expect(locked.status == 0, "\(locked.stderr)")
    #expect(locked.stderr.contains("read-only"))
    #expect(try nfctag("read").stdout.contains("final"))
    #expect(try nfctag("write", "text", "later").status == 77)
    #expect(try nfctag("info", "--json").stdout.contains(#""status":"readOnly""#))
  }
}
