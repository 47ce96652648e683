import Foundation
import Testing

@Suite(.serialized) struct NDEFCommandLine {
  @Test func decodeTextAndJSON() throws {
    let text = try runTool(["ndef", "decode", "d1 01 08 54 02 65 6e 68 65 6c 6c 6f"])
    #expect(text.status == 0)
    #expect(text.stdout == "[0] Text (en, utf-8): hello\n")
    let json = try runTool(["ndef", "decode", "0xd1:01:08:54:02:65:6e:68:65:6c:6c:6f", "--format", "json"])
    #expect(json.stdout.contains(#""text":{"language":"en","encoding":"utf-8","text":"hello"}"#))
  }

  @Test func decodeFromStdinBase64AndRaw() throws {
    let b64 = try runTool(["ndef", "decode", "--input", "base64", "--format", "json"], stdin: Data("0QEIVAJlbmhlbGxv\n".utf8))
    #expect(b64.status == 0)
    #expect(b64.stdout.contains("hello"))
    let raw = try runTool(["ndef", "decode", "-", "--input", "raw"], stdin: Data([0xD1, 0x01, 0x04, 0x55, 0x04, 0x61, 0x2E, 0x62]))
    #expect(raw.stdout == "[0] URI: https://a.b\n")
  }

  @Test func linesModeReportsBadLinesAndGoesOn() throws {
    let input = "d101085402656e68656c6c6f\r\nnot hex\n\nd1010b5402656e\nd101045504612e62\n"
    let r = try runTool(["ndef", "decode", "--lines"], stdin: Data(input.utf8))
    #expect(r.status == 65)
    let lines = r.stdout.split(separator: "\n").map(String.init)
    #expect(lines.count == 4)
    #expect(lines[0].hasPrefix(#"{"records":"#))
    #expect(lines[1] == #"{"line":2,"error":"not hex"}"#)
    #expect(lines[2].hasPrefix(#"{"line":4,"error":"invalid NDEF message"#))
    #expect(lines[3].contains("https://a.b"))
  }

  @Test func badHexIsBadData() throws {
    #expect(try runTool(["ndef", "decode", "d1zz"]).status == 65)
    #expect(try runTool(["ndef", "decode"], stdin: Data("nothex".utf8)).status == 65)
    let truncated = try runTool(["ndef", "decode", "d10105"])
    #expect(truncated.status == 65)
    #expect(truncated.stderr.hasPrefix("nfctag: invalid NDEF message"))
    #expect(truncated.stderr.split(separator: "\n").count == 1)
  }

  @Test func usageAndMissingFile() throws {
    #expect(try runTool(["ndef", "decode", "--bogus"]).status == 64)
    #expect(try runTool(["ndef", "encode", "json", "/nonexistent/file.json"]).status == 66)
    #expect(try runTool(["ndef", "encode", "mime", "text/plain"]).status == 64)
  }

  @Test func encodeEachKind() throws {
    #expect(try runTool(["ndef", "encode", "text", "hello"]).stdout == "d101085402656e68656c6c6f\n")
    #expect(try runTool(["ndef", "encode", "uri", "https://www.a.org"]).stdout == "d101065502612e6f7267\n")
    #expect(try runTool(["ndef", "encode", "mime", "text/plain", "--data", "x"]).stdout == "d20a01746578742f706c61696e78\n")
    #expect(try runTool(["ndef", "encode", "aar", "com.a"]).stdout.hasPrefix("d40f05616e64726f69642e636f6d3a706b67"))
    #expect(try runTool(["ndef", "encode", "external", "a.org:t", "--data", "x"]).stdout == "d40701612e6f72673a7478\n")
    let sp = try runTool(["ndef", "encode", "smartposter", "https://a.org", "--title", "A"])
    #expect(try runTool(["ndef", "decode", sp.stdout.trimmingCharacters(in: .whitespacesAndNewlines)]).stdout
      .contains("Smart Poster: https://a.org, title (en) \"A\""))
    let raw = try runTool(["ndef", "encode", "text", "hi", "--output", "raw"])
    #expect([UInt8](raw.stdoutBytes) == [0xD1, 0x01, 0x05, 0x54, 0x02, 0x65, 0x6E, 0x68, 0x69])
    #expect(try runTool(["ndef", "encode", "text", "hi", "--output", "base64"]).stdout == "0QEFVAJlbmhp\n")
  }

  @Test func encodeJSONRoundTripsDecodeOutput() throws {
    // A URI record with ID "r" (IL), then a T record whose payload is not valid text (kept as bytes).
    let hex = "99010601557204612e6f7267" + "5101015478"
    let decoded = try runTool(["ndef", "decode", hex, "--format", "json"])
    #expect(decoded.status == 0)
    let again = try runTool(["ndef", "encode", "json", "-"], stdin: Data(decoded.stdout.utf8))
    #expect(again.status == 0)
    #expect(again.stdout == hex + "\n")
  }

  @Test func controlCharactersStrippedInTextEscapedInJSON() throws {
    // Text record whose text carries ESC [ 3 1 m
    let hex = "d1010a5402656e411b5b33316d42"
    let text = try runTool(["ndef", "decode", hex])
    #expect(!text.stdout.contains("\u{1B}"))
    #expect(text.stdout.contains("A[31mB"))
    let json = try runTool(["ndef", "decode", hex, "--format", "json"])
    #expect(json.stdout.contains(#"A\u001b[31mB"#))
  }

  @Test func wifiKeyMaskedUnlessAsked() throws {
    let hex = try runTool(["ndef", "encode", "wifi", "--ssid", "Net", "--password-env", "KEY"], environment: ["KEY": "hunter22"]).stdout
      .trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(!(try runTool(["ndef", "decode", hex]).stdout.contains("hunter22")))
    #expect(try runTool(["ndef", "decode", hex, "--show-secrets"]).stdout.contains("hunter22"))
  }
}
