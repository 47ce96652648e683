import Dispatch
import Locking
import NFCTransport
import PCSC

/// A PC/SC card handle as an `APDUTransport`.
///
/// **A reader that does not answer.** `SCardTransmit` waits as long as the reader driver does, and
/// vpcd (the virtual reader) waits for ever. With an `exchangeTimeout`, each exchange runs on a
/// serial queue of the transport's own and the caller waits at most that long: then the exchange
/// fails with `TransceiveError.transport(_:)` ("the reader did not answer within …"), which
/// sessions treat as a lost tag. The call itself cannot be taken back: it keeps the card handle
/// (and pcsc-lite keeps its context locked) until the reader answers, so the transport is then
/// *abandoned*: every later exchange fails at once, and ``disconnect(_:)`` is queued behind the
/// call instead of waiting for it.
public final class PCSCCardTransport: APDUTransport, Sendable {
  /// The connection to the card that the APDUs go to.
  public let card: Card
  /// The PC/SC name of the card's reader.
  public let readerName: String
  /// The card's ATR, as the reader built it (PC/SC Part 3 §3.1.3.2.3 for contactless cards).
  public let atr: [UInt8]
  let counter: ExchangeCounter?
  /// Seconds one exchange may take; nil: as long as the reader takes.
  public let exchangeTimeout: Double?
  private let queue: DispatchQueue?
  private let abandoned = Locked(false)

  /// A transport on `card`. `counter` counts every APDU sent; with `exchangeTimeout` (seconds),
  /// an exchange the reader has not answered by then fails (see above).
  public init(card: Card, readerName: String, atr: [UInt8], counter: ExchangeCounter? = nil, exchangeTimeout: Double? = nil) {
    self.card = card
    self.readerName = readerName
    self.atr = atr
    self.counter = counter
    self.exchangeTimeout = exchangeTimeout
    queue = exchangeTimeout.map { _ in DispatchQueue(label: "nfctag.pcsc.exchange") }
  }

  /// True once an exchange outlived ``exchangeTimeout``: the card handle is still in that call.
  public var isAbandoned: Bool { abandoned.withLock { $0 } }

  /// Sends one APDU with `SCardTransmit` and returns the answer with SW1 SW2.
  /// - Throws: `TransceiveError.tagRemoved` when the card left, `TransceiveError.transport(_:)`
  ///   for any other PC/SC failure, an abandoned transport or an exchange over ``exchangeTimeout``;
  ///   `TransceiveError.malformedResponse(_:)` for an empty answer from a card still there.
  public func transmit(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    counter?.increment()
    let result: Result<[UInt8], PCSCFailure>
    if let queue, let exchangeTimeout {
      if isAbandoned { throw .transport("the reader has not answered an earlier command") }
      let card = card
      let box = Locked<Result<[UInt8], PCSCFailure>?>(nil)
      let done = DispatchSemaphore(value: 0)
      queue.async {
        let answer: Result<[UInt8], PCSCFailure>
        do throws(PCSCFailure) { answer = .success(try card.transmit(apdu)) } catch { answer = .failure(error) }
        box.withLock { $0 = answer }
        done.signal()
      }
      guard done.wait(timeout: .now() + exchangeTimeout) == .success, let answer = box.withLock({ $0 }) else {
        abandoned.withLock { $0 = true }
        throw .transport("the reader did not answer within \(secondsText(exchangeTimeout))")
      }
      result = answer
    } else {
      do throws(PCSCFailure) { result = .success(try card.transmit(apdu)) } catch { result = .failure(error) }
    }
    switch result {
    case .success(let reply):
      // No byte at all: vpcd reports a card that went away mid-exchange this way (IFD_SUCCESS with
      // nothing, vsmartcard `ifd.c`); pcscd sees the removal on its next presence poll.
      guard !reply.isEmpty else { throw cardLeft(within: 1.5) ? .tagRemoved : .malformedResponse([]) }
      return reply
    case .failure(let error): throw mapped(error)
    }
  }

  /// True when the card is gone, or goes within `seconds` (pcscd polls presence about every 0.4 s).
  private func cardLeft(within seconds: Double) -> Bool {
    let deadline = DispatchTime.now() + seconds
    while true {
      if cardIsGone() { return true }
      if DispatchTime.now() >= deadline { return false }
      LibC.sleep(microseconds: 50_000)
    }
  }

  /// Disconnects the card; after an abandoned exchange, once that exchange has returned (queued
  /// behind it, so the caller does not wait for a reader that may never answer).
  public func disconnect(_ disposition: Disposition) {
    let card = card
    if let queue, isAbandoned {
      queue.async { try? card.disconnect(disposition) }
    } else {
      try? card.disconnect(disposition)
    }
  }

  private func mapped(_ error: PCSCFailure) -> TransceiveError {
    switch error.error {
    // pcsc-lite turns a contactless exchange that failed because the tag left (IFD_COMMUNICATION_ERROR)
    // into SCARD_E_NOT_TRANSACTED, whose own text ("end a non-existent transaction") misleads.
    case .removedCard, .noSmartcard, .resetCard, .unpoweredCard, .notTransacted: return .tagRemoved
    default:
      // pcsc-lite reports a reader that failed the exchange (the tag left mid-APDU, as vpcd
      // does when its card goes) as SCARD_E_NOT_TRANSACTED or a communication error: ask the
      // card handle whether the tag is still there before calling it a transport failure.
      if cardIsGone() { return .tagRemoved }
      return .transport(error.description)
    }
  }

  /// Has the reader activate the card again: `SCardReconnect` with `SCARD_RESET_CARD` (a warm
  /// reset; for a contactless card the reader powers it anew and selects it, as on its arrival),
  /// counted as one exchange. The handle and its protocol stay (a contactless card has one).
  /// - Throws: `TransceiveError.tagRemoved` when the card left, `TransceiveError.transport(_:)`
  ///   for another PC/SC failure or an abandoned transport.
  public func reactivateCard() throws(TransceiveError) {
    counter?.increment()
    if isAbandoned { throw .transport("the reader has not answered an earlier command") }
    var handle = card
    do throws(PCSCFailure) {
      try handle.reconnect(initialization: .reset)
    } catch {
      throw mapped(error)
    }
  }

  /// True when SCardStatus says the card left (or cannot say anything about it any more).
  private func cardIsGone() -> Bool {
    do {
      let state = try card.status().state
      return state & 0x0004 == 0  // SCARD_PRESENT in the card state of SCardStatus (pcsclite.h)
    } catch {
      switch error.error {
      case .removedCard, .noSmartcard, .resetCard, .unpoweredCard, .notTransacted, .readerUnavailable: return true
      default: return false
      }
    }
  }
}

/// "1 s", "0.5 s".
private func secondsText(_ seconds: Double) -> String {
  (seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)) + " s"
}
