/// The provisioning ledger: which row went onto which tag. One interface, two backends (embedded
/// SQLite for one station, PostgreSQL for several). The ledger is the truth: a row is reported
/// done only after the backend committed it.
///
/// A row moves pending → claimed(uid) → done | failed. A claimed or failed row stays bound to its
/// UID (the tag may hold some of its bytes): when that tag comes back, ``Ledger/claim(uid:at:)``
/// hands the same row out again; no other tag gets it until ``Ledger/release(rowID:)``. A UID holds
/// at most one row of a job (unique), and a row at most one UID.
///
/// Every call is one transaction and blocks until it is committed (or throws). Implementations are
/// safe to share between threads.
public protocol Ledger: AnyObject, Sendable {
  /// The job this ledger object works on.
  var job: LedgerJob { get }

  /// Adds the rows this ledger does not have yet as pending; rows it has are left as they are.
  /// Idempotent: every station may import the same rows.
  /// - Throws: ``LedgerError/rowsDiffer(_:)`` when a row id is already there with another content
  ///   hash or sequence number (one line per row), before anything is changed.
  func importRows(_ rows: [LedgerRowInput]) throws(LedgerError) -> LedgerImport

  /// The job's settings: what its tags receive (the template and the options that change what is
  /// written), as the caller encodes them; nil until recorded. Never a secret.
  func settings() throws(LedgerError) -> String?

  /// In one transaction: records `settings` when the job has none yet (a new job, or one from a
  /// ledger older than settings), or when `replacing`; otherwise compares them with the job's.
  /// Two stations starting at once with different settings cannot both record theirs.
  func recordSettings(_ settings: String, replacing: Bool) throws(LedgerError) -> LedgerSettingsCheck

  /// The row bound to `uid` in this job, whatever its state, or nil.
  func row(boundTo uid: String) throws(LedgerError) -> LedgerRecord?

  /// In one transaction: the row already bound to `uid` (done, claimed or failed), else the
  /// pending row with the lowest sequence number, now claimed by `uid` at `station`/`reader`.
  /// A row already bound is returned as the ledger holds it: that claim changes nothing.
  func claim(uid: String, at place: LedgerPlace) throws(LedgerError) -> LedgerClaim

  /// Marks a row done. Only a row claimed (or failed) by `done.uid` can be finished; a done row
  /// is final. A progress with a SUN counter baseline (``LedgerDone/counterBaseline``) also
  /// records that counter as the UID's last accepted one (``acceptCounter(uid:counter:)``), in
  /// the same transaction: a verifier then takes only taps above the provisioning run's own read,
  /// whenever it started.
  /// - Throws: ``LedgerError/notBound(rowID:uid:)`` otherwise, ``LedgerError/unknownRow(_:)`` for
  ///   a row the job does not have.
  func finish(_ done: LedgerDone) throws(LedgerError)

  /// Records how far the tag of a claimed or failed row came (an NTAG 424 DNA's steps, its key
  /// versions: ``LedgerTagProgress/encoded``), replacing what the row held. Never a key. The row
  /// keeps it when it fails or is done; a row given back or released forgets it.
  /// - Throws: as ``finish(_:)``: the row must be claimed or failed by `uid`.
  func recordProgress(rowID: String, uid: String, progress: String) throws(LedgerError)

  /// Records that the row's tag failed *after* the tag was touched: the row stays bound to the UID
  /// (state failed) with the reason and exit-code class.
  /// - Throws: as ``finish(_:)``: the row must be claimed or failed by `uid`.
  func fail(rowID: String, uid: String, failure: LedgerFailure) throws(LedgerError)

  /// Gives a claimed row back (state pending, no UID) because its tag failed *before* anything was
  /// written to it, and records the failure against the UID in the tag log. A pending row holds
  /// no UID, station, reader, message, time or error.
  /// - Throws: as ``finish(_:)``: the row must be claimed or failed by `uid`; then nothing is logged.
  func unclaim(rowID: String, uid: String, failure: LedgerFailure) throws(LedgerError)

  /// Records a tag that failed before any row was claimed for it (unsupported, unreadable).
  func recordTagFailure(uid: String, failure: LedgerFailure) throws(LedgerError)

  /// Frees a claimed or failed row on purpose: pending again, its UID forgotten.
  /// - Returns: the row as it was before.
  /// - Throws: ``LedgerError/unknownRow(_:)``, or ``LedgerError/cannotRelease(rowID:status:)`` for a
  ///   pending or done row.
  func release(rowID: String) throws(LedgerError) -> LedgerRecord

