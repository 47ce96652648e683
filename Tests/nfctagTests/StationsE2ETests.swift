import Foundation
import Testing

/// PostgreSQL for the several-station tests: `make test` starts a throw-away server and sets
/// NFCTAG_TEST_POSTGRES; elsewhere these tests are skipped with this reason.
let postgresURL = ProcessInfo.processInfo.environment["NFCTAG_TEST_POSTGRES"]
let postgresSkipReason: Comment = "needs PostgreSQL: run `make test` (starts a throw-away server, sets NFCTAG_TEST_POSTGRES)"

/// Several stations, one PostgreSQL ledger: two processes on the two vpcd slots with
/// feeders, one killed with SIGKILL and restarted.
@Suite(.serialized, .enabled(if: e2eEnabled && postgresURL != nil, "\(e2eSkipReason); \(postgresSkipReason)"))
struct StationsEndToEnd {
  let base = ProvisionEndToEnd()

  func station(_ name: String, rows: URL, job: String, reader: String, extra: [String] = []) throws -> Process {
    let log = rows.deletingLastPathComponent().appendingPathComponent("station-\(name)-\(UUID().uuidString.prefix(4)).log")
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    let process = Process()
    process.executableURL = nfctagBinary()
    process.arguments = ["provision", rows.path, "--url", "https://example.com/{slug}?id={id}", "--ledger", postgresURL ?? "",
                         "--job", job, "--station", name, "--reader", reader, "--json", "--timeout", "6"] + extra
    process.standardOutput = FileHandle.nullDevice
    process.standardError = try FileHandle(forWritingTo: log)
    try process.run()
    return process
  }

  /// What the stations said on stderr (for failure messages).
  func logs(_ dir: URL) -> String {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
    return names.filter { $0.hasSuffix(".log") }.sorted().map { name in
      name + ": " + ((try? String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)) ?? "").suffix(600)
    }.joined(separator: "\n")
  }

  @Test(.virtualReaders) func twoStationsOneKilledAndRestartedEveryRowOnExactlyOneTag() throws {
    // 40 rows (24 in a plain `make test`): about ten are done when station a is killed, the rest
    // after its restart.
    let count = repetitions(full: 40, quick: 24, tsan: 40)
    let (dir, rows) = try base.job(rows: count)
    let job = "two-stations-\(UUID().uuidString.prefix(8))"
    // Slot 00 00 (35963) for station a, 00 01 (35964) for station b; different seeds, different UIDs.
    let feedA = try base.feeder(dir, count: count, seed: 21, port: "127.0.0.1:35963")
    let feedB = try base.feeder(dir, count: count, seed: 22, port: e2ePort)
    defer { base.stopFeeder(feedA); base.stopFeeder(feedB) }
    var a = try station("a", rows: rows, job: job, reader: "Virtual PCD 00 00")
    let b = try station("b", rows: rows, job: job, reader: e2eReader)
    defer { for station in [a, b] where station.isRunning { station.terminate() } }  // never left to later tests
    usleep(4_000_000)
    kill(a.processIdentifier, SIGKILL)
    a.waitUntilExit()
    usleep(500_000)
    a = try station("a", rows: rows, job: job, reader: "Virtual PCD 00 00")
    let statusA = waitForExit(a, seconds: 240), statusB = waitForExit(b, seconds: 240)
    #expect(statusA != nil && statusB != nil, "a station did not finish")
    if a.isRunning { a.terminate() }
    if b.isRunning { b.terminate() }
    let exported = try postgresExport(job: job)
    let done = exported.filter { $0[2] == "done" }
    let bound = exported.filter { $0[2] == "claimed" || $0[2] == "failed" }
    #expect(done.count + bound.count == count, "done \(done.count), bound \(bound.count)\n\(logs(dir))")
    #expect(bound.count <= 1, "only the killed station's tag in hand may hold a row it did not finish")
    #expect(Set(done.map { $0[5] }) == ["a", "b"], "both stations wrote rows")
    let uids = exported.map { $0[1] }.filter { !$0.isEmpty }
    #expect(Set(uids).count == uids.count)
    // The stations end as soon as the last row is done; the feeders save the tags still in the
    // field when they stop.
    base.stopFeeder(feedA)
    base.stopFeeder(feedB)
    try base.checkImages(dir, exported: exported)
  }
}

