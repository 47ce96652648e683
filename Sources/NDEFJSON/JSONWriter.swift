@_exported import Hex

/// Appends JSON to a byte buffer: the one JSON writer of the package.
///
/// Strings are escaped (`"`, `\`, C0 controls, DEL, and the deceptive scalars of
/// `isDeceptiveScalar`: C1 controls, bidirectional controls, invisible characters; never lost),
/// hex is written directly. The message JSON (docs/json-format.md) and the tool's own objects
/// (`JSONObjectWriter` in the tool) both write through it. Built for the `--lines` hot path: no
/// intermediate Strings, and text without characters to escape is copied in runs.
public struct JSONWriter {
  /// The JSON written so far, as UTF-8.
  public var bytes: [UInt8] = []

  /// An empty writer.
  ///
  /// - Parameter capacity: bytes to reserve up front.
  public init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

  /// The JSON written so far, as a String.
  public var text: String { String(decoding: bytes, as: UTF8.self) }

  /// Appends JSON text as it is (punctuation, a literal, a nested value already written).
  @inline(__always) public mutating func raw(_ text: StaticString) {
    text.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }

  /// Appends JSON text as it is.
  public mutating func raw(json text: String) { bytes.append(contentsOf: text.utf8) }

  /// Appends an integer.
  public mutating func number(_ value: Int) { bytes.append(contentsOf: String(value).utf8) }

  /// Appends `true` or `false`.
  public mutating func bool(_ value: Bool) { value ? raw("true") : raw("false") }

  /// Appends a JSON string from UTF-8 bytes that are known to be valid.
  ///
  /// - Parameter source: valid UTF-8; escaped like ``string(_:)``.
  public mutating func string<C: Collection>(utf8 source: C) where C.Element == UInt8 {
    if source.withContiguousStorageIfAvailable({ appendEscaped(UnsafeRawBufferPointer($0)) }) == nil {
      Array(source).withUnsafeBytes { appendEscaped($0) }
    }
  }

  /// Appends a JSON string.
  ///
  /// Besides quotes, backslashes and C0 controls, every scalar `isDeceptiveScalar` names (C1
  /// controls, bidirectional controls, invisible characters and the BOM: tag data that could
  /// deceive whoever reads the JSON) is escaped as `\uXXXX`.
  public mutating func string(_ text: String) {
    var text = text
    text.withUTF8 { appendEscaped(UnsafeRawBufferPointer($0)) }
  }

  /// Appends a JSON string of lowercase hex.
  public mutating func hexString<C: Collection>(_ source: C) where C.Element == UInt8 {
    bytes.append(0x22)
    appendHex(source, to: &bytes)
    bytes.append(0x22)
  }

  /// Appends `"key":`, with a leading comma unless `first`.
  @inline(__always) public mutating func key(_ name: StaticString, first: Bool = false) {
    if !first { bytes.append(0x2C) }
    bytes.append(0x22)
    name.withUTF8Buffer { bytes.append(contentsOf: $0) }
    bytes.append(0x22)
    bytes.append(0x3A)
  }

  /// Appends `"key":` for a key known only at run time (escaped), with a leading comma unless `first`.
  public mutating func key(named name: String, first: Bool = false) {
    if !first { bytes.append(0x2C) }
    string(name)
    bytes.append(0x3A)
  }

  /// The escaper: copies runs of plain bytes, escapes the rest. Runs are found eight bytes at a
  /// time (``mayNeedEscape(_:)``), then byte by byte through a table inside the word that holds
  /// a byte to look at; the lead byte of a scalar that may be deceptive is decoded and checked.
  private mutating func appendEscaped(_ source: UnsafeRawBufferPointer) {
    bytes.append(0x22)
    escape(source)
    bytes.append(0x22)
  }

