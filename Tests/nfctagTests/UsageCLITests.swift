import Foundation
import Testing

/// A refused command line is one `nfctag:` line and exit 64; locking a
/// locked tag is not an error.
@Suite struct CommandLineRefusals {
  @Test(arguments: [
    ["read", "--timeout", "0"], ["read", "--timeout", "-1"], ["read", "--bogus"], ["lock", "--reader", "sim:ntag213"],
    ["write", "text"], ["emulate", "--tag", "ntag215", "--uid", "0102"], ["send"],
    ["reader", "led", "--period", "150"],
  ])
  func isOneLineAndExit64(arguments: [String]) throws {
    let r = try runTool(arguments)
    #expect(r.status == 64, "\(arguments): \(r.stderr)")
    #expect(r.stderr.hasPrefix("nfctag: "), "\(arguments): \(r.stderr)")
    #expect(r.stderr.split(separator: "\n").count == 1, "\(arguments): \(r.stderr)")
  }

  @Test func theTimeoutMessageSaysWhatItTakes() throws {
    for value in ["0", "-1"] {
      let r = try runTool(["read", "--timeout", value])
      #expect(r.stderr.contains("more than 0 and at most 86400"), "\(value): \(r.stderr)")
    }
  }

  @Test func helpAndVersionStillExitZero() throws {
    #expect(try runTool(["--version"]).status == 0)
    #expect(try runTool(["read", "--help"]).stdout.contains("USAGE: nfctag read"))
  }

  @Test func lockingALockedTagSaysSoAndSucceeds() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-lock-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let reader = "sim:ntag213:" + directory.appendingPathComponent("t.bin").path
    #expect(try runTool(["lock", "--yes", "--reader", reader]).stderr == "nfctag: the tag is now read-only\n")
    let again = try runTool(["lock", "--yes", "--reader", reader])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stderr == "nfctag: the tag is already read-only\n")
  }
}

