import Dispatch
import Locking
import NFCTransport

/// What a session does once it has handed what it found to its delegate.
enum AfterDelivery: Sendable {
  /// Tags were given to the delegate: polling pauses until `restartPolling()` or `invalidate()`,
  /// and the tags stay connected until then (Core NFC's tag sessions).
  case waitForRestart
  /// Messages were read (or the tag was unusable): the next tag is one that arrives after this
  /// one left, so a tag left in place is reported once.
  case waitForRemoval
  /// The session ends after this tag (single-read sessions); the delivery already invalidated it.
  case stop
  /// None of the tags is of a kind the session looks for: as ``waitForRemoval``, and a timeout
  /// still says that no tag was presented.
  case passOver
}

/// The polling engine both session kinds run on: one reader, one poll loop on its own dispatch
/// queue, Core NFC's lifecycle (idle → polling → invalidated; one active session per reader; an
/// invalidated session never begins again) and its timeout.
///
/// Threads: the poll loop runs on a private serial queue; delegate calls run on the session's
/// queue; ``invalidate(_:)``, ``restartPolling(afterRemoval:)`` and tag commands may come from
/// any thread. Everything mutable sits in `state` (a mutex); tag commands and releasing the card
/// are serialised by `exchange`, so the card is never released under a running command.
final class SessionEngine: Sendable {
  enum Phase: Sendable { case idle, polling, paused, invalidated }
  enum Restart: Sendable { case now, afterRemoval }

  struct State: Sendable {
    var phase: Phase = .idle
    var generation = 0
    var connected: ObjectIdentifier?
    var restart: Restart?
    var alertMessage = ""
    var ending: NFCReaderError?
    var loopRunning = false
    /// A command changed the tag's session state (authenticated, sent raw commands): reset it at release.
    var resetOnRelease = false
  }

  /// What the owning session does with what the loop finds, and with the end.
  struct Hooks: Sendable {
    var becameActive: @Sendable () -> Void
    var deliver: @Sendable (_ targets: sending [DetectedTarget], _ generation: Int) -> AfterDelivery
    var identificationFailed: @Sendable (NFCReaderError) -> AfterDelivery
    var invalidated: @Sendable (NFCReaderError) -> Void
  }

  let poller: any TagPoller
  /// Seconds without a tag after which the session ends with 201.
  let timeout: Double
  /// The queue delegate calls run on.
  let queue: DispatchQueue
  private let pollQueue: DispatchQueue
  private let state = Locked(State())
  private let hooks = Locked<Hooks?>(nil)
  private let wake = DispatchSemaphore(value: 0)
  /// Held by tag commands while they run and by the loop while it releases the card.
  let exchange = Locked(())

  init(poller: any TagPoller, timeout: Double, queue: DispatchQueue?) {
    self.poller = poller
    self.timeout = timeout
    self.queue = queue ?? DispatchQueue(label: "nfcsession.delegate")
    pollQueue = DispatchQueue(label: "nfcsession.poll")
  }

  var phase: Phase { state.withLock { $0.phase } }
  /// True between `begin` and invalidation: polling, or paused on a tag (a session's `isReady`).
  var isPolling: Bool {
    let phase = phase
    return phase == .polling || phase == .paused
  }
  var generation: Int { state.withLock { $0.generation } }
  var alertMessage: String {
    get { state.withLock { $0.alertMessage } }
    set { state.withLock { $0.alertMessage = newValue } }
  }

  /// Starts polling once; a second call, or a call after invalidation, does nothing.
  func begin(_ newHooks: Hooks) {
    let start: Bool = state.withLock {
      guard $0.phase == .idle else { return false }
      $0.phase = .polling
      $0.loopRunning = true
      return true
    }
    guard start else { return }
    guard ActiveSessions.claim(poller.readerName, by: self) else {
      // The poller may be the other session's too (a `sim:` reader is one per name): this
      // session ends without cancelling or releasing it.
      state.withLock {
        $0.phase = .invalidated
        $0.loopRunning = false
      }
      let busy = NFCReaderError(.readerSessionInvalidationErrorSystemIsBusy, "another session is using \(poller.readerName)")
      queue.async { newHooks.invalidated(busy) }
      return
    }
    hooks.withLock { $0 = newHooks }
    queue.async { newHooks.becameActive() }
    pollQueue.async { [self] in run() }
  }

