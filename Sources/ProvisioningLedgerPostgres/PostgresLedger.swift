// The PostgreSQL ledger: see ProvisioningLedger.Ledger.
import PostgresNIO
import ProvisioningLedger

/// The ledger of a job in a PostgreSQL database that several stations share.
///
/// One object holds one connection (``PostgresSettings`` says where); its calls are serialised, each
/// is one transaction and returns once the server answered its COMMIT. Calls block the calling
/// thread, which must not be a NIO event loop's (NIO refuses to wait there). Stations coordinate through
/// the database alone: a claim takes the pending row with the lowest sequence number with
/// `FOR UPDATE SKIP LOCKED`, so stations claiming at once get different rows without waiting on each
/// other, and `UNIQUE (job, uid)` keeps a tag from holding two rows (a station that loses that race
/// runs its claim again and finds the row the other one bound).
///
/// When the connection is lost, the call throws ``LedgerError/unavailable(_:)`` (also when COMMIT was
/// sent but not answered: the outcome is unknown, and unknown is not done); the next call
/// reconnects, after 0.1 s, then 0.2, 0.4 … up to 5 s between attempts while the server stays away.
public final class PostgresLedger: Ledger {
  public let job: LedgerJob
  let session: PostgresSession

  /// Connects, creates or migrates the tables, and (with `createIfMissing`) adds the job when it
  /// is new. Without it, nothing is created: the database must hold the ledger's tables (an older
  /// schema is still migrated) and `job`.
  /// - Throws: ``LedgerError/unavailable(_:)`` (server unreachable, connection lost),
  ///   ``LedgerError/cannotOpen(_:)`` (login refused),
  ///   ``LedgerError/incompatible(_:)`` (tables of a newer version), ``LedgerError/unknownJob(_:)``
  ///   (no such job and `createIfMissing` is false).
  public init(settings: PostgresSettings, job: LedgerJob, createIfMissing: Bool = true) throws(LedgerError) {
    self.job = job
    session = try PostgresSession(settings: settings)
    let name = job.name
    do {
      try session.transaction { (connection) throws(TransactionError) in
        // Without createIfMissing a database without ledger tables stays without them.
        if !createIfMissing, try PostgresSchema.installedVersion(connection) == nil { throw .ledger(.unknownJob(name)) }
        try PostgresSchema.migrate(connection)
        if createIfMissing {
          try connection.execute("INSERT INTO nfctag_jobs (name) VALUES (\(name)) ON CONFLICT DO NOTHING")
        } else {
          let found = try connection.query("SELECT 1 FROM nfctag_jobs WHERE name = \(name)")
          if found.isEmpty { throw .ledger(.unknownJob(name)) }
        }
      }
    } catch {
      session.close()
      throw error
    }
  }

  /// The ledger at `url` (`postgres://USER@HOST:PORT/DB`, completed by the `PG*` variables of this
  /// process's environment).
  public convenience init(url: String, job: LedgerJob, createIfMissing: Bool = true) throws(LedgerError) {
    try self.init(settings: PostgresSettings(url: url), job: job, createIfMissing: createIfMissing)
  }

  /// The names of the jobs in the database, sorted; none when it holds no ledger yet. Creates
  /// nothing.
  public static func jobs(settings: PostgresSettings) throws(LedgerError) -> [String] {
    let session = try PostgresSession(settings: settings)
    defer { session.close() }
    return try session.transaction { (connection) throws(TransactionError) in
      guard try PostgresSchema.installedVersion(connection) != nil else { return [] }
      return try connection.query("SELECT name FROM nfctag_jobs ORDER BY name").map {
        (row) throws(TransactionError) in try connection.decode(row, String.self)
      }
    }
  }

  public func close() { session.close() }

  /// The statements this ledger object has sent so far, each one round trip (BEGIN and COMMIT
  /// included): what the tests count a call's cost in.
  var statementsSent: Int { session.statementsSent.value }

  // MARK: Settings

  public func settings() throws(LedgerError) -> String? {
    let name = job.name
    return try session.transaction { (connection) throws(TransactionError) in
      let rows = try connection.query("SELECT settings FROM nfctag_jobs WHERE name = \(name)")
      return try rows.first.flatMap { (row) throws(TransactionError) in try connection.decode(row, String?.self) }
    }
  }

