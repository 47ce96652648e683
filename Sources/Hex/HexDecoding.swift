/// What an ASCII character is to a hex parser: 0–15 for a digit, or one of the classes below.
///
/// The one hex decoder of the package: strict hex in the message JSON and lenient hex on the
/// command line both read through this table.
let hexValues: [UInt8] = (0..<256).map { code in
  switch UInt8(code) {
  case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt8(code) - UInt8(ascii: "0")
  case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt8(code) - UInt8(ascii: "a") + 10
  case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt8(code) - UInt8(ascii: "A") + 10
  case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ":"), UInt8(ascii: "-"), UInt8(ascii: ","): return separatorClass
  case UInt8(ascii: "x"), UInt8(ascii: "X"): return prefixClass
  default: return invalidClass
  }
}

/// Space, tab, CR, LF, colon, dash, comma: skipped by the lenient parser.
let separatorClass: UInt8 = 0x40
/// The `x` of a `0x` prefix.
let prefixClass: UInt8 = 0x80
/// Anything else.
let invalidClass: UInt8 = 0xFF

/// Bytes of strict hex: digits only (either case), an even number of them.
///
/// - Parameter text: the hex, for example a `payload` in the message JSON.
/// - Returns: the bytes, or nil for any other character or an odd number of digits.
public func parseHex(_ text: String) -> [UInt8]? {
  var text = text
  return text.withUTF8 { utf8 in
    guard utf8.count % 2 == 0 else { return nil }
    var valid = true
    let bytes = [UInt8](unsafeUninitializedCapacity: utf8.count / 2) { out, count in
      hexValues.withUnsafeBufferPointer { table in
        var i = 0
        while i < utf8.count {
          let high = table[Int(utf8[i])], low = table[Int(utf8[i + 1])]
          guard high | low < 0x10 else { valid = false; break }
          out[i / 2] = high << 4 | low
          i += 2
        }
        count = valid ? utf8.count / 2 : 0
      }
    }
    return valid ? bytes : nil
  }
}

/// Bytes of hex as people paste it: spaces, tabs, newlines, colons, dashes, commas and `0x`
/// prefixes are skipped.
///
/// `"0xd1:01 08"` and `"D10108"` both give `d1 01 08`. A separator may fall between the two
/// digits of a byte (`"d 1"` is `d1`).
/// - Parameter text: the hex as UTF-8 (or ASCII) bytes.
/// - Returns: the bytes, or nil for any other character, an `x` that does not follow a lone `0`,
///   or an odd number of digits.
@inlinable
public func parseLenientHex<C: Collection>(_ text: C) -> [UInt8]? where C.Element == UInt8 {
  if let parsed = text.withContiguousStorageIfAvailable({ parseLenientHex(UnsafeRawBufferPointer($0)) }) {
    return parsed
  }
  return Array(text).withUnsafeBytes { parseLenientHex($0) }
}

/// Bytes of lenient hex in `text`.
///
/// - Parameter text: the hex as UTF-8 (or ASCII) bytes.
/// - Returns: the bytes, or nil when `text` is not lenient hex.
public func parseLenientHex(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
  var out: [UInt8] = []
  return parseLenientHex(text, appendingTo: &out) ? out : nil
}

/// Appends the bytes of lenient hex in `text` to `output`: the `--lines` hot path, which reuses
/// one buffer for every line.
///
/// Eight digits in a row, the common case, take eight table look-ups, one test and four stores;
/// anything else goes through the one-character state machine, then back to the fast loop.
/// - Parameters:
///   - text: the hex as UTF-8 (or ASCII) bytes.
///   - output: where the bytes go; on failure it holds what it held before.
/// - Returns: false when `text` is not lenient hex.
public func parseLenientHex(_ text: UnsafeRawBufferPointer, appendingTo output: inout [UInt8]) -> Bool {
  let n = text.count
  guard n > 0, let input = text.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return true }
  let start = output.count
  output.append(contentsOf: repeatElement(0, count: n / 2))
  var valid = true
  var written = 0
  output.withUnsafeMutableBufferPointer { buffer in
    guard let base = buffer.baseAddress else { valid = false; return }
    let out = base + start
    hexValues.withUnsafeBufferPointer { tableBuffer in
      guard let table = tableBuffer.baseAddress else { valid = false; return }
      var i = 0, j = 0
      var high: UInt8 = 0
      var haveHigh = false
      while i < n {
        if !haveHigh {
          while n - i >= 8 {
            let a0 = table[Int(input[i])], a1 = table[Int(input[i + 1])]
            let a2 = table[Int(input[i + 2])], a3 = table[Int(input[i + 3])]
            let a4 = table[Int(input[i + 4])], a5 = table[Int(input[i + 5])]
            let a6 = table[Int(input[i + 6])], a7 = table[Int(input[i + 7])]
            guard (a0 | a1 | a2 | a3 | a4 | a5 | a6 | a7) < 0x10 else { break }
            out[j] = a0 << 4 | a1
            out[j + 1] = a2 << 4 | a3
            out[j + 2] = a4 << 4 | a5
            out[j + 3] = a6 << 4 | a7
            i += 8
            j += 4
          }
          while n - i >= 2 {
            let a = table[Int(input[i])], b = table[Int(input[i + 1])]
            guard a | b < 0x10 else { break }
            out[j] = a << 4 | b
            i += 2
            j += 1
          }
          if i == n { break }
        }
        let v = table[Int(input[i])]
        i += 1
        if v < 0x10 {
          if haveHigh {
            out[j] = high << 4 | v
            j += 1
            haveHigh = false
          } else {
            high = v
            haveHigh = true
          }
        } else if v == separatorClass {
          continue
        } else if v == prefixClass, haveHigh, high == 0 {
          haveHigh = false  // the 0 before it was a prefix, not a digit
        } else {
          valid = false
          break
        }
      }
      if haveHigh { valid = false }
      written = j
    }
  }
  if valid {
    output.removeLast(n / 2 - written)
  } else {
    output.removeLast(output.count - start)
  }
  return valid
}
