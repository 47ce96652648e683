import Foundation
@testable import NTAG424
import NTAG424Emulator
import NFCTransport
import Testing

/// `nfctag provision --sdm-url` end to end: the real binary, the real pcscd, NTAG 424 DNA tags fed
/// by `nfctag emulate --tag ntag424dna --feed` (handed over to nfctag-provision), a real SQLite
/// ledger. Every tag done verifies with `sdm verify --master-key-file` alone; a run killed at
/// random moments leaves every key of every tag either the factory key or the derived one, and
/// no tag with a changed key that the ledger does not bind to a row.
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .virtualReader)
struct ProvisionSUNEndToEnd {
  let base = ProvisionEndToEnd()
  static let masterHex = "3c2e9a5d7f0b4c61a8e2d91b07f6c435"
  static let template = "https://example.com/t/{slug}?p={picc}&c={cmac}"
  /// The feeders' hand time: a tag done leaves on the LED command, one a killed run left leaves by
  /// it, and the run's idle timeouts here are shorter than the default hand's 5 s.
  static let hand = 1500

  init() { NTAG424Emulator.register() }

  func masterKeyFile(_ dir: URL) throws -> URL {
    let file = dir.appendingPathComponent("master.hex")
    try Data((Self.masterHex + "\n").utf8).write(to: file)
    return file
  }

  /// `ledger export --format csv` of a ledger file or (with `job`) a PostgreSQL ledger, as rows of
  /// fields (header dropped).
  func export(_ ledger: String, job: String?) throws -> [[String]] {
    let r = try runNFCTag(["ledger", "export", ledger, "--format", "csv"] + (job.map { ["--job", $0] } ?? []))
    #expect(r.status == 0, "\(r.stderr)")
    return r.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
  }

