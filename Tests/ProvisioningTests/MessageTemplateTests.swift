import NDEF
import NFCSession  // re-exports Hex
import Testing
@testable import Provisioning

private func row(_ fields: [String: String], sequence: Int = 1) -> ProvisioningRow {
  ProvisioningRow(id: String(sequence), sequence: sequence, line: sequence + 1, fields: fields)
}
private func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
private func messageTemplate(_ json: String) throws -> MessageTemplate {
  .message(try MessageJSONTemplate(parsing: ascii(json)))
}

@Suite("Message templates") struct MessageTemplateTests {
  @Test func urlRecord() throws {
    let rendered = try MessageTemplate.url(Template("https://example.com/t/{id}?u={uid}"))
      .render(row: row(["id": "7"]), uid: [0x04, 0xAB, 0xCD], mirror: nil)
    let rest = ascii("example.com/t/7?u=04abcd")
    // MB ME SR, TNF well-known; type length 1; payload length; "U"; 04 = "https://"
    #expect(rendered.bytes == [0xD1, 0x01, UInt8(rest.count + 1), 0x55, 0x04] + rest)
    #expect(rendered.mirrorRoom == nil)
    #expect(rendered.hex == hexString(rendered.bytes))
    #expect(rendered.hex == "d1011955046578616d706c652e636f6d2f742f373f753d303461626364")
    // python3: hashlib.sha256(bytes.fromhex(rendered.hex)).hexdigest()
    #expect(rendered.sha256 == "fed14898c834d4f4fd849ddc43c249aff1a8d526f7fee3b3fd9150c3731361fd")
    #expect(rendered.message == NDEFMessage(records: [URIRecord(uri: "https://example.com/t/7?u=04abcd").record]))
  }

  /// The URI a `--url` template gives for `fields`.
  func uri(_ template: String, _ fields: [String: String], sequence: Int = 1) throws -> String {
    let rendered = try MessageTemplate.url(Template(template)).render(row: row(fields, sequence: sequence), uid: [0x04, 0xAB], mirror: nil)
    return try #require(rendered.message.records.first.flatMap { URIRecord($0)?.uri })
  }

