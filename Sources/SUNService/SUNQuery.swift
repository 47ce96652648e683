import Hex
import NTAG424

/// The query parameter names of the URLs the service checks, as `sdm setup` and
/// `provision --sdm-url` write them (`{picc}` → `p`, `{cmac}` → `c`, `{enc:N}` → `enc` by default).
public struct SUNParameterNames: Sendable, Equatable {
  /// The parameter holding the encrypted PICCData (`{picc}`).
  public var piccData: String
  /// The parameter holding the SDMMAC (`{cmac}`).
  public var mac: String
  /// The parameter holding the encrypted file data (`{enc:N}`).
  public var fileData: String
  /// The names, `p`, `c` and `enc` unless given.
  public init(piccData: String = "p", mac: String = "c", fileData: String = "enc") {
    self.piccData = piccData; self.mac = mac; self.fileData = fileData
  }
}

/// A request's query read as a SUN URL: its own parameters (`p=…&c=…`), or a whole tapped URL in
/// `url=…` (percent-encoded).
enum SUNQuery {
  /// The longest query taken, in bytes: a SUN URL with 256 bytes of encrypted file data, percent
  /// encoded, fits in a quarter of it. Longer ones are refused before any parsing.
  static let maxBytes = 4096

  /// Why a query is not one.
  enum Problem: Error, Equatable, CustomStringConvertible {
    case empty
    case tooLong(Int)
    case badEncoding
    case url(SUNURLError)

    var description: String {
      switch self {
      case .empty: return "no query: give the tag's parameters (?p=…&c=…) or a whole tapped URL (?url=…)"
      case .tooLong(let n): return "the query has \(n) bytes, more than \(SUNQuery.maxBytes)"
      case .badEncoding: return "the 'url' parameter is not valid percent-encoded UTF-8"
      case .url(let error): return error.description
      }
    }
  }

  /// The SUN fields of `query` (the part after `?`, as received), without the whitespace around
  /// it; NTAG424's parser percent-decodes each parameter (RFC 3986 §2.1), as for `sdm verify`.
  static func parse(_ query: String?, names: SUNParameterNames) throws(Problem) -> SUNURL {
    guard let received = query else { throw .empty }
    let count = received.utf8.count
    guard count <= maxBytes else { throw .tooLong(count) }
    let query = trimmed(received)
    guard !query.isEmpty else { throw .empty }
    let url: String
    if let whole = try wholeURL(in: query, names: names) {
      url = whole
    } else {
      url = "?" + query
    }
    do {
      return try SUNURL(parsing: url, piccDataParameter: names.piccData, macParameter: names.mac,
                        fileDataParameter: names.fileData)
    } catch {
      throw .url(error)
    }
  }

  /// `text` without the whitespace before and after it.
  static func trimmed(_ text: String) -> Substring {
    guard let first = text.firstIndex(where: { !$0.isWhitespace }), let last = text.lastIndex(where: { !$0.isWhitespace }) else {
      return ""
    }
    return text[first...last]
  }

  /// The decoded `url` parameter when the query has one and not the PICCData parameter.
  private static func wholeURL(in query: Substring, names: SUNParameterNames) throws(Problem) -> String? {
    var found: Substring.UTF8View?
    for pair in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
      let name = pair.prefix { $0 != UInt8(ascii: "=") }
      if name.elementsEqual(names.piccData.utf8) { return nil }
      guard name.elementsEqual("url".utf8) else { continue }
      guard found == nil else { throw .url(.duplicateParameter("url")) }
      found = pair.dropFirst(name.count + 1)
    }
    guard let found else { return nil }
    guard let decoded = percentDecoded(found, plusIsSpace: true).flatMap({ String(validating: $0, as: UTF8.self) }) else {
      throw .badEncoding
    }
    return decoded
  }
}
