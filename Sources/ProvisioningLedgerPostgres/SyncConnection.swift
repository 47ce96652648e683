// A statement sent and waited for, and what its failure means.
import Locking
import PostgresNIO
import ProvisioningLedger

/// Why a statement or a connection attempt failed, in words that hold no secret (postgres-nio's
/// own descriptions are kept out: a server message names no password, a query is never quoted).
enum PostgresFailure: Error {
  /// The connection is gone or cannot be trusted any more: it is dropped, nothing of the
  /// transaction was committed.
  case lost(String)
  /// The connection was lost after COMMIT was sent and before its answer: the outcome is unknown.
  case commitUnknown(String)
  /// The server refused the statement (the transaction is aborted, the connection is fine).
  case server(state: String, message: String)

  /// The reason, one line.
  var reason: String {
    switch self {
    case .lost(let reason), .commitUnknown(let reason): reason
    case .server(let state, let message): "\(message) (SQLSTATE \(state))"
    }
  }

  /// The server refused the login (bad password, no password, no such role).
  var isAuthentication: Bool {
    switch self {
    case .server(let state, _): state.hasPrefix("28")
    case .lost(let reason): reason.contains("password") || reason.hasPrefix("SCRAM")
    case .commitUnknown: false
    }
  }

  init(_ error: any Error, connection: PostgresConnection?, timedOut: Bool) {
    if timedOut {
      self = .lost("no answer within the statement timeout")
      return
    }
    guard let error = error as? PSQLError else {
      self = .lost(Self.describe(other: error))
      return
    }
    if error.code == .server, let info = error.serverInfo {
      let state = info[.sqlState] ?? "?????"
      let message = info[.message] ?? "an error"
      let severity = info[.severity] ?? "ERROR"
      // Class 08 (connection exception), 57P (operator intervention: terminated, shutting down),
      // 28 (authentication) at connect time, and any FATAL end the session.
      if connection == nil {
        // Refused at connect time: the server's own words (no such database, not accepting
        // connections, authentication failed).
        self = state.hasPrefix("28") ? .server(state: state, message: message) : .lost("\(message) (SQLSTATE \(state))")
      } else if severity == "FATAL" || severity == "PANIC" || state.hasPrefix("08") || state.hasPrefix("57P")
        || connection?.isClosed == true {
        self = .lost("the server ended the session: \(message) (SQLSTATE \(state))")
      } else {
        self = .server(state: state, message: message)
      }
      return
    }
    switch error.code {
    case .serverClosedConnection: self = .lost("the server closed the connection")
    case .clientClosedConnection: self = .lost("the connection was closed")
    case .uncleanShutdown: self = .lost("the connection ended uncleanly")
    case .connectionError:
      self = .lost(error.underlying.map(Self.describe(other:)) ?? "the connection failed")
    case .sslUnsupported: self = .lost("the server does not offer TLS (sslmode)")
    case .failedToAddSSLHandler: self = .lost("TLS could not be set up")
    case .authMechanismRequiresPassword:
      self = .lost("the server asks for a password and none is set (PGPASSWORD, PGPASSFILE)")
    case .unsupportedAuthMechanism: self = .lost("the server asks for an authentication method postgres-nio does not support")
    case .saslError: self = .lost("SCRAM authentication failed")
    default: self = .lost("postgres-nio: \(error.code)")
    }
  }

  /// A socket or TLS error in a few words (errno text, not NIO's dumps).
  static func describe(other error: any Error) -> String {
    if let error = error as? NIOConnectionError {
      if error.dnsAError != nil || error.dnsAAAAError != nil { return "cannot resolve host \(error.host)" }
      if let first = error.connectionErrors.first { return describe(other: first.error) }
      return "cannot connect to \(error.host):\(error.port)"
    }
    if let error = error as? IOError {
      return LibC.errorText(error.errnoCode).lowercased()
    }
    if let error = error as? ChannelError {
      switch error {
      case .connectTimeout: return "connection attempt timed out"
      case .ioOnClosedChannel, .alreadyClosed, .eof, .outputClosed, .inputClosed: return "the connection was closed"
      default: return "channel error \(error)"
      }
    }
    if error is NIOSSLError { return "TLS failed: \(error)" }
    return String(describing: error)
  }
}

