/// What an ASCII character is to a hex parser: 0–15 for a digit, or one of the classes below.
///
/// The one hex decoder of the package: strict hex in the message JSON and lenient hex on the
/// command line both read through this table.
@usableFromInline let hexValues: [UInt8] = (0..<256).map { code in
  switch UInt8(code) {
  case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt8(code) - UInt8(ascii: "0")
  case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt8(code) - UInt8(ascii: "a") + 10
  case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt8(code) - UInt8(ascii: "A") + 10
  case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ":"), UInt8(ascii: "-"), UInt8(ascii: ","): return separatorClass
  case UInt8(ascii: "x"), UInt8(ascii: "X"): return prefixClass
  default: return invalidClass
  }
}

/// Two ASCII characters (the first in the low byte) to the byte they spell in hex, or 0x100 when
/// either is not a digit: 128 KB, of which the 22 × 22 digit pairs are ever hot.
let hexPairValues: [UInt16] = {
  var table = [UInt16](repeating: 0x100, count: 1 << 16)
  let digits = Array("0123456789abcdefABCDEF".utf8)
  for first in digits {
    for second in digits {
      table[Int(first) | Int(second) << 8] = UInt16(hexValues[Int(first)] << 4 | hexValues[Int(second)])
    }
  }
  return table
}()

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
/// Eight digits in a row, the common case, take four look-ups of a digit pair, one test and one
/// store; anything else goes through the one-character state machine, then back to the fast loop.
/// - Parameters:
///   - text: the hex as UTF-8 (or ASCII) bytes.
///   - output: where the bytes go; on failure it holds what it held before.
/// - Returns: false when `text` is not lenient hex.
public func parseLenientHex(_ text: UnsafeRawBufferPointer, appendingTo output: inout [UInt8]) -> Bool {
  let n = text.count
  guard n > 0, let input = text.baseAddress else { return true }
  let start = output.count
  output.append(contentsOf: repeatElement(0, count: n / 2))
  let written: Int? = output.withUnsafeMutableBufferPointer { buffer in
    hexValues.withUnsafeBufferPointer { table in
      hexPairValues.withUnsafeBufferPointer { pairs in
        guard let out = buffer.baseAddress, let table = table.baseAddress, let pairs = pairs.baseAddress else { return nil }
        return decodeLenient(input, count: n, into: out + start, table: table, pairs: pairs)
      }
    }
  }
  guard let written else {
    output.removeLast(output.count - start)
    return false
  }
  output.removeLast(n / 2 - written)
  return true
}

/// Writes the bytes of lenient hex in `text` into `output`, which has room for `text.count / 2`
/// bytes: the `--lines` hot path, where one buffer sized for the longest line serves every line.
///
/// - Parameters:
///   - text: the hex as UTF-8 (or ASCII) bytes.
///   - output: at least `text.count / 2` bytes; the first ones written are the result.
/// - Returns: how many bytes were written, or nil when `text` is not lenient hex.
public func parseLenientHex(_ text: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int? {
  precondition(output.count >= text.count / 2, "parseLenientHex: the output has no room for text.count / 2 bytes")
  guard !text.isEmpty, let input = text.baseAddress, let out = output.baseAddress else { return 0 }
  return hexValues.withUnsafeBufferPointer { table in
    hexPairValues.withUnsafeBufferPointer { pairs in
      guard let table = table.baseAddress, let pairs = pairs.baseAddress else { return nil }
      return decodeLenient(input, count: text.count, into: out.assumingMemoryBound(to: UInt8.self),
                           table: table, pairs: pairs)
    }
  }
}

/// The lenient parser's loop: `count` characters at `input` into bytes at `out` (room for
/// `count / 2`). Returns how many bytes it wrote, or nil when the text is not lenient hex.
private func decodeLenient(_ input: UnsafeRawPointer, count n: Int, into out: UnsafeMutablePointer<UInt8>,
                           table: UnsafePointer<UInt8>, pairs: UnsafePointer<UInt16>) -> Int? {
  let chars = input.assumingMemoryBound(to: UInt8.self)
  @inline(__always) func pair(_ offset: Int) -> UInt16 {
    pairs[Int(UInt16(littleEndian: input.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))]
  }
  var i = 0, j = 0
  var high: UInt8 = 0
  var haveHigh = false
  while i < n {
    if !haveHigh {
      while n - i >= 8 {  // eight digits: four pair look-ups, one test, one store
        let p0 = pair(i), p1 = pair(i + 2), p2 = pair(i + 4), p3 = pair(i + 6)
        guard (p0 | p1 | p2 | p3) < 0x100 else { break }
        let word = UInt32(p0) | UInt32(p1) << 8 | UInt32(p2) << 16 | UInt32(p3) << 24
        UnsafeMutableRawPointer(out + j).storeBytes(of: word.littleEndian, as: UInt32.self)
        i += 8
        j += 4
      }
      while n - i >= 2 {
        let p = pair(i)
        guard p < 0x100 else { break }
        out[j] = UInt8(truncatingIfNeeded: p)
        i += 2
        j += 1
      }
      if i == n { break }
    }
    let v = table[Int(chars[i])]  // one character through the state machine
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
      return nil
    }
  }
  return haveHigh ? nil : j
}