  public func recordSettings(_ settings: String, replacing: Bool) throws(LedgerError) -> LedgerSettingsCheck {
    let name = job.name
    return try session.transaction { (connection) throws(TransactionError) in
      // The job's row locked: stations starting at once compare and record in turn.
      let rows = try connection.query("SELECT settings FROM nfctag_jobs WHERE name = \(name) FOR UPDATE")
      let current: String? = try rows.first.flatMap { (row) throws(TransactionError) in try connection.decode(row, String?.self) }
      let check = LedgerSettingsCheck(current: current, given: settings, replacing: replacing)
      if check == .recorded {
        try connection.execute("UPDATE nfctag_jobs SET settings = \(settings) WHERE name = \(name)")
      }
      return check
    }
  }

  // MARK: Rows

  public func importRows(_ rows: [LedgerRowInput]) throws(LedgerError) -> LedgerImport {
    let name = job.name
    return try session.transaction { (connection) throws(TransactionError) in
      // Imports of one job take turns, so that the comparison below sees every row another
      // station is importing at the same moment.
      try connection.execute("SELECT pg_advisory_xact_lock(hashtextextended('nfctag import ' || \(name), 0))")
      var existing: [LedgerRowInput] = []
      for row in try connection.query("SELECT id, sequence, content_hash FROM nfctag_rows WHERE job = \(name)") {
        let (id, sequence, hash) = try connection.decode(row, (String, Int, String).self)
        existing.append(LedgerRowInput(id: id, sequence: sequence, contentHash: hash))
      }
      let plan = LedgerImportPlan(importing: rows, existing: existing)
      if !plan.differences.isEmpty { throw .ledger(.rowsDiffer(plan.differences)) }
      if !plan.newRows.isEmpty {
        let ids = plan.newRows.map(\.id), sequences = plan.newRows.map(\.sequence)
        let hashes = plan.newRows.map(\.contentHash)
        try connection.execute("""
          INSERT INTO nfctag_rows (job, id, sequence, content_hash, status)
          SELECT \(name), i.id, i.sequence, i.hash, 'pending'
          FROM unnest(\(ids)::text[], \(sequences)::int8[], \(hashes)::text[]) AS i(id, sequence, hash)
          """)
      }
      return plan.result
    }
  }

  public func row(boundTo uid: String) throws(LedgerError) -> LedgerRecord? {
    let name = job.name
    return try session.transaction { (connection) throws(TransactionError) in
      try Self.record(connection, connection.query(
        "SELECT \(unescaped: Self.columns) FROM nfctag_rows WHERE job = \(name) AND uid = \(uid)"))
    }
  }

  /// The row bound to `uid`, else the pending row with the lowest sequence number that no other
  /// claim in flight holds (`FOR UPDATE SKIP LOCKED`), bound to it. A claim in one statement (three
  /// CTEs) measured slower than these three on PostgresLedgerBench (8 stations: 417–589 against
  /// 612–658 claims+finishes a second), so it stays three statements (docs/performance.md).
  public func claim(uid: String, at place: LedgerPlace) throws(LedgerError) -> LedgerClaim {
    let name = job.name
    return try session.transaction { (connection) throws(TransactionError) in
      if let bound = try Self.record(connection, connection.query(
        "SELECT \(unescaped: Self.columns) FROM nfctag_rows WHERE job = \(name) AND uid = \(uid)")) {
        return bound.status == .done ? .alreadyDone(bound) : .resumed(bound)
      }
      let next = try connection.query("""
        SELECT id FROM nfctag_rows WHERE job = \(name) AND status = 'pending'
        ORDER BY sequence, id LIMIT 1 FOR UPDATE SKIP LOCKED
        """)
      guard let row = next.first else {
        // Every pending row may be locked by other stations' claims in flight, and one of those
        // may roll back: "exhausted" only when no pending row is left at all.
        let left = try connection.query(
          "SELECT EXISTS (SELECT 1 FROM nfctag_rows WHERE job = \(name) AND status = 'pending')")
        if let row = left.first, try connection.decode(row, Bool.self) { throw .retry }
        return .exhausted
      }
      let id = try connection.decode(row, String.self)
      // A unique violation here (another station bound this UID a moment ago) runs the whole
      // transaction again, which then finds that row.
      let claimed = try Self.record(connection, connection.query("""
        UPDATE nfctag_rows SET status = 'claimed', uid = \(uid), station = \(place.station),
          reader = \(place.reader), updated_at = \(place.time), message_hex = NULL, message_sha256 = NULL,
          error = NULL, exit_status = NULL, progress = NULL
        WHERE job = \(name) AND id = \(id)
        RETURNING \(unescaped: Self.columns)
        """))
      guard let claimed else { throw .retry }
      return .claimed(claimed)
    }
  }