/// A connection whose statements block until answered, each with a deadline.
///
/// postgres-nio fulfils a statement's promise only if the statement reaches its channel handler:
/// one written while the server closes the connection can be dropped with its promise, and a
/// `wait()` on it would never return. So each statement waits on a promise of its own, which the
/// statement's answer, the connection's close or the deadline (which also closes the connection)
/// completes, whichever comes first.
final class SyncConnection: Sendable {
  let connection: PostgresConnection
  let timeout: TimeAmount
  /// Counts the statements sent (each one round trip), shared by the session's connections.
  let sent: StatementCount
  /// Counts the calling thread's waits for an answer (each a wake-up by the event loop), shared
  /// by the session's connections.
  let waits: StatementCount
  /// The promise of the statement in flight (one at a time: the session's lock serialises
  /// calls), and whether the connection has closed.
  private let watch = Locked<(pending: EventLoopPromise<PostgresQueryResult>?, closed: Bool)>((nil, false))
  private static let logger: Logger = {
    var logger = Logger(label: "nfctag.ledger.postgres")
    logger.logLevel = .critical
    return logger
  }()

  init(connection: PostgresConnection, timeout: TimeAmount, sent: StatementCount = StatementCount(),
       waits: StatementCount = StatementCount()) {
    self.connection = connection
    self.timeout = timeout
    self.sent = sent
    self.waits = waits
    let watch = self.watch
    connection.closeFuture.whenComplete { _ in
      let pending = watch.withLock { state in
        state.closed = true
        defer { state.pending = nil }
        return state.pending
      }
      pending?.fail(Closed.closed)
    }
  }

  /// Why a statement's own promise was failed.
  private enum Closed: Error { case closed, timedOut }

  /// Whether the connection has closed (the server ended it, or a deadline passed).
  var isClosed: Bool { connection.isClosed || watch.withLock { $0.closed } }

  /// Sends `query` and waits for all its rows. `committing`: a lost connection leaves the outcome
  /// unknown (``PostgresFailure/commitUnknown(_:)``).
  func query(_ query: PostgresQuery, committing: Bool = false) throws(TransactionError) -> PostgresQueryResult {
    let sent = self.sent
    return try answer(committing: { committing }) { connection in
      sent.add()
      return connection.query(query, logger: Self.logger)
    }
  }

  /// One transaction of one statement, chained on the event loop and waited for once: BEGIN
  /// (`begin`); `statement` once BEGIN is answered; `check` of its rows, on the event loop; COMMIT
  /// once `check` returned. postgres-nio sends a statement only after the server's ReadyForQuery
  /// for the one before, so these are still three round trips, but the calling thread is woken
  /// once instead of three times. `check` throwing (``TransactionError/retry``, a ledger error)
  /// or a refused statement ends the chain before COMMIT, the transaction left for the caller to
  /// roll back. `begun` is set once BEGIN was answered; a connection lost after COMMIT was sent is
  /// ``PostgresFailure/commitUnknown(_:)``.
  /// - Returns: what `check` returned, once COMMIT was answered as committed.
  func chainedTransaction<T: Sendable>(begin: PostgresQuery, statement: PostgresQuery, begun: inout Bool,
                                       check: @escaping @Sendable (PostgresQueryResult) throws(TransactionError) -> T)
    throws(TransactionError) -> T {
    let stage = Locked(ChainStage.begin)
    let checked = Locked<T?>(nil)
    let sent = self.sent
    let logger = Self.logger
    defer { begun = stage.withLock { $0 } != .begin }
    let committed = try answer(committing: { stage.withLock { $0 } == .commit }) { connection in
      sent.add()
      return connection.query(begin, logger: logger).flatMap { _ in
        stage.withLock { $0 = .statement }
        sent.add()
        return connection.query(statement, logger: logger)
      }.flatMapThrowing { rows in
        let value = try check(rows)
        checked.withLock { $0 = value }
      }.flatMap { _ in
        stage.withLock { $0 = .commit }
        sent.add()
        return connection.query("COMMIT", logger: logger)
      }
    }
    try Self.checkCommitted(committed)
    guard let value = checked.withLock({ $0 }) else {
      throw .database(.lost("the transaction's statement was not answered"))
    }
    return value
  }

