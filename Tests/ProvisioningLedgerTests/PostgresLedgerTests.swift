import Foundation
import Testing
import ProvisioningLedger
@testable import ProvisioningLedgerPostgres

/// The PostgreSQL ledger against a real server (NFCTAG_TEST_POSTGRES): tables, stations at once.
@Suite(.serialized, .enabled(if: TestPostgres.available, TestPostgres.skipReason))
struct PostgresLedgerTests {
  @Test func tablesAreCreatedInAnEmptyDatabase() throws {
    let scratch = try ScratchDatabase()
    defer { scratch.drop() }
    #expect(try PostgresLedger.jobs(settings: scratch.settings) == [])
    let ledger = try PostgresLedger(settings: scratch.settings, job: LedgerJob(name: "line-1"))
    defer { ledger.close() }
    #expect(try ledger.counts() == LedgerCounts())
    let admin = try AdminConnection(scratch.settings)
    #expect(try admin.int("SELECT version::int8 FROM nfctag_ledger_schema") == Int(PostgresSchema.version))
    #expect(try admin.int("SELECT count(*) FROM nfctag_ledger_schema") == 1)
    let second = try PostgresLedger(settings: scratch.settings, job: LedgerJob(name: "line-0"))
    second.close()
    #expect(try PostgresLedger.jobs(settings: scratch.settings) == ["line-0", "line-1"])
  }

  @Test func eightStationsStartingAtOnceShareOneSchema() throws {
    let scratch = try ScratchDatabase()
    defer { scratch.drop() }
    let failures = Collected<String>()
    let job = LedgerJob(name: "line")
    let rows = TestPostgres.rows(300)
    let added = Collected<Int>()
    onThreads(8) { station in
      do {
        let ledger = try PostgresLedger(settings: scratch.settings, job: job)
        defer { ledger.close() }
        added.append(try ledger.importRows(rows).added)
      } catch {
        failures.append("station \(station): \(error)")
      }
    }
    #expect(failures.all == [])
    #expect(added.all.reduce(0, +) == 300, "every row imported once: \(added.all)")
    let admin = try AdminConnection(scratch.settings)
    #expect(try admin.int("SELECT count(*) FROM nfctag_ledger_schema") == 1)
    #expect(try admin.int("SELECT count(*) FROM nfctag_rows") == 300)
  }

  @Test func newerSchemaIsRefused() throws {
    let scratch = try ScratchDatabase()
    defer { scratch.drop() }
    try PostgresLedger(settings: scratch.settings, job: LedgerJob(name: "line")).close()
    try AdminConnection(scratch.settings).run("UPDATE nfctag_ledger_schema SET version = 99")
    #expect(throws: LedgerError.self) { try PostgresLedger(settings: scratch.settings, job: LedgerJob(name: "line")) }
    do {
      _ = try PostgresLedger(settings: scratch.settings, job: LedgerJob(name: "line"))
    } catch {
      guard case .incompatible(let message) = error else { Issue.record("\(error)"); return }
      #expect(message.contains("99"))
    }
  }

  @Test func aVersion1LedgerIsMigratedAndItsJobGetsSettingsOnItsNextRun() throws {
    let scratch = try ScratchDatabase()
    defer { scratch.drop() }
    let first = try PostgresLedger(settings: scratch.settings, job: LedgerJob(name: "line"))
    _ = try first.importRows(TestPostgres.rows(2))
    first.close()
    // As version 1 left it: no settings column.
    let admin = try AdminConnection(scratch.settings)
    try admin.run("ALTER TABLE nfctag_jobs DROP COLUMN settings")
    try admin.run("ALTER TABLE nfctag_rows DROP COLUMN progress")
    try admin.run("DROP TABLE nfctag_sun_counters")
    try admin.run("UPDATE nfctag_ledger_schema SET version = 1")
    let ledger = try PostgresLedger(settings: scratch.settings, job: LedgerJob(name: "line"), createIfMissing: false)
    defer { ledger.close() }
    #expect(try admin.int("SELECT version::int8 FROM nfctag_ledger_schema") == Int(PostgresSchema.version))
    #expect(try ledger.records().count == 2)
    #expect(try ledger.settings() == nil)
    #expect(try ledger.recordSettings("S", replacing: false) == .recorded)
    #expect(try ledger.recordSettings("T", replacing: false) == .differs(recorded: "S"))
  }

