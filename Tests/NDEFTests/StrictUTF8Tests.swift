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
      if expected == nil { invalid += 1 } else { valid += 1 }
    }
    #expect(valid > 500 && invalid > 500)
  }
}
