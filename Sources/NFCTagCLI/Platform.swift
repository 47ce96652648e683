// The C library for NFCTagCLI: the module's only file that imports it or tests for an OS.
// A port changes this file (docs/platforms.md); the other files call `LibC`.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#else
#error("NFCTagCLI: no C library for this platform yet (docs/platforms.md)")
#endif

/// The C library calls NFCTagCLI makes: the standard streams, input files, the environment,
/// Ctrl-C and the exit. POSIX.1-2008 describes each call.
enum LibC {
  /// The value of environment variable `name`, or nil when it is not set: `getenv`.
  static func environmentValue(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
  }

  /// Whether descriptor `fd` is a terminal: `isatty`.
  static func isTerminal(_ fd: Int32) -> Bool {
    isatty(fd) != 0
  }

  /// Writes all of `bytes` to `fd` (`write(2)`, again after `EINTR`).
  /// - Returns: false when the other end is gone (`EPIPE`) or the write failed.
  @discardableResult
  static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let n = write(fd, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
      if n < 0 {
        if errno == EINTR { continue }
        return false
      }
      offset += n
    }
    return true
  }

  /// Reads up to `buffer.count` bytes from `fd` (`read(2)`, again after `EINTR`).
  /// - Returns: the count read, 0 at the end, or -1 (see ``lastErrorText``).
  static func readBytes(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
    while true {
      let n = read(fd, buffer.baseAddress, buffer.count)
      if n < 0 && errno == EINTR { continue }
      return n
    }
  }

  /// Opens `path` for reading: `open(O_RDONLY)`.
  /// - Returns: the file descriptor, or -1 (see ``lastErrorText``).
  static func openForReading(_ path: String) -> Int32 {
    open(path, O_RDONLY)
  }

  /// Closes `fd`: `close(2)`.
  static func closeFile(_ fd: Int32) {
    close(fd)
  }

  /// The text of the last failed call's error: `strerror(errno)`.
  static var lastErrorText: String { String(cString: strerror(errno)) }

  /// The signals that mean Ctrl-C to a command: SIGINT and SIGTERM.
  static var interruptSignals: [Int32] { [SIGINT, SIGTERM] }

  /// Ignores signal `number` (`SIG_IGN`), so that a dispatch source alone handles it.
  static func ignoreSignal(_ number: Int32) {
    signal(number, SIG_IGN)
  }

  /// Gives signal `number` its default action back (`SIG_DFL`).
  static func restoreSignal(_ number: Int32) {
    signal(number, SIG_DFL)
  }

  /// Ends the process with `status`: `exit(3)`, so that buffered output is flushed.
  static func exitProcess(_ status: Int32) -> Never {
    exit(status)
  }
}
