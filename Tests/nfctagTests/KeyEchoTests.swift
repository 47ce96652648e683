import Foundation
import NTAG424Emulator
import Testing
@testable import NFCTagCLI

/// A key pasted where a file or variable name belongs, or as an extra argument, is never printed
/// back: the error says that a key goes in a file or an environment variable.
/// In process (`runTool`) and through both programs (nfctag hands `sdm` and `keys` over to
/// nfctag-provision, which prints the line the user sees).
@Suite struct KeysNeverEchoed {
  static let key = "8d1c0f5e2a7b49c3be60d1f4a5972e3c"
  static let url = "https://example.com/t?p=0123456789ABCDEF0123456789ABCDEF&c=0123456789ABCDEF"
  static let advice = "a key goes in a file or an environment variable"

  init() { NTAG424Emulator.register() }

  /// Every option that names where a key or password is, given the key itself.
  static let pasted: [[String]] = [
    ["sdm", "verify", url, "--meta-key-file", key],
    ["sdm", "verify", url, "--meta-key-env", key],
    ["sdm", "verify", url, "--file-key-file", key.uppercased()],
    ["sdm", "verify", url, "--master-key-env", key],
    ["sdm", "serve", "--master-key-file", key, "--ledger", "/nonexistent/ledger.sqlite"],
    ["sdm", "serve", "--master-key-env", key, "--ledger", "/nonexistent/ledger.sqlite"],
    ["sdm", "setup", "--url", "https://example.com/?p={picc}&c={cmac}", "--auth-key-file", key, "--reader", "sim:ntag424dna"],
    ["keys", "change", "--key", "1", "--new-key-env", key, "--version", "1", "--reader", "sim:ntag424dna"],
    ["keys", "change", "--key", "1", "--new-key-file", key, "--version", "1", "--reader", "sim:ntag424dna"],
    ["keys", "change", "--key", "1", "--new-key-env", "NEW", "--old-key-file", key, "--version", "1", "--reader", "sim:ntag424dna"],
    ["keys", "change", "--all", "--new-keys-file", key, "--version", "1", "--yes", "--reader", "sim:ntag424dna"],
  ]

  @Test(arguments: pasted)
  func aKeyInPlaceOfAFileOrVariableIsNotEchoed(_ arguments: [String]) throws {
    let r = try runTool(arguments, environment: ["NEW": String(repeating: "11", count: 16)])
    #expect(r.status == 64, "\(arguments): \(r.stderr)")
    #expect(!r.stderr.lowercased().contains(Self.key), "\(r.stderr)")
    #expect(r.stderr.contains(Self.advice), "\(r.stderr)")
    // One failure line (`sdm setup` warns of the factory SDM keys first).
    #expect(r.stderr.split(separator: "\n").filter { !$0.hasPrefix("nfctag: warning: ") }.count == 1, "\(r.stderr)")
  }

