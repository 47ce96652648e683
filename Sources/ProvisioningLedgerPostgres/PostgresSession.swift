// One connection to the server, used synchronously: transactions, reconnection with backoff.
import Locking
import PostgresNIO
import ProvisioningLedger

/// What went wrong inside a transaction's body.
enum TransactionError: Error {
  /// A ledger fact (unknown row, not bound…): roll back and report it.
  case ledger(LedgerError)
  /// The database failed: see ``PostgresFailure``.
  case database(PostgresFailure)
  /// Roll back and run the body again (a race another station won).
  case retry
}

/// The one connection of a ledger object, behind the lock that serialises its calls.
///
/// The caller is synchronous (the provisioning engine calls the ledger from dispatch queues): each
/// statement is sent through postgres-nio's future API and waited for with `EventLoopFuture.wait()`,
/// which parks the calling thread on a condition variable until the event loop fulfils the promise
/// (nothing runs on the event loop but postgres-nio's own handlers, so it never waits for us).
/// NIO forbids that wait on any event loop thread: a caller must not be one (a dispatch queue's
/// thread, a Swift task's or a thread of its own are fine).
/// Calls are serialised by ``Locked``; the connection and the backoff state live only under it.
final class PostgresSession: Sendable {
  let settings: PostgresSettings
  private let configuration: PostgresConnection.Configuration
  private let state = Locked(State())
  /// The statements sent on every connection of this session so far (BEGIN and COMMIT included).
  let statementsSent = StatementCount()
  /// The calling threads' waits for an answer on every connection of this session so far.
  let answersWaited = StatementCount()
  /// How many times a transaction is run again after a race (unique violation, deadlock,
  /// serialisation failure, every pending row locked by other stations' claims).
  static let maximumAttempts = 50

  private struct State {
    var connection: SyncConnection?
    var closed = false
    /// The wait before the next connection attempt: 0 while connected, then 0.1 s doubling to 5 s.
    var delay: Duration = .zero
    var nextAttempt: ContinuousClock.Instant?
    var connectionsMade = 0
  }

  /// Connects (once, no backoff): the server must be there when a ledger is opened.
  /// - Throws: ``LedgerError/unavailable(_:)`` when the server cannot be reached,
  ///   ``LedgerError/cannotOpen(_:)`` when it refused (a login, TLS); the reason, never the password.
  init(settings: PostgresSettings) throws(LedgerError) {
    self.settings = settings
    do {
      configuration = try Self.configuration(for: settings)
    } catch {
      throw .cannotOpen("cannot set up TLS for \(settings): \(error)")
    }
    try state.withLock { (state) throws(LedgerError) in
      do throws(PostgresFailure) {
        state.connection = try sync(connect(number: 1))
        state.connectionsMade = 1
      } catch {
        let why = "cannot connect to PostgreSQL at \(settings): \(error.reason)\(passwordNotes(error))"
        // The server answered and refused (a login, a database, TLS): the ledger cannot be
        // opened. No answer at all: it is unavailable.
        if case .lost(let reason) = error, !error.isAuthentication, !reason.contains("TLS") { throw .unavailable(why) }
        throw .cannotOpen(why)
      }
    }
  }

  deinit {
    if let connection = state.withLock({ state in state.connection }) { Self.closeAndWait(connection.connection) }
  }

  /// Closes the connection; every later call throws ``LedgerError/closed``.
  func close() {
    let connection = state.withLock { state -> SyncConnection? in
      state.closed = true
      defer { state.connection = nil }
      return state.connection
    }
    if let connection { Self.closeAndWait(connection.connection) }
  }

  /// Runs `body` in one transaction: BEGIN, the body, COMMIT, and blocks until the commit is
  /// answered. A ledger error or a refused statement rolls back; a race is run again; a lost
  /// connection (also during COMMIT, when the outcome is unknown) throws
  /// ``LedgerError/unavailable(_:)`` and the next call reconnects. `repeatableRead`: the
  /// transaction is at REPEATABLE READ (a serialisation failure runs it again), else at the
  /// server's default (READ COMMITTED).
  func transaction<T>(repeatableRead: Bool = false, _ body: (SyncConnection) throws(TransactionError) -> T)
    throws(LedgerError) -> T {
    try attempts { (connection, begun) throws(TransactionError) -> T in
      try connection.execute(Self.begin(repeatableRead: repeatableRead))
      begun = true
      let value = try body(connection)
      let answer = try connection.query("COMMIT", committing: true)
      try SyncConnection.checkCommitted(answer)
      return value
    }
  }