/// Eight stations on one PostgreSQL ledger, on simulated readers only: no vpcd slot, so the suite
/// runs beside the end-to-end ones (in scripts/run-tests.sh's cli process, not theirs).
@Suite(.enabled(if: postgresURL != nil, postgresSkipReason))
struct StationsUnderLoad {
  @Test func eightStationsFiveThousandRowsNoDuplicateNoLoss() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-load-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let job = "load-\(UUID().uuidString.prefix(8))"
    let count = repetitions(full: 5000, quick: 5000, tsan: 400)
    var stations: [Process] = []
    for i in 1...8 {
      let process = Process()
      process.executableURL = nfctagBinary()
      process.arguments = ["provision", "--count", "\(count)", "--url", "https://example.com/{n:05}?u={uid}", "--ledger", postgresURL ?? "",
                           "--job", job, "--station", "s\(i)", "--json", "--timeout", "3",
                           "--reader", "sim:ntag213+feed=\(count),seed=\(300 + i),hand-ms=5000"]
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      stations.append(process)
    }
    for process in stations {
      let status = waitForExit(process, seconds: 600)
      #expect(status == 0, "a station ended with \(String(describing: status))")
      if process.isRunning { process.terminate() }
    }
    let r = try runNFCTag(["ledger", "export", postgresURL ?? "", "--job", job, "--format", "csv"], timeout: 120)
    #expect(r.status == 0, "\(r.stderr)")
    let rows = r.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
      .filter { !$0[0].isEmpty }
    #expect(rows.count == count)
    #expect(rows.allSatisfy { $0[2] == "done" }, "every row done")
    #expect(Set(rows.map { $0[1] }).count == count, "\(count) distinct UIDs")
    #expect(Set(rows.map { $0[5] }).count > 1, "the stations shared the work")
    let status = try runNFCTag(["ledger", "status", postgresURL ?? "", "--job", job])
    #expect(status.stdout.contains("done:        \(count)\n"), "\(status.stdout)")
  }
}

/// The rows of `job` in the PostgreSQL ledger (`ledger export --format csv`, header and empty rows
/// left out), each as its fields.
func postgresExport(job: String) throws -> [[String]] {
  let r = try runNFCTag(["ledger", "export", postgresURL ?? "", "--job", job, "--format", "csv"])
  #expect(r.status == 0, "\(r.stderr)")
  return r.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    .filter { !$0[0].isEmpty }
}

extension ProvisionEndToEnd {
  /// Every done row's image (in either feeder's folder) holds exactly its message.
  func checkImages(_ dir: URL, exported: [[String]]) throws {
    let imageByUID = Dictionary(try images(dir).map { ($0.uid, $0.file) }, uniquingKeysWith: { a, _ in a })
    for row in exported where row[2] == "done" {
      guard let image = imageByUID[row[1]] else {
        Issue.record("row \(row[0]) is done on \(row[1]), which has no image")
        continue
      }
      #expect(try messageHex(in: image) == row[3], "row \(row[0]) on \(row[1])")
    }
  }
}

/// Several readers in one run: readers that go away are reported and come back.
@Suite(.serialized, .enabled(if: e2eEnabled, e2eSkipReason), .virtualReaders)
struct ReadersEndToEnd {
  let base = ProvisionEndToEnd()

