// The C library for PCSC: the module's only file that imports it or tests for an OS. A port
// changes this file, Constants.swift (the PC/SC types' widths) and CPCSC's headers
// (docs/platforms.md); the other files call `LibC`.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#else
#error("PCSC: no C library for this platform yet (docs/platforms.md)")
#endif

/// The C library calls PCSC makes.
enum LibC {
  /// A C copy of `string` that outlives the call it is passed to: `strdup` (POSIX.1-2008).
  /// Give it back with ``freeCString(_:)``.
  static func duplicateCString(_ string: String) -> UnsafeMutablePointer<CChar>? {
    strdup(string)
  }

  /// Frees a copy made by ``duplicateCString(_:)``: `free`.
  static func freeCString(_ pointer: UnsafeMutablePointer<CChar>?) {
    free(pointer)
  }
}