  /// Ends the session with `error` (the first call wins). The delegate hears of it once the
  /// card is released, after any tag command still running.
  func invalidate(_ error: NFCReaderError) {
    let (first, loopRunning): (Bool, Bool) = state.withLock { s in
      guard s.phase != .invalidated else { return (false, false) }
      s.phase = .invalidated
      s.connected = nil
      s.ending = error
      return (true, s.loopRunning)
    }
    guard first else { return }
    poller.cancel()
    wake.signal()
    if !loopRunning { finish() }
  }

  /// Forgets the tags found so far and polls again; with `afterRemoval`, only once the field is empty.
  func restartPolling(afterRemoval: Bool) {
    let restarted: Bool = state.withLock {
      guard $0.phase == .polling || $0.phase == .paused else { return false }
      $0.generation += 1
      $0.connected = nil
      $0.restart = afterRemoval ? .afterRemoval : .now
      return true
    }
    if restarted { wake.signal() }
  }

  /// Marks `tag` as the one tag commands may go to.
  func connect(_ tag: ObjectIdentifier, generation: Int) throws(NFCReaderError) {
    try state.withLock { s throws(NFCReaderError) in
      try Self.check(s, generation: generation)
      s.connected = tag
    }
  }

  /// Runs a tag command for `tag` (of `generation`), under the exchange lock, when that tag is
  /// the connected one of a live session.
  func perform<T: Sendable>(_ tag: ObjectIdentifier, generation: Int,
                            _ body: () throws(NFCReaderError) -> T) throws(NFCReaderError) -> T {
    try exchange.withLock { _ throws(NFCReaderError) -> T in
      try state.withLock { s throws(NFCReaderError) in
        try Self.check(s, generation: generation)
        guard s.connected == tag else {
          throw NFCReaderError(.readerTransceiveErrorTagNotConnected, "the tag is not connected")
        }
      }
      do throws(NFCReaderError) {
        return try body()
      } catch {
        // A tag that left needs no reset to end what it was doing: the field did that. Resetting
        // a card that is gone makes some readers (vpcd) wait many seconds before the next one.
        if error.causes.contains(where: { $0 as? TransceiveError == .tagRemoved }) {
          state.withLock { $0.resetOnRelease = false }
        }
        throw error
      }
    }
  }

  /// True while `generation`'s tags may be used.
  func isUsable(generation: Int) -> Bool {
    state.withLock { (try? Self.check($0, generation: generation)) != nil }
  }

  private static func check(_ s: State, generation: Int) throws(NFCReaderError) {
    guard s.phase != .invalidated, s.phase != .idle else {
      throw NFCReaderError(.readerTransceiveErrorSessionInvalidated, "the session is invalidated")
    }
    guard s.generation == generation else {
      throw NFCReaderError(.readerTransceiveErrorSessionInvalidated, "polling restarted: the tag is no longer valid")
    }
  }

  // MARK: - The poll loop

  private func run() {
    var idleDeadline = deadline()
    /// What the timeout message says: whether a tag came before, and whether it is still there.
    var field = FieldHistory.noTagYet
    loop: while phase != .invalidated {
      let remaining = Self.seconds(until: idleDeadline)
      if remaining <= 0 {
        invalidate(NFCReaderError(.readerSessionInvalidationErrorSessionTimeout, field.timeoutMessage(after: timeout)))
        break
      }
      let targets: [DetectedTarget]
      let after: AfterDelivery
      do {
        targets = try poller.waitForTargets(timeoutMilliseconds: Int(min(remaining, 1) * 1000) + 1)
        guard phase != .invalidated else { break }
        let generation = self.generation
        after = hooks.withLock { $0 }?.deliver(targets, generation) ?? .stop
      } catch .timeout {
        continue
      } catch .cancelled {
        break
      } catch {
        let failure = NFCReaderError(error)
        guard failure.code == .readerTransceiveErrorTagConnectionLost else {
          invalidate(failure)
          break
        }
        after = hooks.withLock { $0 }?.identificationFailed(failure) ?? .stop
      }
      if after != .passOver { field = .tagLeft }
      switch after {
      case .stop:
        break loop
      case .waitForRestart:
        state.withLock { if $0.phase == .polling { $0.phase = .paused } }
        guard let restart = waitForRestart() else { break loop }
        releaseCard()
        idleDeadline = deadline()
        if restart == .afterRemoval, !waitForRemoval(until: idleDeadline) { field = .tagStayed }
        if Self.seconds(until: idleDeadline) > 0 { idleDeadline = deadline() }
      case .waitForRemoval, .passOver:
        releaseCard()
        idleDeadline = deadline()
        if !waitForRemoval(until: idleDeadline), after != .passOver { field = .tagStayed }
        state.withLock { if $0.phase != .invalidated { $0.generation += 1 } }
        if Self.seconds(until: idleDeadline) > 0 { idleDeadline = deadline() }
      }
    }
    finish()
  }

