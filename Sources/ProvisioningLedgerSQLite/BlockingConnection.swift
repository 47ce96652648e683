import ProvisioningLedger
import SQLiteNIO

/// One SQLite connection used synchronously: the blocking strategy of ``SQLiteLedger``.
///
/// sqlite-nio runs every statement on an `NIOThreadPool` and answers with an `EventLoopFuture`.
/// Each connection gets a pool of one thread of its own, so that a connection whose statement
/// sleeps in SQLite's busy handler (waiting for another connection's write lock) never holds up
/// a thread another connection needs to finish its transaction; the caller's thread waits for
/// each future (`wait()`). The futures complete on an event loop of the connection's own, which
/// runs nothing else, so any thread may wait: a dispatch queue's, a Swift task's, another NIO
/// event loop's (PostgreSQL's).
///
/// Not serialised: ``SQLiteLedger`` holds its lock around each whole transaction.
final class BlockingConnection: Sendable {
  /// The file, for messages.
  let path: String
  private let pool: NIOThreadPool
  private let loop: MultiThreadedEventLoopGroup
  private let connection: SQLiteConnection

  /// How long a statement waits for another connection's lock before the call fails
  /// (`PRAGMA busy_timeout`), in milliseconds.
  static let busyTimeout = 15_000

  /// Opens `path`; with `create` false a missing file is not created.
  static func open(path: String, create: Bool) throws(LedgerError) -> BlockingConnection {
    let pool = NIOThreadPool(numberOfThreads: 1)
    pool.start()
    let loop = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let opened: SQLiteConnection
    do {
      opened = try SQLiteConnection.open(storage: .file(path: sqliteURI(path: path, create: create)), threadPool: pool,
                                         on: loop.next()).wait()
    } catch {
      try? pool.syncShutdownGracefully()
      try? loop.syncShutdownGracefully()
      throw .cannotOpen("\(path): \(Self.whyNotOpened(path: path, create: create) ?? "\(error)")")
    }
    let connection = BlockingConnection(path: path, pool: pool, loop: loop, connection: opened)
    do {
      // Replaces sqlite-nio's busy handler, which retries at once and forever, with SQLite's own
      // (sleeps, gives up after the timeout).
      _ = try connection.query("PRAGMA busy_timeout = \(busyTimeout)")
    } catch {
      connection.close()
      throw error
    }
    return connection
  }

  /// The operating system's reason why `path` cannot be opened (read and write) or, with
  /// `create`, created: `No such file or directory`, `Permission denied`, `Not a directory`…;
  /// nil when the file system shows none (SQLite's own reason is used then).
  static func whyNotOpened(path: String, create: Bool) -> String? {
    func reason(_ code: Int32) -> String { LibC.errorText(code) }
    switch LibC.isDirectory(path) {
    case .success(true): return reason(LibC.isADirectory)
    case .success(false): return LibC.cannotReadAndWrite(path).map(reason)
    case .failure(let missing):
      guard create, missing.code == LibC.noSuchFile else { return reason(missing.code) }
    }
    // A new file needs a folder that exists and can be written.
    let folder = path.contains("/") ? String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) : "."
    let parent = folder.isEmpty ? "/" : folder
    switch LibC.isDirectory(parent) {
    case .failure(let error): return reason(error.code)
    case .success(false): return reason(LibC.notADirectory)
    case .success(true): return LibC.cannotCreateIn(parent).map(reason)
    }
  }

  private init(path: String, pool: NIOThreadPool, loop: MultiThreadedEventLoopGroup, connection: SQLiteConnection) {
    self.path = path
    self.pool = pool
    self.loop = loop
    self.connection = connection
  }

  /// Runs one statement and returns its rows.
  func query(_ sql: String, _ binds: [SQLiteData] = []) throws(LedgerError) -> [SQLiteRow] {
    do {
      return try connection.query(sql, binds).wait()
    } catch {
      throw ledgerError(error)
    }
  }

  /// How a transaction takes its locks.
  enum TransactionKind: String {
    /// `BEGIN`: a consistent read.
    case read = "BEGIN"
    /// `BEGIN IMMEDIATE`: takes the write lock first (waiting for it), so that what the
    /// transaction reads cannot change before it writes.
    case write = "BEGIN IMMEDIATE"
  }

  /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
  func transaction<T>(_ kind: TransactionKind, _ body: () throws(LedgerError) -> T) throws(LedgerError) -> T {
    _ = try query(kind.rawValue)
    do {
      let result = try body()
      _ = try query("COMMIT")
      return result
    } catch {
      _ = try? query("ROLLBACK")
      throw error
    }
  }

  /// Closes the connection and stops its threads.
  func close() {
    _ = try? connection.close().wait()
    try? pool.syncShutdownGracefully()
    try? loop.syncShutdownGracefully()
  }

  /// One line for an SQLite failure, naming the file.
  func ledgerError(_ error: any Error) -> LedgerError {
    guard let error = error as? SQLiteError else { return .unavailable("\(path): \(error)") }
    switch error.reason {
    case .notADatabase:
      return .incompatible("\(path) is not a ledger (not an SQLite database)")
    case .corrupt, .corruptIndex, .corruptSequenceSchema, .corruptVirtualTable:
      return .incompatible("\(path) is damaged (SQLite: \(error.message))")
    case .busy, .busyTimeout, .busyInRecovery:
      return .unavailable("\(path) stayed locked by another connection for \(Self.busyTimeout / 1000) s")
    case .busyInSnapshot:
      return .unavailable("\(path) was written by another connection during this call")
    case .cantOpen, .cantOpenDirectory, .cantOpenInvalidPath, .cantOpenUnfollowedSymlink, .permission,
         .readOnly, .readonlyCantLock, .readonlyDirectory, .readonlyInRecovery, .readonlyInRollback,
         .readonlyBackingMoved:
      return .cannotOpen("\(path) (SQLite: \(error.message))")
    default:
      return .unavailable("\(path) (SQLite: \(error.message))")
    }
  }
}

/// The SQLite URI for `path`: `mode=rwc` creates a missing file, `mode=rw` does not. The path is
/// percent-encoded, so no file name is read as a URI or its query.
func sqliteURI(path: String, create: Bool) -> String {
  var encoded = path.hasPrefix("/") ? "file://" : "file:"
  for byte in path.utf8 {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
         UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
      encoded.unicodeScalars.append(Unicode.Scalar(byte))
    default:
      let digits = Array("0123456789ABCDEF".unicodeScalars)
      encoded.unicodeScalars.append("%")
      encoded.unicodeScalars.append(digits[Int(byte >> 4)])
      encoded.unicodeScalars.append(digits[Int(byte & 0x0F)])
    }
  }
  return encoded + (create ? "?mode=rwc" : "?mode=rw")
}