  /// Every done row's tag gives a URL that `sdm verify --master-key-file` accepts, with its UID.
  func expectDoneTagsVerify(_ dir: URL, ledger: String, key: URL, job: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
    let done = try export(ledger, job: job).filter { !$0[0].isEmpty && $0[2] == "done" }
    let imageByUID = Dictionary(try base.images(dir).map { ($0.uid, $0.file) }, uniquingKeysWith: { a, _ in a })
    for row in done {
      guard let image = imageByUID[row[1]] else {
        Issue.record("row \(row[0]) is done on \(row[1]), which has no image", sourceLocation: sourceLocation)
        continue
      }
      let url = try ProvisionSUNCLITests.tap(image)
      let v = try runTool(["sdm", "verify", url, "--master-key-file", key.path, "--format", "json"])
      #expect(v.status == 0 && v.stdout.contains(#""uid":"\#(row[1])""#), "row \(row[0]) on \(row[1]): \(url) \(v.stdout)",
              sourceLocation: sourceLocation)
    }
    return done.count
  }

  /// Each key of each tag the feeder saved is the factory key with version 00 or the derived key
  /// with version 01, never another; a tag with a derived key is bound to a row of the ledger.
  func expectNoUnrecordedKeys(_ dir: URL, ledger: String, context: String, job: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let bound = Set(try export(ledger, job: job).filter { !$0[0].isEmpty }.map { $0[1] }.filter { !$0.isEmpty })
    let master = try AESKey(bytes: parseHex(Self.masterHex) ?? [])
    for (uid, file) in try base.images(dir) {
      let uidBytes = try #require(parseHex(uid))
      let tag = try NTAG424DNAVirtualTag(image: Array(try Data(contentsOf: file)), uid: uidBytes)
      let derived = try SDMKeyDiversification.applicationKeys(master: master, uid: uidBytes)
      var changed = 0
      for number in 0..<5 {
        let factory = tag.keyVersion(number) == 0 && tag.keyEquals(number, AESKey.factory.bytes)
        let new = tag.keyVersion(number) == 1 && tag.keyEquals(number, derived[number].bytes)
        #expect(factory || new, "tag \(uid) key \(number): version \(tag.keyVersion(number) ?? 99), neither factory nor derived, \(context)",
                sourceLocation: sourceLocation)
        if new { changed += 1 }
        #expect(tag.failedAuthenticationCounter(key: number) == 0, "tag \(uid) key \(number) failed, \(context)", sourceLocation: sourceLocation)
      }
      if changed > 0 {
        #expect(bound.contains(uid), "tag \(uid) has \(changed) derived key(s) and no row in the ledger, \(context)", sourceLocation: sourceLocation)
      }
    }
  }

  @Test func threeTagsEndToEndEachVerifyWithTheMasterKey() throws {
    let (dir, rows) = try base.job(rows: 3)
    let key = try masterKeyFile(dir)
    let feed = try base.feeder(dir, count: 3, kinds: "ntag424dna", seed: 11, quiet: false, handMilliseconds: Self.hand)
    defer { base.stopFeeder(feed) }
    let ledger = dir.appendingPathComponent("ledger.sqlite")
    let r = try runNFCTag(["provision", rows.path, "--sdm-url", Self.template, "--master-key-file", key.path,
                           "--ledger", ledger.path, "--reader", e2eReader, "--timeout", "20", "--json"], timeout: 120)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(waitForExit(feed) == 0)
    // Each tag gets the ACR122U's LED and beep, and leaves on it: the card's
    // reset (its authentications ended) comes before the signal, not after it, where it met a
    // card that was leaving and pcscd never showed the next one.
    let feederLog = try String(contentsOf: dir.appendingPathComponent("feeder-11.log"), encoding: .utf8)
    #expect(feederLog.components(separatedBy: "left after the LED/buzzer command").count - 1 == 3, "\(feederLog)")
    let events = r.stdout.split(separator: "\n")
    #expect(events.filter { $0.contains(#""status":"done""#) }.count == 3, "\(r.stdout)")
    // The tag's 13 exchanges and the reader's own (detection, LED): the ACR122U face's pseudo-APDUs.
    for event in events where event.contains(#""status":"done""#) { #expect(event.contains(#""apdus":"#)) }
    #expect(try expectDoneTagsVerify(dir, ledger: ledger.path, key: key) == 3)
    try expectNoUnrecordedKeys(dir, ledger: ledger.path, context: "three tags")
    let export = try runNFCTag(["ledger", "export", ledger.path, "--for-verifier"])
    #expect(export.stdout.split(separator: "\n").count == 4 && export.stdout.contains(",0101010101,1,1"), "\(export.stdout)")
  }

  /// The crash test with 424 DNA: twenty SIGKILLs at random moments over sixteen rows in CI, as the
  /// NTAG213 test's; five over six rows in a plain `make test` and under ThreadSanitizer, to keep
  /// the slot time small (each kill costs up to 1.5 s of a run and the feeder's hand time). The
  /// in-process tests take a tag away after every APDU.
  @Test func killedAtRandomMomentsEveryKeyIsFactoryOrDerived() throws {
    let count = repetitions(full: 16, quick: 6, tsan: 6)
    let (dir, rows) = try base.job(rows: count)
    let key = try masterKeyFile(dir)
    let feed = try base.feeder(dir, count: 2 * count, kinds: "ntag424dna", seed: 13, handMilliseconds: Self.hand)
    defer { base.stopFeeder(feed) }
    let ledger = dir.appendingPathComponent("ledger.sqlite")
    let arguments = ["provision", rows.path, "--sdm-url", Self.template, "--master-key-file", key.path, "--ledger", ledger.path,
                     "--reader", e2eReader, "--json"]
    let delays = try base.killRuns(arguments, times: repetitions(full: 20, quick: 5, tsan: 5), within: 150...1500) { run, delays in
      try base.checkLedgerInvariants(ledger, context: "after kill \(run) (delays \(delays))")
    }
    let r = try base.rerunUntilNoRowIsLeft(arguments, ledger: ledger)
    base.stopFeeder(feed)  // every tag it presented is saved
    let done = try expectDoneTagsVerify(dir, ledger: ledger.path, key: key)
    try expectNoUnrecordedKeys(dir, ledger: ledger.path, context: "delays \(delays)")
    let exported = try base.export(ledger).filter { !$0[0].isEmpty }
    let bound = exported.filter { $0[2] == "claimed" || $0[2] == "failed" }.count
    #expect(done + bound == count, "done \(done), bound \(bound), delays \(delays); the rerun: \(r.status)\n\(r.stdout.suffix(3000))\n\(r.stderr)")
  }
}

