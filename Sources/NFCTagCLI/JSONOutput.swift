import NDEFJSON
import NFCTags

/// A JSON object built key by key, for the tool's own output (`readers --json`, `info --json`…).
///
/// Written through NDEFJSON's `JSONWriter`, the one JSON writer of the package, so keys and
/// values are escaped exactly as in the message JSON.
package struct JSONObjectWriter {
  private var writer = JSONWriter(capacity: 128)
  private var empty = true

  /// An empty object.
  package init() {}

  /// Starts the next member: `"key":`, after a comma unless it is the first.
  package mutating func key(_ key: String) {
    writer.key(named: key, first: empty)
    empty = false
  }

  /// A string member.
  package mutating func string(_ k: String, _ value: String) { key(k); writer.string(value) }
  /// An integer member.
  package mutating func number(_ k: String, _ value: Int) { key(k); writer.number(value) }
  /// A `true`/`false` member.
  package mutating func bool(_ k: String, _ value: Bool) { key(k); writer.bool(value) }
  /// A member whose value is JSON text written elsewhere (an array, a nested object).
  package mutating func raw(_ k: String, _ json: String) { key(k); writer.raw(json: json) }
  /// An array member of values written elsewhere as JSON text: `[` them, comma-separated, `]`.
  package mutating func array(_ k: String, _ elements: [String]) {
    key(k)
    writer.raw("[")
    for (index, element) in elements.enumerated() {
      if index > 0 { writer.raw(",") }
      writer.raw(json: element)
    }
    writer.raw("]")
  }

  /// The object: `{` the members `}`.
  package func finish() -> String { "{" + writer.text + "}" }
}

/// A JSON string literal: quotes, backslashes and control characters (C0, DEL, C1) escaped.
package func jsonQuoted(_ text: String) -> String {
  var writer = JSONWriter(capacity: text.utf8.count + 2)
  writer.string(text)
  return writer.text
}

/// `info --json`'s facts as one object, key by key.
package func factsJSON(_ facts: [TagInfoFact]) -> String {
  var o = JSONObjectWriter()
  for fact in facts { o.raw(fact.key, infoValueJSON(fact.value)) }
  return o.finish()
}

/// A fact's value as JSON: bytes as a hex string, objects in their order.
package func infoValueJSON(_ value: TagInfoValue) -> String {
  switch value {
  case .number(let n): return String(n)
  case .string(let text): return jsonQuoted(text)
  case .bool(let flag): return flag ? "true" : "false"
  case .bytes(let bytes): return "\"" + hexString(bytes) + "\""
  case .null: return "null"
  case .list(let items): return "[" + items.map(infoValueJSON).joined(separator: ",") + "]"
  case .object(let members):
    var o = JSONObjectWriter()
    for member in members { o.raw(member.key, infoValueJSON(member.value)) }
    return o.finish()
  }
}
