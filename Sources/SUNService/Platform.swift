// The C library for SUNService: the module's only file that imports it or tests for an OS.
// A port changes this file (docs/platforms.md); the other files call `LibC`.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#else
#error("SUNService: no C library for this platform yet (docs/platforms.md)")
#endif

/// The C library calls SUNService makes.
enum LibC {
  /// The system's message for error number `code` ("Address already in use"): `strerror`.
  static func errorText(_ code: Int32) -> String {
    String(cString: strerror(code))
  }
}
