import Foundation
import Testing

/// Every command README.md, CONTRIBUTING.md and docs/*.md show runs, as written, and exits 0
/// (or the status an annotation documents).
///
/// - Fenced `sh` blocks: each line (continuations joined, comments cut) runs through `/bin/sh`
///   in a scratch folder of its own per block, in order, with fixtures (`key.txt`, `pw.txt`, `commands.txt`,
///   `rows.csv`, `template.json`, `secret.txt`, `run.ledger`, `$TAG_PWD`, a `$HOME`, and the AES
///   keys `key0.hex`, `key1.hex`, `key2.hex`, `master.hex` and `keys.hex`: five lines, keys 0 to 4). `nfctag` on
///   the `PATH` is a wrapper that runs the built binary with every tag command's `--reader`
///   (given or not) turned into the in-process simulator (`sim:ntag215:…`; `sim:type4:…` for
///   `send --apdu`; `sim:ntag424dna:…`, one image per block, for `sdm setup` and `keys`, which
///   nfctag hands to nfctag-provision; a feed of tags for `provision`, one per `--reader`: NTAG
///   424 DNA with `--sdm-url`), and
///   an idle timeout for `scan --continuous`.
/// - The blocks and inline commands with a command that needs pcscd (`readers`, `doctor`,
///   `reader`, `emulate`) are `DocsCommandsEndToEnd`'s, which runs in the end-to-end mode only
///   (`make test`).
/// - An HTML comment right before a block says what the test cannot do there:
///   `<!-- doc-test: skip — REASON -->`, or `<!-- doc-test: "SUBSTRING" exits N — REASON -->`
///   for a line that exits N on purpose.
/// - Inline commands: the spans `` `nfctag …` `` that are complete commands, those with `--format`
///   or global options (`nfctag --version`), each on its own, with a message in hex on standard
///   input for those that read one; the others name a command in prose.
@Suite struct DocsCommands {
  static let files: [URL] = {
    let docs = packageRoot.appendingPathComponent("docs")
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: docs.path)) ?? []).filter { $0.hasSuffix(".md") }.sorted()
    return ["README.md", "CONTRIBUTING.md"].map { packageRoot.appendingPathComponent($0) } + names.map { docs.appendingPathComponent($0) }
  }()

  struct Block: Sendable, CustomTestStringConvertible {
    var file: String
    var line: Int
    var commands: [(line: Int, text: String)]
    var skip: String?
    var expected: [(substring: String, status: Int32)]
    var testDescription: String { "\(file):\(line)" }
    /// Whether a command of the block needs pcscd.
    var needsPcscd: Bool { commands.contains { DocsCommands.needsPcscd($0.text) } }
  }

  /// The fenced `sh` blocks of a markdown text, with their annotations.
  static func blocks(in text: String, file: String) -> [Block] {
    var blocks: [Block] = []
    var current: Block?
    var annotation: String?
    var pending = ""
    var pendingLine = 0
    for (index, raw) in text.components(separatedBy: "\n").enumerated() {
      let number = index + 1
      let line = raw.trimmingCharacters(in: .whitespaces)
      if var block = current {
        if line.hasPrefix("```") {
          blocks.append(block)
          current = nil
          continue
        }
        if pending.isEmpty { pendingLine = number }
        if line.hasSuffix("\\") {
          pending += String(line.dropLast()) + " "
          current = block
          continue
        }
        let command = stripComment(pending + line).trimmingCharacters(in: .whitespaces)
        pending = ""
        if !command.isEmpty { block.commands.append((pendingLine, command)) }
        current = block
        continue
      }
      if line == "```sh" {
        var block = Block(file: file, line: number, commands: [], skip: nil, expected: [])
        if let annotation { apply(annotation, to: &block) }
        current = block
        annotation = nil
        continue
      }
      if line.hasPrefix("<!-- doc-test:") {
        annotation = line
      } else if !line.isEmpty {
        annotation = nil
      }
    }
    return blocks
  }

  static func apply(_ annotation: String, to block: inout Block) {
    let body = annotation.dropFirst("<!-- doc-test:".count).replacingOccurrences(of: "-->", with: "")
      .trimmingCharacters(in: .whitespaces)
    if body.hasPrefix("skip") {
      block.skip = body
      return
    }
    // "SUBSTRING" exits N — reason
    let parts = body.components(separatedBy: "\"")
    if parts.count >= 3, let status = Int32(parts[2].trimmingCharacters(in: .whitespaces).split(separator: " ").dropFirst().first ?? "") {
      block.expected.append((parts[1], status))
    }
  }

  /// `line` without a shell comment (a `#` at the start of a word, outside quotes).
  static func stripComment(_ line: String) -> String {
    var quote: Character?
    var previous: Character = " "
    var out = ""
    for c in line {
      if let q = quote {
        if c == q { quote = nil }
      } else if c == "'" || c == "\"" {
        quote = c
      } else if c == "#", previous == " " || previous == "\t" {
        break
      }
      out.append(c)
      previous = c
    }
    return out
  }

  /// The inline spans worth running: complete commands.
  static func inlineCommands(in text: String) -> [String] {
    var found: [String] = []
    var rest = text[...]
    while let start = rest.range(of: "`nfctag ") {
      let after = rest[start.upperBound...]
      guard let end = after.firstIndex(of: "`") else { break }
      let span = ("nfctag " + after[..<end]).replacingOccurrences(of: "\n", with: " ")
      rest = after[after.index(after: end)...]
      let complete = span.hasPrefix("nfctag --") || span.contains("--format")
      let placeholder = span.contains("…") || span.contains("[") || span.contains("|") || span.range(of: "[A-Z]{3,}", options: .regularExpression) != nil
      if complete, !placeholder, !found.contains(span) { found.append(span) }
    }
    return found
  }

  /// The program a command line starts: its first word after any `NAME=value` assignments.
  static func program(of command: String) -> String {
    let assignments = #"^([A-Za-z_][A-Za-z0-9_]*=(\$\([^)]*\)|'[^']*'|"[^"]*"|[^ ]*) +)*"#
    var rest = command[...]
    if let range = command.range(of: assignments, options: .regularExpression) { rest = command[range.upperBound...] }
    return rest.split(separator: " ").first.map(String.init) ?? ""
  }

  /// The subcommands that need pcscd.
  static func needsPcscd(_ command: String) -> Bool {
    ["nfctag readers", "nfctag doctor", "nfctag reader ", "nfctag emulate"].contains { command.contains($0) }
  }

  // MARK: Running

  let directory: URL
  let wrapper: URL

  init() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-docs-\(UUID().uuidString)")
    let bin = directory.appendingPathComponent("bin")
    try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
    wrapper = bin.appendingPathComponent("nfctag")
    try Self.wrapperScript.write(to: wrapper, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: wrapper.path)
  }

  /// A scratch folder with the fixtures the docs' commands name.
  func scratch(_ name: String) throws -> URL {
    let dir = directory.appendingPathComponent(name)
    try FileManager.default.createDirectory(at: dir.appendingPathComponent(".config/fish/completions"), withIntermediateDirectories: true)
    func write(_ file: String, _ text: String) throws { try Data(text.utf8).write(to: dir.appendingPathComponent(file)) }
    try write("key.txt", "correct horse battery staple\n")
    try write("pw.txt", "1a2b3c4d\n")
    try write("commands.txt", "# PWD_AUTH with the factory password, then READ page 4\n1b ffffffff\n30 04\n")
    try write("secret.txt", "a provisioning secret of more than sixteen bytes\n")
    try write("rows.csv", "id,name\n" + (1...20).map { "\($0),item \($0)\n" }.joined())
    try write("template.json", #"{"records":[{"uri":"https://example.com/t/{id}"}]}"# + "\n")
    try write("key0.hex", "00112233445566778899aabbccddeeff\n")
    try write("master.hex", "8d1c0f5e2a7b49c3be60d1f4a5972e3c\n")
    try write("key1.hex", "b45775776cb224c75bcde7ca3704e933\n")
    try write("key2.hex", "0c3b25d92b38ae443229dd59ad34b85d\n")
    try write("keys.hex", ["00112233445566778899aabbccddeeff", "b45775776cb224c75bcde7ca3704e933", "0c3b25d92b38ae443229dd59ad34b85d",
                           "33333333333333333333333333333333", "44444444444444444444444444444444"].joined(separator: "\n") + "\n")
    return dir
  }

  func environment(_ dir: URL) -> [String: String] {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return [
      "PATH": wrapper.deletingLastPathComponent().path + ":" + path, "HOME": dir.path,
      "DOCTEST_NFCTAG": nfctagBinary().path, "DOCTEST_SIM": "sim:ntag215:" + dir.appendingPathComponent("sim-ntag215.bin").path,
      "DOCTEST_SIM_TYPE4": "sim:type4:" + dir.appendingPathComponent("sim-type4.bin").path,
      "DOCTEST_SIM_NTAG424": "sim:ntag424dna:" + dir.appendingPathComponent("sim-ntag424dna.bin").path,
      "DOCTEST_PCSC_READER": e2eReader, "TAG_PWD": "1a2b3c4d",
    ]
  }

  /// Runs one command line through /bin/sh in `dir`; standard input holds `stdin`.
  func run(_ command: String, in dir: URL, stdin: String = "") throws -> RunResult {
    try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "cd '\(dir.path)' && " + command], stdin: Data(stdin.utf8),
                   environment: environment(dir), timeout: 60)
  }

  /// Every fenced `sh` block of the docs, with its file and number (each a test case: they run in
  /// parallel, each in its own scratch folder).
  static let allBlocks: [Block] = files.flatMap { file in
    blocks(in: (try? String(contentsOf: file, encoding: .utf8)) ?? "", file: file.lastPathComponent)
  }

  /// Every complete inline command of the docs, with its file.
  static let allInlineCommands: [InlineCommand] = files.flatMap { file in
    inlineCommands(in: (try? String(contentsOf: file, encoding: .utf8)) ?? "").map { InlineCommand(file: file.lastPathComponent, text: $0) }
  }

  struct InlineCommand: Sendable, CustomTestStringConvertible {
    var file: String
    var text: String
    var testDescription: String { "\(file): \(text)" }
  }

  @Test func theDocsShowEnoughCommands() {
    #expect(Self.allBlocks.filter { $0.skip == nil }.flatMap(\.commands).count >= 30)
    #expect(Self.allInlineCommands.count >= 8)
  }

  /// Every block's commands that need no pcscd, on the in-process simulator (`DocsCommandsEndToEnd`
  /// runs the others through pcscd, holding both vpcd slots for them only).
  @Test(arguments: allBlocks) func everyFencedCommandRuns(_ block: Block) throws {
    try runBlock(block, throughPcscd: false)
  }

  /// Runs a fenced block's commands that need pcscd (`throughPcscd`) or the others, in a scratch
  /// folder of its own (with `run.ledger` first when the block names it).
  func runBlock(_ block: Block, throughPcscd: Bool) throws {
    if block.skip != nil { return }
    let dir = try scratch("block-\(block.file)-\(block.line)")
    if block.commands.contains(where: { $0.text.contains("run.ledger") }) {
      let setup = try run("nfctag provision rows.csv --url 'https://example.com/t/{id}' --ledger run.ledger", in: dir)
      #expect(setup.status == 0, "run.ledger: \(setup.stderr)")
    }
    let pcscdNeeded = block.commands.contains { $0.text.contains("nfctag reader ") }
    let emulator = throughPcscd && e2eEnabled && pcscdNeeded ? try Emulator(tag: "ntag215") : nil
    defer { emulator?.stop() }
    for (line, command) in block.commands {
      let place = "\(block.file):\(line): \(command)"
      let program = Self.program(of: command)
      #expect(program == "nfctag", "\(place): only nfctag commands run here; mark the block `<!-- doc-test: skip — why -->`")
      if Self.needsPcscd(command) != throughPcscd || (throughPcscd && !e2eEnabled) { continue }
      let expected = block.expected.first { command.contains($0.substring) }?.status ?? 0
      let r = try run(command, in: dir)
      #expect(r.status == expected, "\(place): exit \(r.status), expected \(expected): \(r.stderr)")
    }
  }

  /// The inline commands that need no pcscd, on the in-process simulator.
  @Test(arguments: allInlineCommands.filter { !needsPcscd($0.text) }) func everyInlineCommandRuns(_ command: InlineCommand) throws {
    try runInline(command)
  }

  func runInline(_ command: InlineCommand) throws {
    if Self.needsPcscd(command.text), !e2eEnabled { return }
    let dir = try scratch("inline-\(UUID().uuidString)")
    // A command that reads a message from standard input (`ndef decode --format json`) gets one.
    let r = try run(command.text, in: dir, stdin: "d101085402656e68656c6c6f\n")
    #expect(r.status == 0, "\(command.file): \(command.text): exit \(r.status): \(r.stderr)")
  }

  /// The extractor itself: continuations, comments, annotations.
  @Test func theExtractorReadsBlocksAsAShellWould() {
    let text = """
      <!-- doc-test: "release" exits 65 — a done row -->
      ```sh
      nfctag write url 'https://a.org/#x'   # a comment
      nfctag provision rows.csv \\
        --url 'https://a.org/{id}'
      # a comment line

      ```
      <!-- doc-test: skip — needs PostgreSQL -->

      ```sh
      nfctag ledger status postgres://db/x
      ```
      """
    let blocks = Self.blocks(in: text, file: "x.md")
    #expect(blocks.count == 2)
    #expect(blocks.first?.commands.map(\.text) == ["nfctag write url 'https://a.org/#x'", "nfctag provision rows.csv  --url 'https://a.org/{id}'"])
    #expect(blocks.first?.expected.first?.substring == "release")
    #expect(blocks.first?.expected.first?.status == 65)
    #expect(blocks.last?.skip != nil)
    #expect(Self.program(of: "NFC_SECRET=$(cat secret.txt) A='x y' nfctag provision") == "nfctag")
    #expect(Self.program(of: "make deb") == "make")
    #expect(Self.inlineCommands(in: "see `nfctag read --format json` and `nfctag emulate --tag KIND` or `nfctag --version`")
            == ["nfctag read --format json", "nfctag --version"])
  }

  /// The `nfctag` the docs' commands find first on the PATH.
  static let wrapperScript = #"""
    #!/usr/bin/env python3
    """The docs test's nfctag: the built binary, with --reader turned into the simulator."""
    import os, sys
    real = os.environ["DOCTEST_NFCTAG"]
    args = sys.argv[1:]
    sub = next((a for a in args if not a.startswith("-")), "")
    tag_commands = {"scan", "read", "dump", "write", "format", "erase", "lock", "info", "password", "send"}

    def readers(args, make):
        out, i, n = [], 0, 0
        while i < len(args):
            a = args[i]
            if a in ("--reader", "-r") and i + 1 < len(args):
                out += ["--reader", make(n)]; n += 1; i += 2; continue
            if a.startswith("--reader="):
                out += ["--reader", make(n)]; n += 1; i += 1; continue
            out.append(a); i += 1
        if n == 0:
            out += ["--reader", make(0)]
        return out

    if sub in tag_commands:
        sim = os.environ["DOCTEST_SIM_TYPE4"] if "--apdu" in args else os.environ["DOCTEST_SIM"]
        args = readers(args, lambda n: sim)
        if "--continuous" in args and "--timeout" not in args:
            args += ["--timeout", "1"]
    elif sub == "desfire":
        args = readers(args, lambda n: "sim:desfire-ev1-4k")
    elif sub == "keys" or (sub == "sdm" and "setup" in args):
        args = readers(args, lambda n: os.environ["DOCTEST_SIM_NTAG424"])
    elif sub == "provision":
        kind = "ntag424dna" if "--sdm-url" in args else "ntag215"
        args = readers(args, lambda n: "sim:%s+feed=150,seed=%d" % (kind, n + 1))
        if "--timeout" not in args:
            args += ["--timeout", "10"]
    elif sub == "reader":
        args = readers(args, lambda n: os.environ["DOCTEST_PCSC_READER"])
    elif sub == "emulate":
        if "--vpcd" not in args:
            args += ["--vpcd", "127.0.0.1:35963"]
        # --foreground: one SIGINT, to nfctag only, as a terminal's Ctrl-C. Without it timeout
        # also signals its process group, and a second SIGINT that lands after nfctag has
        # handled the first and given SIGINT its default action back ends it with 130.
        os.execvp("timeout", ["timeout", "--foreground", "--preserve-status", "-s", "INT", "3", real] + args)
    os.execv(real, [real] + args)
    """#
}

/// The documented commands that need pcscd (`readers`, `doctor`, `reader`, `emulate`): those of a
/// block, and each such inline command, a test case holding both vpcd slots: `reader` on "Virtual PCD 00 01" with
/// an emulated tag, `emulate` on "Virtual PCD 00 00" for 3 s, then Ctrl-C. The rest of
/// `DocsCommands`' work runs on the simulator beside the end-to-end suites.
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .virtualReaders)
struct DocsCommandsEndToEnd {
  let docs: DocsCommands

  init() throws { docs = try DocsCommands() }

  @Test(arguments: DocsCommands.allBlocks.filter(\.needsPcscd)) func everyFencedCommandRuns(_ block: DocsCommands.Block) throws {
    try docs.runBlock(block, throughPcscd: true)
  }

  @Test(arguments: DocsCommands.allInlineCommands.filter { DocsCommands.needsPcscd($0.text) })
  func everyInlineCommandRuns(_ command: DocsCommands.InlineCommand) throws {
    try docs.runInline(command)
  }
}
