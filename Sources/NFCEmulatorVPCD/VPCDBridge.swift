import Locking
import NFCEmulator
import Synchronization

/// The card a ``VPCDBridge`` shows, and what runs after each APDU it answers. One value, so that
/// the card and a hook that shares its state (the tag behind an image file) are handed over
/// together.
public struct VPCDServedCard {
  /// The card.
  public let card: any VirtualCard
  /// Runs on the serving thread after every APDU (image persistence).
  public let afterCommand: (() -> Void)?
  /// When the card leaves the field by itself (a fed tag); nil: it stays until stopped.
  public var departure: TagDeparture?
  /// Runs on the serving thread once the card has left the field, for whatever reason (its
  /// departure, ``VPCDBridge/stop()``, `removeAfter`), before the next card connects.
  public let onLeave: ((_ departure: TagDeparture?) -> Void)?

  /// - Parameters:
  ///   - card: the card to show.
  ///   - afterCommand: runs after every APDU the card answered, on the bridge's serving thread.
  ///   - departure: makes the card leave by itself (``TagDeparture``).
  ///   - onLeave: runs once the card has left.
  public init(card: any VirtualCard, afterCommand: (() -> Void)? = nil, departure: TagDeparture? = nil,
              onLeave: ((_ departure: TagDeparture?) -> Void)? = nil) {
    self.card = card
    self.afterCommand = afterCommand
    self.departure = departure
    self.onLeave = onLeave
  }
}

/// Why the bridge ended.
public enum VPCDBridgeEnd: Equatable, Sendable {
  /// ``VPCDBridge/stop()`` was called: the card was removed.
  case stopped
  /// `removeAfter` commands were answered and the card was removed.
  case removedAfterCommands(Int)
  /// The connection was closed when APDU `dropAt` arrived, unanswered (a reader unplugged
  /// mid-command: fault injection).
  case droppedAt(Int)
  /// Every card of the sequence came and left (this many).
  case allCardsLeft(Int)
}

/// Why the bridge could not run.
public struct VPCDBridgeError: Error, CustomStringConvertible, Sendable {
  /// What kind of failure, for programs.
  public enum Reason: Sendable { case unreachable, slotInUse }
  public let reason: Reason
  /// What happened, for people: a fact, with no advice.
  public let message: String
  public var description: String { message }
}

/// Shows a ``VirtualCard`` to pcscd through the vsmartcard vpcd driver: connects as the card side
/// (TCP client; pcscd listens on 35963 for "Virtual PCD 00 00", 35964 for "… 00 01"), answers
/// power and ATR requests and APDUs. Closing the connection removes the card.
///
/// vpcd serves one card per slot. A second card's connection is taken by the kernel but never by
/// vpcd, which then sends it nothing: the bridge treats a first connection that hears nothing (not
/// even vpcd's presence poll, a GET ATR about every 0.4 s) for `silentPeerTimeout` seconds as a
/// slot in use, and ``run(firstConnectTimeout:silentPeerTimeout:onConnected:)`` throws.
///
/// If pcscd restarts, the bridge reconnects every half second until stopped.
///
/// **A sequence of cards** (``init(sequence:host:port:latency:)``): when a card's
/// ``TagDeparture`` says it leaves, the bridge shuts down its sending side and keeps reading until
/// vpcd, on its next receive, gets the end of the stream and ejects the card (closes its end). If
/// that last message was a presence poll (a lone GET ATR, not the one that follows a power-on or
/// reset), pcscd has registered the removal and the next card connects at once; vpcd accepts it
/// on its following poll. If vpcd ejected the card on an APDU or a power-on instead, pcscd only
/// learns of the removal on its next presence poll, so the next card waits half a second (a
/// queued connection would be accepted by that poll and the removal never seen).
///
/// Thread safety: ``run(firstConnectTimeout:silentPeerTimeout:onConnected:)`` serves on the
/// calling thread; ``stop()`` and ``answered`` may be used from any other. The card and the
/// after-command hook sit behind one mutex, the stop request and the live socket behind another.
public final class VPCDBridge: Sendable {
  /// Where vpcd listens: an IPv4 address or `localhost`.
  public let host: String
  /// vpcd's port: 35963 for "Virtual PCD 00 00", 35964 for "… 00 01".
  public let port: UInt16
  private let removeAfter: Int?
  private let dropAt: Int?
  private let latency: LatencyModel

  /// The card in the field, what comes after it, and how many came: used by the serving thread
  /// (and by tests through ``handle(_:)``), never by two threads at once.
  private struct Serving {
    var card: VPCDServedCard
    var next: (() -> VPCDServedCard?)?
    var count = 1
    /// The last message was `10` (``VPCDFrame/controlFollows``): the next one is a control request.
    var awaitingControl = false
  }
  private let served: Locked<Serving>

  /// What ``stop()`` shares with the serving thread.
  private struct Control {
    var stopRequested = false
    var socket: VPCDSocket? = nil
  }
  private let control = Locked(Control())
  private let answeredCount = Atomic<Int>(0)

