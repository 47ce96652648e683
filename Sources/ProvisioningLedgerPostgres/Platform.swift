// The C library for ProvisioningLedgerPostgres: the module's only file that imports it or tests
// for an OS. A port changes this file (docs/platforms.md); the other files call `LibC`.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#else
#error("ProvisioningLedgerPostgres: no C library for this platform yet (docs/platforms.md)")
#endif

/// The C library calls ProvisioningLedgerPostgres makes: libpq's environment, user and password
/// file, errno texts, and the waits between retries. POSIX.1-2008 describes each call.
enum LibC {
  /// The system's message for error number `code` ("Connection refused"): `strerror`.
  static func errorText(_ code: Int32) -> String {
    String(cString: strerror(code))
  }

  /// The last failed call's error number: `errno`.
  static var lastError: Int32 { errno }

  /// This process's environment as `NAME=value` entries: `environ`.
  static func environmentEntries() -> [String] {
    var entries: [String] = []
    var cursor = environ
    while let entry = cursor.pointee {
      entries.append(String(cString: entry))
      cursor += 1
    }
    return entries
  }

  /// The effective user's name and home directory in the user database: `getpwuid(geteuid())`.
  /// - Returns: nil when the user has no entry; a field the entry lacks is nil.
  static func effectiveUser() -> (name: String?, home: String?)? {
    guard let entry = getpwuid(geteuid()) else { return nil }
    return (entry.pointee.pw_name.map { String(cString: $0) }, entry.pointee.pw_dir.map { String(cString: $0) })
  }

  /// Opens `path` for reading, closed on exec: `open(O_RDONLY | O_CLOEXEC)`.
  /// - Returns: the file descriptor, or -1 (see ``lastError``).
  static func openForReading(_ path: String) -> Int32 {
    open(path, O_RDONLY | O_CLOEXEC)
  }

  /// Closes `fd`: `close(2)`.
  static func closeFile(_ fd: Int32) {
    close(fd)
  }

  /// What `fstat(2)` says of the open file `fd`: whether it is a regular file, whether its group
  /// or others have any access (`S_IRWXG | S_IRWXO`), and its size; nil when `fstat` fails.
  static func fileStatus(_ fd: Int32) -> (isRegular: Bool, groupOrOthersHaveAccess: Bool, size: Int)? {
    var info = stat()
    guard fstat(fd, &info) == 0 else { return nil }
    return (info.st_mode & S_IFMT == S_IFREG, info.st_mode & (S_IRWXG | S_IRWXO) != 0, Int(info.st_size))
  }

  /// Reads up to `buffer.count` bytes from `fd` (`read(2)`), again when a signal interrupts it.
  /// - Returns: the count read, 0 at the end, or -1.
  static func readBytes(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
    guard let base = buffer.baseAddress else { return 0 }
    while true {
      let count = read(fd, base, buffer.count)
      if count < 0 && errno == EINTR { continue }
      return count
    }
  }

  /// Suspends the calling thread for `microseconds` (`usleep`), clamped to what `useconds_t` holds.
  static func sleep(microseconds: Int) {
    usleep(UInt32(clamping: microseconds))
  }

  /// Suspends the calling thread for `seconds` and `nanoseconds`, the rest again after a signal
  /// (`nanosleep`).
  static func sleep(seconds: Int, nanoseconds: Int) {
    var request = timespec(tv_sec: seconds, tv_nsec: nanoseconds)
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
  }
}