  /// Appends `source` escaped, without the quotes: the inside of a JSON string, which may be
  /// written in parts that each end on a scalar boundary.
  mutating func escape(_ source: UnsafeRawBufferPointer) {
    let n = source.count
    guard n > 0, let raw = source.baseAddress else { return }
    let input = raw.assumingMemoryBound(to: UInt8.self)
    var runStart = 0
    var i = 0
    jsonEscapeClasses.withUnsafeBufferPointer { table in
      while i < n {
        while n - i >= 8, !mayNeedEscape(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) { i += 8 }
        let stop = min(i + 8, n)
        while i < stop, table[Int(input[i])] == 0 { i += 1 }
        guard i < stop else { continue }
        let b = input[i]
        var length = 1
        if table[Int(b)] == maybeDeceptive {
          guard let (scalar, count) = scalarAt(input, i, n), isDeceptiveScalar(scalar) else { i += 1; continue }
          bytes.append(contentsOf: UnsafeRawBufferPointer(start: input + runStart, count: i - runStart))
          escapeUnicode(scalar.value)
          length = count
        } else {
          bytes.append(contentsOf: UnsafeRawBufferPointer(start: input + runStart, count: i - runStart))
          switch b {
          case 0x22: bytes.append(0x5C); bytes.append(0x22)
          case 0x5C: bytes.append(0x5C); bytes.append(0x5C)
          case 0x0A: bytes.append(0x5C); bytes.append(0x6E)
          case 0x0D: bytes.append(0x5C); bytes.append(0x72)
          case 0x09: bytes.append(0x5C); bytes.append(0x74)
          default: escapeUnicode(UInt32(b))
          }
        }
        i += length
        runStart = i
      }
    }
    bytes.append(contentsOf: UnsafeRawBufferPointer(start: input + runStart, count: n - runStart))
  }

  /// `\uXXXX` for a scalar of the Basic Multilingual Plane, lowercase hex.
  private mutating func escapeUnicode(_ value: UInt32) {
    raw("\\u")
    appendHex([UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)], to: &bytes)
  }
}

/// The scalar whose UTF-8 starts at `input[i]` (two or three bytes) and its length; nil when the
/// bytes there are not a whole two- or three-byte sequence.
private func scalarAt(_ input: UnsafePointer<UInt8>, _ i: Int, _ n: Int) -> (Unicode.Scalar, Int)? {
  let b0 = UInt32(input[i])
  if b0 & 0xE0 == 0xC0 {
    guard n - i >= 2, input[i + 1] & 0xC0 == 0x80 else { return nil }
    return Unicode.Scalar((b0 & 0x1F) << 6 | UInt32(input[i + 1] & 0x3F)).map { ($0, 2) }
  }
  guard b0 & 0xF0 == 0xE0, n - i >= 3, input[i + 1] & 0xC0 == 0x80, input[i + 2] & 0xC0 == 0x80 else { return nil }
  let value = (b0 & 0x0F) << 12 | UInt32(input[i + 1] & 0x3F) << 6 | UInt32(input[i + 2] & 0x3F)
  return Unicode.Scalar(value).map { ($0, 3) }
}

/// What a UTF-8 byte is to the JSON string escaper: 0 plain, 1 escaped (quote, backslash, C0
/// controls, DEL), ``maybeDeceptive`` the lead byte of a scalar `isDeceptiveScalar` may name (C2:
/// U+0080–U+00BF, D8: U+0600–U+063F, E2: U+2000–U+2FFF, EF: U+F000–U+FFFF).
private let jsonEscapeClasses: [UInt8] = (0..<256).map { b in
  b < 0x20 || b == 0x22 || b == 0x5C || b == 0x7F ? 1 : [0xC2, 0xD8, 0xE2, 0xEF].contains(b) ? maybeDeceptive : 0
}
private let maybeDeceptive: UInt8 = 2

/// True when one of the eight bytes of `word` is below 20h, `"`, a backslash, DEL or not ASCII:
/// the bytes ``JSONWriter`` looks at one by one. Exact for "is there one" (SWAR zero-byte tests),
/// so a plain ASCII word is skipped whole.
@inline(__always) private func mayNeedEscape(_ word: UInt64) -> Bool {
  let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
  @inline(__always) func zeroByte(_ v: UInt64) -> UInt64 { (v &- ones) & ~v }
  let below20 = (word &- ones &* 0x20) & ~word
  let special = zeroByte(word ^ (ones &* 0x22)) | zeroByte(word ^ (ones &* 0x5C)) | zeroByte(word ^ (ones &* 0x7F))
  return (below20 | special | word) & highs != 0
}
