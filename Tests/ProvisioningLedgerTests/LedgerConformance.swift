import Foundation
import Locking
import ProvisioningLedger
import Testing

/// Opens ledgers on one fresh, empty store (a new SQLite file, a new PostgreSQL schema): every
/// call is a new connection to that same store, for the job named. A backend may map the name
/// (to keep test runs apart in one database); the checks never compare `ledger.job`.
typealias LedgerFactory = @Sendable (LedgerJob) throws -> any Ledger

/// One behaviour every ``Ledger`` backend must have, run against a fresh store.
struct LedgerCheck: Sendable, CustomTestStringConvertible {
  var name: String
  var run: @Sendable (LedgerFactory) throws -> Void
  var testDescription: String { name }
}

/// The semantics of ``Ledger``, independent of the backend: each SQLite or PostgreSQL suite runs
/// ``all`` with its own factory.
enum LedgerConformance {
  static let all: [LedgerCheck] = [
    LedgerCheck(name: "settings are recorded once", run: settingsAreRecordedOnce),
    LedgerCheck(name: "import is idempotent", run: importIsIdempotent),
    LedgerCheck(name: "import refuses rows that differ", run: importRefusesRowsThatDiffer),
    LedgerCheck(name: "claims follow the sequence", run: claimsFollowTheSequence),
    LedgerCheck(name: "claim outcomes", run: claimOutcomes),
    LedgerCheck(name: "one UID, one row", run: oneUIDOneRow),
    LedgerCheck(name: "only the bound UID finishes", run: onlyTheBoundUIDFinishes),
    LedgerCheck(name: "fail keeps the binding", run: failKeepsTheBinding),
    LedgerCheck(name: "unclaim frees and logs", run: unclaimFreesAndLogs),
    LedgerCheck(name: "a tag's progress", run: tagProgress),
    LedgerCheck(name: "release rules", run: releaseRules),
    LedgerCheck(name: "counts", run: countsByState),
    LedgerCheck(name: "records and tag failures", run: recordsAndTagFailures),
    LedgerCheck(name: "the report is the same bytes", run: reportBytes),
    LedgerCheck(name: "two jobs stay apart", run: twoJobsStayApart),
    LedgerCheck(name: "a closed ledger refuses calls", run: closedLedgerRefusesCalls),
    LedgerCheck(name: "two connections, four threads, 200 rows", run: concurrentClaims),
    LedgerCheck(name: "SUN counters only go up", run: sunCounters),
    LedgerCheck(name: "SUN counters in one transaction", run: sunCounterBatches),
    LedgerCheck(name: "SUN counters of one UID repeated in a batch", run: sunCounterBatchesRepeatingAUID),
    LedgerCheck(name: "a finished row's counter baseline is its UID's last counter", run: finishRecordsTheBaseline),
    LedgerCheck(name: "two connections, four threads, one counter each accepted once", run: concurrentCounters),
  ]

  static let job = LedgerJob(name: "job-a")

  /// Runs `body(thread)` on four threads (0–3) at once; true when all of them ended within 120 s.
  static func onFourThreads(_ body: @escaping @Sendable (Int) -> Void) -> Bool {
    let finished = DispatchGroup()
    for thread in 0..<4 {
      finished.enter()
      Thread.detachNewThread {
        defer { finished.leave() }
        body(thread)
      }
    }
    return finished.wait(timeout: .now() + 120) == .success
  }

  /// Rows 1…n: id "n", sequence n, a made-up hash.
  static func rows(_ range: ClosedRange<Int>) -> [LedgerRowInput] {
    range.map { LedgerRowInput(id: String($0), sequence: $0, contentHash: hash($0)) }
  }

  static func hash(_ n: Int) -> String { String(repeating: String(n % 10), count: 64) }

  /// Station s1, reader r1, at second `second`.
  static func place(_ second: Int, station: String = "s1", reader: String = "r1") -> LedgerPlace {
    LedgerPlace(station: station, reader: reader, time: "2026-11-24T10:15:\(second < 10 ? "0" : "")\(second).123Z")
  }

  static func failure(_ reason: String, _ status: Int32, at second: Int) -> LedgerFailure {
    LedgerFailure(reason: reason, exitStatus: status, place: place(second))
  }

