import NFCEmulator
import NFCTransport
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The card a ``VPCDBridge`` shows, and what runs after each APDU it answers. One value, so that
/// the card and a hook that shares its state (the tag behind an image file) are handed over
/// together.
public struct VPCDServedCard {
  /// The card.
  public let card: any VirtualCard
  /// Runs on the serving thread after every APDU (image persistence).
  public let afterCommand: (() -> Void)?

  /// - Parameters:
  ///   - card: the card to show.
  ///   - afterCommand: runs after every APDU the card answered, on the bridge's serving thread.
  public init(card: any VirtualCard, afterCommand: (() -> Void)? = nil) {
    self.card = card
    self.afterCommand = afterCommand
  }
}

/// Why the bridge ended.
public enum VPCDBridgeEnd: Equatable, Sendable {
  /// ``VPCDBridge/stop()`` was called: the card was removed.
  case stopped
  /// `removeAfter` commands were answered and the card was removed.
  case removedAfterCommands(Int)
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
/// Thread safety: ``run(firstConnectTimeout:silentPeerTimeout:onConnected:)`` serves on the
/// calling thread; ``stop()`` and ``answered`` may be used from any other. The card and the
/// after-command hook sit behind one mutex, the stop request and the live socket behind another.
public final class VPCDBridge: Sendable {
  /// Where vpcd listens: an IPv4 address or `localhost`.
  public let host: String
  /// vpcd's port: 35963 for "Virtual PCD 00 00", 35964 for "… 00 01".
  public let port: UInt16
  private let removeAfter: Int?
  private let latency: LatencyModel

  /// The card and the hook run after each APDU: used by the serving thread (and by tests through
  /// ``handle(_:)``), never by two threads at once.
  private let served: Locked<VPCDServedCard>

  /// What ``stop()`` shares with the serving thread.
  private struct Control {
    var stopRequested = false
    var socket: VPCDSocket? = nil
  }
  private let control = Locked(Control())
  private let answeredCount = Atomic<Int>(0)

  /// APDUs answered so far.
  public var answered: Int { answeredCount.load(ordering: .relaxed) }

  /// - Parameters:
  ///   - served: the card to show and its after-command hook; the bridge owns them from now on.
  public init(serving served: sending VPCDServedCard, host: String = "127.0.0.1", port: UInt16 = 35963,
              removeAfter: Int? = nil, latency: LatencyModel = .none) {
    self.served = Locked(served)
    self.host = host
    self.port = port
    self.removeAfter = removeAfter
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
        usleep(500_000)
        continue
      }
      control.withLock { $0.socket = socket }
      let outcome = serve(socket, silentPeerTimeout: everConnected ? nil : silentPeerTimeout, onConnected: onConnected)
      control.withLock { $0.socket = nil }
      socket.close()
      switch outcome {
      case .ended(let end): return end
      case .silent:
        throw VPCDBridgeError(reason: .slotInUse, message: "vpcd at \(host):\(port) accepts no card: its slot already serves another one")
      case .peerClosed:
        everConnected = true
        if !isStopping { usleep(500_000) }  // pcscd went away: reconnect
      }
    }
    return .stopped
  }

  private enum ServeOutcome { case ended(VPCDBridgeEnd), peerClosed, silent }

  /// Serves one connection.
  private func serve(_ socket: VPCDSocket, silentPeerTimeout: Double?, onConnected: (() -> Void)?) -> ServeOutcome {
    var buffer: [UInt8] = []
    var heard = false
    let start = monotonicSeconds()
    while true {
      if isStopping { return .ended(.stopped) }
      switch socket.waitReadable(milliseconds: 200) {
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
        guard let reply = handle(message) else { continue }
        guard socket.sendAll(VPCDFrame.encode(reply)) else { return .peerClosed }
        if message.count > 1, let removeAfter, answered >= removeAfter {
          return .ended(.removedAfterCommands(answered))
        }
      }
    }
  }

  /// The reply to one message; nil for controls that need none.
  func handle(_ message: [UInt8]) -> [UInt8]? {
    served.withLock { served -> [UInt8]? in
      let card = served.card
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
      let wait = latency.delay(command: message.count, response: reply.count)
      if wait > 0 { usleep(wait) }
      answeredCount.add(1, ordering: .relaxed)
      served.afterCommand?()
      return reply
    }
  }
}

func monotonicSeconds() -> Double {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
