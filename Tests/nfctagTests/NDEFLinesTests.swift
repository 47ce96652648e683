import Foundation
import Testing

/// `ndef decode --lines` on inputs that cross the reader's buffer: long lines, many lines, a last
/// line without a line feed. The built binary, fed through a pipe.
@Suite(.serialized) struct NDEFLinesStreaming {
  /// A one-record message (MIME `a/b`, long record) whose payload is `count` bytes `i % 251`.
  private func mimeMessageHex(payloadCount count: Int) -> String {
    let length = [UInt8(count >> 24 & 0xFF), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
    let bytes: [UInt8] = [0xC2, 0x03] + length + Array("a/b".utf8) + (0..<count).map { UInt8($0 % 251) }
    return bytes.map { String(format: "%02x", $0) }.joined()
  }

  private func payloads(_ stdout: String) throws -> [String] {
    try stdout.split(separator: "\n").map { line in
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      let records = object?["records"] as? [[String: Any]]
      return records?.first?["payload"] as? String ?? "(no payload: \(line.prefix(80)))"
    }
  }

  @Test func aLineLongerThanTheReadBufferComesOutWhole() throws {
    // 700,000 bytes: 1.4 MB of hex on one line, more than the 1 MB first buffer holds.
    let long = mimeMessageHex(payloadCount: 700_000)
    let small = "d101085402656e68656c6c6f"
    let input = small + "\n" + long + "\n" + small + "\n"
    let r = try runTool(["ndef", "decode", "--lines"], stdin: Data(input.utf8))
    #expect(r.status == 0)
    let got = try payloads(r.stdout)
    #expect(got.count == 3)
    #expect(got.count == 3 && got[1] == String(long.dropFirst(2 * 9)))  // header (2+4) and type (3) dropped
    #expect(got.first == "02656e68656c6c6f" && got.last == "02656e68656c6c6f")
  }

  @Test func manyLinesAcrossBufferBoundariesKeepTheirOrder() throws {
    // 40,000 messages of 20 to 219 payload bytes: about 10 MB of hex, ten buffers and more.
    let messages = (0..<40_000).map { mimeMessageHex(payloadCount: 20 + $0 % 200) }
    let input = messages.joined(separator: "\r\n")  // CRLF, and no line feed after the last one
    let r = try runTool(["ndef", "decode", "--lines"], stdin: Data(input.utf8))
    #expect(r.status == 0)
    let got = try payloads(r.stdout)
    #expect(got.count == messages.count)
    #expect(got == messages.map { String($0.dropFirst(18)) })
  }

  @Test func blankAndBadLinesAreNumberedLikeTheOthers() throws {
    let input = "\n \t\nzz\n::\nd101085402656e68656c6c6f"
    let r = try runTool(["ndef", "decode", "--lines"], stdin: Data(input.utf8))
    #expect(r.status == 65)
    let lines = r.stdout.split(separator: "\n").map(String.init)
    #expect(lines.count == 3)
    #expect(lines.first == #"{"line":3,"error":"not hex"}"#)
    #expect(lines.count == 3 && lines[1].hasPrefix(#"{"line":4,"error":"invalid NDEF message"#))
    #expect(lines.last?.contains(#""text":"hello""#) == true)
  }

  /// The whole line loop, byte for byte as it wrote these lines before its fast paths: UTF-16
  /// text, a URI, a smart poster, a MIME type with CR LF in it, an external type, a chunked
  /// record, a long-form header, an empty ID, an empty record; a blank line, a line that is not
  /// hex and a cut message keep their line numbers; CR LF line ends, none after the last.
  @Test func linesOfEveryKindComeOutAsBefore() throws {
    let input: [String] = [
      ##"d1012b5482656efeff00340020004200610068006e0068006f00660020006f00660020007200e900730075006d00e9"##,
      ##"d1011055066578616d706c652e636f6d2f393432"##,
      ##"d1022553709101045504612e62110301616374001103016163740211010473ffffffff51010374612262"##,
      ##"  "##,
      ##"d20c03746578742f0d0a706c61696e616263"##,
      ##"0xd1:01 zz"##,
      ##"d40701612e623a633a6478"##,
      ##"d1010a5402"##,
      ##"b20a0a746578742f706c61696e6f6620776f726473207436000b616209686572652070726956002163653a2031322c353020e282ac207461620968657265206261636b5c736c617368"##,
      ##"c20a00000030746578742f7663617264424547494e3a56434152440d0a56455253494f4e3a332e300d0a464e3a506572736f6e20300d0a454e443a5643415244"##,
      ##"d90145005482656efffe630061006600e900200074006100620009006800650072006500200074006100620009006800650072006500200074006500780074002000630061006600e900"##,
      ##"d00000"##,
    ]
    let expected: [String] = [
      ##"{"records":[{"tnf":"well-known","type":"T","id":"","payload":"82656efeff00340020004200610068006e0068006f00660020006f00660020007200e900730075006d00e9","text":{"language":"en","encoding":"utf-16","text":"4 Bahnhof of résumé"}}]}"##,
      ##"{"records":[{"tnf":"well-known","type":"U","id":"","payload":"066578616d706c652e636f6d2f393432","uri":"mailto:example.com/942"}]}"##,
      ##"{"records":[{"tnf":"well-known","type":"Sp","id":"","payload":"9101045504612e62110301616374001103016163740211010473ffffffff51010374612262","smartPoster":{"uri":"https://a.b","titles":[],"action":2,"size":4294967295,"type":"a\"b"}}]}"##,
      ##"{"records":[{"tnf":"media","type":"text/\r\nplain","id":"","payload":"616263","mime":{"type":"text/\r\nplain","text":"abc"}}]}"##,
      ##"{"line":6,"error":"not hex"}"##,
      ##"{"records":[{"tnf":"external","type":"a.b:c:d","id":"","payload":"78","external":{"domain":"a.b","type":"c:d"}}]}"##,
      ##"{"line":8,"error":"invalid NDEF message: the payload needs 10 byte(s) but only 1 are left at byte 4"}"##,
      ##"{"records":[{"tnf":"media","type":"text/plain","id":"","payload":"6f6620776f7264732074616209686572652070726963653a2031322c353020e282ac207461620968657265206261636b5c736c617368","mime":{"type":"text/plain","text":"of words tab\there price: 12,50 € tab\there back\\slash"}}]}"##,
      ##"{"records":[{"tnf":"media","type":"text/vcard","id":"","payload":"424547494e3a56434152440d0a56455253494f4e3a332e300d0a464e3a506572736f6e20300d0a454e443a5643415244","mime":{"type":"text/vcard","text":"BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Person 0\r\nEND:VCARD"}}]}"##,
      ##"{"records":[{"tnf":"well-known","type":"T","id":"","payload":"82656efffe630061006600e900200074006100620009006800650072006500200074006100620009006800650072006500200074006500780074002000630061006600e900","text":{"language":"en","encoding":"utf-16","text":"café tab\there tab\there text café"}}]}"##,
      ##"{"records":[{"tnf":"empty","type":"","id":"","payload":""}]}"##,
    ]
    let r = try runTool(["ndef", "decode", "--lines"], stdin: Data(input.joined(separator: "\r\n").utf8))
    #expect(r.status == 65)
    #expect(r.stdout == expected.map { $0 + "\n" }.joined())
  }

  @Test func formatTextGivesOneTextLinePerMessage() throws {
    // Two records (Text "hello", URI https://a.org), a bad line, a blank line, a Wi-Fi credential.
    let wifi = try runTool(["ndef", "encode", "wifi", "--ssid", "net", "--password-env", "K"], environment: ["K": "secretkey123"])
    let input = "9101085402656e68656c6c6f" + "5101065504612e6f7267\nzz\n\n" + wifi.stdout
    let r = try runTool(["ndef", "decode", "--lines", "--format", "text"], stdin: Data(input.utf8))
    #expect(r.status == 65)
    #expect(r.stdout.split(separator: "\n", omittingEmptySubsequences: false) == [
      "Text (en, utf-8): hello; URI: https://a.org", "line 2: error: not hex",
      "Wi-Fi: SSID \"net\", wpa2-personal, aes, key ******** (--show-secrets to show)", "",
    ])
    let shown = try runTool(["ndef", "decode", "--lines", "--format", "text", "--show-secrets"], stdin: Data(wifi.stdout.utf8))
    #expect(shown.stdout.contains("key \"secretkey123\""), "\(shown.stdout)")
    // Without --format, --lines stays JSON.
    #expect(try runTool(["ndef", "decode", "--lines"], stdin: Data(wifi.stdout.utf8)).stdout.hasPrefix(#"{"records":"#))
    let help = try runTool(["ndef", "decode", "--help"]).stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(help.contains("with an explicit --format text one line of text"))
  }

  @Test func unreadableInputIsExit66WithOneLine() throws {
    // A directory as standard input: open(2) succeeds, read(2) fails with EISDIR.
    let r = try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "exec '\(nfctagBinary().path)' ndef decode --lines < /"])
    #expect(r.status == 66)
    #expect(r.stderr == "nfctag: cannot read standard input: Is a directory\n")
  }
}