  static func done(_ rowID: String, _ uid: String, at second: Int) -> LedgerDone {
    LedgerDone(rowID: rowID, uid: uid, messageHex: "d1010454027" + rowID, messageSHA256: hash(Int(rowID) ?? 0),
               place: place(second, station: "s2", reader: "r2"))
  }

  static func claimed(_ claim: LedgerClaim) -> LedgerRecord? {
    if case .claimed(let record) = claim { return record }
    return nil
  }

  // MARK: Settings

  static func settingsAreRecordedOnce(_ open: LedgerFactory) throws {
    let ledger = try open(job)
    #expect(try ledger.settings() == nil)
    #expect(try ledger.recordSettings("A", replacing: false) == .recorded)
    #expect(try ledger.recordSettings("A", replacing: false) == .unchanged)
    // Another station with other settings: refused, nothing changed.
    let other = try open(job)
    #expect(try other.recordSettings("B", replacing: false) == .differs(recorded: "A"))
    #expect(try ledger.settings() == "A")
    // Replacing records the new ones.
    #expect(try other.recordSettings("B", replacing: true) == .recorded)
    #expect(try ledger.settings() == "B")
    #expect(try other.recordSettings("B", replacing: true) == .unchanged)
    // Each job has its own; any text survives.
    let second = try open(LedgerJob(name: "job-b"))
    #expect(try second.settings() == nil)
    let text = #"{"template":"url","source":"https://e.com/{id}?q='x'\n😀","lock":true}"#
    #expect(try second.recordSettings(text, replacing: false) == .recorded)
    #expect(try open(LedgerJob(name: "job-b")).settings() == text)
    #expect(try ledger.settings() == "B")
  }

  // MARK: Import

  static func importIsIdempotent(_ open: LedgerFactory) throws {
    let ledger = try open(job)
    #expect(try ledger.importRows(rows(1...3)) == LedgerImport(added: 3, alreadyThere: 0))
    #expect(try ledger.importRows(rows(1...3)) == LedgerImport(added: 0, alreadyThere: 3))
    #expect(try ledger.importRows(rows(1...5)) == LedgerImport(added: 2, alreadyThere: 3))
    let records = try ledger.records()
    #expect(records == (1...5).map { LedgerRecord(id: String($0), sequence: $0, status: .pending) })
    // Another connection (another station) imports the same rows: nothing changes.
    let other = try open(job)
    #expect(try other.importRows(rows(1...5)) == LedgerImport(added: 0, alreadyThere: 5))
    #expect(try other.records() == records)
  }

