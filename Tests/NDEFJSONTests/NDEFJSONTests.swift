import Testing
import NDEF
@testable import NDEFJSON

private func json(_ text: String) throws -> NDEFMessage {
  try message(fromJSONText: Array(text.utf8))
}

@Suite struct JSONParsing {
  @Test func parsesNestedValuesAndEscapes() throws {
    let v = try JSONParser.parse(Array(#"{"a":[1,-2.5e3,true,false,null],"b":"x\n\u00e9\ud83d\ude00"}"#.utf8))
    #expect(v["a"]?.arrayValue?.count == 5)
    #expect(v["b"]?.stringValue == "x\né😀")
  }

  @Test(arguments: [#"{"a":}"#, #"{"a":1,}"#, "[1 2]", #""abc"#, "tru", #"{"a":"\ud800"}"#, "{} x", "01", #""\x""#])
  func rejectsInvalidJSON(text: String) {
    #expect(throws: JSONParseError.self) { try JSONParser.parse(Array(text.utf8)) }
  }

  @Test func nestingIsLimited() {
    let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
    #expect(throws: JSONParseError.self) { try JSONParser.parse(Array(deep.utf8)) }
  }
}

@Suite struct MessageToJSON {
  @Test func textRecordMatchesTheDocumentedShape() {
    let m = NDEFMessage(records: [TextRecord(text: "Hello").record])
    #expect(messageJSON(m) == #"{"records":[{"tnf":"well-known","type":"T","id":"","payload":"02656e48656c6c6f","text":{"language":"en","encoding":"utf-8","text":"Hello"}}]}"#)
  }

  @Test func controlCharactersAreEscapedNotLost() {
    let m = NDEFMessage(records: [TextRecord(text: "a\u{1B}[31mb\u{7F}").record])
    let out = messageJSON(m)
    #expect(out.contains(#""text":"a\u001b[31mb\u007f""#))
    #expect(!out.unicodeScalars.contains { $0.value < 0x20 })
  }

  @Test func nonASCIITypeAndNonUTF8IDBecomeHex() {
    let m = NDEFMessage(records: [NDEFRecord(tnf: .unknown, identifier: [0xFF], payload: [1])])
    #expect(messageJSON(m).contains(#""idHex":"ff""#))
    #expect(!messageJSON(m).contains(#""id":"#))
    let t = NDEFMessage(records: [NDEFRecord(tnf: .external, type: [0xC3, 0xA9], payload: [])])
    #expect(messageJSON(t).contains(#""typeHex":"c3a9""#))
  }

  @Test func helperKeysOnlyWhenThePayloadParses() {
    let bad = NDEFMessage(records: [NDEFRecord(tnf: .wellKnown, type: [0x55], payload: [0x30, 0x61])])
    #expect(!messageJSON(bad).contains("\"uri\""))
    let good = NDEFMessage(records: [URIRecord(uri: "https://a.org").record])
    #expect(messageJSON(good).contains(#""uri":"https://a.org""#))
  }

  @Test func warningsAppear() throws {
    let m = try NDEFMessage(decoding: [0xD1, 0x00, 0x03, 0x02, 0x65, 0x6E])
    #expect(messageJSON(m).contains(#""warnings":["#))
  }

  @Test func wifiAARAndExternalHelpers() throws {
    let m = NDEFMessage(records: [
      WiFiCredential(ssid: Array("Net".utf8), networkKey: Array("pw".utf8)).record,
      AndroidApplicationRecord(packageName: "com.a").record,
      try ExternalTypeRecord(type: "a.org:t", payload: [1]).record,
    ])
    let out = messageJSON(m)
    #expect(out.contains(#""wifi":{"ssid":"Net","authentication":["wpa2-personal"],"encryption":["aes"],"networkKey":"pw""#))
    #expect(out.contains(#""aar":"com.a""#))
    #expect(out.contains(#""external":{"domain":"a.org","type":"t"}"#))
  }
}

@Suite struct JSONToMessage {
  @Test func decodeOutputFedBackGivesTheSameBytes() throws {
    let original = NDEFMessage(records: [
      TextRecord(text: "Hi", language: "de").record, URIRecord(uri: "tel:+123").record,
      SmartPosterRecord(uri: "https://x.org", titles: [TextRecord(text: "X")]).record,
      NDEFRecord(tnf: .unknown, identifier: [0xFE], payload: [9, 9]),
    ])
    let again = try json(messageJSON(original))
    #expect(try again.encoded() == original.encoded())
  }

  @Test func payloadWinsOverHelpers() throws {
    let m = try json(#"{"records":[{"tnf":"well-known","type":"U","payload":"0461","uri":"ignored"}]}"#)
    #expect(m.records.first?.payload == [0x04, 0x61])
  }

  @Test func helperAloneBuildsTheRecordWithDefaults() throws {
    let m = try json(#"{"records":[{"text":{"text":"Hi"},"id":"r1"},{"uri":"https://a.org"}]}"#)
    #expect(TextRecord(m.records[0])?.language == "en")
    #expect(m.records[0].identifier == Array("r1".utf8))
    #expect(URIRecord(m.records[1])?.uri == "https://a.org")
  }

  @Test(arguments: [
    #"{"records":[{"tnf":"reserved","payload":""}]}"#,
    #"{"records":[{"tnf":"unchanged","payload":""}]}"#, #"{"records":[{"tnf":"media","type":"a/b","payload":"zz"}]}"#,
    #"{"records":[{}]}"#, #"{"x":1}"#, #"{"records":[{"tnf":"empty","type":"T","payload":""}]}"#,
  ])
  func badDataIsRejected(text: String) {
    #expect(throws: MessageJSONError.self) { try json(text) }
  }

  @Test func noRecordsIsTheEmptyMessage() throws {
    #expect(try json(#"{"records":[]}"#).records.isEmpty)
  }
}

@Suite struct TextRendering {
  @Test func stripsEscapeSequencesAndMasksSecrets() {
    let m = NDEFMessage(records: [
      TextRecord(text: "ok\u{1B}]0;pwned\u{07}\u{9B}2J").record,
      WiFiCredential(ssid: Array("Net".utf8), networkKey: Array("hunter2".utf8)).record,
    ])
    let text = messageText(m)
    #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B })
    #expect(!text.contains("hunter2"))
    #expect(messageText(m, showSecrets: true).contains("hunter2"))
  }
}
