// The C library for NTAG424Tag: the module's only file that imports it or tests for an OS.
// A port changes this file (docs/platforms.md); the other files call `LibC`.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#else
#error("NTAG424Tag: no C library for this platform yet (docs/platforms.md)")
#endif

/// The C library calls NTAG424Tag makes.
enum LibC {
  /// Suspends the calling thread for `microseconds` (`usleep`, POSIX.1-2001), clamped to what
  /// `useconds_t` holds.
  static func sleep(microseconds: Int) {
    usleep(UInt32(clamping: microseconds))
  }
}