/// Small things in what the tool says and reads: an unformatted or empty tag, chip names, `text -`,
/// JSON with a BOM, no empty version in `info --json`.
@Suite struct SmallFixes {
  @Test func notFormattedIsSaidOnce() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-nf-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let image = directory.appendingPathComponent("blank.bin")
    var bytes = try runTool(["dump", "--memory", "--format", "raw", "--reader", "sim:felica-lite-s"]).stdoutBytes
    bytes.replaceSubrange(0..<16, with: [UInt8](repeating: 0, count: 16))  // no attribute block
    try bytes.write(to: image)
    let r = try runTool(["read", "--reader", "sim:felica-lite-s:\(image.path)"])
    #expect(r.status == 65, "\(r.stderr)")
    #expect(r.stderr.components(separatedBy: "not NDEF formatted").count == 2, "\(r.stderr)")
  }

  @Test func readingAnEmptyTagOnATerminalSaysSo() throws {
    let tty = try runProgram("/usr/bin/script", ["-qec", "\(nfctagBinary().path) read --reader sim:ntag215", "/dev/null"])
    #expect(tty.status == 0)
    #expect(tty.stdout.contains("(empty NDEF message)"))
    #expect(try runTool(["read", "--reader", "sim:ntag215"]).stdout == "(empty NDEF message)\n")  // a pipe too
  }

  @Test func noArticleBeforeAChipName() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-art-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let image = directory.appendingPathComponent("short.bin")
    try Data(repeating: 0, count: 12).write(to: image)
    let r = try runTool(["read", "--reader", "sim:ntag216:\(image.path)"])
    #expect(r.status == 64, "\(r.stderr)")
    #expect(r.stderr.contains("NTAG216 images have 924 bytes"))
    #expect(!r.stderr.contains("a NTAG216"))
  }

  @Test func textDashReadsStandardInput() throws {
    let r = try runTool(["ndef", "encode", "text", "-"], stdin: Data("from stdin\n".utf8))
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout == "d1010d5402656e66726f6d20737464696e\n")  // "from stdin", not "-"
  }

  @Test func jsonWithAUTF8BOMIsAccepted() throws {
    let json = Data([0xEF, 0xBB, 0xBF]) + Data(#"{"records":[{"type":"text","text":"bom"}]}"#.utf8)
    let r = try runTool(["ndef", "encode", "json", "-"], stdin: json)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout == "d101065402656e626f6d\n")
  }

  @Test(arguments: ["topaz512", "felica-lite-s", "type4", "icode-slix2", "ntag215"])
  func infoJSONHasNoEmptyVersion(kind: String) throws {
    let r = try runTool(["info", "--json", "--reader", "sim:\(kind)"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(!r.stdout.contains(#""version":"""#))
  }
}

/// Bidi controls, zero-width characters and BOMs in tag text never reach a
/// terminal; JSON escapes them.
@Suite struct HostileText {
  @Test func textOutputStripsAndJSONEscapesThem() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-bidi-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let reader = "sim:ntag215:" + directory.appendingPathComponent("t.bin").path
    let hostile = "pay\u{202E}lmth.exe\u{2066}x\u{200B}y\u{FEFF}z"
    #expect(try runTool(["write", "text", hostile, "--reader", reader]).status == 0)
    let text = try runTool(["read", "--reader", reader])
    #expect(text.status == 0, "\(text.stderr)")
    #expect(text.stdout.contains("paylmth.exexyz"))
    for scalar in ["\u{202E}", "\u{2066}", "\u{200B}", "\u{FEFF}"] { #expect(!text.stdout.contains(scalar)) }
    let scan = try runTool(["scan", "--reader", reader])
    #expect(!scan.stdout.contains("\u{202E}"))
    let json = try runTool(["read", "--format", "json", "--reader", reader])
    #expect(json.stdout.contains(#"pay\u202elmth.exe\u2066x\u200by\ufeffz"#), "\(json.stdout)")
  }
}

/// Raw bytes go to a terminal only with --force (like gzip).
@Suite struct RawOutputOnATerminal {
  @Test func isRefusedWithoutForce() throws {
    let binary = nfctagBinary().path
    let refused = try runProgram("/usr/bin/script", ["-qec", "\(binary) read --format raw --reader sim:ntag215", "/dev/null"])
    #expect(refused.status == 64, "\(refused.stdout)")
    #expect(refused.stdout.contains("refusing to write raw bytes to a terminal"))
    let forced = try runProgram("/usr/bin/script", ["-qec", "\(binary) read --format raw --force --reader sim:ntag215", "/dev/null"])
    #expect(forced.status == 0, "\(forced.stdout)")
    #expect(!forced.stdout.contains("refusing"))
    #expect(try runTool(["read", "--format", "raw", "--reader", "sim:ntag215"]).status == 0)  // a pipe is fine
  }
}

/// A tag with a valid CC and a broken TLV is reported (UID, chip), then the
/// NDEF problem, exit 65.
@Suite struct ScanOfABrokenTag {
  @Test func reportsWhatItIdentifiedThenTheProblem() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-broken-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let image = directory.appendingPathComponent("t.bin")
    var bytes = try runTool(["dump", "--memory", "--format", "raw", "--reader", "sim:ntag213"]).stdoutBytes
    bytes.replaceSubrange(16..<19, with: [0x03, 0xF0, 0x00])  // an NDEF TLV of 240 bytes in a 144-byte area
    try bytes.write(to: image)
    let reader = "sim:ntag213:" + image.path
    let text = try runTool(["scan", "--reader", reader])
    #expect(text.status == 65, "\(text.stderr)")
    #expect(text.stdout.contains("uid:    04:a1:b2"))
    #expect(text.stdout.contains("NTAG213"))
    #expect(text.stderr.split(separator: "\n").count == 1)
    let json = try runTool(["scan", "--json", "--reader", reader])
    #expect(json.status == 65)
    #expect(json.stdout.contains(#""chip":"NTAG213""#))
    #expect(json.stdout.contains(#""error":"malformed tag data"#))
  }
}

/// Wi-Fi credentials no phone can join are refused; a URL without a scheme
/// is written with a warning, or refused with --strict.
@Suite struct JoinableWiFiAndSchemes {
  @Test(arguments: [
    (["--ssid", "H"], "short"),                                       // WPA2 key under 8 characters
    (["--ssid", "H"], String(repeating: "k", count: 64)),             // 64 characters that are not hex
    (["--ssid", "H", "--encryption", "none"], "longenough"),          // a WPA2 key without a cipher
    (["--ssid", "H", "--auth", "open", "--encryption", "aes"], nil),  // open network, WPA cipher
    (["--ssid", "H", "--auth", "open", "--encryption", "none"], "longenough"),  // open network, key
  ] as [([String], String?)])
  func unjoinableWiFiIsRefused(arguments: [String], key: String?) throws {
    let keyArguments = key == nil ? [] : ["--password-env", "WIFI_KEY"]
    let r = try runTool(["ndef", "encode", "wifi"] + arguments + keyArguments, environment: key.map { ["WIFI_KEY": $0] } ?? [:])
    #expect(r.status == 64, "\(arguments): \(r.stderr)")
    #expect(r.stderr.split(separator: "\n").count == 1)
    if let key { #expect(!r.stderr.contains(key)) }
  }

  @Test func joinableWiFiIsWritten() throws {
    let fromEnvironment = try runTool(["ndef", "encode", "wifi", "--ssid", "H", "--password-env", "WIFI_KEY"],
                                        environment: ["WIFI_KEY": "longenough"])
    #expect(fromEnvironment.status == 0)
    let hexKey = String(repeating: "a1", count: 32)
    let fromStdin = try runTool(["ndef", "encode", "wifi", "--ssid", "H", "--password-file", "-"], stdin: Data((hexKey + "\r\n").utf8))
    #expect(fromStdin.status == 0)
    #expect(try runTool(["ndef", "decode", "--show-secrets", fromStdin.stdout.trimmingCharacters(in: .whitespacesAndNewlines)])
      .stdout.contains(hexKey))
    #expect(try runTool(["ndef", "encode", "wifi", "--ssid", "Open"]).status == 0)
  }

  /// Secrets never go in argv: a Wi-Fi key given on the command line is refused (64) without
  /// being repeated, and so is a key given two ways.
  @Test func aWiFiKeyInArgvIsRefused() throws {
    let inArgv = try runTool(["ndef", "encode", "wifi", "--ssid", "H", "--password", "longenough"])
    #expect(inArgv.status == 64)
    #expect(inArgv.stdout.isEmpty)
    #expect(inArgv.stderr.split(separator: "\n").count == 1)
    #expect(inArgv.stderr.contains("--password-file"))
    #expect(!inArgv.stderr.contains("longenough"))
    let both = try runTool(["ndef", "encode", "wifi", "--ssid", "H", "--password-env", "K", "--password-file", "-"],
                             stdin: Data("longenough\n".utf8), environment: ["K": "longenough"])
    #expect(both.status == 64)
    #expect(!(try runTool(["write", "wifi", "--help"]).stdout.contains("--password <")))
  }

  @Test func aURLWithoutASchemeWarnsOrIsRefused() throws {
    let warned = try runTool(["ndef", "encode", "url", "example.com"])
    #expect(warned.status == 0)
    #expect(warned.stderr.contains("warning: 'example.com' has no scheme"))
    #expect(try runTool(["ndef", "encode", "url", "--strict", "example.com"]).status == 64)
    #expect(try runTool(["ndef", "encode", "url", "https://example.com"]).stderr.isEmpty)
  }
}

/// The pipes users build between commands work (hex text between commands).
@Suite struct Pipes {
  func shell(_ script: String) throws -> RunResult {
    try runProgram("/bin/bash", ["-c", "set -o pipefail; N=\(nfctagBinary().path); " + script])
  }

  @Test func encodeTakesFormatAndStillOutput() throws {
    #expect(try runTool(["ndef", "encode", "text", "hi", "--format", "base64"]).stdout == "0QEFVAJlbmhp\n")
    #expect(try runTool(["ndef", "encode", "text", "hi", "--output", "base64"]).stdout == "0QEFVAJlbmhp\n")
  }

  @Test func encodeIntoWriteNDEF() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-pipe-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let reader = "sim:ntag215:" + directory.appendingPathComponent("t.bin").path
    let write = try shell("$N ndef encode text piped | $N write ndef - --reader \(reader)")
    #expect(write.status == 0, "\(write.stderr)")
    #expect(try runTool(["read", "--reader", reader]).stdout.contains("piped"))
    let decode = try shell("$N dump --reader \(reader) | $N ndef decode")
    #expect(decode.status == 0, "\(decode.stderr)")
    #expect(decode.stdout.contains("Text (en, utf-8): piped"))
    let memory = try shell("$N dump --memory --reader \(reader) | wc -l")
    #expect(memory.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1")  // one line of hex
    #expect(try runTool(["dump", "--format", "hexdump", "--reader", reader]).stdout.hasPrefix("0000: d1"))
  }
}

/// `send` to every kind of tag the tag reader session types: FeliCa packets and ISO 15693 requests.
@Suite struct SendToEveryKind {
  @Test func iso15693GetSystemInformation() throws {
    let r = try runTool(["send", "022b", "--format", "json", "--reader", "sim:icode-slix2"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains(#""kind":"iso15693""#))
    #expect(r.stdout.contains(#""command":"022b","response":"000f"#))  // flags 00, info flags 0F
  }

  @Test func iso15693ErrorIsNamed() throws {
    // GET MULTIPLE BLOCK SECURITY STATUS of block 80 (50h): the SLIX2 has 80 blocks, so error 10h.
    let r = try runTool(["send", "022c5000", "--reader", "sim:icode-slix2"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("< 01 10  (error 10h: block not available)"), "\(r.stdout)")
  }

  @Test func feliCaReadWithoutEncryption() throws {
    let scan = try runTool(["scan", "--json", "--reader", "sim:felica-lite-s"])
    let idm = try #require(scan.stdout.split(separator: "\"").drop { $0 != "uid" }.dropFirst(2).first)
    let r = try runTool(["send", "06\(idm)010b00018000", "--reader", "sim:felica-lite-s"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("< 07 \(stride(from: 0, to: idm.count, by: 2).map { i in String(idm.dropFirst(i).prefix(2)) }.joined(separator: " ")) 00 00 01"))
  }
}
