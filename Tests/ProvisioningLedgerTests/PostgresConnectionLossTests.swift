import Foundation
import Locking
import Testing
import ProvisioningLedger
@testable import ProvisioningLedgerPostgres

/// Losing the server: a call in flight throws `unavailable` and commits nothing it reports; the
/// next call reconnects (with backoff while the server stays away).
@Suite(.serialized, .enabled(if: TestPostgres.available, TestPostgres.skipReason))
struct PostgresConnectionLossTests {
  /// Waits until `condition` holds (polling every 20 ms), at most `seconds`.
  func waitFor(_ seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if try condition() { return true }
      usleep(20_000)
    }
    return false
  }

  func unavailableMessage<T>(_ result: Result<T, LedgerError>?) -> String? {
    if case .failure(.unavailable(let message))? = result { return message }
    return nil
  }

  @Test func terminatedInTheMiddleOfACall() throws {
    let application = TestPostgres.freshApplicationName()
    let job = TestPostgres.freshJob("lost")
    let ledger = try PostgresLedger(settings: TestPostgres.settings(applicationName: application), job: job)
    defer { ledger.close() }
    _ = try ledger.importRows(TestPostgres.rows(3))
    guard case .claimed(let row) = try ledger.claim(uid: "04a1", at: TestPostgres.place()) else {
      Issue.record("no row claimed"); return
    }
    // Another session holds the row's lock, so the ledger's release waits inside its transaction.
    let admin = try AdminConnection(TestPostgres.settings())
    try admin.run("BEGIN")
    try admin.run("SELECT 1 FROM nfctag_rows WHERE job = '\(job.name)' AND id = '\(row.id)' FOR UPDATE")
    let outcome = Locked<Result<LedgerRecord, LedgerError>?>(nil)
    let terminated = Locked(false)
    onThreads(2) { thread in
      if thread == 0 {
        let result = Result { () throws(LedgerError) in try ledger.release(rowID: row.id) }
        outcome.withLock { $0 = result }
      } else {
        let waiting = (try? self.waitFor(10) {
          try admin.int("""
            SELECT count(*) FROM pg_stat_activity WHERE application_name = '\(application)' AND wait_event_type = 'Lock'
            """) == 1
        }) ?? false
        terminated.withLock { $0 = waiting && ((try? admin.terminate(application)) == 1) }
      }
    }
    try admin.run("ROLLBACK")
    #expect(terminated.withLock { $0 })
    let message = unavailableMessage(outcome.withLock { $0 })
    #expect(message?.contains("lost") == true, "\(String(describing: outcome.withLock { $0 }))")
    // The next call reconnects; the release was not committed.
    #expect(try ledger.row(boundTo: "04a1")?.status == .claimed)
    #expect(try ledger.release(rowID: row.id).uid == "04a1")
    #expect(try ledger.counts().pending == 3)
  }

  @Test func lostDuringCommitIsNeverReportedDone() throws {
    let scratch = try ScratchDatabase()
    defer { scratch.drop() }
    let application = TestPostgres.freshApplicationName()
    let ledger = try PostgresLedger(settings: scratch.settings(applicationName: application), job: LedgerJob(name: "commit"))
    defer { ledger.close() }
    _ = try ledger.importRows(TestPostgres.rows(2))
    guard case .claimed(let row) = try ledger.claim(uid: "04c0", at: TestPostgres.place()) else {
      Issue.record("no row claimed"); return
    }
    // A deferred trigger runs at COMMIT and sleeps there: the ledger's backend is terminated while
    // the ledger waits for the answer to COMMIT.
    let admin = try AdminConnection(scratch.settings)
    try admin.run("""
      CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_sleep(5); RETURN NULL; END $$
      """)
    try admin.run("""
      CREATE CONSTRAINT TRIGGER slow_commit AFTER UPDATE ON nfctag_rows DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW WHEN (NEW.status = 'done') EXECUTE FUNCTION slow_commit()
      """)
    let done = LedgerDone(rowID: row.id, uid: "04c0", messageHex: "d101", messageSHA256: "ff", place: TestPostgres.place())
    let outcome = Locked<Result<Void, LedgerError>?>(nil)
    let terminated = Locked(false)
    onThreads(2) { thread in
      if thread == 0 {
        let result = Result { () throws(LedgerError) in try ledger.finish(done) }
        outcome.withLock { $0 = result }
      } else {
        let committing = (try? self.waitFor(10) {
          try admin.int("""
            SELECT count(*) FROM pg_stat_activity
            WHERE application_name = '\(application)' AND state = 'active' AND query = 'COMMIT'
            """) == 1
        }) ?? false
        terminated.withLock { $0 = committing && ((try? admin.terminate(application)) == 1) }
      }
    }
    #expect(terminated.withLock { $0 })
    let message = unavailableMessage(outcome.withLock { $0 })
    #expect(message?.contains("waiting for the answer to COMMIT") == true, "\(String(describing: outcome.withLock { $0 }))")
    try admin.run("DROP TRIGGER slow_commit ON nfctag_rows")
    // Terminated inside the commit's trigger: nothing was committed; the row is still the tag's.
    let after = try ledger.row(boundTo: "04c0")
    #expect(after?.status == .claimed)
    try ledger.finish(done)
    #expect(try ledger.row(boundTo: "04c0")?.status == .done)
  }

  @Test func serverAwayBacksOffThenReconnects() throws {
    let scratch = try ScratchDatabase()
    defer { scratch.drop() }
    let application = TestPostgres.freshApplicationName()
    let ledger = try PostgresLedger(settings: scratch.settings(applicationName: application), job: LedgerJob(name: "away"))
    defer { ledger.close() }
    _ = try ledger.importRows(TestPostgres.rows(4))
    let admin = try AdminConnection(TestPostgres.settings())
    try admin.run("ALTER DATABASE \(scratch.name) ALLOW_CONNECTIONS false")
    #expect(try admin.terminate(application) == 1)
    #expect(try waitFor(5) { try admin.backends(application).isEmpty })

    var messages: [String] = []
    var started = Date()
    var gaps: [Double] = []
    for _ in 0..<4 {
      let result = Result { () throws(LedgerError) in try ledger.counts() }
      gaps.append(Date().timeIntervalSince(started))
      started = Date()
      messages.append(unavailableMessage(result) ?? "not unavailable: \(result)")
    }
    #expect(messages[0].contains("next attempt in 0.1 s"), "\(messages)")
    #expect(messages[1].contains("next attempt in 0.2 s"), "\(messages)")
    #expect(messages[2].contains("next attempt in 0.4 s"), "\(messages)")
    #expect(messages[3].contains("next attempt in 0.8 s"), "\(messages)")
    #expect(messages.allSatisfy { $0.contains("not currently accepting connections") }, "\(messages)")
    #expect(gaps[1] >= 0.09 && gaps[2] >= 0.19 && gaps[3] >= 0.39, "each attempt waits its delay: \(gaps)")

    try admin.run("ALTER DATABASE \(scratch.name) ALLOW_CONNECTIONS true")
    started = Date()
    #expect(try ledger.counts().pending == 4)
    #expect(Date().timeIntervalSince(started) >= 0.7, "waited the last delay")
    // Connected again: the delay is back to nothing, not the last 0.8 s again (the bound leaves a
    // slow machine room below that).
    started = Date()
    #expect(try ledger.counts().pending == 4)
    #expect(Date().timeIntervalSince(started) < 0.7)
  }

  @Test func idleConnectionKilledIsReplacedWithoutAnError() throws {
    let application = TestPostgres.freshApplicationName()
    let ledger = try PostgresLedger(settings: TestPostgres.settings(applicationName: application),
                                    job: TestPostgres.freshJob("idle"))
    defer { ledger.close() }
    _ = try ledger.importRows(TestPostgres.rows(2))
    let admin = try AdminConnection(TestPostgres.settings())
    #expect(try admin.terminate(application) == 1)
    #expect(try waitFor(5) { try admin.backends(application).isEmpty })
    #expect(try ledger.counts().pending == 2)
    #expect(try admin.backends(application).count == 1)
  }

  /// 8 stations while their connections are terminated at random: every call either commits and
  /// says so or throws `unavailable`; a station retries with the same tag, as the engine does.
  @Test func stationsUnderRandomTerminationsNeverLoseOrDoubleARow() throws {
    let application = TestPostgres.freshApplicationName()
    let settings = try TestPostgres.settings(applicationName: application)
    let job = TestPostgres.freshJob("chaos")
    let setup = try PostgresLedger(settings: TestPostgres.settings(), job: job)
    defer { setup.close() }
    _ = try setup.importRows(TestPostgres.rows(400))
    let finished = Collected<(row: String, uid: String)>()
    let unavailable = Collected<String>()
    let failures = Collected<String>()
    let stationsDone = Locked(0)
    let kills = Locked(0)
    onThreads(9) { thread in
      if thread == 8 {
        guard let admin = try? AdminConnection(TestPostgres.settings()) else { failures.append("no admin"); return }
        while stationsDone.withLock({ $0 }) < 8 {
          usleep(30_000)
          let killed = (try? admin.int("""
            SELECT count(pg_terminate_backend(pid))::int8 FROM (SELECT pid FROM pg_stat_activity
            WHERE application_name = '\(application)' ORDER BY random() LIMIT 1) AS victim
            """)) ?? 0
          kills.withLock { $0 += killed }
        }
        return
      }
      defer { stationsDone.withLock { $0 += 1 } }
      do {
        // Opening is not retried by the ledger (a connection lost while opening is `cannotOpen`):
        // the station tries again, as a person restarting it would.
        var opened: PostgresLedger?
        for _ in 0..<50 where opened == nil {
          opened = try? PostgresLedger(settings: settings, job: job)
        }
        guard let ledger = opened else { throw TestFailure("could not open the ledger in 50 attempts") }
        defer { ledger.close() }
        /// Runs `body` until it does not throw `unavailable` (at most 200 times).
        func retrying<T>(_ body: () throws(LedgerError) -> T) throws(LedgerError) -> T {
          for _ in 0..<200 {
            do { return try body() } catch {
              guard case .unavailable(let message) = error else { throw error }
              unavailable.append(message)
            }
          }
          throw .unavailable("gave up")
        }
        var tag = 0
        while true {
          tag += 1
          let uid = String(format: "05%02x%06x", thread, tag)
          let place = TestPostgres.place("s\(thread)")
          let claim = try retrying { () throws(LedgerError) in try ledger.claim(uid: uid, at: place) }
          let row: LedgerRecord
          switch claim {
          case .exhausted: return
          case .claimed(let record), .resumed(let record): row = record
          case .alreadyDone(let record): failures.append("fresh tag \(uid) already done as \(record.id)"); return
          }
          let done = LedgerDone(rowID: row.id, uid: uid, messageHex: "d1", messageSHA256: "00", place: place)
          try retrying { () throws(LedgerError) in
            do throws(LedgerError) {
              try ledger.finish(done)
            } catch {
              // An earlier attempt was committed though its answer was lost: the ledger says done.
              guard case .notBound = error, try ledger.row(boundTo: uid)?.status == .done else { throw error }
            }
          }
          finished.append((row.id, uid))
        }
      } catch {
        failures.append("station \(thread): \(error)")
      }
    }
    #expect(failures.all == [])
    #expect(kills.withLock { $0 } > 0)
    let records = try setup.records()
    #expect(records.count == 400)
    let counts = try setup.counts()
    #expect(records.allSatisfy { $0.status == .done }, "\(counts)")
    #expect(Set(records.compactMap(\.uid)).count == 400)
    let byRow = Dictionary(uniqueKeysWithValues: records.map { ($0.id, $0.uid) })
    #expect(finished.all.count == 400)
    #expect(finished.all.allSatisfy { byRow[$0.row] == $0.uid }, "every finish reported is the ledger's")
    print("8 stations, 400 rows: \(kills.withLock { $0 }) connections terminated, \(unavailable.all.count) calls unavailable")
  }
}
