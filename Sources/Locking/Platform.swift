// The C library for Locking: the module's only file that imports it or tests for an OS.
// A port changes this file (docs/platforms.md); the other files call `LibC`.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#else
#error("Locking: no C library for this platform yet (docs/platforms.md)")
#endif

/// The C library calls Locking makes.
enum LibC {
  /// The monotonic clock now: `clock_gettime(CLOCK_MONOTONIC)` (POSIX.1-2008), in seconds and
  /// nanoseconds since an unspecified start.
  static func monotonicTime() -> (seconds: Int, nanoseconds: Int) {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return (Int(now.tv_sec), Int(now.tv_nsec))
  }
}
