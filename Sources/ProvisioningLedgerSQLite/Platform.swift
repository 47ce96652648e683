// The C library for ProvisioningLedgerSQLite: the module's only file that imports it or tests for
// an OS. A port changes this file (docs/platforms.md); the other files call `LibC`.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#else
#error("ProvisioningLedgerSQLite: no C library for this platform yet (docs/platforms.md)")
#endif

/// The C library calls ProvisioningLedgerSQLite makes: why a ledger file cannot be opened.
enum LibC {
  /// An error number the module names.
  static var noSuchFile: Int32 { ENOENT }
  /// An error number the module names.
  static var isADirectory: Int32 { EISDIR }
  /// An error number the module names.
  static var notADirectory: Int32 { ENOTDIR }

  /// The system's message for error number `code` ("Permission denied"): `strerror`.
  static func errorText(_ code: Int32) -> String {
    String(cString: strerror(code))
  }

  /// Whether `path` is a directory, by `stat(2)`.
  /// - Returns: the answer, or the error number when `stat` failed.
  static func isDirectory(_ path: String) -> Result<Bool, ErrorNumber> {
    var info = stat()
    guard stat(path, &info) == 0 else { return .failure(ErrorNumber(code: errno)) }
    return .success(info.st_mode & S_IFMT == S_IFDIR)
  }

  /// Why this process may not read and write `path` (`access(R_OK | W_OK)`), or nil when it may.
  static func cannotReadAndWrite(_ path: String) -> Int32? {
    access(path, R_OK | W_OK) != 0 ? errno : nil
  }

  /// Why this process may not create files in folder `path` (`access(W_OK | X_OK)`), or nil
  /// when it may.
  static func cannotCreateIn(_ path: String) -> Int32? {
    access(path, W_OK | X_OK) != 0 ? errno : nil
  }

  /// A failed call's `errno`.
  struct ErrorNumber: Error {
    let code: Int32
  }
}
