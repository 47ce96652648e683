/// Appends JSON to a byte buffer: strings escaped (control characters as `\u00XX`, never lost),
/// hex written directly. Built for the `--lines` hot path: no intermediate Strings.
public struct JSONWriter {
  public var bytes: [UInt8] = []

  public init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

  static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

  @inline(__always) public mutating func raw(_ text: StaticString) {
    text.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }

  public mutating func number(_ value: Int) { bytes.append(contentsOf: String(value).utf8) }

  /// A JSON string from UTF-8 bytes that are known to be valid.
  public mutating func string<C: Collection>(utf8 source: C) where C.Element == UInt8 {
    bytes.append(0x22)
    for b in source {
      switch b {
      case 0x22: bytes.append(0x5C); bytes.append(0x22)
      case 0x5C: bytes.append(0x5C); bytes.append(0x5C)
      case 0x0A: bytes.append(0x5C); bytes.append(0x6E)
      case 0x0D: bytes.append(0x5C); bytes.append(0x72)
      case 0x09: bytes.append(0x5C); bytes.append(0x74)
      case 0x00..<0x20, 0x7F:
        bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, Self.hexDigits[Int(b >> 4)], Self.hexDigits[Int(b & 0x0F)]])
      default: bytes.append(b)
      }
    }
    bytes.append(0x22)
  }

  /// A JSON string; C1 controls, bidirectional controls and invisible characters (tag data that
  /// could deceive whoever reads the JSON, see `isDeceptiveScalar`) are escaped as `\uXXXX` too.
  public mutating func string(_ text: String) {
    var deceptive = false
    for s in text.unicodeScalars where s.value >= 0x80 && isDeceptiveScalar(s) { deceptive = true; break }
    if !deceptive { string(utf8: text.utf8); return }
    bytes.append(0x22)
    for s in text.unicodeScalars {
      if s.value >= 0x80 && isDeceptiveScalar(s) {
        let v = Int(s.value)
        bytes.append(contentsOf: [0x5C, 0x75, Self.hexDigits[v >> 12 & 0xF], Self.hexDigits[v >> 8 & 0xF],
                                  Self.hexDigits[v >> 4 & 0xF], Self.hexDigits[v & 0xF]])
      } else {
        var w = JSONWriter(capacity: 8)
        w.string(utf8: String(s).utf8)
        bytes.append(contentsOf: w.bytes.dropFirst().dropLast())
      }
    }
    bytes.append(0x22)
  }

  /// A JSON string of lowercase hex.
  public mutating func hexString<C: Collection>(_ source: C) where C.Element == UInt8 {
    bytes.append(0x22)
    for b in source {
      bytes.append(Self.hexDigits[Int(b >> 4)])
      bytes.append(Self.hexDigits[Int(b & 0x0F)])
    }
    bytes.append(0x22)
  }

  /// `"key":`, with a leading comma unless `first`.
  @inline(__always) public mutating func key(_ name: StaticString, first: Bool = false) {
    if !first { bytes.append(0x2C) }
    bytes.append(0x22)
    name.withUTF8Buffer { bytes.append(contentsOf: $0) }
    bytes.append(0x22)
    bytes.append(0x3A)
  }
}