  /// When the session times out if no tag comes: `timeout` seconds from now; nil for never.
  private func deadline() -> ContinuousClock.Instant? {
    timeout.isFinite && timeout < 1e9 ? ContinuousClock.now.advanced(by: .milliseconds(Int64(max(0, timeout) * 1000))) : nil
  }

  /// Seconds left until `deadline` (infinite for none).
  private static func seconds(until deadline: ContinuousClock.Instant?) -> Double {
    guard let deadline else { return .infinity }
    let left = ContinuousClock.now.duration(to: deadline).components
    return Double(left.seconds) + Double(left.attoseconds) / 1e18
  }

  /// Blocks until restartPolling (its kind) or invalidation (nil).
  private func waitForRestart() -> Restart? {
    while true {
      let (phase, restart): (Phase, Restart?) = state.withLock {
        let restart = $0.restart
        if restart != nil, $0.phase == .paused {
          $0.restart = nil
          $0.phase = .polling
        }
        return ($0.phase, restart)
      }
      if phase == .invalidated { return nil }
      if let restart { return restart }
      wake.wait()
    }
  }

  /// Blocks until the field is empty, the session ends, or polling restarts; past `deadline` a
  /// tag left in the field ends the session with the timeout (the loop sees no time left).
  /// - Returns: false when the deadline passed with the tag still in the field.
  private func waitForRemoval(until deadline: ContinuousClock.Instant?) -> Bool {
    while phase != .invalidated, Self.seconds(until: deadline) > 0 {
      if state.withLock({ s in defer { s.restart = nil }; return s.restart == .now }) { return true }
      do {
        try poller.waitForRemoval(timeoutMilliseconds: 250)
        return true
      } catch .timeout {
        continue
      } catch {
        return true  // cancelled, or the reader went away: the loop decides what comes next
      }
    }
    return phase == .invalidated
  }

  /// Marks the card for a reset when it is released (see ``TagPoller/releaseResetting()``).
  func resetOnRelease() { state.withLock { $0.resetOnRelease = true } }

  /// Whether the card is marked for a reset at its release.
  var resetsOnRelease: Bool { state.withLock { $0.resetOnRelease } }

  /// The card was reset already (activated again): its release leaves it as it is.
  func cardWasReset() { state.withLock { $0.resetOnRelease = false } }

  private func releaseCard() {
    let reset = state.withLock { s in defer { s.resetOnRelease = false }; return s.resetOnRelease }
    exchange.withLock { _ in reset ? poller.releaseResetting() : poller.release() }
  }

  /// The end: the card released (a fed tag still in the field saved: ``TagPoller/sessionEnded()``),
  /// the reader free for the next session, the delegate told once, after that.
  private func finish() {
    releaseCard()
    poller.sessionEnded()
    ActiveSessions.release(poller.readerName, by: self)
    let ending: NFCReaderError? = state.withLock { s in
      s.loopRunning = false
      defer { s.ending = nil }
      return s.ending
    }
    guard let ending, let hooks = hooks.withLock({ h in defer { h = nil }; return h }) else { return }
    queue.async { hooks.invalidated(ending) }
  }
}

/// What the field held before a session timed out, for its message: a timeout after a tag was
/// handled is not "no tag was presented".
enum FieldHistory {
  case noTagYet, tagLeft, tagStayed

  func timeoutMessage(after timeout: Double) -> String {
    switch self {
    case .noTagYet: return "no tag was presented within \(formatted(timeout)) s"
    case .tagLeft: return "no new tag was presented within \(formatted(timeout)) s after the last one"
    case .tagStayed: return "no new tag was presented within \(formatted(timeout)) s after the last one, which is still in the field"
    }
  }
}

/// One active session per reader, process-wide (Core NFC: SystemIsBusy, 203).
enum ActiveSessions {
  private static let owners = Locked<[String: ObjectIdentifier]>([:])

  static func claim(_ reader: String, by engine: SessionEngine) -> Bool {
    owners.withLock { owners in
      guard owners[reader] == nil else { return false }
      owners[reader] = ObjectIdentifier(engine)
      return true
    }
  }

  static func release(_ reader: String, by engine: SessionEngine) {
    owners.withLock {
      if $0[reader] == ObjectIdentifier(engine) { $0.removeValue(forKey: reader) }
    }
  }
}

func formatted(_ seconds: Double) -> String {
  seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
}
