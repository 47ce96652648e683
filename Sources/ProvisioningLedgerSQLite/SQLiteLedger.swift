import Locking
import ProvisioningLedger
import SQLiteNIO

/// The embedded ledger: one SQLite file, for one station (or several processes on one machine).
///
/// Built on vapor/sqlite-nio, which bundles SQLite (no system library, the same version
/// everywhere). Chosen over GRDB because postgres-nio, the shared ledger's driver, brings the
/// same NIO stack anyway, and GRDB's Linux support is kept by its community, not by its author.
///
/// The file is in WAL mode with `synchronous=FULL`: a call returns only once its transaction is
/// on disk, and readers (`nfctag ledger status`) never wait for a writer. Several connections
/// (threads or processes) on one file wait up to 15 s for each other's write lock rather than
/// fail. Every protocol call is one transaction; a claim takes the write lock first
/// (`BEGIN IMMEDIATE`), so two stations can never claim the same row. Calls block the calling
/// thread, whichever it is: each connection has a thread for SQLite and an event loop of its own
/// (see `BlockingConnection`).
public final class SQLiteLedger: Ledger {
  public let job: LedgerJob
  /// The ledger file.
  public let path: String
  /// The connection; nil once closed. The lock is held for a whole call, so one object's calls
  /// from several threads are serialised (SQLite serialises connections).
  private let connection: Locked<BlockingConnection?>

  /// Opens the ledger file at `path` for `job`.
  ///
  /// With `createIfMissing` (the default), a missing or empty file becomes a new ledger and the
  /// job is added when the file does not have it yet. Without it, nothing is created: the file
  /// must be a ledger that holds `job`.
  /// - Throws: ``LedgerError/cannotOpen(_:)``; ``LedgerError/incompatible(_:)`` for a file that
  ///   is not a ledger or was written by a newer schema; ``LedgerError/unknownJob(_:)``.
  public init(path: String, job: LedgerJob, createIfMissing: Bool = true) throws(LedgerError) {
    self.path = path
    self.job = job
    let db = try BlockingConnection.open(path: path, create: createIfMissing)
    do throws(LedgerError) {
      try LedgerSchema.prepare(db, create: createIfMissing)
      if createIfMissing {
        _ = try db.query("INSERT OR IGNORE INTO jobs (name) VALUES (?)", [.text(job.name)])
      } else if try db.query("SELECT 1 FROM jobs WHERE name = ?", [.text(job.name)]).isEmpty {
        throw LedgerError.unknownJob(job.name)
      }
    } catch {
      db.close()
      throw error
    }
    connection = Locked(db)
  }

  deinit { close() }

  /// The names of the jobs in the ledger file at `path`, sorted. Creates nothing.
  /// - Throws: as ``init(path:job:createIfMissing:)`` without `createIfMissing`.
  public static func jobs(path: String) throws(LedgerError) -> [String] {
    let db = try BlockingConnection.open(path: path, create: false)
    defer { db.close() }
    try LedgerSchema.prepare(db, create: false)
    return try db.query("SELECT name FROM jobs ORDER BY name").compactMap { $0.column("name")?.string }
  }

  public func close() {
    connection.withLock { db in
      db?.close()
      db = nil
    }
  }

  /// Runs `body` on the open connection, holding the lock.
  private func withConnection<T>(_ body: (BlockingConnection) throws(LedgerError) -> T) throws(LedgerError) -> T {
    try connection.withLock { (db: inout BlockingConnection?) throws(LedgerError) -> T in
      guard let db else { throw .closed }
      return try body(db)
    }
  }

  private var jobName: SQLiteData { .text(job.name) }

  // MARK: Settings

  public func settings() throws(LedgerError) -> String? {
    try withConnection { db throws(LedgerError) in
      try db.query("SELECT settings FROM jobs WHERE name = ?", [jobName]).first
        .flatMap { $0.column("settings") }.flatMap { $0.isNull ? nil : $0.string }
    }
  }