  /// `provision --sdm-url --master-key-file KEY` and `--secret-env KEY`: the rows are good, the
  /// key source is the key.
  @Test func provisionsKeyOptions() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-keyecho-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let rows = directory.appendingPathComponent("tags.csv")
    try Data("id\nA1\n".utf8).write(to: rows)
    for arguments in [["--sdm-url", "https://e.com/{id}?p={picc}&c={cmac}", "--master-key-file", Self.key],
                      ["--sdm-url", "https://e.com/{id}?p={picc}&c={cmac}", "--master-key-env", Self.key],
                      ["--url", "https://e.com/{id}", "--protect", "--secret-env", Self.key],
                      ["--url", "https://e.com/{id}", "--protect", "--secret-file", Self.key]] {
      let r = try runTool(["provision", rows.path, "--reader", "sim:ntag424dna", "--timeout", "1"] + arguments)
      #expect(r.status == 64, "\(arguments): \(r.stderr)")
      #expect(!r.stderr.lowercased().contains(Self.key), "\(r.stderr)")
      #expect(r.stderr.contains(Self.advice), "\(r.stderr)")
    }
  }

  /// The shorter secrets of nfctag's own commands: an NTAG password (8 hex digits) given to
  /// `--tag-password-file`/`-env` or `--new-password-*`, MIFARE Classic keys (12 hex digits) to
  /// `--keys`: the value is not printed when it looks like a key (hex digits only, 8 or more).
  @Test(arguments: [
    (["read", "--tag-password-file", "1a2b3c4d", "--reader", "sim:ntag215"], "1a2b3c4d"),
    (["read", "--tag-password-env", "1A2B3C4D", "--reader", "sim:ntag215"], "1A2B3C4D"),
    (["password", "set", "--new-password-env", "1a2b3c4d", "--reader", "sim:ntag215"], "1a2b3c4d"),
    (["read", "--keys", "A0A1A2A3A4A5", "--reader", "sim:mifare-classic-1k"], "A0A1A2A3A4A5"),
    (["write", "wifi", "--ssid", "H", "--password-file", String(repeating: "a1", count: 32), "--reader", "sim:ntag215"],
     String(repeating: "a1", count: 32)),
  ] as [([String], String)])
  func shortSecretsAreNotEchoedEither(_ arguments: [String], _ secret: String) throws {
    let r = try runTool(arguments)
    #expect(r.status == 64, "\(arguments): \(r.stderr)")
    #expect(!r.stderr.contains(secret), "\(r.stderr)")
    #expect(r.stderr.contains("file or an environment variable"), "\(r.stderr)")
  }

  /// A key given as an argument of its own: ArgumentParser's "Unexpected argument" line, with the
  /// key hidden and the advice.
  @Test(arguments: [
    ["sdm", "verify", url, key],
    ["keys", "versions", key],
    ["read", key],
    ["sdm", "serve", "--ledger", "x.sqlite", "--master-key-env", "M", key],
    ["provision", "rows.csv", key, "--url", "https://e.com/{id}"],
  ])
  func aKeyAsAnArgumentIsNotEchoed(_ arguments: [String]) throws {
    let r = try runTool(arguments)
    #expect(r.status == 64, "\(arguments): \(r.stderr)")
    #expect(!r.stderr.lowercased().contains(Self.key), "\(r.stderr)")
    #expect(r.stderr.contains(Self.advice), "\(r.stderr)")
  }

  /// What the user sees from the programs themselves: nfctag's own refusal, nfctag-provision's
  /// after the hand-over, and nfctag-provision run directly.
  @Test func theProgramsDoNotEchoAKey() throws {
    let provision = nfctagBinary().deletingLastPathComponent().appendingPathComponent("nfctag-provision")
    for arguments in [["sdm", "verify", Self.url, "--meta-key-file", Self.key],
                      ["sdm", "verify", Self.url, "--meta-key-env", Self.key],
                      ["sdm", "verify", Self.url, Self.key],
                      ["keys", "change", "--key", "1", "--new-key-env", Self.key, "--version", "1", "--reader", "sim:ntag424dna"]] {
      for result in [try runNFCTag(arguments), try runProcess(provision, arguments)] {
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(!result.stderr.lowercased().contains(Self.key), "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(Self.advice), "\(arguments): \(result.stderr)")
        #expect(result.stderr.hasPrefix("nfctag: ") && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
      }
    }
  }

  /// The one rule every printed line goes through: 32 or more hex digits in a row are hidden,
  /// and the advice is added once; a line without such a run is left as it is.
  @Test func theRedaction() {
    let hidden = hidingKeyMaterial("cannot read 00112233445566778899AABBCCDDEEFF: No such file or directory")
    #expect(!hidden.contains("00112233445566778899AABBCCDDEEFF"))
    #expect(hidden.contains("(32 hex digits, not shown)") && hidden.hasSuffix(keyPlacementAdvice))
    let twice = hidingKeyMaterial("\(Self.key) and \(Self.key)0011")
    #expect(!twice.contains(Self.key) && twice.components(separatedBy: keyPlacementAdvice).count == 2)
    let plain = "no key opened sector 2 (UID 04a1b2c3d4e5f6, answer 6300)"
    #expect(hidingKeyMaterial(plain) == plain)
    #expect(looksLikeKeyMaterial("1a2b3c4d") && looksLikeKeyMaterial("A0:A1:A2:A3:A4:A5") && looksLikeKeyMaterial("0x" + Self.key))
    #expect(!looksLikeKeyMaterial("keys.txt") && !looksLikeKeyMaterial("1a2b3c") && !looksLikeKeyMaterial("-")
            && !looksLikeKeyMaterial("KEY_ENV") && !looksLikeKeyMaterial("deadbeef.hex"))
  }
}