  /// Where a ``chainedTransaction(begin:statement:begun:check:)`` is.
  private enum ChainStage { case begin, statement, commit }

  /// Throws unless `answer` (COMMIT's) says the transaction was committed: COMMIT of a failed
  /// transaction is answered ROLLBACK.
  static func checkCommitted(_ answer: PostgresQueryResult) throws(TransactionError) {
    guard answer.metadata.command == "COMMIT" else {
      throw .database(.server(state: "25P02", message: "the server rolled the transaction back"))
    }
  }

  /// Starts what `send` sends on the connection and waits for its answer, at most ``timeout``.
  /// `committing` (asked once it failed): a lost connection leaves the outcome unknown. A
  /// ``TransactionError`` the chain failed with is thrown as it is.
  private func answer(committing: () -> Bool, _ send: (PostgresConnection) -> EventLoopFuture<PostgresQueryResult>)
    throws(TransactionError) -> PostgresQueryResult {
    let connection = self.connection
    let promise = connection.eventLoop.makePromise(of: PostgresQueryResult.self)
    let alreadyClosed = watch.withLock { state -> Bool in
      if !state.closed { state.pending = promise }
      return state.closed
    }
    if alreadyClosed {
      promise.fail(Closed.closed)
    } else {
      send(connection).cascade(to: promise)
    }
    let timer = connection.eventLoop.scheduleTask(in: timeout) {
      promise.fail(Closed.timedOut)
      let _: EventLoopFuture<Void> = connection.close()
    }
    defer {
      timer.cancel()
      watch.withLock { state in state.pending = nil }
    }
    waits.add()
    do {
      return try promise.futureResult.wait()
    } catch {
      if let failure = error as? TransactionError { throw failure }
      let failure: PostgresFailure
      switch error as? Closed {
      case .closed?: failure = .lost("the connection was closed")
      case .timedOut?: failure = .lost("no answer within \(timeout.nanoseconds / 1_000_000_000) s")
      case nil: failure = PostgresFailure(error, connection: connection, timedOut: false)
      }
      if committing(), case .lost(let reason) = failure { throw .database(.commitUnknown(reason)) }
      throw .database(failure)
    }
  }

  /// Sends a statement whose rows do not matter.
  func execute(_ query: PostgresQuery) throws(TransactionError) {
    _ = try self.query(query)
  }

  /// Decodes a row, a schema that does not fit being a ledger fact.
  func decode<each Column: PostgresDecodable>(_ row: PostgresRow, _ columns: (repeat each Column).Type)
    throws(TransactionError) -> (repeat each Column) {
    do {
      return try row.decode(columns)
    } catch {
      throw .ledger(.incompatible("a ledger table does not have the columns this nfctag expects"))
    }
  }
}

/// How many statements a session has sent: each is one round trip to the server (postgres-nio
/// sends a statement's Parse, Bind, Execute and Sync at once and the next statement only after
/// the server's ReadyForQuery), so the tests count a call's round trips with it.
final class StatementCount: Sendable {
  private let count = Locked(0)
  func add() { count.withLock { $0 += 1 } }
  var value: Int { count.withLock { $0 } }
}
