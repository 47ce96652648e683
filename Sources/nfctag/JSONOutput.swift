/// A tiny JSON object builder for the tool's own output (message JSON comes from NDEFJSON).
struct JSONObjectWriter {
  private var body = ""
  mutating func key(_ key: String) {
    if !body.isEmpty { body += "," }
    body += jsonQuoted(key) + ":"
  }
  mutating func string(_ k: String, _ value: String) { key(k); body += jsonQuoted(value) }
  mutating func number(_ k: String, _ value: Int) { key(k); body += String(value) }
  mutating func bool(_ k: String, _ value: Bool) { key(k); body += value ? "true" : "false" }
  mutating func raw(_ k: String, _ json: String) { key(k); body += json }
  func finish() -> String { "{" + body + "}" }
}

/// A JSON string literal: quotes, backslashes and control characters escaped.
func jsonQuoted(_ text: String) -> String {
  var out = "\""
  for scalar in text.unicodeScalars {
    switch scalar {
    case "\"": out += "\\\""
    case "\\": out += "\\\\"
    case "\n": out += "\\n"
    case "\r": out += "\\r"
    case "\t": out += "\\t"
    default:
      if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
        let h = String(scalar.value, radix: 16)
        out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
  }
  return out + "\""
}
