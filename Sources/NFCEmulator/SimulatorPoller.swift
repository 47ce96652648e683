import Dispatch
import Locking
import NFCTransport

/// `--reader sim:…` (``SimulatorSpec``): the emulator's reader face in process, as a poller. Only
/// the card transport differs from a PC/SC reader: `detect` is the reader driver's identification
/// (NFCReaders' `detectTarget`), so links and platforms are the same code as with hardware.
///
/// With one tag, the tag stays in the field: it is delivered once and never leaves, and found
/// again after ``release()``, as a PC/SC reader finds a card still in its field once the card
/// handle is released. With a feed (`feed=N`), tag after tag arrives and leaves as
/// ``TagDeparture`` says (a fed tag still in the field is also found again after a release);
/// after the last one the reader reports no tag, so a waiting session times out as with an
/// empty reader.
///
/// Each poller is a reader of its own, with a name of its own ("… 00 00", "… 01 00"), as pcscd
/// numbers readers of the same model: two sessions on two pollers of one kind do not share a reader.
public final class SimulatorPoller: TagPoller {
  /// The reader name sessions show (the spec's face's).
  public let readerName: String
  private let slot: any SimulatedSlot
  private let counter = ExchangeCounter()
  /// APDUs exchanged with the simulated reader so far.
  public var exchangeCount: Int { counter.value }

  /// Loads (or creates) the tag `spec` names, or starts its feed, behind its reader face;
  /// `detect` identifies each tag. The transports it is given may be used from any thread.
  public init(spec: SimulatorSpec,
              detect: @escaping @Sendable (any APDUTransport & Sendable) throws(PollError) -> DetectedTarget) throws {
    let counter = self.counter
    let detect: @Sendable (any APDUTransport & Sendable) throws(PollError) -> DetectedTarget = { transport throws(PollError) in
      try detect(CountingAPDUTransport(transport, counter: counter))
    }
    if let feed = spec.feed {
      let feeder = try TagFeeder(settings: feed, face: spec.face)
      readerName = "\(spec.face.simulatedReaderName) (simulated feed of \(feed.count) \(feed.kinds.map(\.rawValue).joined(separator: "/")), "
        + "seed \(feed.seed)) \(format2(SimulatedReaders.next())) 00"
      slot = FeedSlot(feeder: feeder, readerName: readerName, latency: spec.latency, detect: detect)
    } else {
      readerName = "\(spec.face.simulatedReaderName) (simulated \(spec.kind.rawValue)) \(format2(SimulatedReaders.next())) 00"
      slot = try SingleTagSlot(spec: spec, readerName: readerName, detect: detect)
    }
  }

  /// The reader time the spec's ``LatencyModel`` modelled so far (arrivals and exchanges), in
  /// microseconds: what a benchmark sums. Read it between sessions: with one tag, the sum is kept
  /// by the transport the session's commands use, without a lock.
  public var modelledReaderMicroseconds: Int { slot.modelledMicroseconds }

  /// The tag in the field, identified as a PC/SC reader's would be: one tag on the first wait
  /// after a ``release()`` (later waits time out), or a feed's next tag as it arrives.
  /// - Throws: `PollError.timeout` when no tag comes within `timeoutMilliseconds` (nil: no limit),
  ///   `PollError.cancelled` after ``cancel()``.
  public func waitForTargets(timeoutMilliseconds: Int?) throws(PollError) -> [DetectedTarget] {
    try slot.waitForTargets(timeoutMilliseconds: timeoutMilliseconds)
  }

  /// Waits until a fed tag leaves, as its ``TagDeparture`` says. One tag stays in the field: the
  /// wait lasts `timeoutMilliseconds`, or until ``cancel()``.
  /// - Throws: `PollError.timeout` when the tag is still there, `PollError.cancelled` after
  ///   ``cancel()``.
  public func waitForRemoval(timeoutMilliseconds: Int?) throws(PollError) {
    try slot.waitForRemoval(timeoutMilliseconds: timeoutMilliseconds)
  }

  /// Lets go of the tag as it is: a tag still in the field is found again by the next
  /// ``waitForTargets(timeoutMilliseconds:)``, and a ``cancel()`` before this is over.
  public func release() { slot.release() }
  /// Resets the card (the field goes off and on), which ends any authentication, and releases it.
  public func releaseResetting() {
    slot.resetCard()
    slot.release()
  }
  /// Ends the wait in progress, and any wait until the next ``release()``, from any thread.
  public func cancel() { slot.cancel() }
  /// A session on this reader ended: a fed tag still in the field is saved in the feed's image
  /// folder now, under the name it gets when it leaves (`NNNN-UID.bin`), as `emulate --feed`
  /// saves the tag in the field when it stops. The tag stays in the field for a later session;
  /// when it leaves it is saved again only if it changed. One tag (its image saved after every
  /// command) has nothing to do.
  public func sessionEnded() { slot.sessionEnded() }
}