  @Test func aVersion2LedgerIsMigratedAndItsRowsGetProgress() throws {
    let scratch = try ScratchDatabase()
    defer { scratch.drop() }
    let first = try PostgresLedger(settings: scratch.settings, job: LedgerJob(name: "line"))
    _ = try first.importRows(TestPostgres.rows(2))
    _ = try first.claim(uid: "04a1", at: LedgerPlace(station: "s", reader: "r", time: "t"))
    first.close()
    // As version 2 left it: no progress column.
    let admin = try AdminConnection(scratch.settings)
    try admin.run("ALTER TABLE nfctag_rows DROP COLUMN progress")
    try admin.run("DROP TABLE nfctag_sun_counters")
    try admin.run("UPDATE nfctag_ledger_schema SET version = 2")
    let ledger = try PostgresLedger(settings: scratch.settings, job: LedgerJob(name: "line"), createIfMissing: false)
    defer { ledger.close() }
    #expect(try admin.int("SELECT version::int8 FROM nfctag_ledger_schema") == Int(PostgresSchema.version))
    #expect(try ledger.records().map(\.progress) == [nil, nil])
    try ledger.recordProgress(rowID: "r1", uid: "04a1", progress: "P")
    #expect(try ledger.row(boundTo: "04a1")?.progress == "P")
  }

  @Test func aVersion3LedgerIsMigratedAndKeepsSUNCounters() throws {
    let scratch = try ScratchDatabase()
    defer { scratch.drop() }
    try PostgresLedger(settings: scratch.settings, job: LedgerJob(name: "line")).close()
    // As version 3 left it: no counters table.
    let admin = try AdminConnection(scratch.settings)
    try admin.run("DROP TABLE nfctag_sun_counters")
    try admin.run("UPDATE nfctag_ledger_schema SET version = 3")
    let ledger = try PostgresLedger(settings: scratch.settings, job: LedgerJob(name: "line"), createIfMissing: false)
    defer { ledger.close() }
    #expect(try admin.int("SELECT version::int8 FROM nfctag_ledger_schema") == 4)
    #expect(try ledger.acceptCounter(uid: "04a1", counter: 5) == .accepted)
    #expect(try ledger.acceptCounter(uid: "04a1", counter: 4) == .notAbove(last: 5))
  }

  @Test func unknownJobWithoutCreate() throws {
    let settings = try TestPostgres.settings()
    let job = TestPostgres.freshJob()
    #expect(throws: LedgerError.unknownJob(job.name)) { try PostgresLedger(settings: settings, job: job, createIfMissing: false) }
    try PostgresLedger(settings: settings, job: job).close()
    let reopened = try PostgresLedger(settings: settings, job: job, createIfMissing: false)
    reopened.close()
    #expect(throws: LedgerError.closed) { try reopened.counts() }
  }

  @Test func refusedLoginNamesNoPassword() throws {
    var settings = try TestPostgres.settings()
    settings.password = PostgresPassword("wr0ng-s3cret")
    do {
      _ = try PostgresLedger(settings: settings, job: TestPostgres.freshJob())
      Issue.record("a wrong password was accepted")
    } catch {
      guard case .cannotOpen(let message) = error else { Issue.record("\(error)"); return }
      #expect(message.contains("password authentication failed"))
      #expect(!message.contains("s3cret"))
      #expect(message.contains(settings.description))
    }
  }

  @Test func tlsRequiredFromAServerWithoutTLS() throws {
    var settings = try TestPostgres.settings()
    settings.sslMode = .require
    do {
      _ = try PostgresLedger(settings: settings, job: TestPostgres.freshJob())
      Issue.record("a plain connection was accepted with sslmode require")
    } catch {
      guard case .cannotOpen(let message) = error else { Issue.record("\(error)"); return }
      #expect(message.contains("TLS"), "\(message)")
    }
    settings.sslMode = .prefer  // the test server has no TLS: prefer falls back to plain TCP
    try PostgresLedger(settings: settings, job: TestPostgres.freshJob()).close()
  }

  /// Through the server's unix socket (the cluster's directory, when this process may enter it).
  @Test func unixSocketDirectoryAsHost() throws {
    guard let directory = ProcessInfo.processInfo.environment["NFCTAG_POSTGRES_DIR"],
          access(directory, X_OK) == 0 else { return }
    var settings = try TestPostgres.settings()
    settings.host = directory
    let ledger = try PostgresLedger(settings: settings, job: TestPostgres.freshJob())
    defer { ledger.close() }
    #expect(try ledger.importRows(TestPostgres.rows(2)).added == 2)
  }

  @Test func unreachableServerCannotOpen() throws {
    var settings = try TestPostgres.settings()
    settings.host = "127.0.0.1"
    settings.port = 1
    do {
      _ = try PostgresLedger(settings: settings, job: TestPostgres.freshJob())
      Issue.record("a ledger opened on port 1")
    } catch {
      guard case .unavailable(let message) = error else { Issue.record("\(error)"); return }
      #expect(message.hasPrefix("cannot connect to PostgreSQL at "), "\(message)")
    }
  }

