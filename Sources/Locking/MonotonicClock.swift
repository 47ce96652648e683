#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Seconds on the monotonic clock (`CLOCK_MONOTONIC`, POSIX.1-2008 `clock_gettime`): what the
/// package's deadlines, timeouts and durations are measured on, untouched when the wall clock is
/// set. Only differences between two readings mean anything.
package func monotonicSeconds() -> Double {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