  /// 40 rows (24 in a plain `make test`): pcscd is restarted 3 s into the run, when about a
  /// quarter are done.
  @Test(.restartsPcscd) func twoReadersInOneRunSurviveAPcscdRestart() throws {
    let count = repetitions(full: 40, quick: 24, tsan: 40)
    let (dir, rows) = try base.job(rows: count)
    let feedA = try base.feeder(dir, count: count, seed: 41, port: "127.0.0.1:35963", quiet: false)
    let feedB = try base.feeder(dir, count: count, seed: 42, port: e2ePort, quiet: false)
    defer { base.stopFeeder(feedA); base.stopFeeder(feedB) }
    let ledger = dir.appendingPathComponent("ledger.sqlite")
    let process = Process()
    process.executableURL = nfctagBinary()
    process.arguments = ["provision", rows.path, "--url", "https://example.com/{slug}?id={id}", "--ledger", ledger.path,
                         // Idle time allowed for the readers and the feeders to come back after the restart: a
                         // ThreadSanitizer build on a loaded machine took more than 8 s (the run then ends with
                         // rows left); a run that finishes its rows ends at once whatever this is.
                         "--reader", "Virtual PCD 00 00", "--reader", e2eReader, "--json", "--timeout", "30"]
    let eventsFile = dir.appendingPathComponent("events.jsonl")
    _ = FileManager.default.createFile(atPath: eventsFile.path, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: eventsFile)
    let errorsFile = dir.appendingPathComponent("run.log")
    _ = FileManager.default.createFile(atPath: errorsFile.path, contents: nil)
    process.standardError = try FileHandle(forWritingTo: errorsFile)
    try process.run()
    defer { if process.isRunning { process.terminate() } }  // never left to the tests after this one
    usleep(3_000_000)
    // Both readers go away with pcscd and come back with it.
    #expect(try stopPcscd(), "pcscd did not stop")
    usleep(1_000_000)
    let start = try runProgram(packageRoot.appendingPathComponent("scripts/start-pcscd.sh").path, [], timeout: 30)
    #expect(start.status == 0, "\(start.stderr)")
    let deadline = Date().addingTimeInterval(180)
    while process.isRunning, Date() < deadline { usleep(100_000) }
    if process.isRunning { process.terminate() }
    let events = try String(contentsOf: eventsFile, encoding: .utf8).split(separator: "\n")
    for reader in ["Virtual PCD 00 00", e2eReader] {
      #expect(events.contains { $0.contains(#""event":"reader","reader":"\#(reader)","status":"unplugged""#) }, "\(reader)")
      #expect(events.contains { $0.contains(#""event":"reader","reader":"\#(reader)","status":"back""#) }, "\(reader)")
      #expect(events.contains { $0.contains(#""status":"done""#) && $0.contains(#""reader":"\#(reader)""#) }, "\(reader) wrote tags")
    }
    let exported = try base.export(ledger).filter { !$0[0].isEmpty }
    // By row: a tag that failed on a row given back and later done (a card seen without its ATR
    // while pcscd restarted) is that row's history, not a second row.
    let doneRows = exported.filter { $0[2] == "done" }.map { $0[0] }
    let done = Set(doneRows).count
    let bound = Set(exported.filter { $0[2] == "claimed" || $0[2] == "failed" }.map { $0[0] }).subtracting(doneRows).count
    #expect(doneRows.count == done, "a row done twice: \(doneRows.sorted())")
    // A tag in hand when pcscd went away may keep its row (its tag left with the restart).
    #expect(done + bound == count && bound <= 2, """
      done \(done), bound \(bound); events, ledger and logs in \(dir.path)
      run: \((try? String(contentsOf: errorsFile, encoding: .utf8)) ?? "")
      events after the restart: \(events.drop { !$0.contains("unplugged") }.joined(separator: "\n"))
      other nfctag processes: \((try? runProgram("/usr/bin/pgrep", ["-af", "nfctag"]).stdout) ?? "")
      pcscd: \((try? runProgram("/usr/bin/ps", ["-o", "pid,lstart,stat,args", "-C", "pcscd"]).stdout) ?? "")
      the readers now: \((try? runNFCTag(["readers", "--json"]).stdout) ?? "")
      feeder 41: \(((try? String(contentsOf: dir.appendingPathComponent("feeder-41.log"), encoding: .utf8)) ?? "").suffix(1500))
      feeder 42: \(((try? String(contentsOf: dir.appendingPathComponent("feeder-42.log"), encoding: .utf8)) ?? "").suffix(1500))
      """)
    // The feeders save the tags still in the field when they stop.
    base.stopFeeder(feedA)
    base.stopFeeder(feedB)
    try base.checkImages(dir, exported: exported)
  }
}
