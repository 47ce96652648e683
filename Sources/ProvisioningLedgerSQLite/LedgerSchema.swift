import ProvisioningLedger
import SQLiteNIO

/// The ledger's tables, how a file is recognised as a ledger, and how an older one is brought up
/// to date.
///
/// A ledger file carries `PRAGMA application_id` ``applicationID`` and its schema version in
/// `PRAGMA user_version`. A file with another application id, or with tables but no id, is not
/// a ledger and is never written to; a version above ``version`` was written by a newer nfctag.
enum LedgerSchema {
  /// `PRAGMA application_id` of a ledger file: "NFCL".
  static let applicationID = 0x4E46_434C
  /// The schema this code writes.
  static let version = 4

  /// Version 4. `jobs.settings`: what the job writes (``Ledger/settings()``), NULL until recorded;
  /// `rows.progress`: how far the tag's set-up came (``Ledger/recordProgress(rowID:uid:progress:)``);
  /// `sun_counters`: the last SDM read counter a verification service accepted per UID, across
  /// jobs (``Ledger/acceptCounter(uid:counter:)``).
  static let tables = [
    """
    CREATE TABLE jobs (
      name TEXT PRIMARY KEY NOT NULL,
      settings TEXT
    )
    """,
    """
    CREATE TABLE rows (
      job TEXT NOT NULL REFERENCES jobs(name),
      id TEXT NOT NULL,
      sequence INTEGER NOT NULL,
      content_hash TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('pending', 'claimed', 'done', 'failed')),
      uid TEXT,
      station TEXT,
      reader TEXT,
      message_hex TEXT,
      message_sha256 TEXT,
      updated_at TEXT,
      error TEXT,
      exit_status INTEGER,
      progress TEXT,
      UNIQUE (job, id),
      UNIQUE (job, uid),
      CHECK ((status = 'pending') = (uid IS NULL))
    )
    """,
    "CREATE INDEX rows_by_status ON rows (job, status, sequence)",
    """
    CREATE TABLE tag_failures (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      job TEXT NOT NULL REFERENCES jobs(name),
      uid TEXT NOT NULL,
      row_id TEXT,
      reason TEXT NOT NULL,
      exit_status INTEGER NOT NULL,
      station TEXT NOT NULL,
      reader TEXT NOT NULL,
      failed_at TEXT NOT NULL
    )
    """,
    "CREATE INDEX tag_failures_by_job ON tag_failures (job, seq)",
    sunCounters,
  ]

  /// The table of ``Ledger/acceptCounter(uid:counter:)`` (version 4).
  static let sunCounters = """
    CREATE TABLE sun_counters (
      uid TEXT PRIMARY KEY NOT NULL,
      counter INTEGER NOT NULL CHECK (counter BETWEEN 0 AND 16777215)
    )
    """

  /// The statements that take a ledger from version `n` to `n + 1`, by `n`. A job of an older
  /// ledger has no settings until its next run records them; its rows have no progress.
  static let migrations: [Int: [String]] = [
    1: ["ALTER TABLE jobs ADD COLUMN settings TEXT"],
    2: ["ALTER TABLE rows ADD COLUMN progress TEXT"],
    3: [sunCounters],
  ]

  /// What a file holds before it is used.
  enum State: Equatable {
    /// No table and no application id: a new (or empty) database.
    case empty
    /// A ledger of this schema version.
    case ledger(version: Int)
  }

  /// Checks that `db` is a ledger (or, with `create`, an empty database), switches it to WAL with
  /// `synchronous=FULL`, then creates the tables or runs the migrations the file needs.
  /// - Throws: ``LedgerError/incompatible(_:)`` for another program's database, an empty one
  ///   without `create`, or a newer schema.
  static func prepare(_ db: BlockingConnection, create: Bool) throws(LedgerError) {
    let before = try state(of: db)
    if before == .empty, !create { throw .incompatible("\(db.path) is not a ledger (an empty database)") }
    // Outside any transaction: journal_mode cannot change inside one. WAL is kept by the file.
    let mode = try db.query("PRAGMA journal_mode = WAL").first?.column("journal_mode")?.string
    guard mode == "wal" else { throw .cannotOpen("\(db.path): SQLite cannot keep it in WAL mode (\(mode ?? "no mode"))") }
    _ = try db.query("PRAGMA synchronous = FULL")
    guard before != .ledger(version: version) else { return }
    try db.transaction(.write) { () throws(LedgerError) in
      // Again under the write lock: another process may have created or migrated it meanwhile.
      switch try state(of: db) {
      case .empty:
        for statement in tables { _ = try db.query(statement) }
        _ = try db.query("PRAGMA application_id = \(applicationID)")
        _ = try db.query("PRAGMA user_version = \(version)")
      case .ledger(let found):
        for from in found..<version {
          guard let steps = migrations[from] else {
            throw .incompatible("\(db.path): no migration from ledger schema \(from) to \(from + 1)")
          }
          for statement in steps { _ = try db.query(statement) }
        }
        _ = try db.query("PRAGMA user_version = \(version)")
      }
    }
  }

  /// What `db` holds.
  /// - Throws: ``LedgerError/incompatible(_:)`` when it is not a ledger or is a newer one.
  static func state(of db: BlockingConnection) throws(LedgerError) -> State {
    let id = try db.query("PRAGMA application_id").first?.column("application_id")?.integer ?? 0
    let found = try db.query("PRAGMA user_version").first?.column("user_version")?.integer ?? 0
    let objects = try db.query("SELECT count(*) AS n FROM sqlite_schema").first?.column("n")?.integer ?? 0
    if Int(id) == applicationID {
      guard found <= version else {
        throw .incompatible("\(db.path) was written by a newer nfctag (ledger schema \(found); this one knows up to \(version))")
      }
      return .ledger(version: Int(found))
    }
    guard id == 0, found == 0, objects == 0 else {
      throw .incompatible("\(db.path) is not a ledger (an SQLite database of another program)")
    }
    return .empty
  }

  /// The columns ``record(_:path:)`` reads, in a `SELECT`.
  static let recordColumns =
    "id, sequence, status, uid, station, reader, message_hex, message_sha256, updated_at, error, exit_status, progress"

  /// A row of `rows` selected with ``recordColumns``.
  static func record(_ row: SQLiteRow, path: String) throws(LedgerError) -> LedgerRecord {
    func text(_ name: String) -> String? {
      guard let value = row.column(name), !value.isNull else { return nil }
      return value.string
    }
    guard let id = text("id"), let sequence = row.column("sequence")?.integer,
          let status = text("status").flatMap(LedgerRowStatus.init(rawValue:))
    else { throw .incompatible("\(path): a row of the ledger cannot be read") }
    let exitStatus = row.column("exit_status").flatMap { $0.isNull ? nil : $0.integer }.flatMap { Int32(exactly: $0) }
    return LedgerRecord(id: id, sequence: Int(sequence), status: status, uid: text("uid"), station: text("station"),
                        reader: text("reader"), messageHex: text("message_hex"), messageSHA256: text("message_sha256"),
                        updatedAt: text("updated_at"), error: text("error"), exitStatus: exitStatus,
                        progress: text("progress"))
  }
}
