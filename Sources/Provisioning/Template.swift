// Text templates: {COLUMN}, {uid}, {n}, {n:06}, {mirror}, {{ and }}.

import NDEFJSON

/// A text template, parsed once into literal text and placeholders.
///
/// Placeholders, case-sensitive:
/// - `{COLUMN}`: the row's value in that column (any name without braces or a colon);
/// - `{uid}`: the tag's UID, lowercase hex;
/// - `{n}`: the row's 1-based sequence number; `{n:06}` zero-pads it to 6 digits (width 1–20,
///   written with a leading 0; wider numbers are not cut);
/// - `{mirror}`: the room for the NTAG21x UID/counter mirror, written as `0`s (``MirrorMode``);
/// - `{{` and `}}`: a literal `{` and `}`.
///
/// A column named `uid`, `n` or `mirror` cannot be used: those names are the placeholders above.
public struct Template: Hashable, Sendable {
  /// A piece of a parsed template.
  public enum Part: Hashable, Sendable {
    /// Text written as it is (braces already unescaped).
    case literal(String)
    /// `{COLUMN}`.
    case column(String)
    /// `{uid}`.
    case uid
    /// `{n}` (width 0) or `{n:0W}`.
    case sequence(width: Int)
    /// `{mirror}`.
    case mirror
  }

  /// The template as written.
  public let source: String
  /// The parts, in order; adjacent literals are merged.
  public let parts: [Part]

  /// Parses `source`.
  /// - Throws: ``TemplateError`` with the 1-based column (in characters) of the first mistake.
  public init(_ source: String) throws(TemplateError) {
    self.source = source
    self.parts = try Self.parse(source)
  }

  /// The column names the template uses.
  public var placeholders: Set<String> {
    Set(parts.compactMap { if case .column(let name) = $0 { return name } else { return nil } })
  }

  /// How many times `{mirror}` appears.
  public var mirrorCount: Int { parts.filter { $0 == .mirror }.count }

  /// True when the template has no placeholder.
  public var isConstant: Bool { parts.allSatisfy { if case .literal = $0 { return true } else { return false } } }

  /// The text for one tag.
  /// - Parameters:
  ///   - fields: the row's fields.
  ///   - uid: the tag's UID, already as lowercase hex.
  ///   - sequence: the row's 1-based sequence number.
  ///   - mirror: the text that stands for `{mirror}`; nil when the job has no mirror.
  ///   - inURL: the template is a URL: each `{COLUMN}` value is percent-encoded for the part of
  ///     the URL it stands in (path, query or fragment, RFC 3986 §3; as it is before the
  ///     scheme's `:`, where it is the URL itself), and the result must be a URI (a scheme, no
  ///     spaces or controls). `{uid}`, `{n}` and `{mirror}` are hex digits, digits and `0`s,
  ///     which every part takes as they are.
  /// - Throws: ``TemplateRenderError`` for a column the row lacks, `{mirror}` without a mirror,
  ///   or (`inURL`) a rendered URL that is not a URI.
  public func render(fields: [String: String], uid: String, sequence: Int, mirror: String?,
                     inURL: Bool = false) throws(TemplateRenderError) -> String {
    var out = ""
    var urlPart = URLPart.scheme
    func append(_ text: String) {
      out += text
      if inURL { for scalar in text.unicodeScalars { urlPart = urlPart.after(scalar) } }
    }
    for part in parts {
      switch part {
      case .literal(let text): append(text)
      case .column(let name):
        guard let value = fields[name] else { throw .missingColumn(name) }
        append(inURL ? urlPart.encode(value) : value)
      case .uid: out += uid
      case .sequence(let width):
        let digits = String(sequence)
        if digits.count < width { out += String(repeating: "0", count: width - digits.count) }
        out += digits
      case .mirror:
        guard let mirror else { throw .mirrorWithoutMode }
        out += mirror
      }
    }
    // An empty URL is the caller's to name.
    if inURL, !out.isEmpty, let problem = URIText.problem(out) { throw .invalidURI(out, problem) }
    return out
  }

  static let maxWidth = 20

