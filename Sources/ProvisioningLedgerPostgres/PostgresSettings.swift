// Where the shared ledger lives: a postgres:// URL and libpq's environment variables.
import ProvisioningLedger

/// How to reach the PostgreSQL server that holds a shared ledger: what libpq would use for the same
/// URL and environment, as far as postgres-nio can follow.
///
/// Each setting comes from the URL (`postgres://USER@HOST:PORT/DB?sslmode=MODE`), else from libpq's
/// variable (`PGHOST`, `PGPORT`, `PGUSER`, `PGDATABASE`, `PGSSLMODE`, `PGSSLROOTCERT`,
/// `PGCONNECT_TIMEOUT`, `PGAPPNAME`), else its default: `localhost`, 5432, the OS user, a database
/// named after the user, `prefer`. A host that starts with `/` is the directory of the server's
/// unix socket. The password comes from `PGPASSWORD`, else from the first matching line of the
/// password file (`PGPASSFILE`, default `~/.pgpass`; see ``PostgresPassFile``). A password in the
/// URL is refused: a URL ends up in argv, shell histories and process lists.
///
/// The password never shows: not in ``description``, not in a mirror (`dump`), not in an error.
public struct PostgresSettings: Sendable, Equatable, CustomStringConvertible {
  /// libpq's `sslmode`, the ones postgres-nio can do. `allow` is not among them.
  public enum SSLMode: String, Sendable, CaseIterable {
    /// Plain TCP.
    case disable
    /// TLS when the server offers it, else plain; the certificate is not checked (as libpq).
    case prefer
    /// TLS or no connection; the certificate is not checked (as libpq).
    case require
    /// TLS with a certificate signed by `sslrootcert` (else the system's roots); any host name.
    case verifyCA = "verify-ca"
    /// TLS with a certificate signed by `sslrootcert` (else the system's roots) for this host name.
    case verifyFull = "verify-full"
  }

  /// Host name, IP address, or the directory of the server's unix socket (starts with `/`).
  public var host: String
  public var port: Int
  public var user: String
  public var database: String
  public var sslMode: SSLMode
  /// The certificate authorities to trust for `verify-ca` and `verify-full` (PEM file).
  public var sslRootCertificate: String?
  /// Seconds a connection attempt may take.
  public var connectTimeout: Double
  /// Seconds one statement may take before the connection is given up (a silent network).
  public var statementTimeout: Double = 30
  /// What the server shows in `pg_stat_activity.application_name`.
  public var applicationName: String
  /// The password, hidden from every printout.
  public var password: PostgresPassword?
  /// Where the password came from, for messages: `PGPASSWORD`, the password file's path, or nil.
  public var passwordSource: String?
  /// Facts about the password file worth telling when the server refuses the login (a file
  /// that was not used and why). No secret.
  public var passwordNotes: [String] = []

  /// The settings for `url` (nil: from the environment alone) and `environment` (libpq's variables).
  /// - Throws: ``LedgerError/cannotOpen(_:)`` for a URL that is not `postgres://` or
  ///   `postgresql://`, holds a password, or has a bad port or parameter; one line.
  public init(url: String?, environment: [String: String]) throws(LedgerError) {
    let parts = try url.map { (u: String) throws(LedgerError) in try PostgresURL(parsing: u) } ?? PostgresURL()
    func setting(_ fromURL: String?, _ variable: String) -> String? {
      if let fromURL, !fromURL.isEmpty { return fromURL }
      if let value = environment[variable], !value.isEmpty { return value }
      return nil
    }
    host = setting(parts.host, "PGHOST") ?? "localhost"
    let portText = setting(parts.port, "PGPORT") ?? "5432"
    guard let port = Int(portText), (1...65535).contains(port) else {
      throw .cannotOpen("PostgreSQL port \"\(portText)\" is not a number from 1 to 65535")
    }
    self.port = port
    guard let user = setting(parts.user, "PGUSER") ?? Self.operatingSystemUser() else {
      throw .cannotOpen("no PostgreSQL user: the URL names none, PGUSER is not set, and the OS user has no name")
    }
    self.user = user
    database = setting(parts.database, "PGDATABASE") ?? user
    let modeText = setting(parts.sslMode, "PGSSLMODE") ?? "prefer"
    guard let mode = SSLMode(rawValue: modeText) else {
      throw .cannotOpen("sslmode \"\(modeText)\" is not one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    sslMode = mode
    sslRootCertificate = setting(parts.sslRootCertificate, "PGSSLROOTCERT")
    let timeoutText = setting(parts.connectTimeout, "PGCONNECT_TIMEOUT") ?? "10"
    guard let timeout = Double(timeoutText), timeout >= 0, timeout <= 3600 else {
      throw .cannotOpen("connect_timeout \"\(timeoutText)\" is not a number of seconds from 0 to 3600")
    }
    // libpq: 0 waits for ever, and less than 2 s counts as 2 s.
    connectTimeout = timeout == 0 ? 3600 : max(timeout, 2)
    applicationName = setting(parts.applicationName, "PGAPPNAME") ?? "nfctag"

    if let secret = environment["PGPASSWORD"], !secret.isEmpty {
      password = PostgresPassword(secret)
      passwordSource = "PGPASSWORD"
    } else {
      let path = environment["PGPASSFILE"].flatMap { $0.isEmpty ? nil : $0 }
        ?? Self.homeDirectory(environment).map { $0 + "/.pgpass" }
      if let path {
        let lookup = PostgresPassFile.lookup(path: path, host: host, port: port, database: database, user: user,
                                             explicit: environment["PGPASSFILE"] != nil)
        password = lookup.password.map(PostgresPassword.init)
        passwordSource = lookup.password == nil ? nil : path
        passwordNotes = lookup.notes
      }
    }
  }

  /// The settings from this process's URL and environment.
  public init(url: String?) throws(LedgerError) {
    try self.init(url: url, environment: Self.processEnvironment())
  }

  /// Whether `text` is a PostgreSQL URL (`postgres://` or `postgresql://`), not a file path.
  public static func isPostgresURL(_ text: String) -> Bool {
    let lower = text.lowercased()
    return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
  }

  /// `postgres://USER@HOST:PORT/DATABASE`: never the password.
  public var description: String {
    let shownHost = host.hasPrefix("/") ? host.replacingSlashes() : (host.contains(":") ? "[\(host)]" : host)
    return "postgres://\(user)@\(shownHost):\(port)/\(database)"
  }

  /// This process's environment.
  public static func processEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    for text in LibC.environmentEntries() {
      if let equals = text.firstIndex(of: "=") {
        result[String(text[..<equals])] = String(text[text.index(after: equals)...])
      }
    }
    return result
  }

  static func operatingSystemUser() -> String? {
    guard let text = LibC.effectiveUser()?.name else { return nil }
    return text.isEmpty ? nil : text
  }

  static func homeDirectory(_ environment: [String: String]) -> String? {
    if let home = environment["HOME"], !home.isEmpty { return home }
    return LibC.effectiveUser()?.home
  }
}

/// A password that does not print: its description, debug description and mirror are empty of it.
public struct PostgresPassword: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
  CustomReflectable
{
  /// The secret itself; only the connection reads it.
  public let value: String
  public init(_ value: String) { self.value = value }
  public var description: String { "(hidden)" }
  public var debugDescription: String { "(hidden)" }
  public var customMirror: Mirror { Mirror(self, children: []) }
}

extension String {
  fileprivate func replacingSlashes() -> String {
    var result = ""
    for character in self { result += character == "/" ? "%2F" : String(character) }
    return result
  }
}