  /// Every row of the job, by sequence number.
  func records() throws(LedgerError) -> [LedgerRecord]

  /// Tag failures that left no row bound (from ``unclaim(rowID:uid:failure:)`` and
  /// ``recordTagFailure(uid:failure:)``), oldest first.
  func tagFailures() throws(LedgerError) -> [LedgerTagFailure]

  /// Counts by state.
  func counts() throws(LedgerError) -> LedgerCounts

  /// A SUN verification service's replay check: records `counter` as the last SDM read counter
  /// accepted for `uid` when the ledger holds none for it or a lower one, in one statement (an
  /// upsert whose update is conditional on the stored counter being lower). Of several services
  /// sharing the ledger that accept the same counter at once, exactly one gets
  /// ``LedgerCounterCheck/accepted``. Counters are kept per UID, across jobs (a UID names one
  /// tag); nothing but the UID and the counter is stored.
  func acceptCounter(uid: String, counter: UInt32) throws(LedgerError) -> LedgerCounterCheck

  /// ``acceptCounter(uid:counter:)`` for each of `counters`, all in one transaction (one commit:
  /// a verification service groups the requests that wait at once), each answer as that call's
  /// would be in the order given (PostgreSQL sends the whole batch as one statement, SQLite one per
  /// counter). Counters of one UID take effect in the order given; a backend may run different UIDs in
  /// another order (PostgreSQL: by UID, so two servers' batches never wait for each other in a
  /// cycle). Throws, with nothing committed, when the transaction fails.
  /// - Returns: one check per counter, in the order given.
  func acceptCounters(_ counters: [LedgerCounter]) throws(LedgerError) -> [LedgerCounterCheck]

  /// Closes the connection. Further calls throw ``LedgerError/closed``.
  func close()
}

/// A named job: one ledger file or database may hold several.
public struct LedgerJob: Sendable, Equatable {
  /// The job's name (`--job`, by default the rows file's name).
  public var name: String
  public init(name: String) { self.name = name }
}

/// A row as the job defines it.
public struct LedgerRowInput: Sendable, Equatable {
  /// The row's id (`id` column, else its 1-based line number).
  public var id: String
  /// 1-based position in the job (`{n}`); claims go in this order.
  public var sequence: Int
  /// Lowercase hex SHA-256 of the row's content, so that a changed rows file is noticed.
  public var contentHash: String
  public init(id: String, sequence: Int, contentHash: String) {
    self.id = id; self.sequence = sequence; self.contentHash = contentHash
  }
}

/// What ``Ledger/recordSettings(_:replacing:)`` found.
public enum LedgerSettingsCheck: Sendable, Equatable {
  /// The job holds the settings given now: recorded by this call (the first, or replacing).
  case recorded
  /// The job already held exactly the settings given.
  case unchanged
  /// The job holds other settings, left as they were.
  case differs(recorded: String)

  /// What a call finds when the job holds `current` (nil: none yet) and is given `given`.
  public init(current: String?, given: String, replacing: Bool) {
    if current == given {
      self = .unchanged
    } else if let current, !replacing {
      self = .differs(recorded: current)
    } else {
      self = .recorded
    }
  }
}

/// What ``Ledger/importRows(_:)`` did.
public struct LedgerImport: Sendable, Equatable {
  public var added: Int
  public var alreadyThere: Int
  public init(added: Int, alreadyThere: Int) { self.added = added; self.alreadyThere = alreadyThere }
}

/// Where the work happens.
public struct LedgerPlace: Sendable, Equatable {
  public var station: String
  public var reader: String
  /// ISO 8601 UTC with milliseconds, e.g. `2026-11-24T10:15:02.123Z`: written by the caller, so
  /// that both backends store the same text.
  public var time: String
  public init(station: String, reader: String, time: String) {
    self.station = station; self.reader = reader; self.time = time
  }
}

/// The state of a row.
public enum LedgerRowStatus: String, Sendable, Equatable, CaseIterable {
  case pending, claimed, done, failed
}