  private static func parse(_ source: String) throws(TemplateError) -> [Part] {
    var parts: [Part] = []
    var literal = ""
    func flush() {
      if !literal.isEmpty { parts.append(.literal(literal)); literal = "" }
    }
    let characters = Array(source)
    var i = 0
    while i < characters.count {
      let c = characters[i]
      if c == "}" {
        guard i + 1 < characters.count, characters[i + 1] == "}" else {
          throw TemplateError(column: i + 1, reason: "'}' without '{' (a literal brace is written }})")
        }
        literal.append("}")
        i += 2
        continue
      }
      guard c == "{" else { literal.append(c); i += 1; continue }
      if i + 1 < characters.count, characters[i + 1] == "{" {
        literal.append("{")
        i += 2
        continue
      }
      let open = i
      var j = i + 1
      var body = ""
      while j < characters.count, characters[j] != "}" {
        if characters[j] == "{" {
          throw TemplateError(column: j + 1, reason: "'{' inside the placeholder opened at column \(open + 1)")
        }
        body.append(characters[j])
        j += 1
      }
      guard j < characters.count else {
        throw TemplateError(column: open + 1, reason: "'{' is not closed (a literal brace is written {{)")
      }
      flush()
      parts.append(try placeholder(body, column: open + 1))
      i = j + 1
    }
    flush()
    return parts
  }

  private static func placeholder(_ body: String, column: Int) throws(TemplateError) -> Part {
    let name: Substring
    let format: Substring?
    if let colon = body.firstIndex(of: ":") {
      name = body[..<colon]
      format = body[body.index(after: colon)...]
    } else {
      name = body[...]
      format = nil
    }
    guard !name.isEmpty else { throw TemplateError(column: column, reason: "empty placeholder {\(body)}") }
    switch name {
    case "n":
      guard let format else { return .sequence(width: 0) }
      guard format.count >= 2, format.first == "0", format.allSatisfy({ $0.isASCII && $0.isNumber }),
            let width = Int(format), (1...maxWidth).contains(width) else {
        throw TemplateError(column: column, reason: "{n:\(format)}: the width is written 0 and 1–\(maxWidth) digits, as in {n:06}")
      }
      return .sequence(width: width)
    case "uid", "mirror":
      guard format == nil else { throw TemplateError(column: column, reason: "{\(name)} takes no format") }
      return name == "uid" ? .uid : .mirror
    default:
      guard format == nil else {
        throw TemplateError(column: column, reason: "{\(body)}: a column placeholder takes no format")
      }
      return .column(String(name))
    }
  }
}

/// Why a template cannot be parsed: the 1-based column (in characters) and the reason.
public struct TemplateError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Where in a message JSON template the string is (`records[0].uri`); nil for a plain template.
  public var path: String?
  /// 1-based position in the template string, in characters; 0 when not about one position.
  public var column: Int
  /// What is wrong.
  public var reason: String

  /// An error at `column` of the string at `path`.
  public init(path: String? = nil, column: Int, reason: String) {
    self.path = path
    self.column = column
    self.reason = reason
  }

  /// `records[0].uri, column 12: '{' is not closed …`, `column 3: …`, or the reason alone.
  public var description: String {
    var prefix = path ?? ""
    if column > 0 { prefix += prefix.isEmpty ? "column \(column)" : ", column \(column)" }
    return prefix.isEmpty ? reason : "\(prefix): \(reason)"
  }
}

/// Why a template could not be rendered for one row.
public enum TemplateRenderError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The row has no such column.
  case missingColumn(String)
  /// `{mirror}` with no mirror mode.
  case mirrorWithoutMode
  /// The rendered URL (first) is not a URI, for the reason given (second).
  case invalidURI(String, String)

  public var description: String {
    switch self {
    case .missingColumn(let name): return "no value for {\(name)}: the row has no field \"\(name)\""
    case .mirrorWithoutMode: return "{mirror} stands in the template but no mirror mode is set"
    case .invalidURI(let uri, let why):
      let shown = uri.count > 60 ? String(uri.prefix(60)) + "…" : uri
      return "the URL \"\(oneLineText(shown))\" is not a valid URI: \(why)"
    }
  }
}

/// `text` with every control, bidirectional-control and invisible character shown as `?`, so
/// that a rendered value cannot break the line it is reported on.
func oneLineText(_ text: String) -> String {
  String(String.UnicodeScalarView(text.unicodeScalars.map {
    $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || isDeceptiveScalar($0) ? "?" : $0
  }))
}