  @Test func urlValuesArePercentEncodedForWhereTheyStand() throws {
    let fields = ["p": "😀 emoji/x", "q": "comma, and\nnewline&x=1+2#", "f": "a b#c"]
    #expect(try uri("https://e.com/{p}?q={q}&n={n:03}&u={uid}#{f}", fields, sequence: 7)
            == "https://e.com/%F0%9F%98%80%20emoji%2Fx?q=comma,%20and%0Anewline%26x%3D1%2B2%23&n=007&u=04ab#a%20b%23c")
    // In the path: sub-delims, ':' and '@' stay; '?' and '#' are data.
    #expect(try uri("https://e.com/{p}", ["p": "a:b@c;d=e?f#g"]) == "https://e.com/a:b@c;d=e%3Ff%23g")
    // A value before the scheme's ':' is the URL itself: as it is; what follows it is encoded by where it lands.
    #expect(try uri("{link}&id={id}", ["link": "https://e.com/t?a=1", "id": "x y&z"]) == "https://e.com/t?a=1&id=x%20y%26z")
    #expect(try uri("{link}/{id}", ["link": "https://e.com", "id": "a/b"]) == "https://e.com/a%2Fb")
  }

  @Test func aRenderedURLThatIsNotAURIIsRefused() throws {
    func problem(_ template: String, _ fields: [String: String]) -> String? {
      do { _ = try uri(template, fields); return nil } catch { return "\(error)" }
    }
    #expect(problem("{link}", ["link": "https://e.com/a b"])
            == #"the URL "https://e.com/a b" is not a valid URI: it holds a space (character 16)"#)
    #expect(problem("{link}", ["link": "https://e.com/\u{1B}[2J"])
            == #"the URL "https://e.com/?[2J" is not a valid URI: it holds a control character (U+001B, character 15)"#)
    #expect(problem("e.com/{id}", ["id": "1"]) == #"the URL "e.com/1" is not a valid URI: it has no scheme (such as https:)"#)
    #expect(problem("https://e.com/{{x}}", [:])?.hasSuffix("it holds {, which a URI cannot hold (character 15)") == true)
    #expect(problem("https://e.com/%zz", [:])?.hasSuffix("a % is not followed by two hex digits (character 15)") == true)
    // An IRI's characters beyond ASCII in the template itself are a URI record's to hold.
    #expect(problem("https://例え.jp/{id}", ["id": "1"]) == nil)
    // A `uri` of a message JSON template is a URL too.
    let smart = try messageTemplate(#"{"records":[{"uri":"https://e.com/{p}"},{"text":{"text":"{p}","language":"en"}}]}"#)
    let rendered = try smart.render(row: row(["p": "a b"]), uid: [1], mirror: nil)
    #expect(rendered.message.records.first.flatMap { URIRecord($0)?.uri } == "https://e.com/a%20b")
    #expect(rendered.message.records.last.flatMap { TextRecord($0)?.text } == "a b")
  }

  @Test func emptyURLIsMalformed() throws {
    #expect(throws: MessageRenderError.malformed("the URL is empty")) {
      try MessageTemplate.url(Template("{url}")).render(row: row(["url": ""]), uid: [1], mirror: nil)
    }
  }

  @Test func textRecord() throws {
    let rendered = try MessageTemplate.text(Template("Hi {name} #{n:03}"))
      .render(row: row(["name": "Ada"], sequence: 5), uid: [], mirror: nil)
    let text = ascii("Hi Ada #005")
    // type "T"; status byte 02 (UTF-8, language length 2); "en"
    #expect(rendered.bytes == [0xD1, 0x01, UInt8(text.count + 3), 0x54, 0x02, 0x65, 0x6E] + text)
    #expect(throws: MessageRenderError.malformed("language code must be 1 to 63 ASCII letters, digits or '-'")) {
      try MessageTemplate.text(Template("x"), language: "").render(row: row([:]), uid: [], mirror: nil)
    }
  }

  @Test func jsonValuesAreRenderedAsStringsNotSplicedIntoText() throws {
    let template = try messageTemplate("""
      {"records":[{"uri":"https://e.com/{id}"},{"text":{"text":"say {q} {n}","language":"{lang}"}}]}
      """)
    #expect(template.placeholders == ["id", "q", "lang"])
    let nasty = "\"},{\"uri\":\"evil\"} \\ {{"
    let rendered = try template.render(row: row(["id": "7", "q": nasty, "lang": "fr"], sequence: 3), uid: [], mirror: nil)
    #expect(rendered.message.records.count == 2)
    #expect(URIRecord(rendered.message.records[0])?.uri == "https://e.com/7")
    let text = TextRecord(rendered.message.records[1])
    #expect(text?.text == "say \(nasty) 3")
    #expect(text?.language == "fr")
  }

  @Test func jsonMessageErrors() throws {
    let template = try messageTemplate("{\"records\":[{\"payload\":\"{hex}\",\"tnf\":\"media\",\"type\":\"a/b\"}]}")
    #expect(throws: MessageRenderError.malformed("record 0: payload is not hex")) {
      try template.render(row: row(["hex": "zz"]), uid: [], mirror: nil)
    }
    #expect(throws: MessageRenderError.template(.missingColumn("hex"))) {
      try template.render(row: row([:]), uid: [], mirror: nil)
    }
    #expect(try template.render(row: row(["hex": "0102"]), uid: [], mirror: nil).message.records.first?.payload == [1, 2])
  }

  @Test func jsonTemplateParseErrorsNameThePath() {
    #expect(throws: TemplateError(path: "records[1].text.text", column: 5, reason: "'{' is not closed (a literal brace is written {{)")) {
      try MessageJSONTemplate(parsing: ascii("{\"records\":[{\"uri\":\"x\"},{\"text\":{\"text\":\"abc {\"}}]}"))
    }
    do {
      _ = try MessageJSONTemplate(parsing: ascii("{\"records\":[}"))
      Issue.record("invalid JSON was accepted")
    } catch {
      #expect(error.description == "invalid JSON at byte 12: unexpected character")
    }
  }

  @Test(arguments: MirrorMode.allCases) func mirrorRoomInAURL(mode: MirrorMode) throws {
    let rendered = try MessageTemplate.url(Template("https://e.com/?m={mirror}&id={id}"))
      .render(row: row(["id": "9"]), uid: [1, 2, 3, 4, 5, 6, 7], mirror: mode)
    // D1 01 LL 55 04, then "e.com/?m=" (9 bytes): the room starts at 14.
    #expect(rendered.mirrorRoom == 14 ..< 14 + mode.roomLength)
    #expect(URIRecord(rendered.message.records[0])?.uri == "https://e.com/?m=" + String(repeating: "0", count: mode.roomLength) + "&id=9")
  }

  @Test func mirrorRoomInASmartPoster() throws {
    let template = try messageTemplate("{\"records\":[{\"smartPoster\":{\"uri\":\"https://e.com/?m={mirror}\",\"title\":\"T\"}}]}")
    let rendered = try template.render(row: row([:]), uid: [], mirror: .counter)
    // Sp header D1 02 LL 53 70 (5 bytes), inner URI record header 91 01 LL 55 04 (5), "e.com/?m=" (9).
    #expect(rendered.mirrorRoom == 19 ..< 25)
    #expect(rendered.mirrorRoom.map { Array(rendered.bytes[$0]) } == ascii("000000"))
  }

  @Test func mirrorRoomNotStoredAsASCIIIsRefused() throws {
    let template = try messageTemplate("{\"records\":[{\"payload\":\"{mirror}\",\"tnf\":\"media\",\"type\":\"a/b\"}]}")
    #expect(template.mirrorsOutsideURL == ["records[0].payload"])
    #expect(throws: MessageRenderError.malformed("the {mirror} room is not 14 ASCII bytes in one piece in the encoded message")) {
      try template.render(row: row([:]), uid: [], mirror: .uid)
    }
  }

  @Test func mirrorPlacesAndCounts() throws {
    #expect(try MessageTemplate.text(Template("{mirror}")).mirrorsOutsideURL == ["the text template"])
    #expect(try MessageTemplate.url(Template("{mirror}{mirror}")).mirrorCount == 2)
    let json = try messageTemplate("{\"records\":[{\"uri\":\"{mirror}\"},{\"text\":\"{mirror}\"}]}")
    #expect(json.mirrorCount == 2)
    #expect(json.mirrorsOutsideURL == ["records[1].text"])
  }
}
