import Testing
import NDEFJSON

@Suite struct JSONWriterEscaping {
  private func quoted(_ text: String) -> String {
    var w = JSONWriter()
    w.string(text)
    return w.text
  }

  @Test func plainTextIsCopiedAsItIs() {
    #expect(quoted("") == #""""#)
    #expect(quoted("héllo wörld ✓") == #""héllo wörld ✓""#)
    #expect(quoted(String(repeating: "abc", count: 10_000)).utf8.count == 30_002)
  }

  @Test func quotesBackslashesAndEveryControlAreEscaped() {
    #expect(quoted("say \"hi\"\\") == #""say \"hi\"\\""#)
    #expect(quoted("a\nb\rc\td") == #""a\nb\rc\td""#)
    #expect(quoted("\u{0}\u{1F}\u{7F}") == #""\u0000\u001f\u007f""#)
    // C1 controls (UTF-8 C2 80 – C2 9F) are escaped; the rest of U+0080–U+00FF is not.
    #expect(quoted("x\u{85}y\u{9F}\u{A0}é") == "\"x\\u0085y\\u009f\u{A0}é\"")
    // Bidirectional controls, zero-width characters and the BOM too; their neighbours are not.
    #expect(quoted("a\u{202E}b\u{200B}\u{2010}\u{FEFF}") == "\"a\\u202eb\\u200b\u{2010}\\ufeff\"")
  }

  @Test func escapesAtTheEdgesOfARun() {
    #expect(quoted("\"") == #""\"""#)
    #expect(quoted("\u{85}") == #""\u0085""#)
    #expect(quoted("ab\n") == #""ab\n""#)
  }

  @Test func utf8BytesAndStringsEscapeAlike() {
    let text = "k\u{1B}[0m\u{85}\""
    var a = JSONWriter(), b = JSONWriter()
    a.string(text)
    b.string(utf8: Array(text.utf8)[...])
    #expect(a.bytes == b.bytes)
  }

  @Test func runTimeKeysBooleansAndRawJSON() {
    var w = JSONWriter()
    w.raw("{")
    w.key(named: "na\"me", first: true); w.string("x")
    w.key(named: "ok"); w.bool(true)
    w.key(named: "no"); w.bool(false)
    w.key(named: "list"); w.raw(json: "[1,2]")
    w.key("hex"); w.hexString([0x00, 0xAB])
    w.raw("}")
    #expect(w.text == #"{"na\"me":"x","ok":true,"no":false,"list":[1,2],"hex":"00ab"}"#)
    #expect((try? JSONParser.parse(w.bytes)) != nil)
  }

  /// The escaping rules one scalar at a time: the tool's first jsonQuoted, with the deceptive
  /// scalars of `isDeceptiveScalar` (bidirectional controls, invisible characters, BOM) added.
  private func reference(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      default:
        if scalar.value < 0x20 || isDeceptiveScalar(scalar) {
          let h = String(scalar.value, radix: 16)
          out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out + "\""
  }

  @Test func agreesWithTheScalarByScalarRulesOnRandomText() {
    // Long plain runs (skipped eight bytes at a time) broken by every kind of byte to look at.
    let alphabet: [Unicode.Scalar] = ["a", "b", " ", "é", "✓", "𝄞", "\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1F}",
                                      "\u{7F}", "\u{80}", "\u{85}", "\u{9F}", "\u{A0}", "\u{A9}", "\u{FFFD}",
                                      "\u{600}", "\u{61C}", "\u{200B}", "\u{200F}", "\u{2010}", "\u{202A}",
                                      "\u{202E}", "\u{2060}", "\u{2065}", "\u{2066}", "\u{2069}", "\u{FEFE}",
                                      "\u{FEFF}"]
    var state: UInt64 = 7
    for _ in 0..<2000 {
      state = state &* 6364136223846793005 &+ 1442695040888963407
      var text = String.UnicodeScalarView()
      for _ in 0..<Int(state >> 58) {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        let r = Int(state >> 33)
        text.append(r % 4 == 0 ? alphabet[r / 4 % alphabet.count] : "x")
      }
      let string = String(text)
      #expect(quoted(string) == reference(string))
    }
  }
}
