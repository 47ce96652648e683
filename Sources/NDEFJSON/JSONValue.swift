/// A parsed JSON value (RFC 8259). Numbers keep their text so integers stay exact.
public enum JSONValue: Equatable, Sendable {
  case null
  case bool(Bool)
  case number(String)
  case string(String)
  case array([JSONValue])
  /// Members in document order (duplicate keys: the last one wins on lookup).
  case object([(String, JSONValue)])

  public static func == (a: JSONValue, b: JSONValue) -> Bool {
    switch (a, b) {
    case (.null, .null): return true
    case let (.bool(x), .bool(y)): return x == y
    case let (.number(x), .number(y)): return x == y
    case let (.string(x), .string(y)): return x == y
    case let (.array(x), .array(y)): return x == y
    case let (.object(x), .object(y)):
      return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    default: return false
    }
  }

  /// The member named `key` of an object.
  public subscript(key: String) -> JSONValue? {
    guard case .object(let members) = self else { return nil }
    return members.last { $0.0 == key }?.1
  }

  public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
  public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
  public var intValue: Int? { if case .number(let n) = self { return Int(n) } else { return nil } }
  public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
}

/// Why JSON text could not be parsed.
public struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
  public let offset: Int
  public let reason: String
  public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

/// A strict JSON parser over UTF-8 bytes, with a nesting limit.
public struct JSONParser {
  private let bytes: [UInt8]
  private var i = 0
  private let maxDepth = 64

  /// Parses one JSON document; whitespace only around it.
  public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
    var parser = JSONParser(bytes: bytes)
    parser.skipSpace()
    let value = try parser.value(depth: 0)
    parser.skipSpace()
    guard parser.i == bytes.count else { throw parser.error("trailing characters after the JSON value") }
    return value
  }

  private init(bytes: [UInt8]) { self.bytes = bytes }

  private func error(_ reason: String) -> JSONParseError { JSONParseError(offset: i, reason: reason) }

  private mutating func skipSpace() {
    while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
  }

  private mutating func literal(_ word: StaticString, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
    let count = word.utf8CodeUnitCount
    guard bytes.count - i >= count else { throw error("unexpected end of input") }
    var matches = true
    word.withUTF8Buffer { w in for k in 0..<count where bytes[i + k] != w[k] { matches = false } }
    guard matches else { throw error("unexpected character") }
    i += count
    return value
  }

  private mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
    guard depth < maxDepth else { throw error("nested too deep") }
    guard i < bytes.count else { throw error("unexpected end of input") }
    switch bytes[i] {
    case UInt8(ascii: "{"):
      i += 1
      var members: [(String, JSONValue)] = []
      skipSpace()
      if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
      while true {
        skipSpace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw error("expected a member name") }
        let key = try string()
        skipSpace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw error("expected ':'") }
        i += 1
        skipSpace()
        members.append((key, try value(depth: depth + 1)))
        skipSpace()
        guard i < bytes.count else { throw error("unexpected end of input") }
        if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
        if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
        throw error("expected ',' or '}'")
      }
    case UInt8(ascii: "["):
      i += 1
      var items: [JSONValue] = []
      skipSpace()
      if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
      while true {
        skipSpace()
        items.append(try value(depth: depth + 1))
        skipSpace()
        guard i < bytes.count else { throw error("unexpected end of input") }
        if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
        if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
        throw error("expected ',' or ']'")
      }
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"): return try literal("true", .bool(true))
    case UInt8(ascii: "f"): return try literal("false", .bool(false))
    case UInt8(ascii: "n"): return try literal("null", .null)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
    default: throw error("unexpected character")
    }
  }

  private mutating func number() throws(JSONParseError) -> JSONValue {
    let start = i
    if bytes[i] == UInt8(ascii: "-") { i += 1 }
    func digits(_ p: inout JSONParser) -> Int {
      let s = p.i
      while p.i < p.bytes.count, (0x30...0x39).contains(p.bytes[p.i]) { p.i += 1 }
      return p.i - s
    }
    guard i < bytes.count else { throw error("bad number") }
    if bytes[i] == UInt8(ascii: "0") { i += 1 } else if digits(&self) == 0 { throw error("bad number") }
    if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
      i += 1
      guard digits(&self) > 0 else { throw error("bad number") }
    }
    if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
      i += 1
      if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
      guard digits(&self) > 0 else { throw error("bad number") }
    }
    return .number(String(decoding: bytes[start..<i], as: UTF8.self))
  }

  private mutating func hex4() throws(JSONParseError) -> UInt32 {
    guard bytes.count - i >= 4 else { throw error("short \\u escape") }
    var v: UInt32 = 0
    for _ in 0..<4 {
      let c = bytes[i]
      let d: UInt32
      switch c {
      case 0x30...0x39: d = UInt32(c - 0x30)
      case 0x41...0x46: d = UInt32(c - 0x37)
      case 0x61...0x66: d = UInt32(c - 0x57)
      default: throw error("bad \\u escape")
      }
      v = v << 4 | d
      i += 1
    }
    return v
  }

  private mutating func string() throws(JSONParseError) -> String {
    i += 1  // opening quote
    var out: [UInt8] = []
    while true {
      guard i < bytes.count else { throw error("unterminated string") }
      let c = bytes[i]
      if c == UInt8(ascii: "\"") { i += 1; break }
      if c < 0x20 { throw error("control character in a string") }
      if c != UInt8(ascii: "\\") { out.append(c); i += 1; continue }
      i += 1
      guard i < bytes.count else { throw error("unterminated escape") }
      let e = bytes[i]
      i += 1
      switch e {
      case UInt8(ascii: "\""): out.append(0x22)
      case UInt8(ascii: "\\"): out.append(0x5C)
      case UInt8(ascii: "/"): out.append(0x2F)
      case UInt8(ascii: "b"): out.append(0x08)
      case UInt8(ascii: "f"): out.append(0x0C)
      case UInt8(ascii: "n"): out.append(0x0A)
      case UInt8(ascii: "r"): out.append(0x0D)
      case UInt8(ascii: "t"): out.append(0x09)
      case UInt8(ascii: "u"):
        var scalar = try hex4()
        if (0xD800...0xDBFF).contains(scalar) {
          guard bytes.count - i >= 6, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
            throw error("lone surrogate in \\u escape")
          }
          i += 2
          let low = try hex4()
          guard (0xDC00...0xDFFF).contains(low) else { throw error("bad surrogate pair") }
          scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(scalar) {
          throw error("lone surrogate in \\u escape")
        }
        guard let u = Unicode.Scalar(scalar) else { throw error("bad \\u escape") }
        out.append(contentsOf: Array(String(Character(u)).utf8))
      default: throw error("bad escape")
      }
    }
    guard let s = String(validating: out, as: UTF8.self) else { throw error("string is not valid UTF-8") }
    return s
  }
}