  /// One statement (with BEGIN and COMMIT, three round trips): the row's update and, when the
  /// progress holds a counter baseline and the update matched, the upsert of that counter.
  public func finish(_ done: LedgerDone) throws(LedgerError) {
    let name = job.name
    let baseline = done.counterBaseline.map { Int64($0) }
    try session.transaction { (connection) throws(TransactionError) in
      let updated = try connection.query("""
        WITH finished AS (
            UPDATE nfctag_rows SET status = 'done', message_hex = \(done.messageHex),
              message_sha256 = \(done.messageSHA256), station = \(done.place.station), reader = \(done.place.reader),
              updated_at = \(done.place.time), error = NULL, exit_status = NULL, progress = coalesce(\(done.progress), progress)
            WHERE job = \(name) AND id = \(done.rowID) AND uid = \(done.uid) AND status IN ('claimed', 'failed')
            RETURNING uid),
          baseline AS (
            INSERT INTO nfctag_sun_counters (uid, counter)
            SELECT uid, \(baseline)::int8 FROM finished WHERE \(baseline)::int8 IS NOT NULL
            ON CONFLICT (uid) DO UPDATE SET counter = excluded.counter WHERE nfctag_sun_counters.counter < excluded.counter)
        SELECT count(*) FROM finished
        """)
      let count: Int = try updated.first.map { (row) throws(TransactionError) in try connection.decode(row, Int.self) } ?? 0
      if count != 1 { try Self.notBound(connection, job: name, rowID: done.rowID, uid: done.uid) }
    }
  }

  public func fail(rowID: String, uid: String, failure: LedgerFailure) throws(LedgerError) {
    let name = job.name
    try session.transaction { (connection) throws(TransactionError) in
      let updated = try connection.query("""
        UPDATE nfctag_rows SET status = 'failed', error = \(failure.reason), exit_status = \(failure.exitStatus),
          station = \(failure.place.station), reader = \(failure.place.reader), updated_at = \(failure.place.time)
        WHERE job = \(name) AND id = \(rowID) AND uid = \(uid) AND status IN ('claimed', 'failed')
        """)
      if updated.metadata.rows != 1 { try Self.notBound(connection, job: name, rowID: rowID, uid: uid) }
    }
  }

  public func recordProgress(rowID: String, uid: String, progress: String) throws(LedgerError) {
    let name = job.name
    try session.transaction { (connection) throws(TransactionError) in
      let updated = try connection.query("""
        UPDATE nfctag_rows SET progress = \(progress)
        WHERE job = \(name) AND id = \(rowID) AND uid = \(uid) AND status IN ('claimed', 'failed')
        """)
      if updated.metadata.rows != 1 { try Self.notBound(connection, job: name, rowID: rowID, uid: uid) }
    }
  }

  public func unclaim(rowID: String, uid: String, failure: LedgerFailure) throws(LedgerError) {
    let name = job.name
    try session.transaction { (connection) throws(TransactionError) in
      let updated = try connection.query("""
        UPDATE nfctag_rows SET \(unescaped: Self.pendingAgain)
        WHERE job = \(name) AND id = \(rowID) AND uid = \(uid) AND status IN ('claimed', 'failed')
        """)
      if updated.metadata.rows != 1 { try Self.notBound(connection, job: name, rowID: rowID, uid: uid) }
      try Self.insertFailure(connection, job: name, uid: uid, rowID: rowID, failure: failure)
    }
  }

  public func recordTagFailure(uid: String, failure: LedgerFailure) throws(LedgerError) {
    let name = job.name
    try session.transaction { (connection) throws(TransactionError) in
      try Self.insertFailure(connection, job: name, uid: uid, rowID: nil, failure: failure)
    }
  }

  public func release(rowID: String) throws(LedgerError) -> LedgerRecord {
    let name = job.name
    return try session.transaction { (connection) throws(TransactionError) in
      guard let before = try Self.record(connection, connection.query(
        "SELECT \(unescaped: Self.columns) FROM nfctag_rows WHERE job = \(name) AND id = \(rowID) FOR UPDATE"))
      else { throw .ledger(.unknownRow(rowID)) }
      guard before.status == .claimed || before.status == .failed else {
        throw .ledger(.cannotRelease(rowID: rowID, status: before.status))
      }
      try connection.execute(
        "UPDATE nfctag_rows SET \(unescaped: Self.pendingAgain) WHERE job = \(name) AND id = \(rowID)")
      return before
    }
  }

  // MARK: Reports

  public func records() throws(LedgerError) -> [LedgerRecord] {
    let name = job.name
    return try session.transaction { (connection) throws(TransactionError) in
      let rows = try connection.query(
        "SELECT \(unescaped: Self.columns) FROM nfctag_rows WHERE job = \(name) ORDER BY sequence, id")
      var records: [LedgerRecord] = []
      records.reserveCapacity(rows.count)
      for row in rows { records.append(try Self.decodeRecord(connection, row)) }
      return records
    }
  }

