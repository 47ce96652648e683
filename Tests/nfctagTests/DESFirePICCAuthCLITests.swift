import DESFireEmulator
import Foundation
import Testing

/// `--picc-auth ev1|ev2|auto` in process on `sim:` EV3 and EV1 image readers: the PICC master key
/// authenticates by AuthenticateEV2First (71h) and the PICC-level commands after it go under EV2
/// secure messaging, for every command that takes the PICC master key (docs/desfire.md, "EV2
/// secure messaging"; docs/exit-codes.md, "desfire").
@Suite struct DESFirePICCAuthCLI {
  let directory: URL
  /// The AES PICC master key the card is given, 00 11 22 … FF.
  let piccKey: String
  /// A second AES key, for ChangeKey of the PICC master key under EV2.
  let secondKey: String
  let desKey: String

  init() throws {
    DESFireEmulator.register()   // the in-process runner calls no `main`
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-desfire-picc-ev2-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    (piccKey, secondKey, desKey) = (directory.appendingPathComponent("picc.key").path, directory.appendingPathComponent("second.key").path,
                                    directory.appendingPathComponent("des.key").path)
    try Data("00112233445566778899aabbccddeeff\n".utf8).write(to: URL(fileURLWithPath: piccKey))
    try Data("0f0e0d0c0b0a09080706050403020100\n".utf8).write(to: URL(fileURLWithPath: secondKey))
    try Data("0000000000000000\n".utf8).write(to: URL(fileURLWithPath: desKey))
  }

  /// A factory card of `kind` in an image whose PICC master key is changed to the AES `piccKey`
  /// (`keys change --picc`, authenticated by EV1 with the factory DES zero key).
  func card(_ kind: String = "desfire-ev3-4k") throws -> String {
    let reader = "sim:\(kind):" + directory.appendingPathComponent("card-\(UUID().uuidString).img").path
    try desfireOK(["keys", "change", "--reader", reader, "--picc", "--yes", "--new-key-file", piccKey, "--new-key-type", "aes"])
    return reader
  }

  func picc(_ auth: String, file: String? = nil) -> [String] {
    ["--picc-key-file", file ?? piccKey, "--picc-key-type", "aes", "--picc-auth", auth]
  }

  /// The commands sent (`> …` trace lines), upper case without spaces.
  func sent(_ stderr: String) -> [String] {
    stderr.split(separator: "\n").filter { $0.hasPrefix("trace: > ") }
      .map { $0.dropFirst(9).uppercased().replacingOccurrences(of: " ", with: "") }
  }

  /// Runs `arguments` with `--trace`: exit 0, AuthenticateEV2First sent, and neither AuthenticateAES
  /// (AAh) nor AuthenticateISO (1Ah).
  @discardableResult
  func ev2OK(_ arguments: [String]) throws -> RunResult {
    let r = try runTool(arguments + ["--trace"])
    #expect(r.status == 0, "\(arguments): \(r.stderr)")
    let commands = sent(r.stderr)
    #expect(commands.contains { $0.hasPrefix("9071") }, "\(arguments): no AuthenticateEV2First")
    #expect(!commands.contains { $0.hasPrefix("90AA") || $0.hasPrefix("901A") }, "\(arguments): an EV1 authentication")
    #expect(!r.stderr.uppercased().replacingOccurrences(of: " ", with: "").contains("8899AABBCCDD"), "the key in the trace")
    return r
  }