  /// APDUs answered so far.
  public var answered: Int { answeredCount.load(ordering: .relaxed) }

  /// A bridge that shows one card.
  /// - Parameters:
  ///   - served: the card to show and its after-command hook; the bridge owns them from now on.
  ///   - removeAfter: the card leaves right after answering this many APDUs.
  ///   - dropAt: the connection closes when this APDU (from 1) arrives, before it is answered.
  public convenience init(serving served: sending VPCDServedCard, host: String = "127.0.0.1", port: UInt16 = 35963,
                          removeAfter: Int? = nil, dropAt: Int? = nil, latency: LatencyModel = .none) {
    self.init(serving: Serving(card: served, next: nil), host: host, port: port, removeAfter: removeAfter, dropAt: dropAt,
              latency: latency)
  }

  /// A bridge that shows a sequence of cards, each leaving by its ``VPCDServedCard/departure``;
  /// nil when `next` has no first card.
  /// - Parameter next: called on the serving thread for the first card and once each card has left:
  ///   the card that comes, or nil when the sequence is over (``run(firstConnectTimeout:silentPeerTimeout:onConnected:)``
  ///   then returns ``VPCDBridgeEnd/allCardsLeft(_:)``). The bridge owns it from now on.
  public convenience init?(sequence next: sending @escaping () -> VPCDServedCard?, host: String = "127.0.0.1",
                           port: UInt16 = 35963, latency: LatencyModel = .none) {
    guard let first = next() else { return nil }
    self.init(serving: Serving(card: first, next: next), host: host, port: port, removeAfter: nil, dropAt: nil, latency: latency)
  }

  private init(serving: sending Serving, host: String, port: UInt16, removeAfter: Int?, dropAt: Int?, latency: LatencyModel) {
    self.served = Locked(serving)
    self.host = host
    self.port = port
    self.removeAfter = removeAfter
    self.dropAt = dropAt
    self.latency = latency
  }

  /// Asks ``run(firstConnectTimeout:silentPeerTimeout:onConnected:)`` to remove the card and return. Thread-safe.
  public func stop() {
    control.withLock { control in
      control.stopRequested = true
      control.socket?.shutdownBoth()
    }
  }

  private var isStopping: Bool { control.withLock { $0.stopRequested } }

  /// Connects and serves until stopped or removed.
  /// - Parameters:
  ///   - firstConnectTimeout: seconds to keep trying the first connection before giving up.
  ///   - silentPeerTimeout: seconds the first connection may stay without a message from vpcd
  ///     before the slot counts as taken by another card.
  ///   - onConnected: called once vpcd talks to the card, after each (re)connection.
  /// - Throws: ``VPCDBridgeError`` when vpcd could not be reached at all, or when its slot serves
  ///   another card.
  public func run(firstConnectTimeout: Double = 5, silentPeerTimeout: Double = 6,
                  onConnected: (() -> Void)? = nil) throws(VPCDBridgeError) -> VPCDBridgeEnd {
    var everConnected = false
    let start = monotonicSeconds()
    while !isStopping {
      guard let socket = VPCDSocket.connect(host: host, port: port, timeout: 1) else {
        if !everConnected, monotonicSeconds() - start > firstConnectTimeout {
          throw VPCDBridgeError(reason: .unreachable, message: "cannot reach vpcd at \(host):\(port)")
        }
        LibC.sleep(microseconds: 500_000)
        continue
      }
      control.withLock { $0.socket = socket }
      let outcome = serve(socket, silentPeerTimeout: everConnected ? nil : silentPeerTimeout, onConnected: onConnected)
      control.withLock { $0.socket = nil }
      socket.close()
      switch outcome {
      case .ended(let end):
        served.withLock { $0.card.onLeave?($0.card.departure) }
        return end
      case .silent:
        throw VPCDBridgeError(reason: .slotInUse, message: "vpcd at \(host):\(port) accepts no card: its slot already serves another one")
      case .peerClosed:
        everConnected = true
        if !isStopping { LibC.sleep(microseconds: 500_000) }  // pcscd went away: reconnect
      case .departed(let removalSeen):
        everConnected = true
        let more: Bool = served.withLock { serving in
          serving.card.onLeave?(serving.card.departure)
          guard let next = serving.next?() else { return false }
          serving.card = next
          serving.count += 1
          return true
        }
        if !more { return .allCardsLeft(served.withLock { $0.count }) }
        if !removalSeen, !isStopping { LibC.sleep(microseconds: 500_000) }
      }
    }
    served.withLock { $0.card.onLeave?($0.card.departure) }
    return .stopped
  }

  private enum ServeOutcome { case ended(VPCDBridgeEnd), peerClosed, silent, departed(removalSeen: Bool) }

