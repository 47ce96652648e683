// libpq's connection URI, the part of it a ledger uses.
import ProvisioningLedger

/// The pieces of `postgres[ql]://[USER@][HOST][:PORT][/DATABASE][?NAME=VALUE&…]`, percent-decoded.
/// Empty pieces are nil (libpq then takes the environment's value or the default).
///
/// Refused, each with a one-line ``LedgerError/cannotOpen(_:)``: a password (`USER:PASSWORD@`, or
/// `?password=`), several hosts (`HOST1,HOST2`), a parameter postgres-nio cannot honour, bad
/// percent-encoding.
struct PostgresURL: Equatable {
  var user: String?
  var host: String?
  var port: String?
  var database: String?
  var sslMode: String?
  var sslRootCertificate: String?
  var connectTimeout: String?
  var applicationName: String?

  init() {}

  init(parsing url: String) throws(LedgerError) {
    var rest = Substring(url)
    let lower = url.lowercased()
    if lower.hasPrefix("postgresql://") {
      rest = rest.dropFirst("postgresql://".count)
    } else if lower.hasPrefix("postgres://") {
      rest = rest.dropFirst("postgres://".count)
    } else {
      throw .cannotOpen("\"\(Self.redacted(url))\" is not a postgres:// or postgresql:// URL")
    }
    if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
    var query: Substring = ""
    if let question = rest.firstIndex(of: "?") {
      query = rest[rest.index(after: question)...]
      rest = rest[..<question]
    }
    var authority = rest
    if let slash = rest.firstIndex(of: "/") {
      authority = rest[..<slash]
      database = try Self.decoded(rest[rest.index(after: slash)...], "database")
    }
    var hostPort = authority
    if let at = authority.lastIndex(of: "@") {
      let userInfo = authority[..<at]
      if userInfo.contains(":") { throw Self.passwordRefused }
      user = try Self.decoded(userInfo, "user")
      hostPort = authority[authority.index(after: at)...]
    }
    if hostPort.contains(",") {
      throw .cannotOpen("the ledger URL names several hosts; one PostgreSQL host is supported")
    }
    if hostPort.hasPrefix("[") {
      guard let close = hostPort.firstIndex(of: "]") else {
        throw .cannotOpen("the ledger URL's host \"\(hostPort)\" has no closing ]")
      }
      host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
      let after = hostPort[hostPort.index(after: close)...]
      if after.hasPrefix(":") {
        port = String(after.dropFirst())
      } else if !after.isEmpty {
        throw .cannotOpen("the ledger URL's host \"\(hostPort)\" has text after ]")
      }
    } else if let colon = hostPort.lastIndex(of: ":") {
      host = try Self.decoded(hostPort[..<colon], "host")
      port = String(hostPort[hostPort.index(after: colon)...])
    } else {
      host = try Self.decoded(hostPort, "host")
    }
    if host?.isEmpty == true { host = nil }
    if port?.isEmpty == true { port = nil }
    for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
      let name: Substring, rawValue: Substring
      if let equals = pair.firstIndex(of: "=") {
        name = pair[..<equals]; rawValue = pair[pair.index(after: equals)...]
      } else {
        name = pair; rawValue = ""
      }
      let value = try Self.decoded(rawValue, String(name))
      switch name {
      case "password": throw Self.passwordRefused
      case "host": host = value
      case "port": port = value
      case "user": user = value
      case "dbname": database = value
      case "sslmode": sslMode = value
      case "sslrootcert": sslRootCertificate = value
      case "connect_timeout": connectTimeout = value
      case "application_name": applicationName = value
      default:
        throw .cannotOpen("the ledger URL's parameter \"\(name)\" is not supported (host, port, user, dbname, sslmode, sslrootcert, connect_timeout, application_name)")
      }
    }
  }

  static let passwordRefused = LedgerError.cannotOpen(
    "the ledger URL holds a password: give it through PGPASSFILE or PGPASSWORD, never in the URL")

  /// `text` with `%XX` decoded as UTF-8.
  static func decoded(_ text: Substring, _ what: String) throws(LedgerError) -> String? {
    if text.isEmpty { return nil }
    guard text.contains("%") else { return String(text) }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count)
    var utf8 = text.utf8.makeIterator()
    while let byte = utf8.next() {
      guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
      guard let high = utf8.next().flatMap(hexValue), let low = utf8.next().flatMap(hexValue) else {
        throw .cannotOpen("the ledger URL's \(what) has a % not followed by two hex digits")
      }
      bytes.append(high << 4 | low)
    }
    guard let decoded = String(validating: bytes, as: UTF8.self) else {
      throw .cannotOpen("the ledger URL's \(what) is not UTF-8 once decoded")
    }
    return decoded
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }

  /// A URL to quote in a message: whatever sits between `://` and `@` is left out, in case it
  /// holds a password.
  static func redacted(_ url: String) -> String {
    guard let scheme = url.firstRange(of: "://"), let at = url[scheme.upperBound...].lastIndex(of: "@") else {
      return url
    }
    return String(url[..<scheme.upperBound]) + "…" + String(url[at...])
  }
}
