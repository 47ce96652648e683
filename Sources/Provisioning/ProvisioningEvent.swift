/// What happened to one tag.
public struct ProvisionedTag: Sendable {
  /// What became of the tag.
  public enum Status: String, Sendable, Equatable {
    /// Its row was written, verified and committed to the ledger.
    case done
    /// Nothing was written: the tag already holds a done row of this job, or no row is left.
    case skipped
    /// The tag failed; the ledger holds why.
    case failed
  }

  /// The row the tag got (done), holds (skipped) or was tried with (failed), if any.
  public var rowID: String?
  /// The tag's UID, lowercase hex.
  public var uid: String
  public var status: Status
  /// Failed: what happened (a fact, one line, no secret). Skipped: why.
  public var reason: String?
  /// Failed: why, as a type (the tool maps it to its exit status).
  public var failure: TagFailure?
  /// The reader the tag was on.
  public var reader: String
  /// Milliseconds from the tag's detection to its outcome (ledger commit included).
  public var milliseconds: Double
  /// APDUs exchanged with the reader for this tag, detection and feedback included.
  public var exchanges: Int

  public init(rowID: String?, uid: String, status: Status, reason: String? = nil, failure: TagFailure? = nil,
              reader: String, milliseconds: Double, exchanges: Int) {
    self.rowID = rowID; self.uid = uid; self.status = status; self.reason = reason
    self.failure = failure; self.reader = reader; self.milliseconds = milliseconds
    self.exchanges = exchanges
  }
}

/// What a provisioning run tells its owner, in order, from the sessions' queues.
public enum ProvisioningEvent: Sendable {
  /// A reader's session is polling.
  case readerReady(reader: String)
  /// A tag was dealt with.
  case tag(ProvisionedTag)
  /// The first tag's capacity is too small for some rows: nothing was written; the run ends.
  case jobRefused(problems: [String])
  /// A reader's session ended (its reason, a fact).
  case readerEnded(reader: String, reason: String)
}
