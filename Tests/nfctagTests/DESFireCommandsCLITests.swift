import DESFireEmulator
import Foundation
import NFCEmulator
import Testing

/// `nfctag desfire …` in process on `sim:desfire-ev1-4k` readers: every subcommand, and every
/// refusal with its documented status (docs/exit-codes.md, docs/desfire.md "Command line").
@Suite struct DESFireCommandsCLI {
  let directory: URL

  init() throws {
    DESFireEmulator.register()   // the in-process runner calls no `main`
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-desfire-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  /// A reader on a fresh factory card kept in an image file, so that commands see each other's changes.
  func freshReader() -> String { "sim:desfire-ev1-4k:" + directory.appendingPathComponent("card-\(UUID().uuidString).img").path }

  func keyFile(_ hex: String) throws -> String {
    let path = directory.appendingPathComponent("key-\(UUID().uuidString).txt").path
    try Data((hex + "\n").utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  @Test func infoShowsAFactoryCard() throws {
    let reader = freshReader()
    let text = try desfireOK(["info", "--reader", reader]).stdout
    #expect(text.contains("chip:         MIFARE DESFire EV1 4K"), "\(text)")
    #expect(text.contains("free memory:  4096 bytes"))
    #expect(text.contains("PICC keys:    0f ("))
    #expect(text.contains("applications: none"))
    let json = try desfireOK(["info", "--reader", reader, "--format", "json"]).stdout
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    #expect(object["generation"] as? String == "EV1")
    #expect(object["freeMemory"] as? Int == 4096)
    #expect((object["uid"] as? String)?.count == 14)
    #expect((object["applications"] as? [Any])?.isEmpty == true)
  }

  @Test func applicationsFilesAndDataRoundTrip() throws {
    let reader = freshReader()
    try desfireOK(["create-app", "--reader", reader, "--aid", "A1B2C3", "--key-count", "2", "--key-type", "aes"])
    try desfireOK(["create-app", "--reader", reader, "--aid", "000010", "--key-count", "1", "--key-type", "3k3des",
            "--iso-fid", "E120", "--df-name", "D2760000850199"])
    let apps = try desfireOK(["apps", "--reader", reader]).stdout
    #expect(apps.contains("application 000010: 0f"), "\(apps)")
    #expect(apps.contains("application a1b2c3: 0f"), "\(apps)")
    #expect(apps.contains("2 AES keys"))
    #expect(apps.contains("1 3K3DES key"))
    try desfireOK(["create-file", "--reader", reader, "--aid", "A1B2C3", "--file", "1", "--size", "64", "--write", "1"])
    try desfireOK(["create-file", "--reader", reader, "--aid", "A1B2C3", "--file", "2", "--size", "32", "--comm", "mac"])
    let files = try desfireOK(["files", "--reader", reader, "--aid", "A1B2C3"]).stdout
    #expect(files.contains("file 1: standard data, 64 bytes, plain, read free, write key 1, read&write free, change key 0"), "\(files)")
    #expect(files.contains("file 2: standard data, 32 bytes, mac"), "\(files)")
    // Write needs key 1 (AES, the zero key of a new application).
    let key = try keyFile(String(repeating: "00", count: 16))
    try desfireOK(["write-file", "--reader", reader, "--aid", "A1B2C3", "--file", "1", "--hex", "0102030405",
            "--key-file", key, "--key-no", "1", "--key-type", "aes"])
    let long = (0..<60).map { UInt8($0) }
    let input = directory.appendingPathComponent("data.bin")
    try Data(long).write(to: input)
    let fromEnv = try runTool(["desfire", "write-file", "--reader", reader, "--aid", "A1B2C3", "--file", "1", "--from", input.path,
                               "--offset", "4", "--key-env", "DESFIRE_TEST_KEY", "--key-no", "1", "--key-type", "aes"],
                              environment: ["DESFIRE_TEST_KEY": String(repeating: "00", count: 16)])
    #expect(fromEnv.status == 0, "\(fromEnv.stderr)")
    let hex = try desfireOK(["read-file", "--reader", reader, "--aid", "A1B2C3", "--file", "1", "--length", "8"]).stdout
    #expect(hex == "0102030400010203\n", "\(hex)")
    let json = try desfireOK(["read-file", "--reader", reader, "--aid", "A1B2C3", "--file", "1", "--offset", "62", "--format", "json"]).stdout
    #expect(json.contains("\"offset\":62") && json.contains("\"hex\":\"3a3b\""), "\(json)")
    let raw = try desfireOK(["read-file", "--reader", reader, "--aid", "A1B2C3", "--file", "1", "--format", "raw"])
    #expect(raw.stdoutBytes.count == 64)
    let info = try desfireOK(["info", "--reader", reader, "--format", "json"]).stdout
    let object = try #require(try JSONSerialization.jsonObject(with: Data(info.utf8)) as? [String: Any])
    let list = try #require(object["applications"] as? [[String: Any]])
    #expect(list.map { $0["aid"] as? String } == ["000010", "a1b2c3"])
    #expect(((list.last?["files"] as? [[String: Any]])?.first?["size"] as? Int) == 64)
    try desfireOK(["delete-file", "--reader", reader, "--aid", "A1B2C3", "--file", "2"])
    #expect(!(try desfireOK(["files", "--reader", reader, "--aid", "A1B2C3"]).stdout.contains("file 2")))
    try desfireOK(["delete-app", "--reader", reader, "--aid", "000010", "--yes"])
    #expect(!(try desfireOK(["apps", "--reader", reader]).stdout.contains("000010")))
  }

  @Test func keyVersionsOfThePICCLevelAndAnApplication() throws {
    let reader = freshReader()
    #expect(try desfireOK(["keys", "versions", "--reader", reader]).stdout == "PICC level key 0: version 00\n")
    try desfireOK(["create-app", "--reader", reader, "--aid", "000002", "--key-count", "3", "--key-type", "des"])
    let json = try desfireOK(["keys", "versions", "--reader", reader, "--aid", "000002", "--format", "json"]).stdout
    #expect(json == "{\"level\":\"000002\",\"keys\":[{\"key\":0,\"version\":0},{\"key\":1,\"version\":0},{\"key\":2,\"version\":0}]}\n", "\(json)")
  }

  /// An application of each key type, its master key (the zero key of its type) from a key file:
  /// AuthenticateISO for DES, 2K3DES and 3K3DES, AuthenticateAES for AES; creating a file in an
  /// application whose settings (09h) need the master key shows the authentication took.
  @Test(arguments: [("des", "des", 8), ("2k3des", "2k3des", 16), ("3k3des", "3k3des", 24), ("aes", "aes", 16)])
  func eachKeyTypeAuthenticates(appType: String, keyType: String, length: Int) throws {
    let reader = freshReader()
    try desfireOK(["create-app", "--reader", reader, "--aid", "0000A0", "--key-count", "1", "--key-type", appType, "--settings", "09"])
    let key = try keyFile(String(repeating: "00", count: length))
    try desfireOK(["create-file", "--reader", reader, "--aid", "0000A0", "--file", "7", "--size", "16", "--key-file", key, "--key-type", keyType])
    let files = try desfireOK(["files", "--reader", reader, "--aid", "0000A0", "--key-file", key, "--key-type", keyType, "--key-no", "0"]).stdout
    #expect(files.contains("file 7: standard data, 16 bytes"), "\(files)")
  }

  @Test func formatCardDeletesEveryApplication() throws {
    let reader = freshReader()
    try desfireOK(["create-app", "--reader", reader, "--aid", "000003", "--key-count", "1", "--key-type", "des"])
    try desfireRefused(["format-card", "--reader", reader], 64, "add --yes; nothing was sent")
    #expect(try desfireOK(["apps", "--reader", reader]).stdout.contains("000003"))
    try desfireOK(["format-card", "--reader", reader, "--yes"])
    #expect(try desfireOK(["apps", "--reader", reader]).stdout == "no applications\n")
    #expect(try desfireOK(["info", "--reader", reader]).stdout.contains("free memory:  4096 bytes"))
  }

  /// A card whose PICC master key is AES 00 11 22 … FF and whose PICC key settings are 09h
  /// (listing and creating need the key), as an image (DESFireImage's layout: the PICC level's
  /// KS1 at byte 19, its key's type at 22, its value from 24).
  func lockedCardReader() throws -> String {
    var image = try DESFireVirtualTag(chip: .ev1With4K).memoryImage
    try #require(image.count >= 40 && image[19] == 0x0F)
    image[19] = 0x09
    image[22] = 0x80
    image.replaceSubrange(24..<40, with: (0..<16).map { UInt8($0 * 0x11) })
    let path = directory.appendingPathComponent("locked-\(UUID().uuidString).img").path
    try Data(image).write(to: URL(fileURLWithPath: path))
    return "sim:desfire-ev1-4k:" + path
  }

  @Test func thePICCMasterKeyFromTheEnvironmentOpensALockedCard() throws {
    let reader = try lockedCardReader()
    let environment = ["DESFIRE_PICC": "00112233445566778899AABBCCDDEEFF"]
    let piccKey = ["--picc-key-env", "DESFIRE_PICC", "--picc-key-type", "aes"]
    try desfireRefused(["apps", "--reader", reader], 77, "--picc-key-file")
    try desfireRefused(["create-app", "--reader", reader, "--aid", "000020", "--key-count", "1", "--key-type", "aes"], 77, "91 ae")
    for arguments in [["create-app", "--reader", reader, "--aid", "000020", "--key-count", "1", "--key-type", "aes"] + piccKey,
                      ["apps", "--reader", reader] + piccKey] {
      let r = try runTool(["desfire"] + arguments, environment: environment)
      #expect(r.status == 0, "\(arguments): \(r.stderr)")
      if arguments.first == "apps" { #expect(r.stdout.contains("application 000020"), "\(r.stdout)") }
    }
    let info = try runTool(["desfire", "info", "--reader", reader], environment: environment)
    #expect(info.status == 0 && info.stdout.contains("PICC keys:    GetKeySettings answered 91 ae"), "\(info.stdout)")
    // The factory DES zero key is refused on this card: 77, nothing deleted.
    try desfireRefused(["delete-app", "--reader", reader, "--aid", "000020", "--yes"], 77, "--picc-key-file")
    let delete = try runTool(["desfire", "delete-app", "--reader", reader, "--aid", "000020", "--yes"] + piccKey, environment: environment)
    #expect(delete.status == 0, "\(delete.stderr)")
    let format = try runTool(["desfire", "format-card", "--reader", reader, "--yes", "--trace"] + piccKey, environment: environment)
    #expect(format.status == 0, "\(format.stderr)")
    #expect(!format.stderr.uppercased().replacingOccurrences(of: " ", with: "").contains("8899AABBCCDD"))
  }

  @Test func refusalsHaveTheirStatusAndSayWhatToDo() throws {
    let reader = freshReader()
    try desfireOK(["create-app", "--reader", reader, "--aid", "000004", "--key-count", "1", "--key-type", "aes", "--settings", "09"])
    try desfireOK(["create-app", "--reader", reader, "--aid", "000005", "--key-count", "1", "--key-type", "des"])
    try desfireOK(["create-file", "--reader", reader, "--aid", "000005", "--file", "0", "--size", "8", "--read", "0", "--write", "never",
            "--read-write", "never"])
    try desfireOK(["create-file", "--reader", reader, "--aid", "000005", "--file", "3", "--size", "8", "--comm", "full"])
    // delete-app without --yes: nothing sent.
    try desfireRefused(["delete-app", "--reader", reader, "--aid", "000004"], 64, "add --yes")
    // Duplicate (91 DE): 65.
    try desfireRefused(["create-app", "--reader", reader, "--aid", "000004", "--key-count", "1", "--key-type", "des"], 65,
                "91 de")
    // No such application (91 A0), file (91 F0): 65, with the command that lists them.
    try desfireRefused(["files", "--reader", reader, "--aid", "0000AA"], 65, "`nfctag desfire apps`")
    try desfireRefused(["read-file", "--reader", reader, "--aid", "000005", "--file", "9"], 65, "91 f0")
    // A file in full mode whose rights are free: its data travels plain, as the card takes it then.
    try desfireOK(["write-file", "--reader", reader, "--aid", "000005", "--file", "3", "--hex", "00"])
    // Settings hidden without the application's master key (91 AE): 77.
    try desfireRefused(["read-file", "--reader", reader, "--aid", "000004", "--file", "0"], 77, "91 ae")
    // Boundary (91 BE): 65.
    try desfireOK(["create-file", "--reader", reader, "--aid", "000005", "--file", "4", "--size", "8"])
    try desfireRefused(["read-file", "--reader", reader, "--aid", "000005", "--file", "4", "--offset", "6", "--length", "4"], 65, "91 be")
    // Authentication needed (91 AE: create in an application whose settings need its master key): 77.
    try desfireRefused(["create-file", "--reader", reader, "--aid", "000004", "--file", "1", "--size", "8"], 77, "--key-file")
    // A wrong key: 77, the key never shown.
    let wrong = try keyFile("00112233445566778899AABBCCDDEEFF")
    let r = try runTool(["desfire", "create-file", "--reader", reader, "--aid", "000004", "--file", "1", "--size", "8",
                         "--key-file", wrong, "--key-type", "aes", "--trace"])
    #expect(r.status == 77, "\(r.stderr)")
    #expect(!r.stderr.uppercased().replacingOccurrences(of: " ", with: "").contains("8899AABBCCDD"))
    // Permission denied (91 9D: read right key 0, write never, authenticated with key 0 and writing): 77.
    let zero = try keyFile("0000000000000000")
    try desfireRefused(["write-file", "--reader", reader, "--aid", "000005", "--file", "0", "--hex", "00", "--key-file", zero], 77, "91 9d")
    // Not enough memory (91 0E): 73.
    try desfireRefused(["create-file", "--reader", reader, "--aid", "000005", "--file", "5", "--size", "8000"], 73, "free memory")
    // format-card with a PICC key that is not the card's: 77.
    try desfireRefused(["format-card", "--reader", reader, "--yes", "--picc-key-file", wrong, "--picc-key-type", "aes"], 77, "91 ae")
  }

  @Test func badCommandLinesAre64AndSendNothing() throws {
    let reader = freshReader()
    try desfireRefused(["files", "--reader", reader, "--aid", "000000"], 64, "--aid")
    try desfireRefused(["files", "--reader", reader, "--aid", "12345"], 64, "--aid")
    try desfireRefused(["create-app", "--reader", reader, "--aid", "000001", "--key-count", "15", "--key-type", "aes"], 64, "--key-count")
    try desfireRefused(["create-app", "--reader", reader, "--aid", "000001", "--key-count", "1", "--key-type", "aes", "--iso-fid", "E110"],
                64, "--df-name")
    try desfireRefused(["create-file", "--reader", reader, "--aid", "000001", "--file", "32", "--size", "8"], 64, "--file")
    try desfireRefused(["create-file", "--reader", reader, "--aid", "000001", "--file", "1", "--size", "8", "--read", "14"], 64, "--read")
    try desfireRefused(["write-file", "--reader", reader, "--aid", "000001", "--file", "1"], 64, "--hex or --from")
    try desfireRefused(["read-file", "--reader", reader, "--aid", "000001", "--file", "1", "--key-no", "2"], 64, "--key-file")
    try desfireRefused(["files", "--reader", reader, "--aid", "000001", "--key-env", "NFCTAG_DESFIRE_UNSET_\(UUID().uuidString.prefix(8))"],
                64, "--key-env")
    // A key given where its file's name belongs: 64, never printed back.
    let argv = try runTool(["desfire", "files", "--reader", reader, "--aid", "000001", "--key-file", "00112233445566778899AABBCCDDEEFF"])
    #expect(argv.status == 64 && argv.stderr.contains("looks like a key"), "\(argv.stderr)")
    #expect(!argv.stderr.uppercased().contains("8899AABB"))
    let short = try keyFile("0011")
    try desfireRefused(["files", "--reader", reader, "--aid", "000001", "--key-file", short], 64, "the key (--key-file")
    #expect(try desfireOK(["apps", "--reader", reader]).stdout == "no applications\n")
  }

  @Test func anotherType4TagIsNotADESFire() throws {
    try desfireRefused(["info", "--reader", "sim:type4"], 65, "not a MIFARE DESFire")
    try desfireRefused(["apps", "--reader", "sim:ntag215"], 65, "not a MIFARE DESFire")
  }
}