  @Test func importIsIdempotentAndRefusesChangedRows() throws {
    let settings = try TestPostgres.settings()
    let ledger = try PostgresLedger(settings: settings, job: TestPostgres.freshJob())
    defer { ledger.close() }
    #expect(try ledger.importRows(TestPostgres.rows(5)) == LedgerImport(added: 5, alreadyThere: 0))
    #expect(try ledger.importRows(TestPostgres.rows(7)) == LedgerImport(added: 2, alreadyThere: 5))
    var changed = TestPostgres.rows(8)
    changed[1].contentHash = String(repeating: "cd", count: 32)
    changed[2].sequence = 30
    do {
      _ = try ledger.importRows(changed)
      Issue.record("changed rows were accepted")
    } catch {
      guard case .rowsDiffer(let lines) = error else { Issue.record("\(error)"); return }
      #expect(lines.count == 2)
      #expect(lines.first?.hasPrefix("row r2:") == true)
      #expect(lines.last?.hasPrefix("row r3:") == true)
    }
    #expect(try ledger.counts().pending == 7, "nothing of the refused import was added")
  }

  @Test func eightStationsClaimTwoThousandRowsEachOnce() throws {
    let settings = try TestPostgres.settings()
    let job = TestPostgres.freshJob("claims")
    let setup = try PostgresLedger(settings: settings, job: job)
    defer { setup.close() }
    // Under ThreadSanitizer (make tsan) 400 rows: the eight connections' threads meet as often, the
    // run takes a fifth of the time.
    let count = ProcessInfo.processInfo.environment["NFCTAG_TSAN"] == "1" ? 400 : 2000
    _ = try setup.importRows(TestPostgres.rows(count))
    let claimed = Collected<String>()
    let failures = Collected<String>()
    onThreads(8) { station in
      do {
        let ledger = try PostgresLedger(settings: settings, job: job)
        defer { ledger.close() }
        var tag = 0
        while true {
          tag += 1
          let uid = String(format: "04%02x%08x", station, tag)
          let place = TestPostgres.place("s\(station)")
          guard case .claimed(let record) = try ledger.claim(uid: uid, at: place) else { break }
          claimed.append(record.id)
          try ledger.finish(LedgerDone(rowID: record.id, uid: uid, messageHex: "d1", messageSHA256: "00", place: place))
        }
      } catch {
        failures.append("station \(station): \(error)")
      }
    }
    #expect(failures.all == [])
    #expect(claimed.all.count == count)
    #expect(Set(claimed.all).count == count)
    let records = try setup.records()
    #expect(records.allSatisfy { $0.status == .done })
    #expect(Set(records.compactMap(\.uid)).count == count)
    #expect(Set(records.compactMap(\.station)).count == 8, "every station got rows")
  }

  /// Round trips, counted as statements sent (BEGIN and COMMIT included): a batch of SUN
  /// counters is one statement whatever its size, its answers and its repeated UIDs; a claim
  /// (claimed, resumed, exhausted) one; a finish with a counter baseline one.
  @Test func aCounterBatchAndAFinishAreOneStatementEach() throws {
    let ledger = try PostgresLedger(settings: try TestPostgres.settings(), job: TestPostgres.freshJob("trips"))
    defer { ledger.close() }
    _ = try ledger.importRows(TestPostgres.rows(2))
    /// What `body` returned and the statements it sent.
    func counted<T>(_ body: () throws -> T) throws -> (T, statements: Int) {
      let before = ledger.statementsSent
      let value = try body()
      return (value, ledger.statementsSent - before)
    }
    let head = "04" + (0..<4).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    let fresh = (0..<64).map { LedgerCounter(uid: head + String(format: "%02x", $0), counter: UInt32($0)) }
    let first = try counted { try ledger.acceptCounters(fresh) }
    #expect(first.0 == Array(repeating: .accepted, count: 64))
    #expect(first.statements == 3)
    let mixed = fresh + fresh.map { LedgerCounter(uid: $0.uid, counter: $0.counter + 1) } + fresh.prefix(8)
    let answers = fresh.map { LedgerCounterCheck.notAbove(last: $0.counter) } + Array(repeating: .accepted, count: 64)
      + fresh.prefix(8).map { .notAbove(last: $0.counter + 1) }
    let second = try counted { try ledger.acceptCounters(mixed) }
    #expect(second.0 == answers)
    #expect(second.statements == 3)
    let one = try counted { try ledger.acceptCounter(uid: head + "00", counter: 0) }
    #expect(one.0 == .notAbove(last: 1))
    #expect(one.statements == 3)

    let place = TestPostgres.place()
    let claim = try counted { try ledger.claim(uid: head + "c1", at: place) }
    let row = try #require(claimed(claim.0))
    // A claim stays three statements inside BEGIN/COMMIT: one statement measured slower
    // (PostgresLedger.claim).
    #expect(claim.statements == 5)
    let resumed = try counted { try ledger.claim(uid: head + "c1", at: place) }
    #expect(resumed.0 == .resumed(row))
    #expect(resumed.statements == 3)
    _ = try ledger.claim(uid: head + "c2", at: place)
    let exhausted = try counted { try ledger.claim(uid: head + "c3", at: place) }
    #expect(exhausted.0 == .exhausted)
    #expect(exhausted.statements == 5)
    var done = LedgerDone(rowID: row.id, uid: head + "c1", messageHex: "d1", messageSHA256: "00", place: place)
    done.progress = LedgerTagProgress(step: "done", keyVersions: [1, 1, 1, 1, 1], diversificationVersion: 1,
                                      counterBaseline: 40).encoded
    #expect(try counted { try ledger.finish(done) }.statements == 3)
    #expect(try ledger.acceptCounter(uid: head + "c1", counter: 40) == .notAbove(last: 40))
    #expect(try ledger.row(boundTo: head + "c1")?.status == .done)
  }

