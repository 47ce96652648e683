import Dispatch
import Locking
import NFCSession
import ProvisioningLedger

/// Why a run ended.
public enum ProvisioningEnd: Sendable, Equatable {
  /// Every row of the job is done.
  case complete
  /// ``ProvisioningRun/stop()`` or ``ProvisioningRun/abort()``.
  case stopped
  /// Every reader's session went `timeout` seconds without a tag, rows remaining.
  case timedOut
  /// The first tag showed that some rows do not fit: nothing was written.
  case refused
  /// Every reader's session ended for another reason (the last one's, a fact).
  case readersEnded(String)
  /// The ledger could not be read at the start.
  case ledgerFailed(String)
}

/// A provisioning run: one multi-read ``NFCNDEFReaderSession`` per reader, all drawing rows from
/// one ledger, until every row is done, the run is stopped, or every session ends.
///
/// Events arrive on the sessions' queues (one per reader), in order per reader.
public final class ProvisioningRun: Sendable {
  let ledger: any Ledger
  let content: any ProvisioningContent
  let options: ProvisioningOptions
  let events: @Sendable (ProvisioningEvent) -> Void
  /// Seconds between two looks at the ledger for rows finished elsewhere.
  let completionCheckInterval: Double = 0.5
  /// Rows to give back once the ledger is available again.
  let giveBacks = PendingGiveBacks()

  private struct State {
    var sessions: [NFCNDEFReaderSession] = []
    var workers: [ReaderWorker] = []
    var live = 0
    var stopping = false
    var end: ProvisioningEnd? = nil
    var capacityChecked = false
    /// What the last session to end would make of the run.
    var lastEnded: ProvisioningEnd? = nil
  }
  private let state = Locked(State())
  private let finished = DispatchSemaphore(value: 0)

  /// - Parameters:
  ///   - events: told about every reader and tag; called on the sessions' queues.
  public init(ledger: any Ledger, content: any ProvisioningContent, options: ProvisioningOptions,
              events: @escaping @Sendable (ProvisioningEvent) -> Void) {
    self.ledger = ledger; self.content = content; self.options = options; self.events = events
  }

  /// Provisions on `pollers` (one session each) and blocks until the run ends.
  public func run(pollers: [any TagPoller]) -> ProvisioningEnd {
    do {
      if try isComplete() { return .complete }
    } catch {
      return .ledgerFailed("\(error)")
    }
    state.withLock { $0.live += 1 }  // held until every given reader has begun
    for poller in pollers { add(poller) }
    let none = state.withLock { s in
      s.live -= 1
      if s.live == 0, s.end == nil { s.end = s.lastEnded }
      return s.live == 0
    }
    if none { finished.signal() }
    // Other stations (or readers) may finish the last rows while this one waits for a tag or for
    // one to leave: the ledger is asked every `completionCheckInterval` seconds.
    let check = DispatchSource.makeTimerSource(queue: .global())
    check.schedule(deadline: .now() + completionCheckInterval, repeating: completionCheckInterval)
    check.setEventHandler { [self] in
      giveBacks.retry(on: ledger)
      if (try? isComplete()) == true { finish(.complete) }
    }
    check.resume()
    finished.wait()
    check.cancel()
    giveBacks.retry(on: ledger)
    return state.withLock { $0.end } ?? .stopped
  }

  /// The rows whose tags failed before the first write but that the ledger could not take back
  /// before the run ended (it was unavailable until the end): each stays claimed by that tag's
  /// UID, and the same tag in a later run takes it over; for a tag that is gone, only `ledger
  /// release` frees it. Empty until ``run(pollers:)`` returns, and in most runs.
  public var rowsNotGivenBack: [(rowID: String, uid: String)] { giveBacks.rows }

  /// Adds a reader to the running run (a reader plugged in during the run); ignored once the run
  /// is ending.
  public func add(_ poller: any TagPoller) {
    let worker = ReaderWorker(run: self, reader: poller.readerName)
    let session = NFCNDEFReaderSession(delegate: worker, queue: nil, invalidateAfterFirstRead: false,
                                       poller: poller, timeout: options.timeout ?? .infinity)
    let added: Bool = state.withLock { s in
      guard !s.stopping, s.live > 0 else { return false }
      s.sessions.append(session)
      s.workers.append(worker)
      s.live += 1
      return true
    }
    if added { session.begin() }
  }

  /// The readers with a session in this run.
  public var readers: [String] { state.withLock { s in s.sessions.map(\.readerName) } }

  /// Finishes the tags in hand, then ends every session.
  public func stop() {
    let idle: [NFCNDEFReaderSession] = state.withLock { s in
      s.stopping = true
      if s.end == nil { s.end = .stopped }
      return zip(s.sessions, s.workers).filter { !$0.1.isBusy }.map(\.0)
    }
    for session in idle { session.invalidate() }
  }

  /// Ends every session now, between two tag commands (never inside one).
  public func abort() {
    let sessions: [NFCNDEFReaderSession] = state.withLock { s in
      s.stopping = true
      if s.end == nil { s.end = .stopped }
      return s.sessions
    }
    for session in sessions { session.invalidate() }
  }

  var isStopping: Bool { state.withLock { $0.stopping } }

  /// True once for the run's first tag: its capacity is checked against every row.
  func takeCapacityCheck() -> Bool {
    state.withLock { s in
      defer { s.capacityChecked = true }
      return !s.capacityChecked
    }
  }

  func isComplete() throws(LedgerError) -> Bool {
    let counts = try ledger.counts()
    return counts.pending == 0 && counts.claimed == 0 && counts.failed == 0
  }

  /// Ends the run with `end` (the first end wins) and every session.
  func finish(_ end: ProvisioningEnd) {
    let sessions: [NFCNDEFReaderSession] = state.withLock { s in
      s.stopping = true
      if s.end == nil { s.end = end }
      return s.sessions
    }
    for session in sessions { session.invalidate() }
  }

  /// A reader's session ended.
  func sessionEnded(reader: String, error: NFCReaderError) {
    events(.readerEnded(reader: reader, reason: error.message))
    let last: Bool = state.withLock { s in
      s.live -= 1
      s.lastEnded = error.code == .readerSessionInvalidationErrorSessionTimeout ? .timedOut : .readersEnded(error.message)
      if s.end == nil, s.live == 0 { s.end = s.lastEnded }
      return s.live == 0
    }
    if last { finished.signal() }
  }
}

/// One reader's session delegate: takes tags one at a time.
final class ReaderWorker: NFCNDEFReaderSessionDelegate, Sendable {
  private unowned let run: ProvisioningRun
  let reader: String
  private let busy = Locked(false)
  /// The session's exchange count when the last tag ended.
  private let lastExchanges = Locked(0)

  init(run: ProvisioningRun, reader: String) {
    self.run = run
    self.reader = reader
  }

  var isBusy: Bool { busy.withLock { $0 } }

  func readerSessionDidBecomeActive(_ session: NFCNDEFReaderSession) {
    lastExchanges.withLock { $0 = session.exchangeCount }
    run.events(.readerReady(reader: reader))
  }

  func readerSession(_ session: NFCNDEFReaderSession, didInvalidateWithError error: NFCReaderError) {
    run.sessionEnded(reader: reader, error: error)
  }

  func readerSession(_ session: NFCNDEFReaderSession, didDetect tags: [any NFCNDEFTag]) {
    guard tags.count == 1, let tag = tags.first else {
      session.queue.asyncAfter(deadline: .now() + .milliseconds(500)) { session.restartPolling() }
      return
    }
    if run.isStopping { return session.invalidate() }
    busy.withLock { $0 = true }
    let started = monotonicSeconds()
    let provisioner = TagProvisioner(ledger: run.ledger, content: run.content, options: run.options, reader: reader,
                                     giveBacks: run.giveBacks)
    var outcome: TagProvisioner.Outcome
    do {
      try session.connect(to: tag)
      outcome = provisioner.provision(tag, checkCapacity: run.takeCapacityCheck())
    } catch {
      outcome = TagProvisioner.Outcome(rowID: nil, status: .failed, reason: error.message, failure: .tag(error))
    }
    if run.options.feedback, outcome.status != .skipped || outcome.rowID != nil {
      _ = try? tag.signalReader(outcome.status == .failed ? .failure : .success)
    }
    let exchanges = session.exchangeCount
    let used = lastExchanges.withLock { last in defer { last = exchanges }; return exchanges - last }
    if let problems = outcome.refusal {
      // The rows that do not fit are the cause; the tag itself did nothing wrong.
      busy.withLock { $0 = false }
      run.events(.jobRefused(problems: problems))
      return run.finish(.refused)
    }
    run.events(.tag(ProvisionedTag(rowID: outcome.rowID, uid: outcome.uid ?? hexString(tag.identifier), status: outcome.status,
                                   reason: outcome.reason, failure: outcome.failure, reader: reader,
                                   milliseconds: (monotonicSeconds() - started) * 1000, exchanges: used)))
    busy.withLock { $0 = false }
    if (try? run.isComplete()) == true { return run.finish(.complete) }
    if run.isStopping { return session.invalidate() }
    session.restartPollingAfterRemoval()
  }

  func readerSession(_ session: NFCNDEFReaderSession, didFailToReadTag error: NFCReaderError) {}
}
