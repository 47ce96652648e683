import Foundation
import Testing

/// `nfctag provision` end to end: the real binary, the real pcscd, tags fed one after another by
/// `nfctag emulate --feed` on "Virtual PCD 00 01", a real SQLite ledger.
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .virtualReader)
struct ProvisionEndToEnd {
  /// A scratch directory with a rows file of `count` rows.
  func job(rows count: Int, name: String = "rows.csv") throws -> (dir: URL, rows: URL) {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-prov-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir.appendingPathComponent("images"), withIntermediateDirectories: true)
    var csv = "id,slug\n"
    for i in 1...count { csv += "r\(i),item-\(i)\n" }
    let rows = dir.appendingPathComponent(name)
    try csv.write(to: rows, atomically: true, encoding: .utf8)
    return (dir, rows)
  }

  /// Starts a feeder of `count` tags (kinds in turn) saving images into `dir/images`, once the
  /// slot is free, and returns when its first tag is in the reader.
  ///
  /// A tag leaves when the run switches the ACR122U's LED (every Type 1, 2 or 3 tag a run
  /// provisions, fails or skips with a row), or after `handMilliseconds` without a command (a tag
  /// a killed run held; a 424 DNA, whose link sends no LED command). The default is a patient
  /// hand, 5 s: a run that paused between two commands on a loaded machine (a slow fsync of the
  /// ledger, a core busy elsewhere) took 3.7 s once, and a tag that left then failed with "the tag
  /// was removed" in a test that counts every row done. The crash tests ask for 1.5 s, so that
  /// tags a killed run held also leave with their rows bound.
  /// `driver`: on that reader of nfctag's pcsc-lite driver, in its face, instead of a vpcd slot.
  func feeder(_ dir: URL, count: Int, kinds: String = "ntag213", seed: Int = 1, port: String = e2ePort,
              quiet: Bool = true, handMilliseconds: Int = 5000, driver: DriverReader? = nil) throws -> Process {
    let reader = driver?.name ?? (port.hasSuffix("35963") ? "Virtual PCD 00 00" : e2eReader)
    _ = waitForCard(reader, present: false, seconds: 5)  // a previous test's card must be gone
    let process = Process()
    process.executableURL = nfctagBinary()
    process.arguments = ["emulate", "--tag", kinds, "--feed", String(count), "--image-dir",
                         dir.appendingPathComponent("images").path, "--seed", String(seed), "--vpcd", driver?.address ?? port,
                         "--hand-ms", String(handMilliseconds)] + (quiet ? ["--quiet"] : [])
      + (driver.map { ["--reader", $0.face] } ?? [])
    let errors = dir.appendingPathComponent("feeder-\(seed).log")
    _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
    process.standardError = try FileHandle(forWritingTo: errors)
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    guard waitForCard(reader, present: true, seconds: 10) else {
      // Not left running: it would go on offering its tags to the slot, to the tests after this one.
      stopFeeder(process)
      throw EmulatorFailure(message: "the feeder's first tag did not appear in \(reader): \((try? String(contentsOf: errors, encoding: .utf8)) ?? "")")
    }
    return process
  }

  /// Polls `nfctag readers --json` until `reader` shows (or stops showing) a card.
  @discardableResult
  func waitForCard(_ reader: String, present: Bool, seconds: Double) -> Bool {
    CardWatch.wait(in: reader, present: present, seconds: seconds) == .reached
  }

  /// True when the ledger holds rows and none is left to claim: each is done or bound to a tag.
  func noRowPending(_ ledger: URL) -> Bool {
    guard let rows = try? export(ledger), !rows.isEmpty else { return false }
    return !rows.contains { $0.count > 2 && $0[2] == "pending" }
  }

  /// The run after the killed ones (`nfctag ARGUMENTS`): it finishes the tag a killed run left in
  /// the reader, if any, and takes new tags until no row is left to claim; then Ctrl-C, and it
  /// ends after the tag in hand. Without it, rows bound to tags that left would keep the run
  /// waiting for those tags to come back until its idle timeout, and a timeout short enough not
  /// to waste the test's time also ends the run early when a loaded machine is slow to bring the
  /// next tag.
  func rerunUntilNoRowIsLeft(_ arguments: [String], ledger: URL, sourceLocation: SourceLocation = #_sourceLocation) throws -> RunResult {
    let r = try runNFCTag(arguments + ["--timeout", "30"], timeout: 300, interruptWhen: { noRowPending(ledger) })
    #expect(!r.timedOut && [0, 74, 130].contains(r.status), "\(r.status): \(r.stderr)", sourceLocation: sourceLocation)
    return r
  }

  /// Starts `nfctag ARGUMENTS` `times` times, each killed with SIGKILL after a random number of
  /// milliseconds in `range`, then `check(run, delays so far)`; returns the delays.
  @discardableResult
  func killRuns(_ arguments: [String], times: Int, within range: ClosedRange<Int>,
                check: (Int, [Int]) throws -> Void) throws -> [Int] {
    var delays: [Int] = []
    for run in 1...times {
      let process = Process()
      process.executableURL = nfctagBinary()
      process.arguments = arguments
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      let delay = Int.random(in: range)
      delays.append(delay)
      usleep(UInt32(delay) * 1000)
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      #expect(process.terminationReason == .uncaughtSignal || process.terminationStatus == 0, "run \(run)")
      try check(run, delays)
    }
    return delays
  }

  func stopFeeder(_ process: Process) {
    if process.isRunning { kill(process.processIdentifier, SIGINT) }
    let deadline = Date().addingTimeInterval(10)
    while process.isRunning, Date() < deadline { usleep(20_000) }
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
    // pcscd must see the last card leave before the next test's emulator arrives.
    let port = process.arguments?.drop { $0 != "--vpcd" }.dropFirst().first ?? e2ePort
    waitForCard(port.hasSuffix("35963") ? "Virtual PCD 00 00" : e2eReader, present: false, seconds: 5)
  }

  /// The images the feeder saved: UID (from the name) → file.
  func images(_ dir: URL) throws -> [(uid: String, file: URL)] {
    let names = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("images").path).sorted()
    return names.filter { $0.hasSuffix(".bin") }.compactMap { name in
      let stem = name.dropLast(4)
      guard let dash = stem.firstIndex(of: "-") else { return nil }
      return (String(stem[stem.index(after: dash)...]), dir.appendingPathComponent("images").appendingPathComponent(name))
    }
  }

  /// The NDEF message an image holds, as hex, read by the real tool through the in-process
  /// simulator; nil when it holds none (empty or torn).
  func messageHex(in image: URL, kind: String = "ntag213") throws -> String? {
    let r = try runNFCTag(["read", "--reader", "sim:\(kind):\(image.path)", "--format", "hex", "--timeout", "5"])
    guard r.status == 0 else { return nil }
    let hex = r.stdout.filter { $0.isHexDigit }
    return hex.isEmpty ? nil : hex.lowercased()
  }

  /// `ledger export --format csv` as rows of fields (header dropped).
  func export(_ ledger: URL) throws -> [[String]] {
    let r = try runNFCTag(["ledger", "export", ledger.path, "--format", "csv"])
    #expect(r.status == 0, "\(r.stderr)")
    return r.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
  }

  /// Every done row's tag holds exactly its message; no row on two tags; no tag with two rows.
  func checkInvariants(_ dir: URL, ledger: URL, expectDone: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let rows = try export(ledger).filter { !$0[0].isEmpty }
    let done = rows.filter { $0[2] == "done" }
    if let expectDone { #expect(done.count == expectDone, sourceLocation: sourceLocation) }
    let boundUIDs = rows.map { $0[1] }.filter { !$0.isEmpty }
    #expect(Set(boundUIDs).count == boundUIDs.count, "a UID holds two rows", sourceLocation: sourceLocation)
    let imageByUID = Dictionary(try images(dir).map { ($0.uid, $0.file) }, uniquingKeysWith: { a, _ in a })
    let rowByMessage = Dictionary(rows.compactMap { $0[3].isEmpty ? nil : ($0[3], $0) }, uniquingKeysWith: { a, _ in a })
    for row in done {
      guard let image = imageByUID[row[1]] else {
        Issue.record("row \(row[0]) is done on \(row[1]), which has no image", sourceLocation: sourceLocation)
        continue
      }
      #expect(try messageHex(in: image) == row[3], "row \(row[0]) on \(row[1])", sourceLocation: sourceLocation)
    }
    // A tag that holds a row's message is the tag the ledger bound that row to.
    for (uid, image) in imageByUID {
      guard let hex = try messageHex(in: image), let row = rowByMessage[hex] else { continue }
      #expect(row[1] == uid, "tag \(uid) holds row \(row[0])'s message, bound to \(row[1])", sourceLocation: sourceLocation)
    }
  }

  /// A feeder's tags one after another, one run: each ends up holding its own row (50 tags in CI,
  /// 12 in a plain `make test`: ``repetitions(full:quick:tsan:)``).
  @Test(.virtualReaderEarly) func tagsFedInARowEachHoldTheirOwnRow() throws {
    let count = repetitions(full: 50, quick: 12, tsan: 12)
    let (dir, rows) = try job(rows: count)
    let feed = try feeder(dir, count: count)
    defer { stopFeeder(feed) }
    let ledger = dir.appendingPathComponent("ledger.sqlite")
    let r = try runNFCTag(["provision", rows.path, "--url", "https://example.com/{slug}?id={id}&n={n:04}",
                           "--ledger", ledger.path, "--reader", e2eReader, "--timeout", "20", "--json"], timeout: 300)
    #expect(r.status == 0, "\(r.stderr)")
    // The last tag's image is saved when it leaves, after the feedback: the feeder then exits 0.
    #expect(waitForExit(feed) == 0)
    let events = r.stdout.split(separator: "\n")
    #expect(events.filter { $0.contains(#""status":"done""#) }.count == count)
    #expect(events.last?.contains(#""event":"summary","done":\#(count),"failed":0"#) == true, "\(events.last ?? "")")
    try checkInvariants(dir, ledger: ledger, expectDone: count)
    let uids = try export(ledger).map { $0[1] }
    #expect(Set(uids).count == count)
    #expect(try images(dir).count == count)
  }
}

