import Foundation
import Testing
@testable import nfctag
@testable import NFCTagCLI
import NDEF
import NFCReaders
import NFCTransport
@testable import NTAG424
import NTAG424Emulator

/// A Wi-Fi network key read from a tag never shows in clear in `--trace`, and
/// `send` masks the commands that carry a password.
@Suite struct TraceMasksWiFiKeys {
  /// A key with none of the letters of `application/vnd.wfa.wsc`, so that no window of it shows by chance.
  static let key = "ZQ8#TXR!KM2$UX9&ZQ8#TXR!KM2$UX9&ZQ8#TXR!KM2$UX9&ZQ8#TXR!KM2$UX9"
  let directory: URL

  init() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-tracekey-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  /// Every two bytes of the key that follow each other, as the trace writes them, found in an
  /// answer line (the commands of a read carry addresses, whose bytes may look like anything).
  func leaks(_ trace: String) -> [String] {
    let bytes = Array(Self.key.utf8)
    let answers = trace.split(separator: "\n").filter { $0.hasPrefix("trace: <") }.joined(separator: "\n")
    return (0..<(bytes.count - 1)).map { spaced(bytes[$0...($0 + 1)], separator: " ") }.filter { answers.contains($0) }
  }

  @Test(arguments: ["ntag216", "ntag216@part3", "felica-lite-s", "type4", "icode-slix2", "topaz512"],
        [["read"], ["read", "--format", "hex"], ["scan"], ["dump"], ["dump", "--memory"]])
  func aReadingCommandMasksTheKeyInTheAnswers(kind: String, command: [String]) throws {
    let reader = "sim:\(kind):" + directory.appendingPathComponent("\(kind).bin").path
    let keyFile = directory.appendingPathComponent("key.txt")
    try Data((Self.key + "\n").utf8).write(to: keyFile)
    let write = try runTool(["write", "wifi", "--ssid", "NET", "--password-file", keyFile.path, "--reader", reader])
    #expect(write.status == 0, "\(write.stderr)")
    let r = try runTool(command + ["--trace", "--reader", reader])
    #expect(r.status == 0, "\(kind) \(command): \(r.stderr)")
    #expect(r.stderr.contains("trace: >"), "\(kind) \(command)")
    #expect(leaks(r.stderr).isEmpty, "\(kind) \(command): \(leaks(r.stderr))")
    // Topaz 512: the key's first 17 bytes come in RALL's answer; the rest is in READ8 answers, the
    // PN532's FIFO bits with parity bits between them (not the key's bytes).
    let masked = r.stderr.components(separatedBy: " **").count - 1
    #expect(masked >= (kind == "topaz512" ? 17 : Self.key.utf8.count), "\(kind) \(command): \(r.stderr)")
  }

