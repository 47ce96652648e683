private let base64Alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
private let base64Values: [Int8] = {
  var table = [Int8](repeating: -1, count: 256)
  for (i, c) in base64Alphabet.enumerated() { table[Int(c)] = Int8(i) }
  table[Int(UInt8(ascii: "-"))] = 62  // URL-safe alphabet too
  table[Int(UInt8(ascii: "_"))] = 63
  return table
}()

/// Decodes base64 (standard or URL-safe, padding optional, whitespace ignored); nil when invalid.
func decodeBase64<C: Collection>(_ text: C) -> [UInt8]? where C.Element == UInt8 {
  var out: [UInt8] = []
  var accumulator: UInt32 = 0
  var bits = 0
  var padding = 0
  for c in text {
    if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { continue }
    if c == UInt8(ascii: "=") { padding += 1; continue }
    guard padding == 0 else { return nil }
    let v = base64Values[Int(c)]
    guard v >= 0 else { return nil }
    accumulator = accumulator << 6 | UInt32(v)
    bits += 6
    if bits >= 8 {
      bits -= 8
      out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
    }
  }
  guard padding <= 2, bits < 6 else { return nil }
  return out
}

/// Encodes base64 with padding.
func encodeBase64(_ bytes: [UInt8]) -> String {
  var out: [UInt8] = []
  var i = 0
  while i < bytes.count {
    let b0 = bytes[i], b1 = i + 1 < bytes.count ? bytes[i + 1] : 0, b2 = i + 2 < bytes.count ? bytes[i + 2] : 0
    out.append(base64Alphabet[Int(b0 >> 2)])
    out.append(base64Alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)])
    out.append(i + 1 < bytes.count ? base64Alphabet[Int((b1 & 0x0F) << 2 | b2 >> 6)] : UInt8(ascii: "="))
    out.append(i + 2 < bytes.count ? base64Alphabet[Int(b2 & 0x3F)] : UInt8(ascii: "="))
    i += 3
  }
  return String(decoding: out, as: UTF8.self)
}
