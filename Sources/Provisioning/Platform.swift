// The C library for Provisioning: the module's only file that imports it or tests for an OS.
// A port changes this file (docs/platforms.md); the other files call `LibC`.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#else
#error("Provisioning: no C library for this platform yet (docs/platforms.md)")
#endif

/// The C library calls Provisioning makes.
enum LibC {
  /// The wall clock now, broken down in UTC: `clock_gettime(CLOCK_REALTIME)` and `gmtime_r`
  /// (POSIX.1-2008). `year` is the full year, `month` counts from 1.
  static func utcNow() -> (year: Int32, month: Int32, day: Int32, hour: Int32, minute: Int32, second: Int32, millisecond: Int32) {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    var seconds = now.tv_sec
    var parts = tm()
    gmtime_r(&seconds, &parts)
    return (parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec,
            Int32(now.tv_nsec / 1_000_000))
  }
}