  @Test func aContinuousScanMasksEachTag() throws {
    let reader = "sim:ntag216:" + directory.appendingPathComponent("c.bin").path
    let keyFile = directory.appendingPathComponent("key.txt")
    try Data((Self.key + "\n").utf8).write(to: keyFile)
    #expect(try runTool(["write", "wifi", "--ssid", "NET", "--password-file", keyFile.path, "--reader", reader]).status == 0)
    let r = try runTool(["scan", "--continuous", "--timeout", "1", "--trace", "--reader", reader], timeout: 20)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("Wi-Fi"), "\(r.stdout)")
    #expect(r.stderr.contains(" ** ** "))
    #expect(leaks(r.stderr).isEmpty, "\(leaks(r.stderr))")
  }

  // MARK: The masking itself, on the readers' events

  /// An ISO 15693 READ SINGLE BLOCK answer through a Part 3 transparent exchange: 13 bytes of data
  /// objects, the response flags, 4 bytes, the status word.
  func type5Answer(_ block: [UInt8]) -> CommandTrace.Entry {
    .exchange(APDUTraceEvent(answer: [0xC0, 0x03, 0x00, 0x90, 0x00, 0x92, 0x01, 0x00, 0x96, 0x02, 0x00, 0x00, 0x97, 0x05, 0x00]
                               + block + [0x90, 0x00], microseconds: 100))
  }

  /// A command of a read, whose bytes are never masked.
  func readCommand(_ block: UInt8) -> CommandTrace.Entry {
    .exchange(APDUTraceEvent(command: [0xFF, 0xC2, 0x00, 0x01, 0x02, 0x20, block], shown: nil))
  }

  @Test func aKeySplitAcrossBlocksIsMaskedInEveryPiece() {
    let key: [UInt8] = Array("ABCDEFGHIJ".utf8)
    let entries = [
      readCommand(0), type5Answer([0x10, 0x27] + key[0..<2]),
      readCommand(1), type5Answer(Array(key[2..<6])),
      readCommand(2), type5Answer(Array(key[6..<10])),
      readCommand(3), type5Answer([0x10, 0x20, 0x00, 0x06]),
    ]
    let out = CommandTrace.masked(entries, secrets: [key])
    #expect(out[1] == "< c0 03 00 90 00 92 01 00 96 02 00 00 97 05 00 10 27 ** ** 90 00 (0.1 ms)")
    #expect(out[3] == "< c0 03 00 90 00 92 01 00 96 02 00 00 97 05 00 ** ** ** ** 90 00 (0.1 ms)")
    #expect(out[5] == "< c0 03 00 90 00 92 01 00 96 02 00 00 97 05 00 ** ** ** ** 90 00 (0.1 ms)")
    #expect(out[7] == "< c0 03 00 90 00 92 01 00 96 02 00 00 97 05 00 10 20 00 06 90 00 (0.1 ms)")
    #expect(out[0] == "> ff c2 00 01 02 20 00")
  }

  @Test func aPieceThatGoesNowhereIsLeft() {
    let key: [UInt8] = Array("ABCDEFGHIJ".utf8)
    // "AB" ends a block, but the next block does not go on with "CD…": not the key.
    let entries = [type5Answer([0x10, 0x27] + key[0..<2]), type5Answer([0x31, 0x32, 0x33, 0x34])]
    #expect(CommandTrace.masked(entries, secrets: [key]) == CommandTrace.masked(entries, secrets: []))
    #expect(!CommandTrace.masked(entries, secrets: [key]).joined().contains("**"))
  }

  @Test func aLongPieceAloneInAnAnswerIsMasked() {
    let key: [UInt8] = Array("ABCDEFGHIJKLMNOP".utf8)
    // Bytes 0–8 of the key, then lock bytes: the rest of the key comes later, elsewhere.
    let answer = APDUTraceEvent(answer: [0xD5, 0x41, 0x00] + key[0..<9] + [0x00, 0xFF, 0xFF, 0x90, 0x00], microseconds: 0)
    #expect(CommandTrace.masked([.exchange(answer)], secrets: [key]) == ["< d5 41 00 ** ** ** ** ** ** ** ** ** 00 ff ff 90 00 (0.0 ms)"])
  }

  @Test func answersAlreadyMaskedErrorsAndTextStayAsTheyAre() {
    let entries: [CommandTrace.Entry] = [
      .exchange(APDUTraceEvent(maskedAnswerWithStatus: [0x90, 0x00], microseconds: 100)),
      .exchange(APDUTraceEvent(failure: "the tag was removed", microseconds: 100)),
      .text("< 41 42 43 44 45 46 47 48"),
    ]
    #expect(CommandTrace.masked(entries, secrets: [Array("ABCDEFGH".utf8)])
            == ["< ******** 90 00 (0.1 ms)", "< error: the tag was removed (0.1 ms)", "< 41 42 43 44 45 46 47 48"])
  }

  /// What a reader logs reaches the trace as an event, not as text to parse: its bytes are there.
  @Test func theReadersEventsReachTheTraceAsData() {
    let errors = CapturedOutput()
    let trace = CommandTrace(errors: errors, statusLine: StatusLine(errors: errors))
    let logger = trace.logger()
    let event = APDUTraceEvent(answer: Array("ABCDEFGH".utf8) + [0x90, 0x00], microseconds: 1200)
    trace.hold()
    logger.trace("\(event.description)", metadata: [APDUTraceEvent.metadataKey: .stringConvertible(event)])
    logger.trace("a line of text")
    #expect(errors.text.isEmpty)
    trace.learnSecrets(of: NDEFMessage(records: [WiFiCredential(ssid: Array("N".utf8), networkKey: Array("ABCDEFGH".utf8)).record]))
    trace.release()
    #expect(errors.text == "trace: < ** ** ** ** ** ** ** ** 90 00 (1.2 ms)\ntrace: a line of text\n")
  }
}

