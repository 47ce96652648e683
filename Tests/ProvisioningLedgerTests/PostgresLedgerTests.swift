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
