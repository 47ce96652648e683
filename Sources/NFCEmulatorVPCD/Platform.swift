// The C library for NFCEmulatorVPCD: the module's only file that imports it or tests for an OS.
// A port changes this file (docs/platforms.md): the socket to vpcd (``VPCDSocket``) and the few
// calls the bridge makes besides (``LibC``).
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#else
#error("NFCEmulatorVPCD: no C library for this platform yet (docs/platforms.md)")
#endif

/// The card side's TCP connection to vpcd: the only type of the bridge that calls the socket API.
///
/// Every receive re-arms `TCP_QUICKACK`, so the kernel acknowledges what arrived at once instead of
/// after the delayed-ACK timer (40 ms on Linux). It matters because vpcd 3.3 (Debian's
/// `vsmartcard-vpcd 3.3+dfsg-2`) sends each message to the card as two `send` calls, the 2-byte
/// length then the payload, on a socket without `TCP_NODELAY`: Nagle's algorithm holds the payload
/// until the length is acknowledged. strace and tcpdump of `nfctag emulate` showed it on every
/// exchange: `recvfrom` returns the 2 length bytes, our ACK leaves 40–43 ms later, and the payload
/// follows 20 µs after that ACK. Linux leaves quick-ACK mode again once we answer (it re-enters
/// "pingpong" mode on an interactive exchange), hence the option is set after every receive, not
/// once. Our own sends are whole frames in one `send` with `TCP_NODELAY`, so nothing waits on vpcd's
/// ACKs. See docs/architecture.md, "The vpcd socket".
struct VPCDSocket {
  /// The descriptor; the bridge closes it with ``close()``.
  let fd: Int32

  /// How a wait for input ended.
  enum Readiness { case readable, timedOut, interrupted, failed }

  /// Connects to `host:port` (an IPv4 address or `localhost`), giving up after `timeout` seconds.
  ///
  /// The deadline matters when vpcd's listen queue is full (another card is connected and one more
  /// waits): the kernel then drops our SYN, and a blocking `connect` would retry for minutes.
  /// - Returns: the connected socket with `TCP_NODELAY` set, or nil.
  static func connect(host: String, port: UInt16, timeout: Double) -> VPCDSocket? {
    let fd = socket(AF_INET, LibC.stream, 0)
    guard fd >= 0 else { return nil }
    LibC.noSigPipe(fd)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    guard inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &address.sin_addr) == 1 else {
      closeDescriptor(fd)
      return nil
    }
    let flags = fcntl(fd, F_GETFL)
    _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    let rc = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connectDescriptor(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    if rc != 0 {
      guard errno == EINPROGRESS, Self.wait(fd, for: Int16(POLLOUT), milliseconds: Int32(timeout * 1000)) == .readable,
            Self.pendingError(fd) == 0 else {
        closeDescriptor(fd)
        return nil
      }
    }
    _ = fcntl(fd, F_SETFL, flags)
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    return VPCDSocket(fd: fd)
  }

  /// Waits up to `milliseconds` for input.
  func waitReadable(milliseconds: Int32) -> Readiness { Self.wait(fd, for: Int16(POLLIN), milliseconds: milliseconds) }

  /// Receives what has arrived (up to 4,096 bytes) and acknowledges it at once (`TCP_QUICKACK`).
  /// - Returns: the bytes, or nil when the peer closed the connection or it failed.
  func receive() -> [UInt8]? {
    var chunk = [UInt8](repeating: 0, count: 4096)
    let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
    guard n > 0 else { return nil }
    quickACK()
    return Array(chunk.prefix(n))
  }

  /// Sends all of `bytes` in as few `send` calls as the kernel allows.
  /// - Returns: false when the connection failed.
  func sendAll(_ bytes: [UInt8]) -> Bool {
    var offset = 0
    return bytes.withUnsafeBytes { raw -> Bool in
      while offset < raw.count {
        let n = send(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset, LibC.sendFlags)
        if n <= 0 {
          if errno == EINTR { continue }
          return false
        }
        offset += n
      }
      return true
    }
  }

