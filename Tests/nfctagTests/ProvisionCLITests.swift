import Foundation
import Testing

/// `nfctag provision` through the in-process feeder (`sim:…+feed=N`): no pcscd needed, a real
/// SQLite ledger on disk.
struct ProvisionCLITests {
  func scratch() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-prov-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
  }

  func feed(_ count: Int, _ dir: URL, extra: String = "") -> String {
    "sim:ntag213+feed=\(count),seed=5,images=\(dir.appendingPathComponent("img").path)\(extra)"
  }

  @Test func jsonEventsOnePerTagAndASummary() throws {
    let dir = try scratch()
    let r = try runTool(["provision", "--count", "3", "--url", "https://example.com/{n:03}", "--json", "--timeout", "2",
                           "--ledger", dir.appendingPathComponent("l.sqlite").path, "--reader", feed(3, dir)])
    #expect(r.status == 0, "\(r.stderr)")
    let lines = r.stdout.split(separator: "\n")
    #expect(lines.count == 4)
    for line in lines.prefix(3) {
      #expect(line.hasPrefix(#"{"event":"tag","row":""#))
      #expect(line.contains(#""status":"done","error":null"#))
      #expect(line.contains(#""apdus":"#) && line.contains(#""ms":"#) && line.contains(#""reader":"#))
    }
    #expect(lines.last == #"{"event":"summary","done":3,"failed":0,"skipped":0,"remaining":0}"#)
    // The same command again: everything is done, nothing is touched.
    let again = try runTool(["provision", "--count", "3", "--url", "https://example.com/{n:03}", "--json", "--timeout", "2",
                               "--ledger", dir.appendingPathComponent("l.sqlite").path, "--reader", feed(3, dir)])
    #expect(again.status == 0)
    #expect(again.stdout == #"{"event":"summary","done":0,"failed":0,"skipped":0,"remaining":0}"# + "\n")
  }

  @Test func aTerminalShowsALiveLineAndColourUnlessNoColor() throws {
    let dir = try scratch()
    func underScript(_ environment: String, ledger: String) throws -> RunResult {
      let command = "\(environment) \(nfctagBinary().path) provision --count 2 --url https://example.com/{n} --timeout 2 "
        + "--ledger \(dir.appendingPathComponent(ledger).path) --reader '\(feed(2, dir))'"
      return try runProgram("/usr/bin/script", ["-qec", command, "/dev/null"], timeout: 30)
    }
    let colour = try underScript("env -u NO_COLOR", ledger: "a.sqlite")
    #expect(colour.stdout.contains("2/2 done, 0 failed"), "\(colour.stdout)")
    #expect(colour.stdout.contains("/min"))
    #expect(colour.stdout.contains("\u{1B}[32mdone\u{1B}[0m"))
    let plain = try underScript("env NO_COLOR=1", ledger: "b.sqlite")
    #expect(plain.stdout.contains("row 1: done"), "\(plain.stdout)")
    #expect(!plain.stdout.contains("\u{1B}[32m"))
    // Not a terminal: no live line, no colour.
    let piped = try runTool(["provision", "--count", "2", "--url", "https://example.com/{n}", "--timeout", "2",
                               "--ledger", dir.appendingPathComponent("c.sqlite").path, "--reader", feed(2, dir)])
    #expect(piped.status == 0)
    #expect(!piped.stderr.contains("/min") && !piped.stdout.contains("\u{1B}"))
  }

  @Test func ctrlCFinishesTheTagInHandThenStops() throws {
    let dir = try scratch()
    let ledger = dir.appendingPathComponent("l.sqlite").path
    let process = Process()
    process.executableURL = nfctagBinary()
    process.arguments = ["provision", "--count", "50", "--url", "https://example.com/{n}", "--json", "--ledger", ledger,
                         "--reader", feed(50, dir, extra: ",latency=acr122u")]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    usleep(1_500_000)
    kill(process.processIdentifier, SIGINT)
    let deadline = Date().addingTimeInterval(10)
    while process.isRunning, Date() < deadline { usleep(20_000) }
    #expect(!process.isRunning)
    #expect(process.terminationStatus == 130)
    let events = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
    #expect(events.last?.contains(#""event":"summary""#) == true)
    #expect(!events.contains { $0.contains(#""status":"failed""#) }, "the tag in hand was finished, not cut")
    let status = try runTool(["ledger", "status", ledger, "--json"])
    #expect(status.stdout.contains(#""claimed":0"#), "\(status.stdout)")
    #expect(status.stdout.contains(#""failed":0"#), "\(status.stdout)")
  }

  @Test func usageErrorsAreOneLine64() throws {
    for arguments in [["provision", "--count", "1"],
                      ["provision", "--count", "1", "--url", "x", "--text", "y"],
                      ["provision", "--count", "1", "--url", "x", "--lock"],
                      ["provision", "--count", "1", "--url", "x", "--protect"],
                      ["provision", "--count", "1", "--url", "x", "--secret-env", "S"],
                      ["provision", "--url", "x"]] {
      let r = try runTool(arguments)
      #expect(r.status == 64, "\(arguments)")
      #expect(r.stderr.hasPrefix("nfctag: "), "\(arguments): \(r.stderr)")
    }
  }

  /// Writes `contents` as `name` in `dir` and returns its path.
  func file(_ dir: URL, _ name: String, _ contents: [UInt8]) throws -> String {
    let url = dir.appendingPathComponent(name)
    try Data(contents).write(to: url)
    return url.path
  }

  @Test func aRefusedJobPrintsItsCauseAndNothingFalse() throws {
    let dir = try scratch()
    // A quoting mistake: the header was never read, so no column can be said to be missing.
    let quoting = try file(dir, "quoting.csv", Array("id,name\n1,\"Ada\n".utf8))
    let q = try runTool(["provision", quoting, "--url", "https://e.com/{name}"])
    #expect(q.status == 65)
    #expect(q.stderr.split(separator: "\n").count == 1, "\(q.stderr)")
    #expect(!q.stderr.contains("not a column"), "\(q.stderr)")
    // Not text at all: the one real line, nothing after it.
    let garbage = try file(dir, "garbage.csv", [0xFF, 0xFE, 0x00, 0x41, 0x0A])
    let g = try runTool(["provision", garbage, "--url", "https://e.com/{name}"])
    #expect(g.status == 65)
    #expect(g.stderr == "nfctag: line 1: not valid UTF-8 (byte 1 of the file)\n", "\(g.stderr)")
    // The rows that do not fit the first tag are the cause: no "failed" line for the tag before them.
    let long = try file(dir, "long.csv", Array(("id,path\n1,a\n2," + String(repeating: "x", count: 200) + "\n").utf8))
    let c = try runTool(["provision", long, "--url", "https://e.com/{path}", "--timeout", "2", "--reader", feed(1, dir)])
    #expect(c.status == 65)
    #expect(c.stdout.isEmpty, "\(c.stdout)")
    #expect(!c.stderr.contains("does not fit this tag"), "\(c.stderr)")
    #expect(c.stderr.contains("row 2 (line 3): the message is 211 bytes; the tag holds "), "\(c.stderr)")
  }

  @Test func aRefusedJobLeavesNoLedgerFileButKeepsOneThatWasThere() throws {
    let dir = try scratch()
    func files() throws -> [String] {
      try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains("ledger") }.sorted()
    }
    let long = try file(dir, "long.csv", Array(("id,path\n1," + String(repeating: "x", count: 200) + "\n").utf8))
    // Refused on the first tag (the row does not fit), on the job itself, and by a reader that cannot be used.
    let refused = try runTool(["provision", long, "--url", "https://e.com/{path}", "--timeout", "2", "--reader", feed(1, dir)])
    #expect(refused.status == 65, "\(refused.stderr)")
    let template = try runTool(["provision", long, "--url", "https://e.com/{nope}"])
    #expect(template.status == 65)
    let reader = try runTool(["provision", long, "--url", "https://e.com/{id}", "--reader", "sim:nosuchtag"])
    #expect(reader.status != 0, "\(reader.stderr)")
    #expect(try files() == [], "no ledger was left behind")
    // A ledger that was there before the refusal stays, with what it held.
    let ledger = dir.appendingPathComponent("kept.sqlite").path
    let first = try runTool(["provision", "--count", "1", "--url", "https://e.com/{n}", "--job", "a", "--ledger", ledger,
                               "--timeout", "2", "--reader", feed(1, dir)])
    #expect(first.status == 0, "\(first.stderr)")
    let again = try runTool(["provision", long, "--url", "https://e.com/{path}", "--ledger", ledger, "--timeout", "2",
                               "--reader", feed(1, dir)])
    #expect(again.status == 65, "\(again.stderr)")
    #expect(FileManager.default.fileExists(atPath: ledger))
    let status = try runTool(["ledger", "status", ledger, "--job", "a", "--json"])
    #expect(status.stdout.contains(#""done":1"#), "\(status.stdout)")
  }

  @Test func aLedgerThatCannotBeOpenedIs66WithTheReasonAndAnUnreachableOne69() throws {
    let dir = try scratch()
    let plain = try file(dir, "plain.txt", Array("x".utf8))
    for (ledger, reason) in [(plain + "/l.sqlite", "Not a directory"), (dir.path + "/no/l.sqlite", "No such file or directory")] {
      let r = try runTool(["provision", "--count", "1", "--url", "https://e.com/{n}", "--ledger", ledger])
      #expect(r.status == 66, "\(r.stderr)")
      #expect(r.stderr == "nfctag: cannot open the ledger: \(ledger): \(reason)\n")
    }
    let server = try runTool(["provision", "--count", "1", "--url", "https://e.com/{n}", "--ledger", "postgres://station@127.0.0.1:1/line"])
    #expect(server.status == 69, "\(server.stderr)")
    #expect(server.stderr.hasPrefix("nfctag: the ledger is unavailable"), "\(server.stderr)")
    #expect(server.stderr.split(separator: "\n").count == 1)
  }

  @Test func aRerunWithAnotherTemplateIsRefusedUnlessAllowed() throws {
    let dir = try scratch()
    let ledger = dir.appendingPathComponent("l.sqlite").path
    func provision(_ options: [String], tags: Int) throws -> RunResult {
      try runTool(["provision", "--count", "2", "--ledger", ledger, "--timeout", "2", "--json", "--reader", feed(tags, dir)] + options)
    }
    let first = try provision(["--url", "https://e.com/{n}"], tags: 1)
    #expect(first.status == 75, "one row done, one left: \(first.stderr)")
    // Another template, or the same one with another option: refused before any tag.
    let text = try provision(["--text", "Asset {n}"], tags: 2)
    #expect(text.status == 65)
    #expect(text.stderr == "nfctag: the job was started with --url 'https://e.com/{n}', this run has --text 'Asset {n}': "
      + "rerun with the job's, or add --allow-template-change to go on with this run's\n", "\(text.stderr)")
    #expect(text.stdout.isEmpty, "no tag was touched")
    let locked = try provision(["--url", "https://e.com/{n}", "--lock", "--yes"], tags: 2)
    #expect(locked.status == 65)
    #expect(locked.stderr.contains("the job was started without --lock, this run has it"), "\(locked.stderr)")
    // Allowed: the new template is the job's from now on (the first tag is done already: skipped).
    let allowed = try provision(["--text", "Asset {n}", "--allow-template-change"], tags: 2)
    #expect(allowed.status == 0, "\(allowed.stderr)")
    #expect(allowed.stdout.contains(#""status":"done""#))
    let back = try provision(["--url", "https://e.com/{n}"], tags: 1)
    #expect(back.status == 65)
    #expect(back.stderr.contains("the job was started with --text 'Asset {n}', this run has --url 'https://e.com/{n}'"))
  }

  @Test func aNegativeCountSaysWhatACountIs() throws {
    for value in ["-3", "0", "1.5", "ten"] {
      let r = try runTool(["provision", "--count", value, "--url", "https://e.com/{n}"])
      #expect(r.status == 64, "\(value)")
      #expect(r.stderr.contains("--count must be a positive whole number"), "\(value): \(r.stderr)")
      #expect(!r.stderr.contains("Missing value"), "\(value): \(r.stderr)")
    }
  }

  @Test func aMissingRowsFileIs66AndASecretTooShortIs64() throws {
    let missing = try runTool(["provision", "/nonexistent/rows.csv", "--url", "https://e.com/{id}"])
    #expect(missing.status == 66)
    let short = try runTool(["provision", "--count", "1", "--url", "https://e.com/{n}", "--protect", "--secret-env", "NFCTAG_T"],
                              environment: ["NFCTAG_T": "short"])
    #expect(short.status == 64)
    #expect(!short.stderr.contains("short"), "the secret never shows: \(short.stderr)")
    #expect(short.stderr == "nfctag: the provisioning secret is 5 bytes; at least 16 are needed "
      + "(read from the environment variable NFCTAG_T)\n", "\(short.stderr)")
  }
}