  static func importRefusesRowsThatDiffer(_ open: LedgerFactory) throws {
    let ledger = try open(job)
    _ = try ledger.importRows(rows(1...3))
    var changed = rows(1...4)
    changed[1].contentHash = hash(7)
    changed[2].sequence = 7
    #expect(throws: LedgerError.rowsDiffer([
      "row 2: its content differs from the ledger's", "row 3: sequence 7, the ledger has 3",
    ])) { try ledger.importRows(changed) }
    changed[1].sequence = 9
    #expect(throws: LedgerError.rowsDiffer([
      "row 2: sequence 9, the ledger has 2; its content differs from the ledger's", "row 3: sequence 7, the ledger has 3",
    ])) { try ledger.importRows(changed) }
    #expect(try ledger.records().map(\.id) == ["1", "2", "3"])  // row 4 was not added either
  }

  // MARK: Claims

  static func claimsFollowTheSequence(_ open: LedgerFactory) throws {
    let ledger = try open(job)
    _ = try ledger.importRows([
      LedgerRowInput(id: "c", sequence: 3, contentHash: hash(3)), LedgerRowInput(id: "a", sequence: 1, contentHash: hash(1)),
      LedgerRowInput(id: "b", sequence: 2, contentHash: hash(2)),
    ])
    var order: [String] = []
    for uid in ["04aa", "04bb", "04cc"] {
      order += try claimed(ledger.claim(uid: uid, at: place(1))).map(\.id).map { [$0] } ?? []
    }
    #expect(order == ["a", "b", "c"])
    #expect(try ledger.claim(uid: "04dd", at: place(2)) == .exhausted)
    #expect(try ledger.records().map(\.id) == ["a", "b", "c"])
  }

  static func claimOutcomes(_ open: LedgerFactory) throws {
    let ledger = try open(job)
    #expect(try ledger.claim(uid: "04aa", at: place(1)) == .exhausted)  // no rows yet
    _ = try ledger.importRows(rows(1...2))
    let first = LedgerRecord(id: "1", sequence: 1, status: .claimed, uid: "04aa", station: "s1", reader: "r1",
                             updatedAt: place(2).time)
    #expect(try ledger.claim(uid: "04aa", at: place(2)) == .claimed(first))
    // The same tag again (another station, later): the same row, unchanged.
    #expect(try ledger.claim(uid: "04aa", at: place(3, station: "s9")) == .resumed(first))
    try ledger.finish(done("1", "04aa", at: 4))
    guard case .alreadyDone(let doneRecord) = try ledger.claim(uid: "04aa", at: place(5)) else {
      Issue.record("a done tag is not reported as done")
      return
    }
    #expect(doneRecord.id == "1" && doneRecord.status == .done && doneRecord.updatedAt == place(4).time)
    let second = try #require(claimed(try ledger.claim(uid: "04bb", at: place(6))))
    try ledger.fail(rowID: second.id, uid: "04bb", failure: failure("tag removed", 74, at: 7))
    guard case .resumed(let failed) = try ledger.claim(uid: "04bb", at: place(8)) else {
      Issue.record("a failed tag does not get its row back")
      return
    }
    #expect(failed.id == "2" && failed.status == .failed && failed.error == "tag removed" && failed.exitStatus == 74)
    #expect(try ledger.claim(uid: "04cc", at: place(9)) == .exhausted)
  }

  static func oneUIDOneRow(_ open: LedgerFactory) throws {
    let ledger = try open(job)
    _ = try ledger.importRows(rows(1...3))
    let row = try #require(claimed(try ledger.claim(uid: "04aa", at: place(1))))
    for second in 2...4 {
      #expect(try ledger.claim(uid: "04aa", at: place(second)) == .resumed(row))
    }
    #expect(try ledger.records().filter { $0.uid == "04aa" }.count == 1)
    #expect(try ledger.row(boundTo: "04aa") == row)
    #expect(try ledger.row(boundTo: "04ff") == nil)
    // The row is the UID's: another tag gets the next row, and cannot finish or fail this one.
    #expect(try claimed(ledger.claim(uid: "04bb", at: place(5)))?.id == "2")
    #expect(throws: LedgerError.notBound(rowID: "1", uid: "04bb")) { try ledger.finish(done("1", "04bb", at: 6)) }
    #expect(throws: LedgerError.notBound(rowID: "1", uid: "04bb")) {
      try ledger.fail(rowID: "1", uid: "04bb", failure: failure("x", 74, at: 6))
    }
    #expect(try ledger.row(boundTo: "04aa") == row)
  }

  static func onlyTheBoundUIDFinishes(_ open: LedgerFactory) throws {
    let ledger = try open(job)
    _ = try ledger.importRows(rows(1...2))
    _ = try ledger.claim(uid: "04aa", at: place(1))
    #expect(throws: LedgerError.notBound(rowID: "1", uid: "04bb")) { try ledger.finish(done("1", "04bb", at: 2)) }
    #expect(throws: LedgerError.notBound(rowID: "2", uid: "04aa")) { try ledger.finish(done("2", "04aa", at: 2)) }
    #expect(throws: LedgerError.unknownRow("9")) { try ledger.finish(done("9", "04aa", at: 2)) }
    try ledger.finish(done("1", "04aa", at: 3))
    let record = try #require(try ledger.row(boundTo: "04aa"))
    #expect(record == LedgerRecord(id: "1", sequence: 1, status: .done, uid: "04aa", station: "s2", reader: "r2",
                                   messageHex: "d10104540271", messageSHA256: hash(1), updatedAt: place(3).time))
    // Done is final: finishing or failing it again is refused and changes nothing.
    #expect(throws: LedgerError.notBound(rowID: "1", uid: "04aa")) { try ledger.finish(done("1", "04aa", at: 4)) }
    #expect(throws: LedgerError.notBound(rowID: "1", uid: "04aa")) {
      try ledger.fail(rowID: "1", uid: "04aa", failure: failure("x", 74, at: 4))
    }
    #expect(try ledger.row(boundTo: "04aa") == record)
  }

  static func failKeepsTheBinding(_ open: LedgerFactory) throws {
    let ledger = try open(job)
    _ = try ledger.importRows(rows(1...2))
    _ = try ledger.claim(uid: "04aa", at: place(1))
    try ledger.fail(rowID: "1", uid: "04aa", failure: failure("the tag was removed", 74, at: 2))
    let failed = LedgerRecord(id: "1", sequence: 1, status: .failed, uid: "04aa", station: "s1", reader: "r1",
                              updatedAt: place(2).time, error: "the tag was removed", exitStatus: 74)
    #expect(try ledger.row(boundTo: "04aa") == failed)
    // Failing again updates the reason; another tag never gets the row.
    try ledger.fail(rowID: "1", uid: "04aa", failure: failure("the tag refused a write", 77, at: 3))
    #expect(try ledger.row(boundTo: "04aa")?.exitStatus == 77)
    #expect(try claimed(ledger.claim(uid: "04bb", at: place(4)))?.id == "2")
    #expect(try ledger.claim(uid: "04cc", at: place(4)) == .exhausted)
    // The bound tag finishes it: done, the failure forgotten.
    try ledger.finish(done("1", "04aa", at: 5))
    let record = try #require(try ledger.row(boundTo: "04aa"))
    #expect(record.status == .done && record.error == nil && record.exitStatus == nil)
    #expect(try ledger.tagFailures().isEmpty)  // a failed row is not a tag failure
  }

  static func unclaimFreesAndLogs(_ open: LedgerFactory) throws {
    let ledger = try open(job)
    _ = try ledger.importRows(rows(1...2))
    _ = try ledger.claim(uid: "04aa", at: place(1))
    let why = failure("the tag is not NDEF formatted", 65, at: 2)
    #expect(throws: LedgerError.notBound(rowID: "1", uid: "04bb")) { try ledger.unclaim(rowID: "1", uid: "04bb", failure: why) }
    #expect(throws: LedgerError.unknownRow("7")) { try ledger.unclaim(rowID: "7", uid: "04aa", failure: why) }
    #expect(try ledger.tagFailures().isEmpty)  // refused calls log nothing
    try ledger.unclaim(rowID: "1", uid: "04aa", failure: why)
    #expect(try ledger.records().first == LedgerRecord(id: "1", sequence: 1, status: .pending))
    #expect(try ledger.row(boundTo: "04aa") == nil)
    #expect(try ledger.tagFailures() == [LedgerTagFailure(uid: "04aa", rowID: "1", failure: why)])
    // The row goes to the next tag, in sequence order.
    #expect(try claimed(ledger.claim(uid: "04bb", at: place(3)))?.id == "1")
    // A done row cannot be given back.
    try ledger.finish(done("1", "04bb", at: 4))
    #expect(throws: LedgerError.notBound(rowID: "1", uid: "04bb")) { try ledger.unclaim(rowID: "1", uid: "04bb", failure: why) }
    #expect(try ledger.tagFailures().count == 1)
  }

  static func releaseRules(_ open: LedgerFactory) throws {
    let ledger = try open(job)
    _ = try ledger.importRows(rows(1...3))
    #expect(throws: LedgerError.unknownRow("9")) { try ledger.release(rowID: "9") }
    #expect(throws: LedgerError.cannotRelease(rowID: "1", status: .pending)) { try ledger.release(rowID: "1") }
    let claimedRow = try #require(claimed(try ledger.claim(uid: "04aa", at: place(1))))
    #expect(try ledger.release(rowID: "1") == claimedRow)
    #expect(try ledger.records().first == LedgerRecord(id: "1", sequence: 1, status: .pending))
    #expect(try ledger.row(boundTo: "04aa") == nil)
    // Failed rows are released too; done rows never.
    _ = try ledger.claim(uid: "04bb", at: place(2))
    try ledger.fail(rowID: "1", uid: "04bb", failure: failure("write failed", 74, at: 3))
    #expect(try ledger.release(rowID: "1").status == .failed)
    _ = try ledger.claim(uid: "04cc", at: place(4))
    try ledger.finish(done("1", "04cc", at: 5))
    let before = try ledger.records()
    #expect(throws: LedgerError.cannotRelease(rowID: "1", status: .done)) { try ledger.release(rowID: "1") }
    #expect(try ledger.records() == before)
    #expect(try ledger.tagFailures().isEmpty)  // a release is not a tag failure
  }

  static func countsByState(_ open: LedgerFactory) throws {
    let ledger = try open(job)
    #expect(try ledger.counts() == LedgerCounts())
    _ = try ledger.importRows(rows(1...6))
    _ = try ledger.claim(uid: "04a1", at: place(1))
    _ = try ledger.claim(uid: "04a2", at: place(1))
    _ = try ledger.claim(uid: "04a3", at: place(1))
    _ = try ledger.claim(uid: "04a4", at: place(1))
    try ledger.finish(done("1", "04a1", at: 2))
    try ledger.fail(rowID: "2", uid: "04a2", failure: failure("removed", 74, at: 2))
    try ledger.unclaim(rowID: "3", uid: "04a3", failure: failure("unsupported", 65, at: 2))
    try ledger.recordTagFailure(uid: "04a9", failure: failure("unreadable", 74, at: 3))
    let counts = try ledger.counts()
    // Every tag that failed: the one its failed row is bound to (04a2), the one that gave its
    // row back (04a3) and the one that never held a row (04a9); each once.
    #expect(counts == LedgerCounts(pending: 3, claimed: 1, done: 1, failed: 1, failedTags: 3))
    try ledger.recordTagFailure(uid: "04a9", failure: failure("unreadable again", 74, at: 4))
    #expect(try ledger.counts().failedTags == 3)
    #expect(counts.total == 6)
  }

  static func recordsAndTagFailures(_ open: LedgerFactory) throws {
    let ledger = try open(job)
    _ = try ledger.importRows(rows(1...4))
    _ = try ledger.claim(uid: "04a1", at: place(1))
    _ = try ledger.claim(uid: "04a2", at: place(2))
    _ = try ledger.claim(uid: "04a3", at: place(3))
    try ledger.finish(done("1", "04a1", at: 4))
    try ledger.fail(rowID: "2", uid: "04a2", failure: failure("the tag was removed", 74, at: 5))
    try ledger.recordTagFailure(uid: "04b1", failure: failure("not supported", 65, at: 6))
    try ledger.unclaim(rowID: "3", uid: "04a3", failure: failure("read-only", 77, at: 7))
    #expect(try ledger.records() == [
      LedgerRecord(id: "1", sequence: 1, status: .done, uid: "04a1", station: "s2", reader: "r2",
                   messageHex: "d10104540271", messageSHA256: hash(1), updatedAt: place(4).time),
      LedgerRecord(id: "2", sequence: 2, status: .failed, uid: "04a2", station: "s1", reader: "r1",
                   updatedAt: place(5).time, error: "the tag was removed", exitStatus: 74),
      LedgerRecord(id: "3", sequence: 3, status: .pending),
      LedgerRecord(id: "4", sequence: 4, status: .pending),
    ])
    #expect(try ledger.tagFailures() == [
      LedgerTagFailure(uid: "04b1", rowID: nil, failure: failure("not supported", 65, at: 6)),
      LedgerTagFailure(uid: "04a3", rowID: "3", failure: failure("read-only", 77, at: 7)),
    ])
  }

  /// The audit report from a backend's records, byte for byte: every backend must give these.
  static func reportBytes(_ open: LedgerFactory) throws {
    let ledger = try open(job)
    _ = try ledger.importRows(rows(1...3))
    _ = try ledger.claim(uid: "04a1", at: place(1))
    _ = try ledger.claim(uid: "04a2", at: place(2))
    try ledger.finish(done("1", "04a1", at: 3))
    try ledger.fail(rowID: "2", uid: "04a2", failure: failure("tag removed, \"twice\"", 74, at: 4))
    try ledger.recordTagFailure(uid: "04b1", failure: failure("line\nbreak", 65, at: 5))
    let csv = try LedgerReport.csv(records: try ledger.records(), tagFailures: try ledger.tagFailures())
    #expect(csv == #"""
      row,uid,status,message_hex,message_sha256,station,reader,written_at,error,exit_status
      1,04a1,done,d10104540271,\#(hash(1)),s2,r2,2026-11-24T10:15:03.123Z,,
      2,04a2,failed,,,s1,r1,2026-11-24T10:15:04.123Z,"tag removed, ""twice""",74
      3,,pending,,,,,,,
      ,04b1,failed,,,s1,r1,2026-11-24T10:15:05.123Z,"line
      break",65

      """#)
    let jsonl = LedgerReport.jsonLines(records: try ledger.records(), tagFailures: try ledger.tagFailures())
    #expect(jsonl == #"""
      {"row":"1","uid":"04a1","status":"done","message_hex":"d10104540271","message_sha256":"\#(hash(1))","station":"s2","reader":"r2","written_at":"2026-11-24T10:15:03.123Z","error":null,"exit_status":null}
      {"row":"2","uid":"04a2","status":"failed","message_hex":null,"message_sha256":null,"station":"s1","reader":"r1","written_at":"2026-11-24T10:15:04.123Z","error":"tag removed, \"twice\"","exit_status":74}
      {"row":"3","uid":null,"status":"pending","message_hex":null,"message_sha256":null,"station":null,"reader":null,"written_at":null,"error":null,"exit_status":null}
      {"row":null,"uid":"04b1","status":"failed","message_hex":null,"message_sha256":null,"station":"s1","reader":"r1","written_at":"2026-11-24T10:15:05.123Z","error":"line\nbreak","exit_status":65}

      """#)
  }

  // MARK: Jobs, closing, threads

  static func twoJobsStayApart(_ open: LedgerFactory) throws {
    let a = try open(job)
    let b = try open(LedgerJob(name: "job-b"))
    _ = try a.importRows(rows(1...2))
    #expect(try b.records().isEmpty)
    #expect(try b.importRows(rows(1...3)) == LedgerImport(added: 3, alreadyThere: 0))  // same ids, another job
    #expect(try claimed(a.claim(uid: "04aa", at: place(1)))?.id == "1")
    // The same tag may hold a row in each job.
    #expect(try claimed(b.claim(uid: "04aa", at: place(2)))?.id == "1")
    try a.finish(done("1", "04aa", at: 3))
    #expect(try b.row(boundTo: "04aa")?.status == .claimed)
    try b.recordTagFailure(uid: "04ff", failure: failure("unreadable", 74, at: 4))
    #expect(try a.counts() == LedgerCounts(pending: 1, done: 1))
    #expect(try b.counts() == LedgerCounts(pending: 2, claimed: 1, failedTags: 1))
    #expect(try a.tagFailures().isEmpty)
    #expect(throws: LedgerError.unknownRow("3")) { try a.release(rowID: "3") }
  }

  static func closedLedgerRefusesCalls(_ open: LedgerFactory) throws {
    let ledger = try open(job)
    _ = try ledger.importRows(rows(1...1))
    ledger.close()
    #expect(throws: LedgerError.closed) { try ledger.counts() }
    #expect(throws: LedgerError.closed) { try ledger.claim(uid: "04aa", at: place(1)) }
    ledger.close()  // twice is harmless
    #expect(try open(job).counts() == LedgerCounts(pending: 1))  // the store is still there
  }

  /// Two ledger objects (two connections) on one store, two threads on each, claiming and
  /// finishing 200 rows: every row is claimed once, by one UID, and no UID gets two rows.
  static func concurrentClaims(_ open: LedgerFactory) throws {
    let ledgers = [try open(job), try open(job)]
    _ = try ledgers[0].importRows(rows(1...200))
    let claims = Locked<[(row: String, uid: String)]>([])
    let errors = Locked<[String]>([])
    let allEnded = onFourThreads { thread in
      let ledger = ledgers[thread % 2]
      var n = 0
      while true {
        let uid = "t\(thread)-\(n)"
        n += 1
        do {
          switch try ledger.claim(uid: uid, at: place(thread, station: "s\(thread)")) {
          case .claimed(let record):
            claims.withLock { $0.append((record.id, uid)) }
            try ledger.finish(LedgerDone(rowID: record.id, uid: uid, messageHex: "00", messageSHA256: hash(0),
                                         place: place(thread)))
          case .exhausted: return
          case let other: errors.withLock { $0.append("\(uid): \(other)") }
          }
        } catch {
          errors.withLock { $0.append("\(uid): \(error)") }
          return
        }
      }
    }
    #expect(allEnded)
    #expect(errors.withLock { $0 } == [])
    let all = claims.withLock { $0 }
    #expect(all.count == 200)
    #expect(Set(all.map(\.row)).count == 200)
    #expect(Set(all.map(\.uid)).count == 200)
    let records = try ledgers[1].records()
    #expect(records.allSatisfy { $0.status == .done })
    #expect(Dictionary(uniqueKeysWithValues: records.compactMap { r in r.uid.map { (r.id, $0) } })
            == Dictionary(uniqueKeysWithValues: all.map { ($0.row, $0.uid) }))
  }
}
