import Locking
import Logging
import NFCTransport
import PCSC

extension PollError {
  /// The poll error a PC/SC failure amounts to.
  public init(_ failure: PCSCFailure) {
    switch failure.error {
    case .noService, .serviceStopped, .commError: self = .serviceUnavailable(failure.error.description)
    case .noReadersAvailable: self = .noReader(failure.description)
    case .unknownReader, .readerUnavailable: self = .readerUnavailable(failure.description)
    case .timeout: self = .timeout
    case .cancelled: self = .cancelled
    case .sharingViolation: self = .busy(failure.description)
    default: self = .failed(failure.description)
    }
  }
}

/// A PC/SC reader as a `TagPoller`: waits with `SCardGetStatusChange`, connects, identifies.
///
/// A reader unplugged and plugged back, or a restarted pcscd, does not end a wait: the poller
/// re-establishes its context and goes on waiting. One thread polls; ``cancel()`` may come from
/// any other, so the context, the card and the cancel flag sit behind a mutex.
public final class PCSCTagPoller: TagPoller {
  /// The PC/SC name of the reader this poller waits on.
  public let readerName: String
  private let logger: Logger?
  private struct State {
    var context: PCSCContext
    var card: Card?
    /// The transport of ``card``: its disconnect waits behind an abandoned exchange.
    var transport: PCSCCardTransport?
    var cancelled = false
    /// pcscd's event count for the reader when the last card was found (the upper 16 bits of
    /// `dwEventState`), kept past the card's release until it is seen gone
    /// (``waitForRemoval(timeoutMilliseconds:)``).
    var cardEventCount: Int?
  }
  private let state: Locked<State>
  private let counter = ExchangeCounter()
  /// APDUs sent to cards of this reader so far.
  public var exchangeCount: Int { counter.value }
  var contextForWaits: PCSCContext { state.withLock { $0.context } }
  var isCancelled: Bool { state.withLock { $0.cancelled } }

  /// Seconds one exchange may take before it counts as lost (``PCSCCardTransport``); nil: as
  /// long as the reader takes.
  public let exchangeTimeout: Double?

  /// A poller on `readerName` through `context`. `logger` gets every APDU at trace level;
  /// `exchangeTimeout` as in ``PCSCCardTransport``. Nothing happens until the first wait.
  public init(context: PCSCContext, readerName: String, logger: Logger? = nil, exchangeTimeout: Double? = nil) {
    state = Locked(State(context: context))
    self.readerName = readerName
    self.logger = logger
    self.exchangeTimeout = exchangeTimeout
  }

  /// Waits for a card, connects and identifies it.
  public func waitForTargets(timeoutMilliseconds: Int?) throws(PollError) -> [DetectedTarget] {
    let found = try waitForState(present: true, timeoutMilliseconds: timeoutMilliseconds)
    state.withLock { $0.cardEventCount = found.eventCount }
    let connected = try connectToPresentCard()
    let atr = (try? connected.status().atr) ?? []
    let transport = PCSCCardTransport(card: connected, readerName: readerName, atr: atr, counter: counter,
                                      exchangeTimeout: exchangeTimeout)
    state.withLock {
      $0.card = connected
      $0.transport = transport
    }
    return [try detectTarget(on: transport, logger: logger)]
  }

  /// Connects to the card the reader shows. A card that has just come (or come back with a
  /// restarted pcscd) may not answer its first power-up in time: a connect refused because the
  /// card is unresponsive, unpowered, reset or not there is tried again while the reader still
  /// shows a card, up to five times, 200 ms apart. Without this, a session would take the refusal
  /// for a failed read and wait for the tag to leave, though nothing was read from it.
  private func connectToPresentCard() throws(PollError) -> Card {
    let transient: [PCSCError] = [.unresponsiveCard, .unpoweredCard, .resetCard, .noSmartcard, .removedCard]
    var attempts = 0
    while true {
      do {
        return try contextForWaits.connect(reader: readerName)
      } catch {
        attempts += 1
        guard transient.contains(error.error), attempts < 5, !isCancelled, cardShownNow() else {
          if error.error == .noSmartcard || error.error == .removedCard { throw .failed("the tag left before it could be read") }
          throw PollError(error)
        }
        logger?.debug("connect refused (\(error.error.description)): trying again", metadata: ["reader": "\(readerName)"])
        LibC.sleep(microseconds: 200_000)
      }
    }
  }

  /// Whether the reader shows a card now (a status look without waiting).
  private func cardShownNow() -> Bool {
    var states = [ReaderState(reader: readerName)]
    do { try contextForWaits.waitForStatusChange(&states, timeoutMilliseconds: 0) } catch { return false }
    return states[0].flags.contains(.present)
  }

  /// Waits until the reader is empty, or shows another card than the one found last; nil waits
  /// without a limit.
  ///
  /// pcscd counts the card insertions and removals of each reader in the upper 16 bits of
  /// `dwEventState` (pcsc-lite's documentation of `SCardGetStatusChange`). A card taken away
  /// and another shown while this process did not run (stopped by SIGSTOP or a debugger) leave
  /// the state word "present" as before; only the count moved. A count other than the one the
  /// last card was found at is that card's removal, so the next wait for a card finds the new one.
  /// - Throws: `PollError.timeout` when the tag is still there after `timeoutMilliseconds`,
  ///   `PollError.cancelled` after ``cancel()``, or the PC/SC failure.
  public func waitForRemoval(timeoutMilliseconds: Int?) throws(PollError) {
    let awaited = state.withLock { $0.cardEventCount }
    try waitForState(present: false, timeoutMilliseconds: timeoutMilliseconds, cardEventCount: awaited)
    state.withLock { $0.cardEventCount = nil }
  }