/// One row as the ledger holds it.
public struct LedgerRecord: Sendable, Equatable {
  public var id: String
  public var sequence: Int
  public var status: LedgerRowStatus
  /// Lowercase hex.
  public var uid: String?
  public var station: String?
  public var reader: String?
  /// The NDEF message written, lowercase hex (done rows).
  public var messageHex: String?
  /// Lowercase hex SHA-256 of the message (done rows).
  public var messageSHA256: String?
  /// When the row was last claimed, finished or failed (ISO 8601 UTC).
  public var updatedAt: String?
  /// Failed rows: why, as one line, and the exit status of its class (docs/exit-codes.md).
  public var error: String?
  public var exitStatus: Int32?
  /// How far the tag's set-up came (``Ledger/recordProgress(rowID:uid:progress:)``), nil for none.
  public var progress: String?
  public init(id: String, sequence: Int, status: LedgerRowStatus, uid: String? = nil, station: String? = nil,
              reader: String? = nil, messageHex: String? = nil, messageSHA256: String? = nil,
              updatedAt: String? = nil, error: String? = nil, exitStatus: Int32? = nil, progress: String? = nil) {
    self.id = id; self.sequence = sequence; self.status = status; self.uid = uid; self.station = station
    self.reader = reader; self.messageHex = messageHex; self.messageSHA256 = messageSHA256
    self.updatedAt = updatedAt; self.error = error; self.exitStatus = exitStatus; self.progress = progress
  }
}

/// What ``Ledger/claim(uid:at:)`` found.
public enum LedgerClaim: Sendable, Equatable {
  /// The UID already holds a done row: skip the tag.
  case alreadyDone(LedgerRecord)
  /// The UID holds a claimed or failed row (an earlier run stopped or failed): finish it.
  case resumed(LedgerRecord)
  /// A pending row, now claimed by the UID.
  case claimed(LedgerRecord)
  /// No pending row is left.
  case exhausted
}

/// A finished row.
public struct LedgerDone: Sendable, Equatable {
  public var rowID: String
  public var uid: String
  public var messageHex: String
  public var messageSHA256: String
  public var place: LedgerPlace
  /// The tag's final progress (``LedgerTagProgress/encoded``); nil keeps what the row holds.
  public var progress: String?
  public init(rowID: String, uid: String, messageHex: String, messageSHA256: String, place: LedgerPlace,
              progress: String? = nil) {
    self.rowID = rowID; self.uid = uid; self.messageHex = messageHex
    self.messageSHA256 = messageSHA256; self.place = place; self.progress = progress
  }

  /// The SDM read counter the provisioning run's own read-back left (``progress``'s
  /// ``LedgerTagProgress/counterBaseline``), nil when there is none.
  public var counterBaseline: UInt32? {
    progress.flatMap(LedgerTagProgress.init(decoding:))?.counterBaseline.flatMap { UInt32(exactly: $0) }
  }
}

/// Why a tag failed. Never holds a secret.
public struct LedgerFailure: Sendable, Equatable {
  /// One line.
  public var reason: String
  /// The exit status of the failure's class (docs/exit-codes.md).
  public var exitStatus: Int32
  public var place: LedgerPlace
  public init(reason: String, exitStatus: Int32, place: LedgerPlace) {
    self.reason = reason; self.exitStatus = exitStatus; self.place = place
  }
}

/// A tag failure with no row bound to it.
public struct LedgerTagFailure: Sendable, Equatable {
  public var uid: String
  /// The row that was tried and given back, if any.
  public var rowID: String?
  public var failure: LedgerFailure
  public init(uid: String, rowID: String?, failure: LedgerFailure) {
    self.uid = uid; self.rowID = rowID; self.failure = failure
  }
}

/// Rows by state, and the tags that failed.
public struct LedgerCounts: Sendable, Equatable {
  public var pending = 0, claimed = 0, done = 0, failed = 0
  /// Every tag that failed, each once: the tags the failed rows are bound to, and the tags that
  /// failed holding no row (given back, or none claimed), so a failed row's tag is a failed tag.
  public var failedTags = 0
  public var total: Int { pending + claimed + done + failed }
  public init(pending: Int = 0, claimed: Int = 0, done: Int = 0, failed: Int = 0, failedTags: Int = 0) {
    self.pending = pending; self.claimed = claimed; self.done = done; self.failed = failed
    self.failedTags = failedTags
  }
}

/// Why a ledger call failed. Messages state facts and hold no secret.
public enum LedgerError: Error, Sendable, Equatable {
  /// The ledger file or database could not be opened or created (path or URL without password),
  /// with the reason (the operating system's, the server's).
  case cannotOpen(String)
  /// The server cannot be reached, the connection was lost, or the backend failed (a file locked
  /// for too long, an I/O error): nothing of this call was committed.
  case unavailable(String)
  /// The ledger was written by a newer schema, or is not a ledger.
  case incompatible(String)
  /// Rows already in the ledger differ from the ones imported, one line per row.
  case rowsDiffer([String])
  case unknownRow(String)
  case unknownJob(String)
  case notBound(rowID: String, uid: String)
  case cannotRelease(rowID: String, status: LedgerRowStatus)
  case closed
}