  @Test func everyPICCCommandAuthenticatesByEV2() throws {
    let reader = try card()
    let info = try ev2OK(["desfire", "info", "--reader", reader] + picc("ev2"))
    #expect(info.stdout.contains("card UID:") && !info.stdout.contains("GetCardUID answered"), "\(info.stdout)")
    #expect(!info.stdout.contains("answered"), "\(info.stdout)")
    try ev2OK(["desfire", "create-app", "--reader", reader, "--aid", "000010", "--key-count", "2", "--key-type", "aes"] + picc("ev2"))
    // A rerun finds it made (GetDFNames after the card's 91 DE, authenticated again).
    try ev2OK(["desfire", "create-app", "--reader", reader, "--aid", "000010", "--key-count", "2", "--key-type", "aes"] + picc("ev2"))
    #expect(try ev2OK(["desfire", "apps", "--reader", reader] + picc("ev2")).stdout.contains("000010"))
    try ev2OK(["desfire", "delete-app", "--reader", reader, "--aid", "000010", "--yes"] + picc("ev2"))
    #expect(!(try ev2OK(["desfire", "apps", "--reader", reader] + picc("ev2")).stdout.contains("000010")))
    try ev2OK(["desfire", "create-app", "--reader", reader, "--aid", "000011", "--key-count", "1", "--key-type", "des"] + picc("auto"))
    try ev2OK(["desfire", "format-card", "--reader", reader, "--yes"] + picc("ev2"))
    #expect(!(try ev2OK(["desfire", "apps", "--reader", reader] + picc("ev2")).stdout.contains("000011")))
    // `nfctag format`'s PICC authentication, then the NDEF message written and read.
    try ev2OK(["format", "--reader", reader, "--key-type", "aes"] + picc("ev2"))
    #expect(try runTool(["write", "text", "hello ev2", "--reader", reader]).status == 0)
    #expect(try runTool(["read", "--reader", reader]).stdout.contains("hello ev2"))
    // ChangeKey of the PICC master key under EV2, then the new key authenticates.
    try ev2OK(["desfire", "keys", "change", "--reader", reader, "--picc", "--yes", "--key-file", piccKey, "--key-type", "aes",
               "--auth", "ev2", "--new-key-file", secondKey, "--new-key-type", "aes"])
    try ev2OK(["desfire", "apps", "--reader", reader] + picc("ev2", file: secondKey))
    let config = try ev2OK(["desfire", "config", "random-uid", "--yes", "--reader", reader] + picc("ev2", file: secondKey))
    #expect(config.stdout.contains("UID (real):") && config.stdout.contains("(random"), "\(config.stdout)")
  }

  @Test func ev1StaysTheDefaultAndAutoTakesEV1ForADESKey() throws {
    let reader = try card()
    let r = try runTool(["desfire", "apps", "--reader", reader, "--trace", "--picc-key-file", piccKey, "--picc-key-type", "aes"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(sent(r.stderr).contains { $0.hasPrefix("90AA") } && !sent(r.stderr).contains { $0.hasPrefix("9071") })
    let fresh = "sim:desfire-ev3-4k:" + directory.appendingPathComponent("fresh.img").path
    let des = try runTool(["desfire", "apps", "--reader", fresh, "--trace", "--picc-key-file", desKey, "--picc-auth", "auto"])
    #expect(des.status == 0, "\(des.stderr)")
    #expect(sent(des.stderr).contains { $0.hasPrefix("901A") } && !sent(des.stderr).contains { $0.hasPrefix("9071") })
  }

  @Test func ev2WithADESKeyIs64AndSendsNothing() throws {
    let reader = "sim:desfire-ev3-4k:" + directory.appendingPathComponent("fresh.img").path
    for command in [["info"], ["apps"], ["delete-app", "--aid", "000010", "--yes"], ["format-card", "--yes"],
                    ["config", "random-uid", "--yes"], ["create-app", "--aid", "000010", "--key-count", "1", "--key-type", "aes"]] {
      try desfireRefused(command + ["--reader", reader, "--trace", "--picc-key-file", desKey, "--picc-auth", "ev2"], 64,
                         "--picc-auth ev2 authenticates with an AES key, not a des key")
    }
    let format = try runTool(["format", "--reader", reader, "--trace", "--picc-key-file", desKey, "--picc-auth", "ev2"])
    #expect(format.status == 64 && format.stderr.split(separator: "\n").count == 1, "\(format.stderr)")
    #expect(format.stderr.contains("--picc-key-type aes"), "\(format.stderr)")
    try desfireRefused(["apps", "--reader", reader, "--picc-auth", "ev2"], 64, "--picc-auth need the key")
  }

  @Test func ev2OnAnEV1IsTheCardsRefusal65() throws {
    let reader = try card("desfire-ev1-4k")
    try desfireRefused(["apps", "--reader", reader] + picc("ev2"), 65, "AuthenticateEV2First (71h) key 0 answered 91 1c")
    try desfireOK(["apps", "--reader", reader] + picc("auto"))
  }
}