  /// ``transaction(repeatableRead:_:)`` of one statement, chained on the connection's event loop
  /// (``SyncConnection/chainedTransaction(begin:statement:begun:check:)``): BEGIN, `statement`,
  /// `check` of its rows, COMMIT, the calling thread woken once for the four. The same outcomes:
  /// `check` throwing a ledger error or ``TransactionError/retry`` rolls back before COMMIT.
  func chainedTransaction<T: Sendable>(repeatableRead: Bool = false, _ statement: PostgresQuery,
                                       check: @escaping @Sendable (PostgresQueryResult) throws(TransactionError) -> T)
    throws(LedgerError) -> T {
    try attempts { (connection, begun) throws(TransactionError) -> T in
      try connection.chainedTransaction(begin: Self.begin(repeatableRead: repeatableRead), statement: statement,
                                        begun: &begun, check: check)
    }
  }

  private static func begin(repeatableRead: Bool) -> PostgresQuery {
    repeatableRead ? "BEGIN ISOLATION LEVEL REPEATABLE READ" : "BEGIN"
  }

  /// Runs `run` (one attempt of a transaction) under the lock until it returns, a race running it
  /// again, and maps what failed as ``transaction(repeatableRead:_:)`` says. `run` sets its
  /// second argument once BEGIN was answered.
  private func attempts<T>(_ run: (SyncConnection, inout Bool) throws(TransactionError) -> T) throws(LedgerError) -> T {
    try state.withLock { (state) throws(LedgerError) -> T in
      var attempt = 0
      while true {
        attempt += 1
        let (connection, reused) = try connected(&state)
        var begun = false
        do throws(TransactionError) {
          return try run(connection, &begun)
        } catch {
          switch error {
          case .ledger(let failure):
            rollBack(connection, &state)
            throw failure
          case .retry where attempt < Self.maximumAttempts:
            rollBack(connection, &state)
            LibC.sleep(microseconds: 1_000 * min(attempt, 10))
          case .retry:
            rollBack(connection, &state)
            throw .unavailable("PostgreSQL at \(settings): gave up after \(attempt) attempts lost to other stations' transactions")
          case .database(.server(let code, _)) where Self.isRace(code) && attempt < Self.maximumAttempts:
            rollBack(connection, &state)
          case .database(.server(let code, let message)):
            rollBack(connection, &state)
            throw .unavailable("PostgreSQL at \(settings) refused a statement: \(message) (SQLSTATE \(code))")
          case .database(.lost) where !begun && reused && attempt == 1:
            // The connection died while idle (server restart, idle timeout): nothing was sent
            // but BEGIN, so one fresh connection may try again at once.
            drop(&state, backoff: false)
          case .database(.lost(let reason)):
            drop(&state, backoff: true)
            throw .unavailable("connection to PostgreSQL at \(settings) lost: \(reason)")
          case .database(.commitUnknown(let reason)):
            drop(&state, backoff: true)
            throw .unavailable("connection to PostgreSQL at \(settings) lost while waiting for the answer to COMMIT: \(reason) (the outcome is unknown, so it is not reported done)")
          }
        }
      }
    }
  }

  /// Whether a SQLSTATE is a race that running the transaction again resolves: unique violation,
  /// serialisation failure, deadlock.
  static func isRace(_ code: String) -> Bool { code == "23505" || code == "40001" || code == "40P01" }

  // MARK: Connecting

  /// The live connection, reconnecting after the backoff when there is none. `reused`: it served
  /// an earlier call.
  private func connected(_ state: inout State) throws(LedgerError) -> (SyncConnection, reused: Bool) {
    if state.closed { throw .closed }
    if let connection = state.connection {
      if !connection.isClosed { return (connection, true) }
      drop(&state, backoff: false)
    }
    if let next = state.nextAttempt {
      let wait = next - ContinuousClock.now
      if wait > .zero { Self.sleep(wait) }
    }
    do throws(PostgresFailure) {
      let connection = try sync(connect(number: state.connectionsMade + 1))
      state.connectionsMade += 1
      state.connection = connection
      state.delay = .zero
      state.nextAttempt = nil
      return (connection, false)
    } catch {
      state.delay = state.delay == .zero ? .milliseconds(100) : min(state.delay * 2, .seconds(5))
      state.nextAttempt = ContinuousClock.now + state.delay
      throw .unavailable("cannot reconnect to PostgreSQL at \(settings): \(error.reason)\(passwordNotes(error)); next attempt in \(Self.seconds(state.delay)) s")
    }
  }