/// Two stations on one PostgreSQL ledger, each with a feeder of NTAG 424 DNA tags on its own vpcd
/// slot, one killed with SIGKILL and restarted: every row on exactly one tag, every done tag
/// verifies with the master key, and no tag holds a key the ledger does not account for.
@Suite(.serialized, .enabled(if: e2eEnabled && postgresURL != nil, "\(e2eSkipReason); \(postgresSkipReason)"))
struct ProvisionSUNStationsEndToEnd {
  let sun = ProvisionSUNEndToEnd()
  let stations = StationsEndToEnd()

  func station(_ name: String, rows: URL, job: String, key: URL, reader: String) throws -> Process {
    let log = rows.deletingLastPathComponent().appendingPathComponent("station-\(name)-\(UUID().uuidString.prefix(4)).log")
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    let process = Process()
    process.executableURL = nfctagBinary()
    process.arguments = ["provision", rows.path, "--sdm-url", ProvisionSUNEndToEnd.template, "--master-key-file", key.path,
                         "--ledger", postgresURL ?? "", "--job", job, "--station", name, "--reader", reader, "--json", "--timeout", "3"]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = try FileHandle(forWritingTo: log)
    try process.run()
    return process
  }

  @Test(.virtualReaders) func twoStationsOneKilledEveryRowOnOneTagAndEveryTagVerifies() throws {
    let base = sun.base
    let (dir, rows) = try base.job(rows: 8)
    let key = try sun.masterKeyFile(dir)
    let job = "sun-stations-\(UUID().uuidString.prefix(8))"
    // As many tags as rows in each feeder: a station whose idle timeout ended it early (a loaded
    // machine slow to bring its next tag) leaves the other enough tags for every row.
    let feedA = try base.feeder(dir, count: 8, kinds: "ntag424dna", seed: 31, port: "127.0.0.1:35963", handMilliseconds: ProvisionSUNEndToEnd.hand)
    let feedB = try base.feeder(dir, count: 8, kinds: "ntag424dna", seed: 32, port: e2ePort, handMilliseconds: ProvisionSUNEndToEnd.hand)
    defer { base.stopFeeder(feedA); base.stopFeeder(feedB) }
    var a = try station("a", rows: rows, job: job, key: key, reader: "Virtual PCD 00 00")
    let b = try station("b", rows: rows, job: job, key: key, reader: e2eReader)
    defer { for station in [a, b] where station.isRunning { station.terminate() } }  // never left to later tests
    usleep(2_000_000)
    kill(a.processIdentifier, SIGKILL)
    a.waitUntilExit()
    usleep(300_000)
    a = try station("a", rows: rows, job: job, key: key, reader: "Virtual PCD 00 00")
    let statusA = waitForExit(a, seconds: 120), statusB = waitForExit(b, seconds: 120)
    #expect(statusA != nil && statusB != nil, "a station did not finish")
    if a.isRunning { a.terminate() }
    if b.isRunning { b.terminate() }
    base.stopFeeder(feedA)
    base.stopFeeder(feedB)
    let exported = try postgresExport(job: job)
    let done = exported.filter { $0[2] == "done" }
    let bound = exported.filter { $0[2] == "claimed" || $0[2] == "failed" }
    #expect(done.count + bound.count == 8, "done \(done.count), bound \(bound.count)\n\(stations.logs(dir))")
    #expect(bound.count <= 1, "only the killed station's tag in hand may hold a row it did not finish")
    #expect(Set(done.map { $0[5] }) == ["a", "b"], "both stations wrote rows")
    let uids = exported.map { $0[1] }.filter { !$0.isEmpty }
    #expect(Set(uids).count == uids.count)
    // The same checks as the crash test, against the PostgreSQL ledger's export.
    let verified = try sun.expectDoneTagsVerify(dir, ledger: postgresURL ?? "", key: key, job: job)
    #expect(verified == done.count)
    try sun.expectNoUnrecordedKeys(dir, ledger: postgresURL ?? "", context: "two stations", job: job)
  }
}