/// Bytes as the trace writes them: "41 42".
private func spaced<C: Collection>(_ bytes: C, separator: String = " ") -> String where C.Element == UInt8 {
  bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined(separator: separator)
}

/// `send` with commands that carry a password: masked in the trace, the answer's data too.
@Suite struct TraceMasksSentPasswords {
  /// `nfctag send --commands-file - ARGUMENTS` on a simulated `tag`, with `commands` on stdin.
  private func send(_ commands: String, _ arguments: [String] = [], tag: String = "ntag215") throws -> RunResult {
    try runTool(["send", "--commands-file", "-"] + arguments + ["--reader", "sim:\(tag)"], stdin: Data(commands.utf8))
  }

  @Test func pwdAuthToAnNTAG() throws {
    let r = try runTool(["send", "1b1a2b3c4d", "--trace", "--reader", "sim:ntag215"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stderr.contains("trace: > ff 00 00 00 07 d4 42 1b ********"), "\(r.stderr)")
    #expect(!r.stderr.contains("1a 2b 3c 4d"))
  }

  /// The password stays out of argv too: `--commands-file -` reads the commands from stdin.
  @Test func pwdAuthFromStandardInput() throws {
    let r = try send("# authenticate, then read page 4\r\n1b 1a2b3c4d\n\n30 04\n", ["--trace"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stderr.contains("trace: > ff 00 00 00 07 d4 42 1b ********"), "\(r.stderr)")
    #expect(!r.stderr.contains("1a 2b 3c 4d"))
    #expect(r.stdout.split(separator: "\n").filter { $0.hasPrefix("> ") }.count == 2, "\(r.stdout)")
    #expect(r.stdout.contains("> 30 04"))
  }

  /// `send`'s own output masks the password and the answer (PACK) the same way, unless asked.
  @Test func sendOutputMasksThePasswordUnlessAsked() throws {
    let masked = try send("1bffffffff\n")
    #expect(masked.status == 0, "\(masked.stderr)")
    #expect(masked.stdout == "> 1b ********\n< ********\n", "\(masked.stdout)")
    let json = try send("1bffffffff\n", ["--format", "json"])
    #expect(json.stdout.contains(#"{"command":"1b********","response":"********"}"#), "\(json.stdout)")
    let shown = try send("1bffffffff\n", ["--show-secrets"])
    #expect(shown.stdout == "> 1b ff ff ff ff\n< 00 00\n", "\(shown.stdout)")
    let apdu = try send("00200001043132333400\n", ["--apdu"], tag: "type4")
    #expect(apdu.stdout.hasPrefix("> 00 20 00 01 04 ********\n< "), "\(apdu.stdout)")
    #expect(!apdu.stdout.contains("31 32 33 34"))
  }

  /// A bad line of --commands-file is named by its number, never by its text (it may hold a password).
  @Test func aBadCommandLineIsNamedByItsNumber() throws {
    let r = try send("30 04\n1b 1a2b3c4dzz\n", ["60"])
    #expect(r.status == 65, "\(r.stderr)")
    #expect(r.stderr == "nfctag: line 2 of standard input is not a command in hex\n")
    let empty = try send("# nothing\n")
    #expect(empty.status == 65)
    #expect(empty.stderr == "nfctag: standard input holds no command\n")
  }

  @Test func setAndWritePasswordToAnICODESLIX2() throws {
    // The addressed form (flag 20h, with the UID) is covered by NFCReadersTests' TraceMasksPasswordCommands.
    let r = try runTool(["send", "02b304041a2b3c4d", "02b404041a2b3c4d", "--trace", "--reader", "sim:icode-slix2"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stderr.contains("95 08 02 b3 04 04 ********"), "\(r.stderr)")
    #expect(r.stderr.contains("95 08 02 b4 04 04 ********"), "\(r.stderr)")
    #expect(!r.stderr.split(separator: "\n").filter { $0.hasPrefix("trace:") }.contains { $0.contains("1a 2b 3c 4d") })
  }

  @Test func verifyAndChangeReferenceDataToAType4Tag() throws {
    let r = try runTool(["send", "--apdu", "00200001043132333400", "00240001083132333435363738", "--trace",
                           "--reader", "sim:type4"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stderr.contains("trace: > 00 20 00 01 04 ********"), "\(r.stderr)")
    #expect(r.stderr.contains("trace: > 00 24 00 01 08 ********"), "\(r.stderr)")
    #expect(!r.stderr.split(separator: "\n").filter { $0.hasPrefix("trace:") }.contains { $0.contains("31 32 33 34") })
  }
}

/// `provision --sdm-url --trace`: neither the master key nor any key derived from it shows in the
/// trace, the events or the ledger. The keys travel only as AuthenticateEV2First's challenges
/// and as ChangeKey's ciphertext under the session keys (NT4H2421Gx datasheet §9.1.5, §10.6.1).
@Suite struct TraceHidesTheMasterKey {
  static let masterHex = "f3a91c07d25b6e48a0c4e19f7b2d5836"

  /// Every window of 6 bytes of `key`, as the trace (spaced) and as hex (joined), both cases.
  static func windows(_ key: [UInt8]) -> [String] {
    (0...(key.count - 6)).flatMap { i -> [String] in
      let part = key[i..<(i + 6)]
      return [spaced(part), spaced(part, separator: ""), spaced(part).uppercased(), spaced(part, separator: "").uppercased()]
    }
  }

  @Test func provisioningA424DNAShowsNoKey() throws {
    NTAG424Emulator.register()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-tracemaster-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let ledger = directory.appendingPathComponent("l.sqlite").path
    let images = directory.appendingPathComponent("img")
    // Three rows, two tags: the run waits for a third tag, so the second one's image is saved.
    let r = try runTool(["provision", "--count", "3", "--sdm-url", "https://example.com/{n}?p={picc}&c={cmac}",
                         "--master-key-env", "NFCTAG_TEST_MASTER", "--trace", "--json", "--timeout", "2", "--ledger", ledger,
                         "--reader", "sim:ntag424dna+feed=2,images=\(images.path)"],
                        environment: ["NFCTAG_TEST_MASTER": Self.masterHex])
    #expect(r.stdout.components(separatedBy: #""status":"done""#).count == 3, "\(r.stdout) \(r.stderr)")
    #expect(r.stderr.contains("trace: >"))
    let master = try AESKey(bytes: parseHex(Self.masterHex) ?? [])
    var keys = [master.bytes]
    for image in try FileManager.default.contentsOfDirectory(at: images, includingPropertiesForKeys: nil) {
      let uidHex = String(image.deletingPathExtension().lastPathComponent.split(separator: "-").last ?? "")
      let uid = try #require(parseHex(uidHex))
      keys += try SDMKeyDiversification.applicationKeys(master: master, uid: uid).map(\.bytes)
    }
    #expect(keys.count == 11)
    let ledgerText = String(decoding: try Data(contentsOf: URL(fileURLWithPath: ledger)), as: UTF8.self)
    for key in keys {
      for window in Self.windows(key) {
        #expect(!r.stderr.contains(window) && !r.stdout.contains(window) && !ledgerText.contains(window), "a key's bytes \(window) showed")
      }
    }
  }
}