/// The other provisioning cases: crashes, bad tags in the stream, lock, protection, mirror, bad rows.
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .virtualReader)
struct ProvisionFaultsEndToEnd {
  let base = ProvisionEndToEnd()

  /// A run killed with SIGKILL at a random moment, restarted, again (20 times over 30 rows in CI,
  /// 5 over 15 in a plain `make test`): no row is ever on two tags, and each done row's tag holds it.
  @Test(.virtualReaderEarly) func killedAtRandomMomentsNoRowIsOnTwoTags() throws {
    let count = repetitions(full: 30, quick: 15, tsan: 15)
    let (dir, rows) = try base.job(rows: count)
    let feed = try base.feeder(dir, count: 3 * count, seed: 7, handMilliseconds: 1500)
    defer { base.stopFeeder(feed) }
    let ledger = dir.appendingPathComponent("ledger.sqlite")
    let arguments = ["provision", rows.path, "--url", "https://example.com/{slug}?id={id}", "--ledger", ledger.path,
                     "--reader", e2eReader, "--json"]
    let delays = try base.killRuns(arguments, times: repetitions(full: 20, quick: 5, tsan: 8), within: 150...1800) { run, delays in
      try base.checkLedgerInvariants(ledger, context: "after kill \(run) (delays \(delays))")
    }
    let r = try base.rerunUntilNoRowIsLeft(arguments, ledger: ledger)
    base.stopFeeder(feed)  // every tag it presented is saved
    try base.checkInvariants(dir, ledger: ledger)
    let exported = try base.export(ledger).filter { !$0[0].isEmpty }
    let done = exported.filter { $0[2] == "done" }.count
    let bound = exported.filter { $0[2] == "claimed" || $0[2] == "failed" }.count
    // Every row is done, or bound to the one tag a killed run was writing (that tag left).
    #expect(done + bound == count, "done \(done), bound \(bound), delays \(delays); the rerun: \(r.status)\n\(r.stdout.suffix(3000))\n\(r.stderr)")
    #expect(bound <= 20)
  }