  public func tagFailures() throws(LedgerError) -> [LedgerTagFailure] {
    let name = job.name
    return try session.transaction { (connection) throws(TransactionError) in
      let rows = try connection.query("""
        SELECT uid, row_id, reason, exit_status, station, reader, failed_at
        FROM nfctag_tag_failures WHERE job = \(name) ORDER BY serial
        """)
      var failures: [LedgerTagFailure] = []
      for row in rows {
        let (uid, rowID, reason, exitStatus, station, reader, time) =
          try connection.decode(row, (String, String?, String, Int32, String, String, String).self)
        failures.append(LedgerTagFailure(uid: uid, rowID: rowID, failure: LedgerFailure(
          reason: reason, exitStatus: exitStatus, place: LedgerPlace(station: station, reader: reader, time: time))))
      }
      return failures
    }
  }

  public func counts() throws(LedgerError) -> LedgerCounts {
    let name = job.name
    return try session.transaction { (connection) throws(TransactionError) in
      let rows = try connection.query("""
        SELECT count(*) FILTER (WHERE status = 'pending'), count(*) FILTER (WHERE status = 'claimed'),
          count(*) FILTER (WHERE status = 'done'), count(*) FILTER (WHERE status = 'failed'),
          (SELECT count(*) FROM (SELECT uid FROM nfctag_rows WHERE job = \(name) AND status = 'failed' AND uid IS NOT NULL
                                 UNION SELECT uid FROM nfctag_tag_failures WHERE job = \(name)) AS failed_tags)
        FROM nfctag_rows WHERE job = \(name)
        """)
      guard let row = rows.first else { return LedgerCounts() }
      let (pending, claimed, done, failed, failedTags) = try connection.decode(row, (Int, Int, Int, Int, Int).self)
      return LedgerCounts(pending: pending, claimed: claimed, done: done, failed: failed, failedTags: failedTags)
    }
  }

  // MARK: Columns

  static let columns =
    "id, sequence, status, uid, station, reader, message_hex, message_sha256, updated_at, error, exit_status, progress"

  /// A row given back: pending, bound to nothing, nothing of its last tag kept.
  static let pendingAgain = """
    status = 'pending', uid = NULL, station = NULL, reader = NULL, message_hex = NULL,
    message_sha256 = NULL, updated_at = NULL, error = NULL, exit_status = NULL, progress = NULL
    """

  private static func record(_ connection: SyncConnection, _ result: PostgresQueryResult)
    throws(TransactionError) -> LedgerRecord? {
    guard let row = result.first else { return nil }
    return try decodeRecord(connection, row)
  }

  private static func decodeRecord(_ connection: SyncConnection, _ row: PostgresRow)
    throws(TransactionError) -> LedgerRecord {
    let (id, sequence, status, uid, station, reader, messageHex, messageSHA256, updatedAt, error, exitStatus, progress) =
      try connection.decode(row, (String, Int, String, String?, String?, String?, String?, String?, String?,
                                  String?, Int32?, String?).self)
    guard let state = LedgerRowStatus(rawValue: status) else {
      throw .ledger(.incompatible("row \(id) has the unknown status \"\(status)\""))
    }
    return LedgerRecord(id: id, sequence: sequence, status: state, uid: uid, station: station, reader: reader,
                        messageHex: messageHex, messageSHA256: messageSHA256, updatedAt: updatedAt,
                        error: error, exitStatus: exitStatus, progress: progress)
  }

  /// Why a change to `rowID` by `uid` matched nothing: the row does not exist, or is not bound to
  /// `uid` in a state that allows it.
  private static func notBound(_ connection: SyncConnection, job: String, rowID: String, uid: String)
    throws(TransactionError) -> Never {
    let exists = try connection.query("SELECT 1 FROM nfctag_rows WHERE job = \(job) AND id = \(rowID)")
    throw .ledger(exists.isEmpty ? .unknownRow(rowID) : .notBound(rowID: rowID, uid: uid))
  }

  private static func insertFailure(_ connection: SyncConnection, job: String, uid: String, rowID: String?,
                                    failure: LedgerFailure) throws(TransactionError) {
    try connection.execute("""
      INSERT INTO nfctag_tag_failures (job, uid, row_id, reason, exit_status, station, reader, failed_at)
      VALUES (\(job), \(uid), \(rowID), \(failure.reason), \(failure.exitStatus), \(failure.place.station),
        \(failure.place.reader), \(failure.place.time))
      """)
  }
}
