import Hex
import Testing

@Suite struct HexEncodingTests {
  @Test func writesLowercaseDigitsForEveryByte() {
    let all = (0...255).map { UInt8($0) }
    let text = hexString(all)
    #expect(text.utf8.count == 512)
    #expect(text.hasPrefix("000102030405060708090a0b0c0d0e0f10"))
    #expect(text.hasSuffix("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"))
    #expect(parseHex(text) == all)  // the decoder reads back what the encoder writes
  }

  @Test func separatesBytesOnlyBetweenThem() {
    #expect(hexString([0x04, 0xA1, 0xFF], separator: ":") == "04:a1:ff")
    #expect(hexString([0x04], separator: " ") == "04")
    #expect(hexString([UInt8](), separator: " ") == "")
    #expect(hexString([0xE1, 0x10], separator: " - ") == "e1 - 10")
  }

  @Test func takesAnySequence() {
    let uid: [UInt8] = [0xE0, 0x04, 0x01, 0x02]
    #expect(hexString(uid.reversed(), separator: ":") == "02:01:04:e0")
    #expect(hexString(uid[1..<3]) == "0401")
    #expect(hexString(uid.lazy.map { $0 ^ 0xFF }) == "1ffbfefd")
  }

  @Test func appendsAfterWhatIsThere() {
    var out: [UInt8] = Array("payload=".utf8)
    appendHex([0xD1, 0x01], to: &out)
    appendHex(ArraySlice<UInt8>(), to: &out)
    appendHex(CollectionOfOne(0x7F), to: &out)  // no contiguous storage: the fallback path
    #expect(String(decoding: out, as: UTF8.self) == "payload=d1017f")
  }
}

@Suite struct StrictHexTests {
  @Test func readsEitherCase() {
    #expect(parseHex("d1010B54") == [0xD1, 0x01, 0x0B, 0x54])
    #expect(parseHex("") == [])
  }

  @Test func refusesOddLengthSeparatorsAndOtherCharacters() {
    #expect(parseHex("d10") == nil)
    #expect(parseHex("d1 01") == nil)
    #expect(parseHex("0xd1") == nil)
    #expect(parseHex("g1") == nil)
    #expect(parseHex("é1") == nil)  // two UTF-8 bytes, neither a digit
  }
}

@Suite struct LenientHexTests {
  private func lenient(_ text: String) -> [UInt8]? { parseLenientHex(Array(text.utf8)) }

  @Test func skipsSeparatorsAndPrefixes() {
    #expect(lenient("0xd1:01 08\t54\r\n02-65,6E") == [0xD1, 0x01, 0x08, 0x54, 0x02, 0x65, 0x6E])
    #expect(lenient("0XD1 0x01") == [0xD1, 0x01])
    #expect(lenient("  ") == [])
    #expect(lenient("") == [])
  }

  @Test func aSeparatorMayFallInsideAByte() {
    #expect(lenient("d 1") == [0xD1])
    #expect(lenient("a:b:c:d") == [0xAB, 0xCD])
  }

  @Test func refusesOddDigitsStrayXAndOtherCharacters() {
    #expect(lenient("d10") == nil)
    #expect(lenient("x1") == nil)       // no 0 before the x
    #expect(lenient("1x01") == nil)     // the digit before the x is not 0
    #expect(lenient("d1x01") == nil)    // x after a whole byte
    #expect(lenient("d1 01 zz") == nil)
    #expect(lenient("d1|01") == nil)
  }

  @Test func aLongInputTakesTheFastPathAndTheStateMachineAlike() {
    // Pairs (fast path) interleaved with split bytes and prefixes (state machine), 10,000 times.
    let chunk = "d1 0 1:0x0b 5 4"
    let text = String(repeating: chunk + "\n", count: 10_000)
    let bytes = lenient(text)
    #expect(bytes?.count == 40_000)
    #expect(bytes?.prefix(4) == [0xD1, 0x01, 0x0B, 0x54])
    #expect(bytes?.suffix(4) == [0xD1, 0x01, 0x0B, 0x54])
  }

  @Test func readsAnyCollectionOfBytes() {
    let text = Array("xx d1 01 yy".utf8)
    #expect(parseLenientHex(text[3..<8]) == [0xD1, 0x01])  // a slice
    #expect(parseLenientHex("0xd101".utf8) == [0xD1, 0x01])  // String.UTF8View
    #expect(parseLenientHex(text.lazy.filter { $0 != UInt8(ascii: "x") && $0 != UInt8(ascii: "y") })
            == [0xD1, 0x01])  // no contiguous storage
  }

  /// The parser as first written: one character at a time. The fast parser must agree with it.
  private func reference(_ text: [UInt8]) -> [UInt8]? {
    var out: [UInt8] = []
    var high: UInt8 = 0
    var haveHigh = false
    for c in text {
      let v: UInt8
      switch c {
      case 0x30...0x39: v = c - 0x30
      case 0x61...0x66: v = c - 0x57
      case 0x41...0x46: v = c - 0x37
      case 0x20, 0x09, 0x0A, 0x0D, 0x3A, 0x2D, 0x2C: continue
      case 0x78, 0x58:
        guard haveHigh, high == 0 else { return nil }
        haveHigh = false
        continue
      default: return nil
      }
      if haveHigh { out.append(high << 4 | v); haveHigh = false } else { high = v; haveHigh = true }
    }
    return haveHigh ? nil : out
  }

  @Test func agreesWithTheOneCharacterParserOnRandomText() {
    // Mostly digits (long fast-path runs), sometimes separators, prefixes and bad characters.
    let digits = Array("0123456789abcdefABCDEF".utf8), others = Array(" :-,\t\nx0Xz|g".utf8)
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next() -> Int {
      state = state &* 6364136223846793005 &+ 1442695040888963407
      return Int(truncatingIfNeeded: state >> 33)
    }
    var accepted = 0, refused = 0
    for _ in 0..<3000 {
      let length = next() % 64
      let text = (0..<length).map { _ in next() % 16 == 0 ? others[next() % others.count] : digits[next() % digits.count] }
      let expected = reference(text)
      #expect(parseLenientHex(text) == expected, "\(String(decoding: text, as: UTF8.self))")
      if expected == nil { refused += 1 } else { accepted += 1 }
    }
    #expect(accepted > 300 && refused > 300)  // both outcomes were exercised
  }

  @Test func appendsToWhatIsThereAndLeavesItOnFailure() {
    var out: [UInt8] = [0xAA]
    #expect(Array("d1 01 0b54 02656e".utf8).withUnsafeBytes { parseLenientHex($0, appendingTo: &out) })
    #expect(out == [0xAA, 0xD1, 0x01, 0x0B, 0x54, 0x02, 0x65, 0x6E])
    #expect(!Array("d1010b5402656e6e65zz".utf8).withUnsafeBytes { parseLenientHex($0, appendingTo: &out) })
    #expect(out == [0xAA, 0xD1, 0x01, 0x0B, 0x54, 0x02, 0x65, 0x6E])
  }
}
