// The C library for NFCSession: the module's only file that imports it or tests for an OS.
// A port changes this file (docs/platforms.md); the other files call `LibC`.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#else
#error("NFCSession: no C library for this platform yet (docs/platforms.md)")
#endif

/// The C library calls NFCSession makes.
enum LibC {
  /// The value of environment variable `name`, or nil when it is not set: `getenv` (POSIX.1-2008).
  static func environmentValue(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
  }
}
