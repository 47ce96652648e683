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

/// Every tag type through the real pcscd and vpcd: a write torn after each of its commands. (The
/// whole round of commands on every type, behind every reader face, is DriverFacesEndToEnd's.)
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .virtualReader)
struct EveryTypeEndToEnd {
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
