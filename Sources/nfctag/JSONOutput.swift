import NDEFJSON

/// A JSON object built key by key, for the tool's own output (`readers --json`, `info --json`…).
///
/// Written through NDEFJSON's `JSONWriter`, the one JSON writer of the package, so keys and
/// values are escaped exactly as in the message JSON.
struct JSONObjectWriter {
  private var writer = JSONWriter(capacity: 128)
  private var empty = true

  /// Starts the next member: `"key":`, after a comma unless it is the first.
  mutating func key(_ key: String) {
    writer.key(named: key, first: empty)
    empty = false
  }

  /// A string member.
  mutating func string(_ k: String, _ value: String) { key(k); writer.string(value) }
  /// An integer member.
  mutating func number(_ k: String, _ value: Int) { key(k); writer.number(value) }
  /// A `true`/`false` member.
  mutating func bool(_ k: String, _ value: Bool) { key(k); writer.bool(value) }
  /// A member whose value is JSON text written elsewhere (an array, a nested object).
  mutating func raw(_ k: String, _ json: String) { key(k); writer.raw(json: json) }

  /// The object: `{` the members `}`.
  func finish() -> String { "{" + writer.text + "}" }
}

/// A JSON string literal: quotes, backslashes and control characters (C0, DEL, C1) escaped.
func jsonQuoted(_ text: String) -> String {
  var writer = JSONWriter(capacity: text.utf8.count + 2)
  writer.string(text)
  return writer.text
}