  /// Serves one connection.
  private func serve(_ socket: VPCDSocket, silentPeerTimeout: Double?, onConnected: (() -> Void)?) -> ServeOutcome {
    var buffer: [UInt8] = []
    var heard = false
    var previous: [UInt8] = []
    let start = monotonicSeconds()
    while true {
      if isStopping { return .ended(.stopped) }
      let leavesAt = served.withLock { $0.card.departure?.deadline }
      if let leavesAt, TagDeparture.now() >= leavesAt { return depart(socket, previous: previous) }
      let wait = leavesAt.map { Int32(max(1, min(200, ($0 - TagDeparture.now()) * 1000 + 1))) } ?? 200
      switch socket.waitReadable(milliseconds: wait) {
      case .timedOut:
        if !heard, let silentPeerTimeout, monotonicSeconds() - start > silentPeerTimeout { return .silent }
        continue
      case .interrupted: continue
      case .failed: return isStopping ? .ended(.stopped) : .peerClosed
      case .readable: break
      }
      guard let bytes = socket.receive() else { return isStopping ? .ended(.stopped) : .peerClosed }
      if !heard {
        heard = true
        onConnected?()
      }
      buffer += bytes
      for message in VPCDFrame.decode(&buffer) {
        defer { previous = message }
        // A control request (after `10`) is no APDU: faults, --remove-after and departures count APDUs.
        let apdu = message.count > 1 && !served.withLock { $0.awaitingControl }
        if apdu, let dropAt, answered + 1 == dropAt { return .ended(.droppedAt(dropAt)) }
        guard let reply = handle(message) else { continue }
        guard socket.sendAll(VPCDFrame.encode(reply)) else { return .peerClosed }
        if apdu, let removeAfter, answered >= removeAfter {
          return .ended(.removedAfterCommands(answered))
        }
        // A control request may be the feedback too (ACS's buzzer escape).
        if message.count > 1, served.withLock({ $0.card.departure?.leaving == true }) {
          return depart(socket, previous: message)
        }
      }
    }
  }

  /// The card leaves the field: our end stops sending, and we read until vpcd ejects the card.
  /// - Returns: whether the message vpcd ejected the card on was a presence poll, so that pcscd
  ///   has registered the removal (see the type's documentation).
  private func depart(_ socket: VPCDSocket, previous first: [UInt8]) -> ServeOutcome {
    socket.shutdownWrite()
    var buffer: [UInt8] = []
    var previous = first, last: [UInt8] = []
    let start = monotonicSeconds()
    while monotonicSeconds() - start < 3 {
      if isStopping { return .ended(.stopped) }
      switch socket.waitReadable(milliseconds: 200) {
      case .timedOut, .interrupted: continue
      case .failed: return .departed(removalSeen: false)
      case .readable: break
      }
      guard let bytes = socket.receive() else {
        let presencePoll = last == [VPCDFrame.getATR] && previous != [VPCDFrame.powerOn] && previous != [VPCDFrame.reset]
        return .departed(removalSeen: presencePoll)
      }
      buffer += bytes
      for message in VPCDFrame.decode(&buffer) {
        if !last.isEmpty { previous = last }
        last = message
      }
    }
    return .departed(removalSeen: false)  // vpcd did not eject the card: pcscd is busy or gone
  }

  /// The reply to one message; nil for controls that need none.
  func handle(_ message: [UInt8]) -> [UInt8]? {
    served.withLock { serving -> [UInt8]? in
      let served = serving.card
      let card = served.card
      if serving.awaitingControl {
        serving.awaitingControl = false
        let answer = Self.controlAnswer(card, message)
        if answer.first == VPCDFrame.controlAnswered {
          serving.card.departure?.controlled(Array(message.dropFirst(4)), at: TagDeparture.now())
        }
        return answer
      }
      if message == [VPCDFrame.controlFollows] {
        serving.awaitingControl = true
        return [VPCDFrame.controlFollows]
      }
      if message.count == 1, let code = message.first {
        switch code {
        case VPCDFrame.powerOff: card.powerOff(); return nil
        case VPCDFrame.powerOn: card.powerOn(); return nil
        case VPCDFrame.reset: card.reset(); return nil
        case VPCDFrame.getATR: return card.atr
        default: return [0x67, 0x00]  // a 1-byte APDU: wrong length
        }
      }
      var reply = card.transmit(message)
      if reply.isEmpty { reply = [0x6F, 0x00] }  // never send an empty reply: vpcd would eject the card
      let wait = latency.microseconds(command: message, response: reply)
      if wait > 0 { LibC.sleep(microseconds: wait) }
      answeredCount.add(1, ordering: .relaxed)
      served.afterCommand?()
      serving.card.departure?.answered(message, at: TagDeparture.now())
      return reply
    }
  }

  /// The answer to a control request (the code, 4 bytes big-endian, then the data): `00` and the
  /// face's answer, `01` for a code or data it does not take, `02` when no code fits.
  private static func controlAnswer(_ card: any VirtualCard, _ request: [UInt8]) -> [UInt8] {
    guard request.count >= 4 else { return [VPCDFrame.controlMalformed] }
    let code = request.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    guard let answer = card.control(code: code, Array(request.dropFirst(4))) else { return [VPCDFrame.controlUnsupported] }
    return [VPCDFrame.controlAnswered] + answer.prefix(0xFFFE)
  }
}