  public func recordSettings(_ settings: String, replacing: Bool) throws(LedgerError) -> LedgerSettingsCheck {
    try withConnection { db throws(LedgerError) in
      try db.transaction(.write) { () throws(LedgerError) -> LedgerSettingsCheck in
        let current = try db.query("SELECT settings FROM jobs WHERE name = ?", [jobName]).first
          .flatMap { $0.column("settings") }.flatMap { $0.isNull ? nil : $0.string }
        let check = LedgerSettingsCheck(current: current, given: settings, replacing: replacing)
        if check == .recorded {
          _ = try db.query("UPDATE jobs SET settings = ? WHERE name = ?", [.text(settings), jobName])
        }
        return check
      }
    }
  }

  // MARK: Rows

  public func importRows(_ rows: [LedgerRowInput]) throws(LedgerError) -> LedgerImport {
    try withConnection { db throws(LedgerError) in
      try db.transaction(.write) { () throws(LedgerError) -> LedgerImport in
        var existing: [LedgerRowInput] = []
        for row in try db.query("SELECT id, sequence, content_hash FROM rows WHERE job = ?", [jobName]) {
          guard let id = row.column("id")?.string, let sequence = row.column("sequence")?.integer,
                let hash = row.column("content_hash")?.string
          else { throw .incompatible("\(path): a row of the ledger cannot be read") }
          existing.append(LedgerRowInput(id: id, sequence: Int(sequence), contentHash: hash))
        }
        let plan = LedgerImportPlan(importing: rows, existing: existing)
        try plan.checkNoDifference()
        // A few hundred rows per statement: one round trip to the connection's thread each.
        var start = plan.newRows.startIndex
        while start < plan.newRows.endIndex {
          let batch = plan.newRows[start..<min(start + 200, plan.newRows.endIndex)]
          let values = Array(repeating: "(?, ?, ?, ?, 'pending')", count: batch.count).joined(separator: ", ")
          let binds = batch.flatMap { row -> [SQLiteData] in
            [jobName, .text(row.id), .integer(numericCast(row.sequence)), .text(row.contentHash)]
          }
          _ = try db.query("INSERT INTO rows (job, id, sequence, content_hash, status) VALUES \(values)", binds)
          start = batch.endIndex
        }
        return plan.result
      }
    }
  }

  public func row(boundTo uid: String) throws(LedgerError) -> LedgerRecord? {
    try withConnection { db throws(LedgerError) in
      try db.query("SELECT \(LedgerSchema.recordColumns) FROM rows WHERE job = ? AND uid = ?", [jobName, .text(uid)])
        .first.map { row throws(LedgerError) in try LedgerSchema.record(row, path: path) }
    }
  }

  public func claim(uid: String, at place: LedgerPlace) throws(LedgerError) -> LedgerClaim {
    try withConnection { db throws(LedgerError) in
      try db.transaction(.write) { () throws(LedgerError) -> LedgerClaim in
        let bound = try db.query("SELECT \(LedgerSchema.recordColumns) FROM rows WHERE job = ? AND uid = ?",
                                 [jobName, .text(uid)])
        if let row = bound.first {
          let record = try LedgerSchema.record(row, path: path)
          return record.status == .done ? .alreadyDone(record) : .resumed(record)
        }
        let claimed = try db.query("""
          UPDATE rows SET status = 'claimed', uid = ?1, station = ?2, reader = ?3, updated_at = ?4
          WHERE job = ?5 AND id = (SELECT id FROM rows WHERE job = ?5 AND status = 'pending' ORDER BY sequence, id LIMIT 1)
          RETURNING \(LedgerSchema.recordColumns)
          """, [.text(uid), .text(place.station), .text(place.reader), .text(place.time), jobName])
        guard let row = claimed.first else { return .exhausted }
        return .claimed(try LedgerSchema.record(row, path: path))
      }
    }
  }

