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
    let r = try runNFCTag(["ndef", "decode", "--lines"], stdin: Data(input.utf8))
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
    let r = try runNFCTag(["ndef", "decode", "--lines"], stdin: Data(input.utf8))
    #expect(r.status == 0)
    let got = try payloads(r.stdout)
    #expect(got.count == messages.count)
    #expect(got == messages.map { String($0.dropFirst(18)) })
  }

  @Test func blankAndBadLinesAreNumberedLikeTheOthers() throws {
    let input = "\n \t\nzz\n::\nd101085402656e68656c6c6f"
    let r = try runNFCTag(["ndef", "decode", "--lines"], stdin: Data(input.utf8))
    #expect(r.status == 65)
    let lines = r.stdout.split(separator: "\n").map(String.init)
    #expect(lines.count == 3)
    #expect(lines.first == #"{"line":3,"error":"not hex"}"#)
    #expect(lines.count == 3 && lines[1].hasPrefix(#"{"line":4,"error":"invalid NDEF message"#))
    #expect(lines.last?.contains(#""text":"hello""#) == true)
  }

  @Test func formatTextGivesOneTextLinePerMessage() throws {
    // Two records (Text "hello", URI https://a.org), a bad line, a blank line, a Wi-Fi credential.
    let wifi = try runNFCTag(["ndef", "encode", "wifi", "--ssid", "net", "--password-env", "K"], environment: ["K": "secretkey123"])
    let input = "9101085402656e68656c6c6f" + "5101065504612e6f7267\nzz\n\n" + wifi.stdout
    let r = try runNFCTag(["ndef", "decode", "--lines", "--format", "text"], stdin: Data(input.utf8))
    #expect(r.status == 65)
    #expect(r.stdout.split(separator: "\n", omittingEmptySubsequences: false) == [
      "Text (en, utf-8): hello; URI: https://a.org", "line 2: error: not hex",
      "Wi-Fi: SSID \"net\", wpa2-personal, aes, key ******** (--show-secrets to show)", "",
    ])
    let shown = try runNFCTag(["ndef", "decode", "--lines", "--format", "text", "--show-secrets"], stdin: Data(wifi.stdout.utf8))
    #expect(shown.stdout.contains("key \"secretkey123\""), "\(shown.stdout)")
    // Without --format, --lines stays JSON.
    #expect(try runNFCTag(["ndef", "decode", "--lines"], stdin: Data(wifi.stdout.utf8)).stdout.hasPrefix(#"{"records":"#))
    let help = try runNFCTag(["ndef", "decode", "--help"]).stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(help.contains("with an explicit --format text one line of text"))
  }

  @Test func unreadableInputIsExit66WithOneLine() throws {
    // A directory as standard input: open(2) succeeds, read(2) fails with EISDIR.
    let r = try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "exec '\(nfctagBinary().path)' ndef decode --lines < /"])
    #expect(r.status == 66)
    #expect(r.stderr == "nfctag: cannot read standard input: Is a directory\n")
  }
}
