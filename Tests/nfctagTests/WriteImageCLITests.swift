import Foundation
import Testing

/// `nfctag write image FILE`: a `dump --memory --format raw` image written back onto a tag of the
/// same chip, in process with `sim:` readers and their image files.
@Suite struct WriteImageCLI {
  static func scratch() throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-image-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
  }

  /// The user area of each kind's dump (docs/tag-types.md).
  static let userArea: [String: [Range<Int>]] = [
    "topaz96": [8 ..< 104], "topaz512": [8 ..< 104, 128 ..< 512], "ntag213": [16 ..< 160], "ntag216": [16 ..< 904],
    "felica-lite-s": [0 ..< 224], "icode-slix2": [0 ..< 316],
  ]

  /// Writes `text` onto a new simulated tag of `kind` and returns its raw memory dump.
  static func dumpOfATagWith(_ text: String, kind: String, in directory: URL) throws -> URL {
    let reader = "sim:\(kind):" + directory.appendingPathComponent("source.bin").path
    let written = try runTool(["write", "text", text, "--reader", reader])
    #expect(written.status == 0, "\(written.stderr)")
    let dump = try runTool(["dump", "--memory", "--format", "raw", "--reader", reader])
    #expect(dump.status == 0, "\(dump.stderr)")
    let image = directory.appendingPathComponent("dump.img")
    try dump.stdoutBytes.write(to: image)
    return image
  }

  @Test(arguments: ["topaz96", "topaz512", "ntag213", "ntag216", "felica-lite-s", "icode-slix2"])
  func aDumpIsWrittenBackOntoAFreshTagOfTheSameChip(kind: String) throws {
    let directory = try Self.scratch()
    let text = "cloned \(kind)"
    let image = try Self.dumpOfATagWith(text, kind: kind, in: directory)
    let target = directory.appendingPathComponent("target.bin")
    let reader = "sim:\(kind):" + target.path
    #expect(try runTool(["write", "text", "old", "--reader", reader]).status == 0)
    if kind.hasPrefix("ntag") {
      // Another UID on the target: pages 0-2 are never written.
      var bytes = try Data(contentsOf: target)
      bytes[1] = 0x99
      try bytes.write(to: target)
    }

    let r = try runTool(["write", "image", image.path, "--reader", reader])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stderr.contains("restored the image"), "\(r.stderr)")
    #expect(r.stderr.contains("verified"), "\(r.stderr)")
    let read = try runTool(["read", "--reader", reader])
    #expect(read.stdout.contains(text), "\(read.stdout) \(read.stderr)")
    let after = [UInt8](try runTool(["dump", "--memory", "--format", "raw", "--reader", reader]).stdoutBytes)
    let source = [UInt8](try Data(contentsOf: image))
    #expect(after.count == source.count)
    for range in Self.userArea[kind] ?? [] where range.upperBound <= min(after.count, source.count) {
      #expect(after[range] == source[range], "\(kind) \(range)")
    }
    if kind.hasPrefix("ntag") { #expect(after[1] == 0x99) }

    // Everything is equal now: nothing more to write.
    let again = try runTool(["write", "image", image.path, "--reader", reader])
    #expect(again.status == 0)
    #expect(again.stderr.contains("restored the image: 0 "), "\(again.stderr)")
  }

  @Test func anotherChipOrSizeIsRefusedInOneLine() throws {
    let directory = try Self.scratch()
    let image = try Self.dumpOfATagWith("x", kind: "ntag213", in: directory)
    let target = directory.appendingPathComponent("ntag215.bin")
    let reader = "sim:ntag215:" + target.path
    #expect(try runTool(["write", "text", "keep", "--reader", reader]).status == 0)
    let before = try Data(contentsOf: target)
    let r = try runTool(["write", "image", image.path, "--reader", reader])
    #expect(r.status == 65, "\(r.stderr)")
    #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
    #expect(r.stderr.contains("not an image of this chip"), "\(r.stderr)")
    #expect(try Data(contentsOf: target) == before)

    let type4 = try runTool(["write", "image", image.path, "--reader", "sim:type4"])
    #expect(type4.status == 65, "\(type4.stderr)")
    #expect(type4.stderr.split(separator: "\n").count == 1)
    #expect(type4.stderr.contains("not memory-mapped"), "\(type4.stderr)")

    let empty = directory.appendingPathComponent("empty.img")
    try Data().write(to: empty)
    #expect(try runTool(["write", "image", empty.path, "--reader", "sim:ntag213"]).status == 65)
    #expect(try runTool(["write", "image", directory.appendingPathComponent("missing").path, "--reader", "sim:ntag213"]).status == 66)
  }

  /// A locked tag's dump: without --all only the user pages are written; with --all the lock
  /// bits are permanent and need --yes, and nothing is written without it.
  @Test func allWritesTheLocksOnlyWithYes() throws {
    let directory = try Self.scratch()
    let sourceReader = "sim:ntag213:" + directory.appendingPathComponent("source.bin").path
    #expect(try runTool(["write", "text", "locked", "--lock", "--yes", "--reader", sourceReader]).status == 0)
    let dump = try runTool(["dump", "--memory", "--format", "raw", "--reader", sourceReader])
    let image = directory.appendingPathComponent("locked.img")
    try dump.stdoutBytes.write(to: image)

    let target = directory.appendingPathComponent("target.bin")
    let reader = "sim:ntag213:" + target.path
    #expect(try runTool(["info", "--reader", reader]).status == 0)  // creates the factory tag
    let factory = try Data(contentsOf: target)

    let refused = try runTool(["write", "image", image.path, "--all", "--reader", reader])
    #expect(refused.status == 64, "\(refused.stderr)")
    #expect(refused.stderr.contains("--yes"), "\(refused.stderr)")
    #expect(refused.stderr.contains("nothing was written"), "\(refused.stderr)")
    #expect(try Data(contentsOf: target) == factory)

    #expect(try runTool(["write", "image", image.path, "--yes", "--reader", reader]).status == 64)  // --yes needs --all

    let userOnly = try runTool(["write", "image", image.path, "--reader", reader])
    #expect(userOnly.status == 0, "\(userOnly.stderr)")
    #expect(userOnly.stderr.contains("CC (page 3) differs"), "\(userOnly.stderr)")
    #expect(try Data(contentsOf: target)[8 ..< 16] == factory[8 ..< 16])  // locks and CC untouched

    let all = try runTool(["write", "image", image.path, "--all", "--yes", "--reader", reader])
    #expect(all.status == 0, "\(all.stderr)")
    let locked = try Data(contentsOf: target)
    #expect(locked[10 ..< 16] == (try Data(contentsOf: image))[10 ..< 16])  // static lock bytes and the CC
    let write = try runTool(["write", "text", "again", "--reader", reader])
    #expect(write.status == 77, "\(write.stderr)")
  }

  @Test func verboseShowsThePlanAndQuietOnlyErrors() throws {
    let directory = try Self.scratch()
    let image = try Self.dumpOfATagWith("plan", kind: "ntag216", in: directory)
    let reader = "sim:ntag216:" + directory.appendingPathComponent("t.bin").path
    let verbose = try runTool(["write", "image", image.path, "-v", "--reader", reader])
    #expect(verbose.status == 0, "\(verbose.stderr)")
    #expect(verbose.stderr.contains("plan: Type 2 NTAG216: pages 4–225 (user memory)"), "\(verbose.stderr)")
    #expect(verbose.stderr.contains("order: NDEF length"), "\(verbose.stderr)")
    let quiet = try runTool(["write", "image", image.path, "--quiet", "--reader", reader])
    #expect(quiet.status == 0)
    #expect(quiet.stderr.isEmpty, "\(quiet.stderr)")
    // No progress line in a pipe, ever.
    #expect(!verbose.stderr.contains("\u{1B}[K") && !verbose.stderr.contains("written "))
  }
}
