import Dispatch
import Locking
import NFCTransport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `--reader sim:…` (``SimulatorSpec``): the emulator's reader face in process, as a poller. Only
/// the card transport differs from a PC/SC reader: `detect` is the reader driver's identification
/// (NFCReaders' `detectTarget`), so links and platforms are the same code as with hardware.
///
/// With one tag, the tag stays in the field: it is delivered once and never leaves. With a feed
/// (`feed=N`), tag after tag arrives and leaves as ``TagDeparture`` says; after the last one the
/// reader reports no tag, so a waiting session times out as with an empty reader.
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
      readerName = "\(spec.face.simulatedReaderName) (simulated \(spec.kind.rawValue)) 00 00"
      slot = try SingleTagSlot(spec: spec, readerName: readerName, detect: detect)
    }
  }

  /// The reader time the spec's ``LatencyModel`` modelled so far (arrivals and exchanges), in
  /// microseconds: what a benchmark sums. Read it between sessions: with one tag, the sum is kept
  /// by the transport the session's commands use, without a lock.
  public var modelledReaderMicroseconds: Int { slot.modelledMicroseconds }

  /// The tag in the field, identified as a PC/SC reader's would be: one tag on the first wait only
  /// (later waits time out), or a feed's next tag as it arrives.
  /// - Throws: `PollError.timeout` when no tag comes within `timeoutMilliseconds` (nil: no limit),
  ///   `PollError.cancelled` after ``cancel()``.
  public func waitForTargets(timeoutMilliseconds: Int?) throws(PollError) -> [DetectedTarget] {
    try slot.waitForTargets(timeoutMilliseconds: timeoutMilliseconds)
  }

  /// Waits until a fed tag leaves, as its ``TagDeparture`` says. One tag stays in the field: the
  /// wait times out at once.
  /// - Throws: `PollError.timeout` when the tag is still there, `PollError.cancelled` after
  ///   ``cancel()``.
  public func waitForRemoval(timeoutMilliseconds: Int?) throws(PollError) {
    try slot.waitForRemoval(timeoutMilliseconds: timeoutMilliseconds)
  }

  /// Nothing to release: the tag stays as it is.
  public func release() {}
  /// Resets the card (the field goes off and on), which ends any authentication.
  public func releaseResetting() { slot.resetCard() }
  /// Ends a feed's wait in progress, from any thread (one tag's waits do not block).
  public func cancel() { slot.cancel() }
}

/// What the poller delegates to: one tag that stays, or a feed.
protocol SimulatedSlot: Sendable {
  var modelledMicroseconds: Int { get }
  func waitForTargets(timeoutMilliseconds: Int?) throws(PollError) -> [DetectedTarget]
  func waitForRemoval(timeoutMilliseconds: Int?) throws(PollError)
  func resetCard()
  func cancel()
}

/// One tag that stays in the field. The slot is also the tag's transport: the poll loop and the
/// tag commands reach the reader face only through `transport`'s lock, so they may come from any
/// thread.
final class SingleTagSlot: SimulatedSlot, APDUTransport {
  private let transport: Locked<SimulatedAPDUTransport>
  private let detect: @Sendable (any APDUTransport & Sendable) throws(PollError) -> DetectedTarget
  private let delivered = Locked(false)
  private let latency: LatencyModel
  private let arrival = Locked(0)
  let readerName: String

  init(spec: SimulatorSpec, readerName: String,
       detect: @escaping @Sendable (any APDUTransport & Sendable) throws(PollError) -> DetectedTarget) throws {
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
    self.readerName = readerName
    latency = spec.latency
    self.detect = detect
  }

  var modelledMicroseconds: Int { arrival.withLock { $0 } + transport.withLock { $0.modelledMicroseconds } }

  func transmit(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    try transport.withLock { (t) throws(TransceiveError) -> [UInt8] in try t.transmit(apdu) }
  }

  var atr: [UInt8] { transport.withLock { $0.atr } }

  private var isRemoved: Bool { transport.withLock { $0.isRemoved } }

  func waitForTargets(timeoutMilliseconds: Int?) throws(PollError) -> [DetectedTarget] {
    if delivered.withLock({ $0 }) || isRemoved {
      // The simulated tag stays in the field: a second arrival never comes.
      if let timeoutMilliseconds { usleep(UInt32(min(timeoutMilliseconds, 2000)) * 1000) }
      throw .timeout
    }
    delivered.withLock { $0 = true }
    let wait = latency.arrivalMicroseconds
    arrival.withLock { $0 += wait }
    if wait > 0 { usleep(UInt32(wait)) }
    return [try detect(self)]
  }

  func waitForRemoval(timeoutMilliseconds: Int?) throws(PollError) {
    if isRemoved { return }
    throw .timeout
  }

  func resetCard() { transport.withLock { $0.card.reset() } }
  func cancel() {}
}

/// Numbers the simulated feed readers of this process ("… 00 00", "… 01 00"), as pcscd numbers
/// readers of the same model, so two feeds in one process have distinct names.
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