/// What the poller delegates to: one tag that stays, or a feed.
protocol SimulatedSlot: Sendable {
  var modelledMicroseconds: Int { get }
  func waitForTargets(timeoutMilliseconds: Int?) throws(PollError) -> [DetectedTarget]
  func waitForRemoval(timeoutMilliseconds: Int?) throws(PollError)
  func resetCard()
  func release()
  func cancel()
  func sessionEnded()
}

/// One tag that stays in the field. The slot is also the tag's transport: the poll loop and the
/// tag commands reach the reader face only through `transport`'s lock, so they may come from any
/// thread.
final class SingleTagSlot: SimulatedSlot, APDUTransport {
  private struct Field {
    /// The tag was handed to the poll loop and not released since.
    var delivered = false
    var cancelled = false
  }
  private let transport: Locked<SimulatedAPDUTransport>
  private let detect: @Sendable (any APDUTransport & Sendable) throws(PollError) -> DetectedTarget
  private let field = Locked(Field())
  /// Signalled by ``cancel()``: a wait sleeps on it.
  private let wake = DispatchSemaphore(value: 0)
  private let latency: LatencyModel
  private let arrival = Locked(0)
  let readerName: String

  init(spec: SimulatorSpec, readerName: String,
       detect: @escaping @Sendable (any APDUTransport & Sendable) throws(PollError) -> DetectedTarget) throws {
    self.readerName = readerName
    latency = spec.latency
    self.detect = detect
    // A kind this program does not link, run by another one (RemoteVirtualCards): it keeps the image.
    if let remote = try RemoteVirtualCards.card(for: spec) {
      transport = Locked(SimulatedAPDUTransport(readerName: readerName, card: remote, latency: spec.latency))
      return
    }
    let tag: any VirtualTag
    var image: ImageFile? = nil
    if let path = spec.imagePath {
      let (file, loaded) = try ImageFile.open(path: path, kind: spec.kind, uid: nil)
      image = file
      tag = loaded
    } else {
      tag = try spec.kind.makeTag(uid: nil)
    }
    let face = try spec.face.makeFace(tag: tag)
    transport = Locked(SimulatedAPDUTransport(readerName: readerName, card: face, latency: spec.latency, afterCommand: {
      try? image?.saveIfChanged(tag)
    }))
  }

  var modelledMicroseconds: Int { arrival.withLock { $0 } + transport.withLock { $0.modelledMicroseconds } }

  func transmit(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    try transport.withLock { (t) throws(TransceiveError) -> [UInt8] in try t.transmit(apdu) }
  }

  func reactivateCard() throws(TransceiveError) {
    try transport.withLock { (t) throws(TransceiveError) in try t.reactivateCard() }
  }

  var atr: [UInt8] { transport.withLock { $0.atr } }

  private var isRemoved: Bool { transport.withLock { $0.isRemoved } }

  func waitForTargets(timeoutMilliseconds: Int?) throws(PollError) -> [DetectedTarget] {
    let removed = isRemoved
    let deliver: Bool = try field.withLock { f throws(PollError) in
      if f.cancelled { throw .cancelled }
      guard !f.delivered, !removed else { return false }
      f.delivered = true
      return true
    }
    guard deliver else {
      // Delivered and not released, or gone: nothing new arrives.
      try sleep(timeoutMilliseconds)
      throw .timeout
    }
    let wait = latency.arrivalMicroseconds
    arrival.withLock { $0 += wait }
    if wait > 0 { LibC.sleep(microseconds: wait) }
    return [try detect(self)]
  }

  func waitForRemoval(timeoutMilliseconds: Int?) throws(PollError) {
    if isRemoved { return }
    try sleep(timeoutMilliseconds)
    throw .timeout
  }

  /// Sleeps `milliseconds` (nil: until cancelled) unless cancelled.
  /// - Throws: ``PollError/cancelled`` after ``cancel()``.
  private func sleep(_ milliseconds: Int?) throws(PollError) {
    if field.withLock({ $0.cancelled }) { throw .cancelled }
    if let milliseconds { _ = wake.wait(timeout: .now() + .milliseconds(max(0, milliseconds))) } else { wake.wait() }
    if field.withLock({ $0.cancelled }) { throw .cancelled }
  }

  func resetCard() { transport.withLock { $0.card.reset() } }

  func release() {
    field.withLock { $0 = Field() }
    while wake.wait(timeout: .now()) == .success {}  // a cancel nobody waited for
  }

  func cancel() {
    field.withLock { $0.cancelled = true }
    wake.signal()
  }
  func sessionEnded() {}  // the image file is saved after every command that changed the tag
}

/// Numbers the simulated readers of this process ("… 00 00", "… 01 00"), as pcscd numbers
/// readers of the same model, so two simulators in one process have distinct names.
enum SimulatedReaders {
  private static let count = Locked(0)
  static func next() -> Int {
    count.withLock { n in
      defer { n += 1 }
      return n
    }
  }
}

func format2(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }
