import NDEF
import Testing

@Suite struct StrictUTF8 {
  @Test func asciiAndValidUTF8ComeBackAsText() {
    #expect(strictUTF8(Array("hello, world".utf8)) == "hello, world")
    #expect(strictUTF8(Array("héllo ✓ 𝄞 \u{FFFD}".utf8)) == "héllo ✓ 𝄞 \u{FFFD}")  // a real U+FFFD is not a repair
    #expect(strictUTF8([UInt8]()) == "")
  }

  @Test func invalidBytesAreRefusedNotRepaired() {
    #expect(strictUTF8([0x61, 0xFF]) == nil)                 // never a UTF-8 byte
    #expect(strictUTF8([0xC0, 0xAF]) == nil)                 // overlong "/"
    #expect(strictUTF8([0xED, 0xA0, 0x80]) == nil)           // a surrogate
    #expect(strictUTF8([0xF4, 0x90, 0x80, 0x80]) == nil)     // past U+10FFFF
    #expect(strictUTF8(Array("abcdefgh".utf8) + [0xE2, 0x9C]) == nil)  // cut after eight ASCII bytes
  }

  @Test func agreesWithTheStandardLibraryOnRandomBytes() {
    var state: UInt64 = 42
    var valid = 0, invalid = 0
    for round in 0..<4000 {
      state = state &* 6364136223846793005 &+ 1442695040888963407
      let length = Int(state >> 58)
      var bytes: [UInt8] = []
      for _ in 0..<length {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        let r = UInt8(truncatingIfNeeded: state >> 40)
        // Mostly ASCII; in every other round also lead and continuation bytes.
        bytes.append(round % 2 == 0 || r < 0xA0 ? r & 0x7F : r)
      }
      let expected = String(validating: bytes, as: UTF8.self)
      #expect(strictUTF8(bytes) == expected)
      #expect(strictUTF8(bytes[...]) == expected)                  // a slice
      #expect(strictUTF8(bytes.lazy.map { $0 }) == expected)      // not contiguous: the fallback
      #expect(isValidUTF8(bytes) == (expected != nil))
      #expect(isValidUTF8(bytes.lazy.map { $0 }) == (expected != nil))
      if expected == nil { invalid += 1 } else { valid += 1 }
    }
    #expect(valid > 500 && invalid > 500)
  }
}

@Suite struct ValidUTF8 {
  /// Every sequence of one to three bytes whose bytes are drawn from the boundaries of table 3-7
  /// (Unicode 15 §3.9), and four-byte sequences around U+10000 and U+10FFFF: the same answer as
  /// the standard library's `String(validating:as:)`.
  @Test func agreesWithTheStandardLibraryAtEveryBoundary() {
    let edges: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1,
                          0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
    var sequences: [[UInt8]] = edges.map { [$0] }
    for a in edges { for b in edges { sequences.append([a, b]); for c in edges { sequences.append([a, b, c]) } } }
    for a: UInt8 in [0xF0, 0xF4, 0xF5] { for b: UInt8 in [0x8F, 0x90, 0xBF] { sequences.append([a, b, 0x80, 0x80]) } }
    for bytes in sequences {
      #expect(isValidUTF8(bytes) == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes)")
      let padded = Array("12345678".utf8) + bytes  // after a whole ASCII word
      #expect(isValidUTF8(padded) == (String(validating: padded, as: UTF8.self) != nil), "\(bytes)")
    }
  }
}

@Suite struct StrictUTF16 {
  /// The decoder before: code units, the byte-order mark dropped, the standard library's transcoder.
  private func reference(_ bytes: [UInt8]) -> [UInt8]? {
    guard bytes.count % 2 == 0 else { return nil }
    var units = stride(from: 0, to: bytes.count, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
    if units.first == 0xFEFF { units.removeFirst() } else if units.first == 0xFFFE { units = units.dropFirst().map(\.byteSwapped) }
    var scalars = String.UnicodeScalarView()
    let failed = transcode(units.makeIterator(), from: UTF16.self, to: UTF32.self, stoppingOnError: true) { value in
      if let scalar = Unicode.Scalar(value) { scalars.append(scalar) }
    }
    return failed ? nil : Array(String(scalars).utf8)
  }

  @Test func agreesWithTheStandardLibrarysTranscoder() {
    var state: UInt64 = 7
    let units: [UInt16] = [0x0041, 0x00E9, 0x07FF, 0x0800, 0x20AC, 0xD7FF, 0xD800, 0xD83D, 0xDBFF, 0xDC00, 0xDE00, 0xDFFF,
                           0xE000, 0xFEFF, 0xFFFE, 0xFFFF, 0x0000, 0x000A]
    var valid = 0, invalid = 0
    for round in 0..<3000 {
      var bytes: [UInt8] = []
      state = state &* 6364136223846793005 &+ 1442695040888963407
      let count = Int(state >> 60)
      for _ in 0..<count {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        let unit = units[Int(state >> 33) % units.count]
        bytes += [UInt8(unit >> 8), UInt8(unit & 0xFF)]
      }
      if round % 3 == 0 { bytes = [0xFF, 0xFE] + stride(from: 0, to: bytes.count, by: 2).flatMap { [bytes[$0 + 1], bytes[$0]] } }
      if round % 7 == 0 { bytes.append(0x41) }  // odd length
      var out: [UInt8] = [0x2A]
      let ok = bytes.withUnsafeBytes { appendUTF8(fromStrictUTF16: $0, to: &out) }
      let expected = reference(bytes)
      #expect(ok == (expected != nil), "\(bytes)")
      #expect(out == [0x2A] + (expected ?? []), "\(bytes)")  // on failure, what was there before
      if ok { valid += 1 } else { invalid += 1 }
    }
    #expect(valid > 300 && invalid > 300)
  }
}