  /// Disconnects the card and leaves it as it is (`SCARD_LEAVE_CARD`).
  public func release() { release(.leave) }

  /// Disconnects with a card reset: the reader re-activates the tag, which ends any authentication.
  public func releaseResetting() { release(.reset) }

  private func release(_ disposition: Disposition) {
    let (card, transport): (Card?, PCSCCardTransport?) = state.withLock { s in
      defer {
        s.card = nil
        s.transport = nil
      }
      return (s.card, s.transport)
    }
    if let transport {
      transport.disconnect(disposition)
    } else if let card {
      try? card.disconnect(disposition)
    }
  }

  /// Ends the wait in progress, from any thread (`SCardCancel`): it throws
  /// `PollError.cancelled`.
  public func cancel() {
    let context: PCSCContext = state.withLock {
      $0.cancelled = true
      return $0.context
    }
    context.cancel()
  }

  /// Waits for a card (`present`) or for none; returns the reader's state that ended the wait.
  /// Waiting for none, a present card at another event count than `cardEventCount` ends it too.
  @discardableResult
  private func waitForState(present: Bool, timeoutMilliseconds: Int?,
                            cardEventCount: Int? = nil) throws(PollError) -> ReaderState {
    let deadline = timeoutMilliseconds.map { monotonicMilliseconds() + $0 }
    var states = [ReaderState(reader: readerName)]  // UNAWARE: the first call answers at once
    func pastDeadline() -> Bool { deadline.map { monotonicMilliseconds() >= $0 } ?? false }
    func pause() throws(PollError) {
      LibC.sleep(microseconds: 300_000)
      if isCancelled { throw .cancelled }
      if pastDeadline() { throw .timeout }
    }
    while true {
      if isCancelled { throw .cancelled }
      let slice = deadline.map { max(0, min($0 - monotonicMilliseconds(), 1000)) } ?? 1000
      do {
        try contextForWaits.waitForStatusChange(&states, timeoutMilliseconds: slice)
      } catch {
        switch error.error {
        case .timeout:
          if pastDeadline() { throw .timeout }
          continue
        case .cancelled: throw .cancelled
        case .noService, .serviceStopped, .invalidHandle, .commError:
          // pcscd stopped or restarted: the card it showed is gone for it (a card there after the
          // restart is a new arrival, to be connected and read again), so a wait for the removal
          // ends here; a wait for a card waits for pcscd and carries on.
          if !present { return states[0] }
          try pause()
          if let fresh = try? PCSCContext() { state.withLock { $0.context = fresh } }
          states = [ReaderState(reader: readerName)]
          continue
        case .unknownReader, .readerUnavailable:
          // The reader was unplugged: wait for it to come back.
          try waitForReaderListChange(until: deadline)
          states = [ReaderState(reader: readerName)]
          continue
        default:
          throw PollError(error)
        }
      }
      let flags = states[0].flags
      if flags.contains(.unknown) || flags.contains(.unavailable) {
        try waitForReaderListChange(until: deadline)
        states = [ReaderState(reader: readerName)]
        continue
      }
      if present ? (flags.contains(.present) && !flags.contains(.mute)) : flags.contains(.empty) { return states[0] }
      if !present, flags.contains(.present), let cardEventCount, states[0].eventCount != cardEventCount {
        logger?.debug("the reader's event count moved: the card was swapped", metadata: ["reader": "\(readerName)"])
        return states[0]
      }
      if pastDeadline() { throw .timeout }
      states[0].currentState = states[0].eventState
    }
  }
}

extension PCSCTagPoller {
  /// Blocks until a reader is plugged in or unplugged (pcsc-lite's PnP notification reader), the
  /// deadline passes, or the wait is cancelled; returns at once when the service has no PnP
  /// notification, after a short pause.
  func waitForReaderListChange(until deadline: Int?) throws(PollError) {
    var pnp = [ReaderState(reader: ReaderState.pnpNotification)]
    do {
      try contextForWaits.waitForStatusChange(&pnp, timeoutMilliseconds: 0)
    } catch {
      if error.error != .timeout {
        LibC.sleep(microseconds: 300_000)
        if deadline.map({ monotonicMilliseconds() >= $0 }) ?? false { throw .timeout }
        return
      }
    }
    pnp[0].currentState = pnp[0].eventState
    // The reader may have come back between the caller's look and this baseline: no change would
    // then ever come (a pcscd restart registers its readers before its clients reconnect).
    // (A listed reader that is unavailable brings the caller back here: the pause bounds that loop.)
    if (try? contextForWaits.listReaders())?.contains(readerName) == true {
      LibC.sleep(microseconds: 100_000)
      return
    }
    while true {
      if isCancelled { throw .cancelled }
      let slice = deadline.map { max(0, min($0 - monotonicMilliseconds(), 1000)) } ?? 1000
      do {
        try contextForWaits.waitForStatusChange(&pnp, timeoutMilliseconds: slice)
        return
      } catch {
        switch error.error {
        case .timeout:
          if deadline.map({ monotonicMilliseconds() >= $0 }) ?? false { throw .timeout }
        case .cancelled: throw .cancelled
        default:
          LibC.sleep(microseconds: 300_000)
          return
        }
      }
    }
  }
}

/// Whole milliseconds on the monotonic clock, the poll deadline's unit.
private func monotonicMilliseconds() -> Int { Int(monotonicSeconds() * 1000) }