  public func finish(_ done: LedgerDone) throws(LedgerError) {
    try withConnection { db throws(LedgerError) in
      try db.transaction(.write) { () throws(LedgerError) in
        let changed = try db.query("""
          UPDATE rows SET status = 'done', message_hex = ?, message_sha256 = ?, station = ?, reader = ?, updated_at = ?,
            error = NULL, exit_status = NULL, progress = coalesce(?, progress)
          WHERE job = ? AND id = ? AND uid = ? AND status IN ('claimed', 'failed') RETURNING id
          """, [.text(done.messageHex), .text(done.messageSHA256), .text(done.place.station), .text(done.place.reader),
                .text(done.place.time), done.progress.map { .text($0) } ?? .null, jobName, .text(done.rowID), .text(done.uid)])
        if changed.isEmpty { try notBound(db, rowID: done.rowID, uid: done.uid) }
        if let baseline = done.counterBaseline {
          _ = try db.query("""
            INSERT INTO sun_counters (uid, counter) VALUES (?, ?)
            ON CONFLICT (uid) DO UPDATE SET counter = excluded.counter WHERE sun_counters.counter < excluded.counter
            """, [.text(done.uid), .integer(Int(baseline))])
        }
      }
    }
  }

  public func fail(rowID: String, uid: String, failure: LedgerFailure) throws(LedgerError) {
    try withConnection { db throws(LedgerError) in
      try db.transaction(.write) { () throws(LedgerError) in
        let changed = try db.query("""
          UPDATE rows SET status = 'failed', station = ?, reader = ?, updated_at = ?, error = ?, exit_status = ?
          WHERE job = ? AND id = ? AND uid = ? AND status IN ('claimed', 'failed') RETURNING id
          """, [.text(failure.place.station), .text(failure.place.reader), .text(failure.place.time),
                .text(failure.reason), .integer(numericCast(failure.exitStatus)), jobName, .text(rowID), .text(uid)])
        if changed.isEmpty { try notBound(db, rowID: rowID, uid: uid) }
      }
    }
  }

  public func recordProgress(rowID: String, uid: String, progress: String) throws(LedgerError) {
    try withConnection { db throws(LedgerError) in
      try db.transaction(.write) { () throws(LedgerError) in
        let changed = try db.query("""
          UPDATE rows SET progress = ? WHERE job = ? AND id = ? AND uid = ? AND status IN ('claimed', 'failed') RETURNING id
          """, [.text(progress), jobName, .text(rowID), .text(uid)])
        if changed.isEmpty { try notBound(db, rowID: rowID, uid: uid) }
      }
    }
  }

  public func unclaim(rowID: String, uid: String, failure: LedgerFailure) throws(LedgerError) {
    try withConnection { db throws(LedgerError) in
      try db.transaction(.write) { () throws(LedgerError) in
        let changed = try db.query("""
          UPDATE rows SET \(Self.pendingAgain)
          WHERE job = ? AND id = ? AND uid = ? AND status IN ('claimed', 'failed') RETURNING id
          """, [jobName, .text(rowID), .text(uid)])
        if changed.isEmpty { try notBound(db, rowID: rowID, uid: uid) }
        try insertTagFailure(db, uid: uid, rowID: rowID, failure: failure)
      }
    }
  }

  public func recordTagFailure(uid: String, failure: LedgerFailure) throws(LedgerError) {
    try withConnection { db throws(LedgerError) in
      try insertTagFailure(db, uid: uid, rowID: nil, failure: failure)
    }
  }

  public func release(rowID: String) throws(LedgerError) -> LedgerRecord {
    try withConnection { db throws(LedgerError) in
      try db.transaction(.write) { () throws(LedgerError) -> LedgerRecord in
        let found = try db.query("SELECT \(LedgerSchema.recordColumns) FROM rows WHERE job = ? AND id = ?",
                                 [jobName, .text(rowID)])
        guard let row = found.first else { throw .unknownRow(rowID) }
        let record = try LedgerSchema.record(row, path: path)
        guard record.status == .claimed || record.status == .failed else {
          throw .cannotRelease(rowID: rowID, status: record.status)
        }
        _ = try db.query("UPDATE rows SET \(Self.pendingAgain) WHERE job = ? AND id = ?", [jobName, .text(rowID)])
        return record
      }
    }
  }

  // MARK: Reports

  public func records() throws(LedgerError) -> [LedgerRecord] {
    try withConnection { db throws(LedgerError) in
      try db.query("SELECT \(LedgerSchema.recordColumns) FROM rows WHERE job = ? ORDER BY sequence, id", [jobName])
        .map { row throws(LedgerError) in try LedgerSchema.record(row, path: path) }
    }
  }

  public func tagFailures() throws(LedgerError) -> [LedgerTagFailure] {
    try withConnection { db throws(LedgerError) in
      try db.query("""
        SELECT uid, row_id, reason, exit_status, station, reader, failed_at FROM tag_failures WHERE job = ? ORDER BY seq
        """, [jobName]).map { row throws(LedgerError) in
        guard let uid = row.column("uid")?.string, let reason = row.column("reason")?.string,
              let status = row.column("exit_status")?.integer.flatMap({ Int32(exactly: $0) }),
              let station = row.column("station")?.string, let reader = row.column("reader")?.string,
              let time = row.column("failed_at")?.string
        else { throw .incompatible("\(path): a tag failure of the ledger cannot be read") }
        let rowID = row.column("row_id").flatMap { $0.isNull ? nil : $0.string }
        return LedgerTagFailure(uid: uid, rowID: rowID, failure: LedgerFailure(
          reason: reason, exitStatus: status, place: LedgerPlace(station: station, reader: reader, time: time)))
      }
    }
  }

  public func counts() throws(LedgerError) -> LedgerCounts {
    try withConnection { db throws(LedgerError) in
      try db.transaction(.read) { () throws(LedgerError) -> LedgerCounts in
        var counts = LedgerCounts()
        for row in try db.query("SELECT status, count(*) AS n FROM rows WHERE job = ? GROUP BY status", [jobName]) {
          let n = Int(row.column("n")?.integer ?? 0)
          switch row.column("status")?.string.flatMap(LedgerRowStatus.init(rawValue:)) {
          case .pending?: counts.pending = n
          case .claimed?: counts.claimed = n
          case .done?: counts.done = n
          case .failed?: counts.failed = n
          case nil: throw .incompatible("\(path): a row of the ledger has an unknown status")
          }
        }
        // Every tag that failed, once: the ones a failed row is bound to and the ones that
        // failed holding no row (LedgerCounts.failedTags).
        let failures = try db.query("""
          SELECT count(*) AS n FROM (SELECT uid FROM rows WHERE job = ? AND status = 'failed' AND uid IS NOT NULL
                                     UNION SELECT uid FROM tag_failures WHERE job = ?)
          """, [jobName, jobName])
        counts.failedTags = Int(failures.first?.column("n")?.integer ?? 0)
        return counts
      }
    }
  }

  // MARK: SUN counters

  public func acceptCounter(uid: String, counter: UInt32) throws(LedgerError) -> LedgerCounterCheck {
    try withConnection { db throws(LedgerError) in try Self.accept(db, LedgerCounter(uid: uid, counter: counter), path: path) }
  }

  /// Four statements whatever the batch's size (each is a round trip to the connection's thread):
  /// under the write lock (`BEGIN IMMEDIATE`: no other connection writes until the commit), the
  /// batch's UIDs' counters are read, each counter checked in order against them, then the
  /// highest accepted counter of each UID written by one multi-row upsert with the same condition
  /// as ``acceptCounter(uid:counter:)``; every row it should change must come back.
  public func acceptCounters(_ counters: [LedgerCounter]) throws(LedgerError) -> [LedgerCounterCheck] {
    guard !counters.isEmpty else { return [] }
    return try withConnection { db throws(LedgerError) in
      try db.transaction(.write) { () throws(LedgerError) -> [LedgerCounterCheck] in
        var seen: Set<String> = []
        let uids = counters.map(\.uid).filter { seen.insert($0).inserted }
        var stored: [String: UInt32] = [:]
        let marks = Array(repeating: "?", count: uids.count).joined(separator: ", ")
        for row in try db.query("SELECT uid, counter FROM sun_counters WHERE uid IN (\(marks))", uids.map { .text($0) }) {
          guard let uid = row.column("uid")?.string, let value = row.column("counter")?.integer.flatMap({ UInt32(exactly: $0) })
          else { throw .incompatible("\(path): a SUN counter of the ledger cannot be read") }
          stored[uid] = value
        }
        var checks: [LedgerCounterCheck] = []
        var accepted: [String: UInt32] = [:]
        for offered in counters {
          if let last = stored[offered.uid], offered.counter <= last {
            checks.append(.notAbove(last: last))
          } else {
            checks.append(.accepted)
            stored[offered.uid] = offered.counter
            accepted[offered.uid] = offered.counter
          }
        }
        guard !accepted.isEmpty else { return checks }
        let rows = Array(repeating: "(?, ?)", count: accepted.count).joined(separator: ", ")
        let written = try db.query("""
          INSERT INTO sun_counters (uid, counter) VALUES \(rows)
          ON CONFLICT (uid) DO UPDATE SET counter = excluded.counter WHERE sun_counters.counter < excluded.counter
          RETURNING uid
          """, accepted.flatMap { [SQLiteData.text($0.key), .integer(Int($0.value))] })
        guard written.count == accepted.count else {
          throw .unavailable("\(path): \(accepted.count - written.count) SUN counters changed under the write lock")
        }
        return checks
      }
    }
  }

  /// One counter: the row is inserted, or updated only when its counter is lower, in one
  /// statement; RETURNING yields a row exactly when one of them happened.
  private static func accept(_ db: BlockingConnection, _ offered: LedgerCounter, path: String) throws(LedgerError) -> LedgerCounterCheck {
    let accepted = try db.query("""
      INSERT INTO sun_counters (uid, counter) VALUES (?1, ?2)
      ON CONFLICT (uid) DO UPDATE SET counter = excluded.counter WHERE sun_counters.counter < excluded.counter
      RETURNING counter
      """, [.text(offered.uid), .integer(Int(offered.counter))])
    if !accepted.isEmpty { return .accepted }
    let last = try db.query("SELECT counter FROM sun_counters WHERE uid = ?", [.text(offered.uid)]).first?
      .column("counter")?.integer.flatMap { UInt32(exactly: $0) }
    guard let last else { throw .incompatible("\(path): a SUN counter of the ledger cannot be read") }
    return .notAbove(last: last)
  }

  // MARK: Helpers

  /// The value of `PRAGMA name` on this object's connection (for tests: `journal_mode`, `synchronous`…).
  func pragma(_ name: String) throws(LedgerError) -> String? {
    try withConnection { db throws(LedgerError) in
      try db.query("PRAGMA \(name)").first?.columns.first?.data.string
    }
  }

  /// The assignments that make a row pending again, as if never claimed.
  private static let pendingAgain = """
    status = 'pending', uid = NULL, station = NULL, reader = NULL, message_hex = NULL, message_sha256 = NULL,
    updated_at = NULL, error = NULL, exit_status = NULL, progress = NULL
    """

  /// Why a change to `rowID` by `uid` matched nothing: the row does not exist, or is not bound
  /// to `uid` in a state that allows it.
  private func notBound(_ db: BlockingConnection, rowID: String, uid: String) throws(LedgerError) {
    let exists = try db.query("SELECT 1 FROM rows WHERE job = ? AND id = ?", [jobName, .text(rowID)])
    throw exists.isEmpty ? .unknownRow(rowID) : .notBound(rowID: rowID, uid: uid)
  }

  private func insertTagFailure(_ db: BlockingConnection, uid: String, rowID: String?,
                                failure: LedgerFailure) throws(LedgerError) {
    _ = try db.query("""
      INSERT INTO tag_failures (job, uid, row_id, reason, exit_status, station, reader, failed_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)
      """, [jobName, .text(uid), rowID.map { .text($0) } ?? .null, .text(failure.reason),
            .integer(numericCast(failure.exitStatus)), .text(failure.place.station), .text(failure.place.reader),
            .text(failure.place.time)])
  }
}
