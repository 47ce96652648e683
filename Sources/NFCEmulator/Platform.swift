// The C library for NFCEmulator: the module's only file that imports it or tests for an OS.
// A port changes this file (docs/platforms.md); the other files call `LibC`.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#else
#error("NFCEmulator: no C library for this platform yet (docs/platforms.md)")
#endif

/// The C library calls NFCEmulator makes: sleeping for modelled latency and faults, and the
/// memory image files (`--image`, a feeder's image directory).
///
/// Thin wrappers, named apart from the C functions they call (a member named `close` would
/// hide the C one inside this type). POSIX.1-2008 describes each call.
enum LibC {
  /// Suspends the calling thread for `microseconds` (`usleep`), clamped to what `useconds_t` holds.
  static func sleep(microseconds: Int) {
    usleep(UInt32(clamping: microseconds))
  }

  /// The text of the last failed call's error: `strerror(errno)`.
  static var lastErrorText: String { String(cString: strerror(errno)) }

  /// Opens `path` for writing, created (mode 0644) or truncated: `open(O_WRONLY|O_CREAT|O_TRUNC)`.
  /// - Returns: the file descriptor, or -1 (see ``lastErrorText``).
  static func createFile(_ path: String) -> Int32 {
    open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
  }

  /// Opens `path` for reading: `open(O_RDONLY)`.
  /// - Returns: the file descriptor, or -1.
  static func openForReading(_ path: String) -> Int32 {
    open(path, O_RDONLY)
  }

  /// Writes what it can of `bytes` to `fd`: `write(2)`.
  /// - Returns: the count written, or -1.
  static func writeBytes(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
    write(fd, bytes.baseAddress, bytes.count)
  }

  /// Reads up to `buffer.count` bytes from `fd`: `read(2)`.
  /// - Returns: the count read, 0 at the end, or -1.
  static func readBytes(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
    read(fd, buffer.baseAddress, buffer.count)
  }

  /// Flushes `fd` to the device (`fsync`), then closes it (`close`).
  static func syncAndClose(_ fd: Int32) {
    fsync(fd)
    close(fd)
  }

  /// Closes `fd`: `close(2)`.
  static func closeFile(_ fd: Int32) {
    close(fd)
  }

  /// Renames `from` to `to`, replacing it atomically: `rename(2)`.
  /// - Returns: whether it succeeded (else see ``lastErrorText``).
  static func renameFile(_ from: String, to: String) -> Bool {
    rename(from, to) == 0
  }

  /// Creates directory `path` (mode 0755): `mkdir(2)`.
  /// - Returns: whether it exists now (made, or there already: `EEXIST`); else see ``lastErrorText``.
  static func makeDirectory(_ path: String) -> Bool {
    mkdir(path, 0o755) == 0 || errno == EEXIST
  }

  /// Whether `path` names a directory: `stat(2)` and `S_IFDIR`.
  static func isDirectory(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
  }
}