  /// Two connections, two threads on each, all offering counters 1…60 of one UID in batches
  /// that repeat it (the counter twice, after the one below it) around a UID of each thread's
  /// own: each counter is accepted exactly once in all, the repeats never.
  @Test func batchesRepeatingAUIDOnTwoConnectionsAcceptEachCounterOnce() throws {
    let settings = try TestPostgres.settings()
    let job = TestPostgres.freshJob("repeats")
    let ledgers = try (0..<2).map { _ in try PostgresLedger(settings: settings, job: job) }
    defer { ledgers.forEach { $0.close() } }
    let uid = "04" + (0..<6).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    let accepted = Collected<UInt32>()
    let failures = Collected<String>()
    onThreads(4) { thread in
      let own = uid + String(format: "%02x", thread)
      for counter in UInt32(1)...60 {
        do {
          let checks = try ledgers[thread % 2].acceptCounters([
            LedgerCounter(uid: own, counter: counter), LedgerCounter(uid: uid, counter: counter - 1),
            LedgerCounter(uid: uid, counter: counter), LedgerCounter(uid: uid, counter: counter)])
          guard checks.count == 4, checks[0] == .accepted, checks[3] != .accepted else {
            failures.append("\(counter): \(checks)")
            return
          }
          if checks[1] == .accepted { accepted.append(counter - 1) }
          if checks[2] == .accepted { accepted.append(counter) }
        } catch {
          failures.append("\(counter): \(error)")
          return
        }
      }
    }
    #expect(failures.all == [])
    #expect(accepted.all.sorted() == Array(0...60), "\(accepted.all.sorted())")
  }

  private func claimed(_ claim: LedgerClaim) -> LedgerRecord? {
    if case .claimed(let record) = claim { return record }
    return nil
  }

  @Test func oneTagOnEightStationsGetsOneRow() throws {
    let settings = try TestPostgres.settings()
    let job = TestPostgres.freshJob("race")
    let setup = try PostgresLedger(settings: settings, job: job)
    defer { setup.close() }
    _ = try setup.importRows(TestPostgres.rows(20))
    let ledgers = try (0..<8).map { _ in try PostgresLedger(settings: settings, job: job) }
    defer { ledgers.forEach { $0.close() } }
    for round in 0..<5 {
      let uid = "04aa00\(round)"
      let outcomes = Collected<LedgerClaim>()
      onThreads(8) { station in
        if let claim = try? ledgers[station].claim(uid: uid, at: TestPostgres.place("s\(station)")) {
          outcomes.append(claim)
        }
      }
      let all = outcomes.all
      #expect(all.count == 8)
      #expect(all.filter { if case .claimed = $0 { true } else { false } }.count == 1)
      #expect(all.filter { if case .resumed = $0 { true } else { false } }.count == 7)
      #expect(try setup.records().filter { $0.uid == uid }.count == 1)
    }
  }
}

/// The backend-generic checks (LedgerConformance) on PostgreSQL: each check gets jobs of its own
/// in the test database (the job names prefixed with a fresh run id), every `open` a new
/// connection.
@Suite(.enabled(if: TestPostgres.available, TestPostgres.skipReason))
struct PostgresLedgerConformance {
  @Test(arguments: LedgerConformance.all)
  func conforms(_ check: LedgerCheck) throws {
    let settings = try TestPostgres.settings()
    let run = TestPostgres.freshJob("conformance").name
    try check.run { job in try PostgresLedger(settings: settings, job: LedgerJob(name: "\(run)/\(job.name)")) }
  }
}
