import NFCEmulator
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// vpcd framing: every message is a 2-byte big-endian length and the payload.
/// vsmartcard `vpcd.c`; reference §1.2.
public enum VPCDFrame {
  /// pcscd → card control codes (1-byte messages).
  public static let powerOff: UInt8 = 0x00, powerOn: UInt8 = 0x01, reset: UInt8 = 0x02, getATR: UInt8 = 0x04

  /// A framed message. A payload longer than a frame can say (65,535 bytes) becomes the status
  /// word `6F 00` instead: the bridge never traps on what a card model answers.
  public static func encode(_ payload: [UInt8]) -> [UInt8] {
    guard payload.count <= 0xFFFF else { return [0x00, 0x02, 0x6F, 0x00] }
    return [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
  }

  /// Splits complete frames off the front of `buffer`, leaving a partial one in place.
  public static func decode(_ buffer: inout [UInt8]) -> [[UInt8]] {
    var frames: [[UInt8]] = []
    while buffer.count >= 2 {
      let length = Int(buffer[0]) << 8 | Int(buffer[1])
      guard buffer.count >= 2 + length else { break }
      frames.append(Array(buffer[2..<(2 + length)]))
      buffer.removeFirst(2 + length)
    }
    return frames
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
  public let message: String
  public var description: String { message }
}

/// Shows a ``VirtualCard`` to pcscd through the vsmartcard vpcd driver: connects as the card side
/// (TCP client; pcscd listens on 35963 for "Virtual PCD 00 00", 35964 for "… 00 01"), answers
/// power and ATR requests and APDUs. Closing the connection removes the card.
///
/// If pcscd restarts, the bridge reconnects every half second until stopped.
public final class VPCDBridge: @unchecked Sendable {
  public let host: String
  public let port: UInt16
  private let card: any VirtualCard
  private let removeAfter: Int?
  private let latency: LatencyModel
  private let afterCommand: (() -> Void)?
  private var stopRequested = false
  private var socketFD: Int32 = -1
  private let lock = Mutex(())
  /// APDUs answered so far.
  public private(set) var answered = 0

  public init(card: any VirtualCard, host: String = "127.0.0.1", port: UInt16 = 35963, removeAfter: Int? = nil,
              latency: LatencyModel = .none, afterCommand: (() -> Void)? = nil) {
    self.card = card
    self.host = host
    self.port = port
    self.removeAfter = removeAfter
    self.latency = latency
    self.afterCommand = afterCommand
  }

  /// Asks ``run(firstConnectTimeout:onConnected:)`` to remove the card and return. Thread-safe.
  public func stop() {
    lock.withLock { _ in
      stopRequested = true
      if socketFD >= 0 { shutdown(socketFD, Int32(SHUT_RDWR)) }
    }
  }

  private var isStopping: Bool { lock.withLock { _ in stopRequested } }

  /// Connects and serves until stopped or removed.
  /// - Parameters:
  ///   - firstConnectTimeout: seconds to keep trying the first connection before giving up.
  ///   - onConnected: called after each (re)connection.
  /// - Throws: ``VPCDBridgeError`` when vpcd could not be reached at all.
  public func run(firstConnectTimeout: Double = 5, onConnected: (() -> Void)? = nil) throws(VPCDBridgeError) -> VPCDBridgeEnd {
    var everConnected = false
    let start = monotonicSeconds()
    while !isStopping {
      guard let fd = connectOnce() else {
        if !everConnected, monotonicSeconds() - start > firstConnectTimeout {
          throw VPCDBridgeError(message: "cannot reach vpcd at \(host):\(port): is pcscd running with vsmartcard-vpcd? run `make pcscd`")
        }
        usleep(500_000)
        continue
      }
      everConnected = true
      lock.withLock { _ in socketFD = fd }
      onConnected?()
      let end = serve(fd)
      lock.withLock { _ in socketFD = -1 }
      close(fd)
      if let end { return end }
      if !isStopping { usleep(500_000) }  // pcscd went away: reconnect
    }
    return .stopped
  }

  private func connectOnce() -> Int32? {
    let fd = socket(AF_INET, SocketPlatform.stream, 0)
    guard fd >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    guard inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &address.sin_addr) == 1 else {
      close(fd)
      return nil
    }
    let rc = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard rc == 0 else {
      close(fd)
      return nil
    }
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    SocketPlatform.noSigPipe(fd)
    return fd
  }

  /// Serves one connection; nil when the peer closed it (reconnect), else why the bridge ends.
  private func serve(_ fd: Int32) -> VPCDBridgeEnd? {
    var buffer: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      if isStopping { return .stopped }
      var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let ready = poll(&pfd, 1, 200)
      if ready == 0 { continue }
      if ready < 0 { if errno == EINTR { continue }; return nil }
      let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if n <= 0 { return isStopping ? .stopped : nil }
      buffer += chunk[0..<n]
      for message in VPCDFrame.decode(&buffer) {
        guard let reply = handle(message) else { continue }
        guard sendAll(fd, VPCDFrame.encode(reply)) else { return nil }
        if message.count > 1, let removeAfter, answered >= removeAfter {
          return .removedAfterCommands(answered)
        }
      }
    }
  }

  /// The reply to one message; nil for controls that need none.
  func handle(_ message: [UInt8]) -> [UInt8]? {
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
    answered += 1
    afterCommand?()
    return reply
  }

  private func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    var offset = 0
    return bytes.withUnsafeBytes { raw -> Bool in
      while offset < raw.count {
        let n = send(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset, SocketPlatform.sendFlags)
        if n <= 0 { if errno == EINTR { continue }; return false }
        offset += n
      }
      return true
    }
  }
}

func monotonicSeconds() -> Double {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

