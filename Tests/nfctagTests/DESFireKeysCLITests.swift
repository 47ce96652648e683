import DESFireEmulator
import Foundation
import NFCEmulator
import Testing

/// `nfctag desfire keys change` and `keys versions` in process on `sim:desfire-ev1-4k` readers
/// (docs/desfire.md "Command line", docs/exit-codes.md).
@Suite struct DESFireKeysCLI {
  let directory: URL
  static let aesHex = "00112233445566778899AABBCCDDEEFF"

  init() throws {
    DESFireEmulator.register()   // the in-process runner calls no `main`
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-desfire-keys-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  func freshReader() -> String { "sim:desfire-ev1-4k:" + directory.appendingPathComponent("card-\(UUID().uuidString).img").path }

  func keyFile(_ hex: String) throws -> String {
    let path = directory.appendingPathComponent("key-\(UUID().uuidString).txt").path
    try Data((hex + "\n").utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  func run(_ arguments: [String], environment: [String: String] = [:]) throws -> RunResult {
    try runTool(["desfire"] + arguments, environment: environment)
  }

  @Test func thePICCMasterKeyToAESAndBackAndARerunSaysAlreadyChanged() throws {
    let reader = freshReader()
    let aes = try keyFile(Self.aesHex)
    let toAES = ["keys", "change", "--reader", reader, "--picc", "--new-key-file", aes, "--new-key-type", "aes",
                 "--new-key-version", "1", "--yes"]
    let first = try run(toAES)
    #expect(first.status == 0, "\(first.stderr)")
    #expect(first.stderr.contains("changed the PICC master key (aes)"), "\(first.stderr)")
    // The same command line again (as after a cut with the answer lost): the zero key is refused,
    // the new key authenticates with version 1.
    let again = try run(toAES)
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stderr.contains("already changed"), "\(again.stderr)")
    let versions = try run(["keys", "versions", "--reader", reader])
    #expect(versions.stdout.contains("PICC level key 0: version 01"), "\(versions.stdout) \(versions.stderr)")
    // The PICC key is needed now: delete-app's default zero key is refused (77).
    #expect(try run(["format-card", "--reader", reader, "--yes"]).status == 77)
    // Back to DES, authenticating with the AES key from the environment.
    let back = try run(["keys", "change", "--reader", reader, "--picc", "--key-env", "CURRENT", "--key-type", "aes",
                        "--new-key-file", try keyFile(String(repeating: "00", count: 8)), "--yes"],
                       environment: ["CURRENT": Self.aesHex])
    #expect(back.status == 0, "\(back.stderr)")
    #expect(try run(["format-card", "--reader", reader, "--yes"]).status == 0)
  }

  @Test func thePICCMasterKeyNeedsYesAndNothingIsSent() throws {
    let reader = freshReader()
    let r = try run(["keys", "change", "--reader", reader, "--picc", "--new-key-file", try keyFile(Self.aesHex), "--new-key-type", "aes"])
    #expect(r.status == 64, "\(r.stderr)")
    #expect(r.stderr.contains("--yes"))
    // Unchanged: the factory key still formats the card.
    #expect(try run(["format-card", "--reader", reader, "--yes"]).status == 0)
  }

  @Test func anApplicationKeyChangesWithItsOldValueAndTraceShowsNoKey() throws {
    let reader = freshReader()
    #expect(try run(["create-app", "--reader", reader, "--aid", "A1B2C3", "--key-count", "2", "--key-type", "aes"]).status == 0)
    let change = ["keys", "change", "--trace", "--reader", reader, "--aid", "A1B2C3", "--change-key-no", "1", "--key-type", "aes",
                  "--key-file", try keyFile(String(repeating: "00", count: 16)),
                  "--new-key-env", "NEW_KEY", "--new-key-type", "aes", "--new-key-version", "5"]
    let r = try run(change, environment: ["NEW_KEY": Self.aesHex])
    #expect(r.status == 0, "\(r.stderr)")
    let all = (r.stdout + r.stderr).uppercased().replacingOccurrences(of: " ", with: "")
    #expect(all.contains("90C4"), "the trace shows the command")
    #expect(!all.contains("8899AABBCCDD"), "\(r.stderr)")
    // Again: the old key (zero) is no longer the card's, the new one is in place.
    let again = try run(change, environment: ["NEW_KEY": Self.aesHex])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stderr.contains("already changed"), "\(again.stderr)")
    let versions = try run(["keys", "versions", "--reader", reader, "--aid", "A1B2C3"]).stdout
    #expect(versions.contains("key 1: version 05"), "\(versions)")
    // Another new key with a wrong old value: 77, one line naming the options, no key.
    let wrong = try run(["keys", "change", "--reader", reader, "--aid", "A1B2C3", "--change-key-no", "1", "--key-type", "aes",
                         "--key-file", try keyFile(String(repeating: "00", count: 16)),
                         "--new-key-file", try keyFile(String(repeating: "11", count: 16)), "--new-key-type", "aes"])
    #expect(wrong.status == 77, "\(wrong.stderr)")
    #expect(wrong.stderr.contains("--old-key-file"), "\(wrong.stderr)")
    #expect(wrong.stderr.split(separator: "\n").count == 1)
  }

  @Test func badKeysAndOptionsAre64WithoutTheirDigits() throws {
    let reader = freshReader()
    let ambiguous = try run(["keys", "change", "--reader", reader, "--picc", "--yes", "--new-key-file", try keyFile(Self.aesHex)])
    #expect(ambiguous.status == 64, "\(ambiguous.stderr)")
    #expect(ambiguous.stderr.contains("--new-key-type"), "\(ambiguous.stderr)")
    #expect(!ambiguous.stderr.uppercased().contains("AABBCC"))
    let argv = try run(["keys", "change", "--reader", reader, "--picc", "--yes", "--new-key-file", Self.aesHex, "--new-key-type", "aes"])
    #expect(argv.status == 64, "\(argv.stderr)")
    #expect(!argv.stderr.uppercased().contains("AABBCC"))
    #expect(try run(["keys", "change", "--reader", reader, "--change-key-no", "1", "--new-key-env", "X"]).status == 64)  // no --aid
    #expect(try run(["keys", "change", "--reader", reader, "--picc", "--change-key-no", "1", "--new-key-env", "X"]).status == 64)
  }

  @Test func createAppAgainSaysItExistsOrNamesTheDifference() throws {
    let reader = freshReader()
    let create = ["create-app", "--reader", reader, "--aid", "000010", "--key-count", "2", "--key-type", "aes"]
    #expect(try run(create).status == 0)
    let again = try run(create)
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stderr.contains("already exists"), "\(again.stderr)")
    let other = try run(["create-app", "--reader", reader, "--aid", "000010", "--key-count", "3", "--key-type", "aes"])
    #expect(other.status == 65, "\(other.stderr)")
    #expect(other.stderr.contains("2 keys, not 3"), "\(other.stderr)")
  }
}
