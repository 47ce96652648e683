#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The socket constants that differ between Glibc and Darwin, named in one place.
///
/// Linux imports `SOCK_STREAM` as an enum and has `MSG_NOSIGNAL`; macOS imports `SOCK_STREAM` as
/// an `Int32` and has no `MSG_NOSIGNAL`, so there the socket itself gets `SO_NOSIGPIPE`.
enum SocketPlatform {
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
