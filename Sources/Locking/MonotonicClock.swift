/// Seconds on the monotonic clock (`CLOCK_MONOTONIC`, POSIX.1-2008 `clock_gettime`): what the
/// package's deadlines, timeouts and durations are measured on, untouched when the wall clock is
/// set. Only differences between two readings mean anything.
package func monotonicSeconds() -> Double {
  let now = LibC.monotonicTime()
  return Double(now.seconds) + Double(now.nanoseconds) / 1e9
}
