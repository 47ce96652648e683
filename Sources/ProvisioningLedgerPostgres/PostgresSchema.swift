// The ledger's tables, created and migrated on first use.
import PostgresNIO
import ProvisioningLedger

/// The ledger's tables in the connection's default schema, each named `nfctag_…` so that they can
/// share a database with anything else:
///
/// - `nfctag_ledger_schema(version)`: one row, the schema version (``version``).
/// - `nfctag_jobs(name, created_at, settings)`: one database holds many jobs; `settings` is what
///   the job writes (``Ledger/settings()``), NULL until recorded.
/// - `nfctag_rows`: one row per job row, `PRIMARY KEY (job, id)`, `UNIQUE (job, uid)`, and a
///   check that a pending row has no UID and every other row has one.
/// - `nfctag_tag_failures`: tags that failed with no row bound to them, in order (`serial`).
/// - `nfctag_sun_counters(uid, counter)`: the last SDM read counter a verification service
///   accepted per UID, across jobs (``Ledger/acceptCounter(uid:counter:)``).
///
/// Times are the text the caller wrote (ISO 8601 UTC with milliseconds), so both backends export
/// the same bytes.
enum PostgresSchema {
  /// The version this build writes. A database at a higher version is refused.
  static let version = 4
  /// The advisory lock that serialises creating and migrating the tables: 8 stations starting
  /// at once must not race on CREATE TABLE.
  static let migrationLock: Int64 = 0x6E66_6374_6167_0001

  /// Each step takes the schema from version `index` to `index + 1`.
  static let migrations: [[PostgresQuery]] = [
    [
      "CREATE TABLE nfctag_ledger_schema (version integer NOT NULL)",
      """
      CREATE TABLE nfctag_jobs (
        name text PRIMARY KEY,
        created_at timestamptz NOT NULL DEFAULT now())
      """,
      """
      CREATE TABLE nfctag_rows (
        job text NOT NULL REFERENCES nfctag_jobs (name) ON DELETE CASCADE,
        id text NOT NULL,
        sequence bigint NOT NULL,
        content_hash text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'claimed', 'done', 'failed')),
        uid text,
        station text,
        reader text,
        message_hex text,
        message_sha256 text,
        updated_at text,
        error text,
        exit_status integer,
        PRIMARY KEY (job, id),
        UNIQUE (job, uid),
        CHECK ((status = 'pending') = (uid IS NULL)))
      """,
      "CREATE INDEX nfctag_rows_pending ON nfctag_rows (job, sequence) WHERE status = 'pending'",
      """
      CREATE TABLE nfctag_tag_failures (
        serial bigserial PRIMARY KEY,
        job text NOT NULL REFERENCES nfctag_jobs (name) ON DELETE CASCADE,
        uid text NOT NULL,
        row_id text,
        reason text NOT NULL,
        exit_status integer NOT NULL,
        station text NOT NULL,
        reader text NOT NULL,
        failed_at text NOT NULL)
      """,
      "CREATE INDEX nfctag_tag_failures_job ON nfctag_tag_failures (job, serial)",
      "INSERT INTO nfctag_ledger_schema (version) VALUES (0)",
    ],
    // 2: what each job writes (its template and options), NULL until its next run records it.
    [
      "ALTER TABLE nfctag_jobs ADD COLUMN settings text",
    ],
    // 3: how far each row's tag came (an NTAG 424 DNA's steps and key versions), NULL for none.
    [
      "ALTER TABLE nfctag_rows ADD COLUMN progress text",
    ],
    // 4: the SUN read counter last accepted per UID (sdm serve's replay check), across jobs.
    [
      """
      CREATE TABLE nfctag_sun_counters (
        uid text PRIMARY KEY,
        counter bigint NOT NULL CHECK (counter BETWEEN 0 AND 16777215))
      """,
    ],
  ]

  /// The schema version in the database, nil when there are no ledger tables.
  static func installedVersion(_ connection: SyncConnection) throws(TransactionError) -> Int? {
    let exists = try connection.query("SELECT to_regclass('nfctag_ledger_schema') IS NOT NULL")
    guard let row = exists.first, try connection.decode(row, Bool.self) else { return nil }
    let version = try connection.query("SELECT max(version) FROM nfctag_ledger_schema")
    let value: Int32? = try version.first.flatMap { (row) throws(TransactionError) in
      try connection.decode(row, Int32?.self)
    }
    guard let value else { throw .ledger(.incompatible("the table nfctag_ledger_schema holds no version")) }
    return Int(value)
  }

  /// Brings the tables to ``version``, under the migration lock (in the caller's transaction).
  /// - Throws: ``LedgerError/incompatible(_:)`` for a database a newer nfctag wrote.
  static func migrate(_ connection: SyncConnection) throws(TransactionError) {
    // The lock comes before the first look at the catalog: a server process that looked up the
    // tables before another one created them keeps "no such table" in its catalog cache for the
    // rest of the transaction (an advisory lock does not refresh that cache; a table lock would).
    try connection.execute("SELECT pg_advisory_xact_lock(\(migrationLock))")
    let installed = try installedVersion(connection) ?? 0
    guard installed <= version else {
      throw .ledger(.incompatible("the ledger's tables are at schema version \(installed); this nfctag knows up to \(version)"))
    }
    for step in migrations[installed...] {
      for statement in step { try connection.execute(statement) }
    }
    try connection.execute("UPDATE nfctag_ledger_schema SET version = \(Int32(version))")
  }
}