  private func connect(number: Int) throws(PostgresFailure) -> PostgresConnection {
    var logger = Logger(label: "nfctag.ledger.postgres")
    logger.logLevel = .critical
    let future = PostgresConnection.connect(on: PostgresConnection.defaultEventLoopGroup.any(),
                                            configuration: configuration, id: number, logger: logger)
    do {
      return try future.wait()
    } catch {
      throw PostgresFailure(error, connection: nil, timedOut: false)
    }
  }

  private func sync(_ connection: PostgresConnection) -> SyncConnection {
    SyncConnection(connection: connection, timeout: .nanoseconds(Int64(settings.statementTimeout * 1e9)),
                   sent: statementsSent, waits: answersWaited)
  }

  /// Forgets the connection (closing it); with `backoff` the next attempt waits at least 0.1 s.
  private func drop(_ state: inout State, backoff: Bool) {
    if let connection = state.connection { Self.closeAndWait(connection.connection) }
    state.connection = nil
    if backoff {
      if state.delay == .zero { state.delay = .milliseconds(100) }
      state.nextAttempt = ContinuousClock.now + state.delay
    }
  }

  private func rollBack(_ connection: SyncConnection, _ state: inout State) {
    do throws(TransactionError) {
      try connection.execute("ROLLBACK")
    } catch {
      drop(&state, backoff: true)
    }
  }

  /// What the password file said, when the server refused the login.
  private func passwordNotes(_ failure: PostgresFailure) -> String {
    guard failure.isAuthentication, !settings.passwordNotes.isEmpty else { return "" }
    return " (" + settings.passwordNotes.joined(separator: "; ") + ")"
  }

  static func configuration(for settings: PostgresSettings) throws -> PostgresConnection.Configuration {
    let tls: PostgresConnection.Configuration.TLS
    switch settings.sslMode {
    case .disable:
      tls = .disable
    case .prefer, .require, .verifyCA, .verifyFull:
      var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
      switch settings.sslMode {
      case .verifyFull: tlsConfiguration.certificateVerification = .fullVerification
      case .verifyCA: tlsConfiguration.certificateVerification = .noHostnameVerification
      default: tlsConfiguration.certificateVerification = .none
      }
      if let roots = settings.sslRootCertificate { tlsConfiguration.trustRoots = .file(roots) }
      let context = try NIOSSLContext(configuration: tlsConfiguration)
      tls = settings.sslMode == .prefer ? .prefer(context) : .require(context)
    }
    var configuration: PostgresConnection.Configuration
    if settings.host.hasPrefix("/") {
      configuration = .init(unixSocketPath: settings.host + "/.s.PGSQL.\(settings.port)", username: settings.user,
                            password: settings.password?.value, database: settings.database)
    } else {
      configuration = .init(host: settings.host, port: settings.port, username: settings.user,
                            password: settings.password?.value, database: settings.database, tls: tls)
      if settings.sslMode == .verifyFull { configuration.options.tlsServerName = settings.host }
    }
    configuration.options.connectTimeout = .nanoseconds(Int64(settings.connectTimeout * 1e9))
    configuration.options.additionalStartupParameters = [("application_name", settings.applicationName)]
    return configuration
  }

  /// Closes a connection and waits until it is closed (an error means it already was).
  static func closeAndWait(_ connection: PostgresConnection) {
    let closed: EventLoopFuture<Void> = connection.close()
    _ = try? closed.wait()
  }

  static func sleep(_ duration: Duration) {
    let (seconds, attoseconds) = duration.components
    LibC.sleep(seconds: Int(seconds), nanoseconds: Int(attoseconds / 1_000_000_000))
  }

  static func seconds(_ duration: Duration) -> String {
    let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    return "\(milliseconds / 1000).\(milliseconds % 1000 / 100)"
  }
}