  /// Wakes a thread blocked on this socket (used by ``VPCDBridge/stop()`` from another thread).
  func shutdownBoth() { _ = shutdown(fd, Int32(SHUT_RDWR)) }

  /// Sends FIN but keeps reading: vpcd's next receive on this card gets the end of the stream,
  /// and it ejects the card (closes its end), which we then read as the end of ours.
  func shutdownWrite() { _ = shutdown(fd, Int32(SHUT_WR)) }

  func close() { closeDescriptor(fd) }

  /// Whether the kernel is in quick-ACK mode for this socket (true right after ``receive()``).
  var isQuickACK: Bool {
    #if os(Linux)
    var value: Int32 = 0
    var length = socklen_t(MemoryLayout<Int32>.size)
    guard getsockopt(fd, Int32(IPPROTO_TCP), TCP_QUICKACK, &value, &length) == 0 else { return false }
    return value != 0
    #else
    return false  // macOS has no TCP_QUICKACK (and no 40 ms delayed-ACK floor to work around)
    #endif
  }

  /// Leaves delayed-ACK mode and sends the pending ACK now (Linux `tcp(7)`, `TCP_QUICKACK`).
  private func quickACK() {
    #if os(Linux)
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_QUICKACK, &one, socklen_t(MemoryLayout<Int32>.size))
    #endif
  }

  private static func wait(_ fd: Int32, for events: Int16, milliseconds: Int32) -> Readiness {
    var pfd = pollfd(fd: fd, events: events, revents: 0)
    let ready = poll(&pfd, 1, milliseconds)
    if ready == 0 { return .timedOut }
    if ready < 0 { return errno == EINTR ? .interrupted : .failed }
    return pfd.revents & (events | Int16(POLLHUP)) != 0 ? .readable : .failed
  }

  private static func pendingError(_ fd: Int32) -> Int32 {
    var error: Int32 = 0
    var length = socklen_t(MemoryLayout<Int32>.size)
    guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return errno }
    return error
  }
}

private func closeDescriptor(_ fd: Int32) { _ = close(fd) }

private func connectDescriptor(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
  connect(fd, address, length)
}

/// The C library calls the bridge makes outside ``VPCDSocket``, and the socket constants that
/// differ between Glibc and Darwin, named in one place.
///
/// Linux imports `SOCK_STREAM` as an enum and has `MSG_NOSIGNAL`; macOS imports `SOCK_STREAM` as
/// an `Int32` and has no `MSG_NOSIGNAL`, so there the socket itself gets `SO_NOSIGPIPE`.
enum LibC {
  /// Suspends the calling thread for `microseconds` (`usleep`, POSIX.1-2001), clamped to what
  /// `useconds_t` holds.
  static func sleep(microseconds: Int) {
    usleep(UInt32(clamping: microseconds))
  }

  #if canImport(Glibc)
  /// `SOCK_STREAM` as `socket(2)` takes it.
  static let stream = Int32(SOCK_STREAM.rawValue)
  /// Flags for `send(2)`: a closed peer is an error, not a SIGPIPE.
  static let sendFlags = Int32(MSG_NOSIGNAL)
  /// Nothing to do on Linux: `sendFlags` covers SIGPIPE.
  static func noSigPipe(_ fd: Int32) {}
  #else
  /// `SOCK_STREAM` as `socket(2)` takes it.
  static let stream = SOCK_STREAM
  /// Flags for `send(2)`: SIGPIPE is off on the socket itself (see ``noSigPipe(_:)``).
  static let sendFlags: Int32 = 0
  /// Makes a closed peer an error, not a SIGPIPE (macOS has no `MSG_NOSIGNAL`). macOS: to verify.
  static func noSigPipe(_ fd: Int32) {
    var one: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
  }
  #endif
}
