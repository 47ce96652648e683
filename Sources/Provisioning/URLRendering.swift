// Values substituted into a URL template: percent-encoded for where they stand (RFC 3986), and
// the rendered URL checked as a URI.
import NDEFJSON

/// The part of a URL a placeholder stands in, known from the text before it (RFC 3986 §3).
enum URLPart {
  /// Before the scheme's `:`: the value is (the start of) the URL itself and is written as it is.
  case scheme
  /// After `scheme:`, before `?` or `#`: the authority and the path.
  case path
  /// After `?`, before `#`.
  case query
  /// After `#`.
  case fragment

  /// The part after `character` was written here.
  func after(_ character: Unicode.Scalar) -> URLPart {
    switch (self, character) {
    case (.scheme, ":"): return .path
    case (.scheme, "?"), (.path, "?"): return .query
    case (.fragment, _): return .fragment
    case (_, "#"): return .fragment
    default: return self
    }
  }

  /// `value` percent-encoded for this part: every UTF-8 byte as `%XX` except the ASCII
  /// characters that stand for themselves there. In the path (and authority): unreserved and
  /// sub-delims, `:` and `@` (`pchar`, RFC 3986 §3.3), so a `/`, `?` or `#` in a value stays data.
  /// In the query and fragment: `pchar`, `/` and `?` (§3.4, §3.5) less `&`, `=`, `+`, which
  /// separate and encode form fields. Before the scheme: unchanged.
  func encode(_ value: String) -> String {
    guard self != .scheme else { return value }
    var out = ""
    out.unicodeScalars.reserveCapacity(value.utf8.count)
    let digits = Array("0123456789ABCDEF".unicodeScalars)
    for byte in value.utf8 {
      if keeps(byte) {
        out.unicodeScalars.append(Unicode.Scalar(byte))
      } else {
        out.unicodeScalars.append("%")
        out.unicodeScalars.append(digits[Int(byte >> 4)])
        out.unicodeScalars.append(digits[Int(byte & 0x0F)])
      }
    }
    return out
  }

  private func keeps(_ byte: UInt8) -> Bool {
    if URIText.isUnreserved(byte) { return true }
    switch self {
    case .scheme: return true
    case .path: return URIText.isSubDelim(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "@")
    case .query, .fragment:
      return "!$'()*,;:@/?".utf8.contains(byte)
    }
  }
}

/// RFC 3986's character classes, and the check of a rendered URL.
enum URIText {
  /// `unreserved` (§2.3): letters, digits, `-._~`.
  static func isUnreserved(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
         UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
      return true
    default:
      return false
    }
  }

  /// `sub-delims` (§2.2): `!$&'()*+,;=`.
  static func isSubDelim(_ byte: UInt8) -> Bool { "!$&'()*+,;=".utf8.contains(byte) }

  /// `gen-delims` (§2.2): `:/?#[]@`.
  static func isGenDelim(_ byte: UInt8) -> Bool { ":/?#[]@".utf8.contains(byte) }

  /// Why `uri` is not a URI, or nil when it is one.
  ///
  /// It must start with a scheme (`ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"`, §3.1) and
  /// hold only unreserved and reserved characters and `%` with two hex digits (§2). Characters
  /// beyond ASCII are let through as an IRI's (RFC 3987 §2.2; the URI record holds an IRI, NFC
  /// Forum URI RTD 1.0 §3.2.2), except spaces, controls and invisible or bidirectional ones.
  static func problem(_ uri: String) -> String? {
    let scalars = Array(uri.unicodeScalars)
    guard let colon = scalars.firstIndex(of: ":"), let first = scalars.first, first.isASCII,
          first.properties.isAlphabetic,
          scalars[..<colon].allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)) })
    else { return "it has no scheme (such as https:)" }
    var index = 0
    while index < scalars.count {
      let scalar = scalars[index]
      let position = "character \(index + 1)"
      if scalar == " " { return "it holds a space (\(position))" }
      if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
        return "it holds a control character (U+\(hex(scalar.value)), \(position))"
      }
      if scalar.isASCII {
        let byte = UInt8(scalar.value)
        if byte == UInt8(ascii: "%") {
          let next = scalars.dropFirst(index + 1).prefix(2)
          guard next.count == 2, next.allSatisfy({ $0.isASCII && $0.properties.isASCIIHexDigit }) else {
            return "a % is not followed by two hex digits (\(position))"
          }
        } else if !(isUnreserved(byte) || isSubDelim(byte) || isGenDelim(byte)) {
          return "it holds \(Character(scalar)), which a URI cannot hold (\(position))"
        }
      } else if scalar.properties.isWhitespace || isDeceptiveScalar(scalar) {
        return "it holds U+\(hex(scalar.value)), a space or an invisible character (\(position))"
      }
      index += 1
    }
    return nil
  }

  private static func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
  }
}
