/// The keys a MIFARE Classic sector is tried with: the well-known defaults, then the caller's.
public struct MIFAREClassicKeyList: Sendable {
  /// The well-known keys, tried first: the factory key (MF1S50yyX §8.6.3), the MAD and NDEF
  /// public keys (AN10787 §3, AN1304), and the defaults libnfc's and Proxmark3's key lists
  /// start with.
  public static let wellKnown: [[UInt8]] = [
    [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5],
    [0xD3, 0xF7, 0xD3, 0xF7, 0xD3, 0xF7], [0x00, 0x00, 0x00, 0x00, 0x00, 0x00],
    [0xB0, 0xB1, 0xB2, 0xB3, 0xB4, 0xB5], [0x4D, 0x3A, 0x99, 0xC3, 0x51, 0xDD],
    [0x1A, 0x98, 0x2C, 0x7E, 0x45, 0x9A], [0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF],
  ]

  /// The caller's keys (a keys file), tried after ``wellKnown``.
  public var extra: [[UInt8]]

  /// The well-known keys, then `extra` (each 6 bytes).
  public init(extra: [[UInt8]] = []) { self.extra = extra }

  /// Every key once, in order: `preferred` first, then the well-known keys, then ``extra``.
  public func candidates(preferring preferred: [[UInt8]]) -> [[UInt8]] {
    var seen: Set<[UInt8]> = []
    return (preferred + Self.wellKnown + extra).filter { seen.insert($0).inserted }
  }

  /// A name for `key` that does not show it unless it is public: "the factory key", "the NDEF
  /// public key", "well-known key 5", "key 3 of the keys file".
  public func name(of key: [UInt8]) -> String {
    switch key {
    case MIFAREClassicNDEF.factoryKey: return "the factory key FFFFFFFFFFFF"
    case MIFAREApplicationDirectory.publicKeyA: return "the MAD public key A0A1A2A3A4A5"
    case MIFAREClassicNDEF.publicKeyA: return "the NDEF public key D3F7D3F7D3F7"
    default:
      if let i = Self.wellKnown.firstIndex(of: key) { return "well-known key \(i + 1)" }
      if let i = extra.firstIndex(of: key) { return "key \(i + 1) of the keys file" }
      return "a key"
    }
  }

  /// Parses a keys file: one key of 12 hex digits per line; `#` starts a comment; blank lines
  /// are skipped.
  /// - Throws: ``MIFAREClassicKeyFileError`` naming the first bad line (never its content).
  public static func parse(_ text: String) throws(MIFAREClassicKeyFileError) -> [[UInt8]] {
    var keys: [[UInt8]] = []
    for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
      let digits = line.filter { !$0.isWhitespace }
      if digits.isEmpty { continue }
      guard digits.count == 12, digits.allSatisfy(\.isHexDigit) else { throw MIFAREClassicKeyFileError(line: number + 1) }
      var key: [UInt8] = []
      var chars = digits.makeIterator()
      while let high = chars.next(), let low = chars.next() {
        guard let h = high.hexDigitValue, let l = low.hexDigitValue else { throw MIFAREClassicKeyFileError(line: number + 1) }
        key.append(UInt8(h << 4 | l))
      }
      keys.append(key)
    }
    return keys
  }
}

/// A keys file line that is not 12 hex digits (the line number; the content is a secret).
public struct MIFAREClassicKeyFileError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The line number, from 1.
  public let line: Int
  public var description: String { "line \(line) of the keys file is not a key of 12 hex digits" }
}
