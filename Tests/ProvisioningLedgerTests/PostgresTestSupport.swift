import Foundation
import Locking
import PostgresNIO
import Testing
import ProvisioningLedger
@testable import ProvisioningLedgerPostgres

/// The test server: `NFCTAG_TEST_POSTGRES` (a ledger URL; `make test` starts a throw-away cluster
/// with scripts/with-postgres.sh and sets it, with PGPASSFILE for the password).
enum TestPostgres {
  static let url: String? = ProcessInfo.processInfo.environment["NFCTAG_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }
  static let available = url != nil
  static let skipReason: Comment = """
    needs PostgreSQL: NFCTAG_TEST_POSTGRES is not set (`make test` starts a throw-away server; by hand: \
    scripts/with-postgres.sh swift test --filter Postgres)
    """

  /// The settings of the test database, with `applicationName` to find the ledger's backend.
  static func settings(applicationName: String = "nfctag-test") throws -> PostgresSettings {
    var settings = try PostgresSettings(url: url)
    settings.applicationName = applicationName
    return settings
  }

  /// A job name no other test uses.
  static func freshJob(_ prefix: String = "job") -> LedgerJob {
    LedgerJob(name: "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())")
  }

  /// A unique application name, to find one ledger's server process.
  static func freshApplicationName() -> String { "nfctag-test-\(UUID().uuidString.prefix(8).lowercased())" }

  static func rows(_ count: Int, prefix: String = "r") -> [LedgerRowInput] {
    (1...count).map { LedgerRowInput(id: "\(prefix)\($0)", sequence: $0, contentHash: String(repeating: "ab", count: 32)) }
  }

  static func place(_ station: String = "a", reader: String = "r0") -> LedgerPlace {
    LedgerPlace(station: station, reader: reader, time: "2026-11-24T10:15:02.123Z")
  }
}

/// A plain connection for what a test does behind the ledger's back: create databases, lock rows,
/// terminate the ledger's server process.
final class AdminConnection: Sendable {
  let connection: PostgresConnection
  private static let logger = Logger(label: "nfctag.tests.postgres")

  init(_ settings: PostgresSettings) throws {
    connection = try PostgresConnection.connect(
      on: PostgresConnection.defaultEventLoopGroup.any(), configuration: PostgresSession.configuration(for: settings),
      id: 0, logger: Self.logger).wait()
  }

  deinit { _ = try? connection.close().wait() }

  @discardableResult
  func run(_ sql: String) throws -> [PostgresRow] {
    try connection.query(PostgresQuery(unsafeSQL: sql), logger: Self.logger).wait().rows
  }

  func int(_ sql: String) throws -> Int {
    guard let row = try run(sql).first else { throw TestFailure("no row: \(sql)") }
    return try row.decode(Int.self)
  }

  /// The process ids of the server backends with this application name.
  func backends(_ applicationName: String) throws -> [Int32] {
    try run("SELECT pid FROM pg_stat_activity WHERE application_name = '\(applicationName)'").map { try $0.decode(Int32.self) }
  }

  /// Terminates the backends with this application name; how many there were.
  @discardableResult
  func terminate(_ applicationName: String) throws -> Int {
    try int("SELECT count(pg_terminate_backend(pid))::int8 FROM pg_stat_activity WHERE application_name = '\(applicationName)'")
  }
}

/// A database of its own for a test (migration, triggers): created on the test server, dropped
/// by `drop()`.
final class ScratchDatabase: Sendable {
  let name: String
  let settings: PostgresSettings
  private let admin: AdminConnection

  init() throws {
    let base = try TestPostgres.settings()
    admin = try AdminConnection(base)
    name = "nfctag_t_\(UUID().uuidString.prefix(8).lowercased())"
    try admin.run("CREATE DATABASE \(name)")
    var settings = base
    settings.database = name
    self.settings = settings
  }

  func settings(applicationName: String) -> PostgresSettings {
    var settings = settings
    settings.applicationName = applicationName
    return settings
  }

  func drop() {
    _ = try? admin.run("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
  }
}

struct TestFailure: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// Runs `body(0..<count)` on `count` threads of their own (the ledger blocks its caller: the
/// cooperative pool of a 2-core machine has 2 threads) and waits for all of them.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
  let group = DispatchGroup()
  for index in 0..<count {
    group.enter()
    let thread = Thread {
      body(index)
      group.leave()
    }
    thread.stackSize = 1 << 20
    thread.start()
  }
  group.wait()
}

/// Values collected from several threads.
final class Collected<Value: Sendable>: Sendable {
  private let values = Locked<[Value]>([])
  func append(_ value: Value) { values.withLock { $0.append(value) } }
  var all: [Value] { values.withLock { $0 } }
}