  @Test func aLockedAndATooSmallTagInTheStreamAreFailedAndTheRunGoesOn() throws {
    let (dir, rows) = try base.job(rows: 4)
    // An NTAG210 holds 48 bytes: this message needs about 60.
    let feed = try base.feeder(dir, count: 6, kinds: "ntag213,ntag213-locked,ntag213,ntag210,ntag213,ntag213", seed: 3)
    defer { base.stopFeeder(feed) }
    let ledger = dir.appendingPathComponent("ledger.sqlite")
    let r = try runNFCTag(["provision", rows.path, "--url", "https://example.com/a/path/too/long/for/an/ntag210/{slug}?id={id}",
                           "--ledger", ledger.path, "--reader", e2eReader, "--timeout", "10", "--json"], timeout: 120)
    #expect(r.status == 0, "\(r.stderr)")
    let failed = r.stdout.split(separator: "\n").filter { $0.contains(#""status":"failed""#) }
    #expect(failed.count == 2, "\(r.stdout)")
    #expect(failed.contains { $0.contains(#""exit":77"#) }, "the locked tag: \(failed)")
    #expect(failed.contains { $0.contains(#""exit":73"#) }, "the NTAG210: \(failed)")
    let exported = try base.export(ledger)
    #expect(exported.filter { $0[2] == "done" }.count == 4)
    #expect(exported.filter { $0[2] == "failed" }.count == 2, "the two tags are recorded: \(exported)")
    _ = waitForExit(feed)
    try base.checkInvariants(dir, ledger: ledger, expectDone: 4)
  }

  @Test func lockMakesEveryTagReadOnly() throws {
    let emulator = try Emulator(tag: "ntag213")
    defer { emulator.stop() }
    let dir = emulator.image.deletingLastPathComponent()
    let r = try runNFCTag(["provision", "--count", "1", "--text", "asset {n:04}", "--lock", "--yes",
                           "--ledger", dir.appendingPathComponent("l.sqlite").path, "--reader", e2eReader, "--timeout", "5"])
    #expect(r.status == 0, "\(r.stderr)")
    let write = try runNFCTag(["write", "text", "again", "--reader", e2eReader, "--timeout", "5"])
    #expect(write.status == 77, "\(write.stderr)")
    let refused = try runNFCTag(["provision", "--count", "1", "--text", "x", "--lock", "--reader", e2eReader])
    #expect(refused.status == 64)
  }

  @Test func protectedTagsNeedTheJobsSecretNextTime() throws {
    let emulator = try Emulator(tag: "ntag213")
    defer { emulator.stop() }
    let dir = emulator.image.deletingLastPathComponent()
    let secret = ["NFCTAG_TEST_SECRET": "a secret of the provisioning job"]
    func provision(_ text: String, ledger: String, protect: Bool) throws -> RunResult {
      try runNFCTag(["provision", "--count", "1", "--text", text, "--ledger", dir.appendingPathComponent(ledger).path,
                     "--reader", e2eReader, "--timeout", "3", "--json", "--trace"]
                    + (protect ? ["--protect", "--secret-env", "NFCTAG_TEST_SECRET"] : []), environment: secret)
    }
    let first = try provision("first", ledger: "a.sqlite", protect: true)
    #expect(first.status == 0, "\(first.stderr)")
    #expect(!first.stderr.contains("a secret of"))
    // PWD_AUTH is never in the trace in clear; a new run with the same secret rewrites the tag.
    let second = try provision("second", ledger: "b.sqlite", protect: true)
    #expect(second.status == 0, "\(second.stderr)")
    let third = try provision("third", ledger: "c.sqlite", protect: false)
    #expect(third.status == 77, "\(third.stdout)\n\(third.stderr)")
    let read = try runNFCTag(["read", "--reader", e2eReader, "--timeout", "5"])
    #expect(read.stdout.contains("second"))
  }

  /// Every combination of --protect, --protect-reads, --mirror and --lock, one virtual NTAG215
  /// each: each tag is done, and its memory holds the message and exactly the protection, mirror
  /// and lock asked for.
  @Test func everyCombinationOfProtectionMirrorAndLockIsDone() throws {
    struct Combination { var protect: Bool, reads: Bool, mirror: Bool, lock: Bool }
    let combinations = [(false, false), (true, false), (true, true)].flatMap { protect, reads in
      [false, true].flatMap { mirror in [false, true].map { lock in Combination(protect: protect, reads: reads, mirror: mirror, lock: lock) } }
    }
    let secretText = "the secret of the combinations job"
    for (i, c) in combinations.enumerated() {
      let emulator = try Emulator(tag: "ntag215")
      let dir = emulator.image.deletingLastPathComponent()
      let secret = dir.appendingPathComponent("secret.txt")
      try secretText.write(to: secret, atomically: true, encoding: .utf8)
      var arguments = ["provision", "--count", "1", "--url", c.mirror ? "https://example.com/c/{n}?m={mirror}" : "https://example.com/c/{n}",
                       "--ledger", dir.appendingPathComponent("l\(i).sqlite").path, "--reader", e2eReader, "--timeout", "10", "--json"]
      if c.protect { arguments += ["--protect", "--secret-file", secret.path] }
      if c.reads { arguments.append("--protect-reads") }
      if c.mirror { arguments += ["--mirror", "uid+counter"] }
      if c.lock { arguments += ["--lock", "--yes"] }
      let r = try runNFCTag(arguments, timeout: 60)
      emulator.stop()
      let what = "\(arguments.dropFirst(9).joined(separator: " "))"
      #expect(r.status == 0, "\(what): \(r.stdout) \(r.stderr)")
      #expect(!(r.stdout + r.stderr).contains(secretText))
      let m = [UInt8](try Data(contentsOf: emulator.image))
      let cfg0 = 0x83 * 4
      guard m.count == 135 * 4, Int(m[17]) + 18 <= m.count else { Issue.record("\(what): not an NTAG215 image"); continue }
      #expect(m[16] == 0x03 && String(decoding: m[18..<(18 + Int(m[17]))], as: UTF8.self).contains("example.com/c/1"), "message, \(what)")
      #expect(m[cfg0 + 3] == (c.protect ? 0x04 : 0xFF), "AUTH0, \(what)")
      #expect((m[cfg0 + 4] & 0x80 != 0) == c.reads, "PROT, \(what)")
      #expect((m[cfg0] & 0xC0 == 0xC0) == c.mirror, "MIRROR_CONF, \(what)")
      let locked = m[15] & 0x0F == 0x0F && m[10] == 0xFF && m[11] == 0xFF && m[0x82 * 4] == 0xFF && m[0x82 * 4 + 2] == 0xFF
      #expect(locked == c.lock, "lock bits, \(what)")
    }
  }

  @Test func theMirrorShowsTheUIDAndACounterThatGoesUp() throws {
    let emulator = try Emulator(tag: "ntag213")
    defer { emulator.stop() }
    let dir = emulator.image.deletingLastPathComponent()
    let r = try runNFCTag(["provision", "--count", "1", "--url", "https://example.com/t?m={mirror}", "--mirror", "uid+counter",
                           "--ledger", dir.appendingPathComponent("l.sqlite").path, "--reader", e2eReader, "--timeout", "5", "--json"])
    #expect(r.status == 0, "\(r.stderr)")
    let uid = try #require(r.stdout.split(separator: "\"").drop { $0 != "uid" }.dropFirst(2).first).uppercased()
    func url() throws -> String {
      // A phone's tap is a new field: `send` resets the card when it lets it go (vpcd power
      // cycle), so the next READ is the first of a new field and counts.
      #expect(try runNFCTag(["send", "60", "--reader", e2eReader, "--timeout", "5"]).status == 0)
      let read = try runNFCTag(["read", "--reader", e2eReader, "--timeout", "5"])
      #expect(read.status == 0, "\(read.stderr)")
      return read.stdout
    }
    let one = try url(), two = try url()
    #expect(one.contains("m=\(uid)x"), "\(one)")
    let counter = { (text: String) -> Int? in
      guard let range = text.range(of: "m=\(uid)x") else { return nil }
      return Int(text[range.upperBound...].prefix(6), radix: 16)
    }
    let c1 = try #require(counter(one)), c2 = try #require(counter(two))
    #expect(c2 > c1, "\(one) then \(two)")
  }

  @Test func aBadRowsFileIsRefusedBeforeAnyTagIsTouched() throws {
    let emulator = try Emulator(tag: "ntag213")
    defer { emulator.stop() }
    let before = try Data(contentsOf: emulator.image)
    let dir = emulator.image.deletingLastPathComponent()
    let rows = dir.appendingPathComponent("bad.csv")
    try "id,slug\nr1,a\nr2,b,extra\nr1,c\n".write(to: rows, atomically: true, encoding: .utf8)
    let r = try runNFCTag(["provision", rows.path, "--url", "https://example.com/{slug}/{colour}", "--reader", e2eReader,
                           "--ledger", dir.appendingPathComponent("l.sqlite").path, "--timeout", "3"])
    #expect(r.status == 65)
    #expect(r.stderr.contains("line 3"), "\(r.stderr)")
    #expect(r.stderr.contains("r1"), "\(r.stderr)")
    #expect(r.stderr.contains("colour"), "\(r.stderr)")
    #expect(try Data(contentsOf: emulator.image) == before)
    #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("l.sqlite").path))
  }
}

extension ProvisionEndToEnd {
  /// What the ledger alone guarantees: no UID holds two rows, done rows carry their message.
  func checkLedgerInvariants(_ ledger: URL, context: String) throws {
    guard FileManager.default.fileExists(atPath: ledger.path) else { return }
    // A run killed after SQLite created the file and before the schema's transaction committed
    // leaves an empty database (the ledger commands say so): nothing was committed to check.
    let r = try runNFCTag(["ledger", "status", ledger.path])
    if r.status != 0, r.stderr.contains("is not a ledger (an empty database)") { return }
    let rows = try export(ledger).filter { !$0[0].isEmpty }
    let uids = rows.map { $0[1] }.filter { !$0.isEmpty }
    #expect(Set(uids).count == uids.count, "a UID holds two rows \(context)")
    for row in rows where row[2] == "done" { #expect(!row[3].isEmpty, "row \(row[0]) done without a message \(context)") }
  }
}
