import Dispatch
import Locking
import NFCTransport

/// A feed in process: tag after tag arrives when the poll loop asks for one, is identified,
/// talked to through a ``FeedTransport``, and leaves when its ``TagDeparture`` says (right after
/// the LED and buzzer command, or once the host has been quiet for the hand time). Its memory is
/// saved before the next tag arrives.
///
/// Threads: the poll loop (waits) and the session's tag commands (transmits) share `state`
/// behind one lock; a wait sleeps on `wake`, which a departure and ``cancel()`` signal.
final class FeedSlot: SimulatedSlot {
  struct State {
    var feeder: TagFeeder
    /// The tag in the field.
    var current: FedTag?
    /// The tag in the field was handed to the poll loop (and not released since).
    var delivered = false
    var finished = false
    var cancelled = false
    var modelled = 0
    /// A save that failed, reported by the next wait.
    var saveFailure: String?
    /// The tag in the field as it was saved when a session ended (its index and memory): saved
    /// again when it leaves only if it changed since.
    var savedAtSessionEnd: (index: Int, image: [UInt8])?
  }

  let readerName: String
  let latency: LatencyModel
  private let detect: @Sendable (any APDUTransport & Sendable) throws(PollError) -> DetectedTarget
  let state: Locked<State>
  let wake = DispatchSemaphore(value: 0)

  init(feeder: sending TagFeeder, readerName: String, latency: LatencyModel,
       detect: @escaping @Sendable (any APDUTransport & Sendable) throws(PollError) -> DetectedTarget) {
    state = Locked(State(feeder: feeder))
    self.readerName = readerName
    self.latency = latency
    self.detect = detect
  }

  var modelledMicroseconds: Int { state.withLock { $0.modelled } }

  private enum Step {
    case deliver(FeedTransport)
    case again
    case wait(until: Double?)
    case cancelled
    case failed(String)
  }

  func waitForTargets(timeoutMilliseconds: Int?) throws(PollError) -> [DetectedTarget] {
    let deadline = timeoutMilliseconds.map { TagDeparture.now() + Double($0) / 1000 }
    while true {
      let step: Step = state.withLock { s in
        if s.cancelled { return .cancelled }
        if let failure = s.saveFailure {
          s.saveFailure = nil
          return .failed(failure)
        }
        let now = TagDeparture.now()
        if let current = s.current {
          if current.departure.hasLeft(at: now) {
            leave(&s)
            return .again
          }
          if !s.delivered {  // a new tag, or one released while still in the field
            s.delivered = true
            s.modelled += latency.arrivalMicroseconds
            return .deliver(FeedTransport(slot: self, fed: current))
          }
          return .wait(until: current.departure.deadline)
        }
        if s.finished { return .wait(until: nil) }
        do {
          if let next = try s.feeder.next() { s.current = next } else { s.finished = true }
          return .again
        } catch {
          return .failed("\(error)")
        }
      }
      switch step {
      case .deliver(let transport):
        let wait = latency.arrivalMicroseconds
        if wait > 0 { LibC.sleep(microseconds: wait) }
        return [try detect(transport)]
      case .again: continue
      case .cancelled: throw .cancelled
      case .failed(let message): throw .failed(message)
      case .wait(let until): try sleep(until: until, deadline: deadline)
      }
    }
  }

  func waitForRemoval(timeoutMilliseconds: Int?) throws(PollError) {
    let deadline = timeoutMilliseconds.map { TagDeparture.now() + Double($0) / 1000 }
    while true {
      let step: Step = state.withLock { s in
        if s.cancelled { return .cancelled }
        guard let current = s.current else { return .again }  // the field is empty
        if current.departure.hasLeft(at: TagDeparture.now()) {
          leave(&s)
          return .again
        }
        return .wait(until: current.departure.deadline)
      }
      switch step {
      case .again, .deliver, .failed: return
      case .cancelled: throw .cancelled
      case .wait(let until): try sleep(until: until, deadline: deadline)
      }
    }
  }

  /// Sleeps until `until` or `deadline`, whichever comes first, or until woken.
  /// - Throws: ``PollError/timeout`` once `deadline` has passed.
  private func sleep(until: Double?, deadline: Double?) throws(PollError) {
    let now = TagDeparture.now()
    if let deadline, now >= deadline { throw .timeout }
    let end = [until, deadline].compactMap { $0 }.min()
    if let end {
      _ = wake.wait(timeout: .now() + .microseconds(Int(max(0, end - now) * 1e6) + 100))
    } else {
      wake.wait()
    }
  }

  /// The tag in the field leaves: its memory is saved, and the next tag may arrive.
  func leave(_ s: inout State) {
    guard let current = s.current else { return }
    save(current, &s)
    s.current = nil
    s.delivered = false
    s.savedAtSessionEnd = nil
    wake.signal()
  }

  /// Saves `fed` (the tag in the field) when the feed has an image folder, unless it is as it was
  /// saved at the end of a session; a failure is reported by the next wait.
  private func save(_ fed: FedTag, _ s: inout State) {
    guard s.feeder.settings.imageDirectory != nil else { return }
    if let saved = s.savedAtSessionEnd, saved.index == fed.index, saved.image == fed.tag.memoryImage { return }
    do {
      try s.feeder.save(fed)
    } catch {
      s.saveFailure = error.description
    }
  }

  /// A session ended with a tag still in the field: its memory is saved now, as it would be when
  /// it leaves (a feed that ends with the run leaves its last tag in the field).
  func sessionEnded() {
    state.withLock { s in
      guard let current = s.current else { return }
      save(current, &s)
      if s.feeder.settings.imageDirectory != nil, s.saveFailure == nil {
        s.savedAtSessionEnd = (current.index, current.tag.memoryImage)
      }
    }
  }

  func resetCard() { state.withLock { $0.current?.card.reset() } }

  /// The tag in the field, if any, is found again by the next wait; a cancel is over.
  func release() {
    state.withLock {
      $0.delivered = false
      $0.cancelled = false
    }
    while wake.wait(timeout: .now()) == .success {}  // a cancel nobody waited for
  }

  func cancel() {
    state.withLock { $0.cancelled = true }
    wake.signal()
  }
}

/// The link to one fed tag: answers through the tag's reader face while the tag is in the field,
/// applies the latency model, and tells the tag's departure what it was sent. Once the tag left,
/// every command fails with ``TransceiveError/tagRemoved``. `Sendable`: what changes lives in the
/// slot's `state`, behind its lock.
final class FeedTransport: APDUTransport, Sendable {
  private let slot: FeedSlot
  private let index: Int
  let atr: [UInt8]
  var readerName: String { slot.readerName }

  init(slot: FeedSlot, fed: FedTag) {
    self.slot = slot
    index = fed.index
    atr = fed.card.atr
  }

  func transmit(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    let exchange: (reply: [UInt8], wait: Int)? = slot.state.withLock { s in
      guard let current = s.current, current.index == index else { return nil }
      if current.departure.hasLeft(at: TagDeparture.now()) {
        slot.leave(&s)
        return nil
      }
      let reply = current.card.transmit(apdu)
      let wait = slot.latency.microseconds(command: apdu, response: reply)
      s.modelled += wait
      return (reply, wait)
    }
    guard let exchange else { throw .tagRemoved }
    if exchange.wait > 0 { LibC.sleep(microseconds: exchange.wait) }
    slot.state.withLock { s in
      guard let current = s.current, current.index == index else { return }
      current.departure.answered(apdu, at: TagDeparture.now())
      if current.departure.leaving { slot.leave(&s) }
    }
    return exchange.reply
  }

  /// The tag's reader face gets a warm reset (the reader activates the tag again).
  /// - Throws: `TransceiveError.tagRemoved` once the tag left.
  func reactivateCard() throws(TransceiveError) {
    let present: Bool = slot.state.withLock { s in
      guard let current = s.current, current.index == index else { return false }
      if current.departure.hasLeft(at: TagDeparture.now()) {
        slot.leave(&s)
        return false
      }
      current.card.reset()
      return true
    }
    guard present else { throw .tagRemoved }
  }
}
