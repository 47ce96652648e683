import DESFireEmulator
import Foundation
import Testing

/// `nfctag desfire … --auth ev2|auto` in process on `sim:` EV2 and EV3 image readers: EV2
/// authentication and the file's mode under EV2 secure messaging (docs/desfire.md, "EV2 secure
/// messaging"; docs/exit-codes.md, "desfire").
@Suite struct DESFireEV2AuthCLI {
  let directory: URL
  let aesKey: String
  let desKey: String
  let wrongKey: String

  init() throws {
    DESFireEmulator.register()   // the in-process runner calls no `main`
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-desfire-ev2-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    (aesKey, desKey, wrongKey) = (directory.appendingPathComponent("aes.key").path, directory.appendingPathComponent("des.key").path,
                                  directory.appendingPathComponent("wrong.key").path)
    try Data((String(repeating: "00", count: 16) + "\n").utf8).write(to: URL(fileURLWithPath: aesKey))
    try Data((String(repeating: "00", count: 16) + "\n").utf8).write(to: URL(fileURLWithPath: desKey))
    try Data((String(repeating: "11", count: 16) + "\n").utf8).write(to: URL(fileURLWithPath: wrongKey))
  }

  /// A card of `kind` in an image, with application 00E200 of two AES keys and files 1 (MAC) and
  /// 2 (full) of 100 bytes, every right key 0, and value file 3 (full).
  func card(_ kind: String) throws -> (reader: String, app: [String]) {
    let reader = "sim:\(kind):" + directory.appendingPathComponent("card-\(UUID().uuidString).img").path
    let app = ["--reader", reader, "--aid", "00E200"]
    try desfireOK(["create-app", "--reader", reader, "--aid", "00E200", "--key-count", "2", "--key-type", "aes"])
    let rights = ["--read", "0", "--write", "0", "--read-write", "0"]
    try desfireOK(["create-file"] + app + ["--file", "1", "--size", "100", "--comm", "mac"] + rights + key(.ev2))
    try desfireOK(["create-file"] + app + ["--file", "2", "--size", "100", "--comm", "full"] + rights + key(.ev2))
    try desfireOK(["create-file"] + app + ["--file", "3", "--kind", "value", "--value", "10", "--comm", "full"] + rights + key(.ev2))
    return (reader, app)
  }

  enum Auth: String { case ev1, ev2, auto }

  func key(_ auth: Auth, file: String? = nil) -> [String] {
    ["--key-file", file ?? aesKey, "--key-type", "aes", "--key-no", "0", "--auth", auth.rawValue]
  }

  @Test(arguments: ["desfire-ev2-4k", "desfire-ev3-8k"])
  func ev2AuthenticationAndFullModeReadsAndWrites(kind: String) throws {
    let (_, app) = try card(kind)
    let data = (0..<80).map { String(format: "%02x", ($0 * 37 + 11) & 0xFF) }.joined()  // chained frames both ways
    try desfireOK(["write-file"] + app + ["--file", "2", "--hex", data] + key(.ev2))
    #expect(try desfireOK(["read-file"] + app + ["--file", "2", "--length", "80"] + key(.ev2)).stdout == data + "\n")
    // The same bytes under EV1 secure messaging: the card keeps plain data whatever the session.
    #expect(try desfireOK(["read-file"] + app + ["--file", "2", "--length", "80"] + key(.ev1)).stdout == data + "\n")
    // A MAC-mode file, and auto (EV2 on this card with an AES key).
    try desfireOK(["write-file"] + app + ["--file", "1", "--hex", "c0ffee"] + key(.auto))
    #expect(try desfireOK(["read-file"] + app + ["--file", "1", "--length", "3"] + key(.ev2)).stdout == "c0ffee\n")
    // A value file in full mode.
    try desfireOK(["value", "credit"] + app + ["--file", "3", "--amount", "5"] + key(.ev2))
    #expect(try desfireOK(["value", "get"] + app + ["--file", "3"] + key(.ev2)).stdout == "15\n")
  }

  @Test func keysChangeUnderEV2ThenTheNewKeyAuthenticates() throws {
    let (_, app) = try card("desfire-ev3-8k")
    let newKey = directory.appendingPathComponent("new.key").path
    try Data(("00112233445566778899aabbccddeeff\n").utf8).write(to: URL(fileURLWithPath: newKey))
    try desfireOK(["keys", "change"] + app + ["--change-key-no", "1", "--new-key-file", newKey, "--new-key-type", "aes",
                                       "--new-key-version", "3", "--key-file", aesKey, "--key-type", "aes", "--auth", "ev2"])
    #expect(try desfireOK(["keys", "versions"] + app).stdout.contains("version 03"))
    try desfireOK(["create-file"] + app + ["--file", "4", "--size", "8", "--comm", "full", "--read", "1", "--write", "1"] + key(.ev2))
    let key1 = ["--key-file", newKey, "--key-type", "aes", "--key-no", "1", "--auth", "ev2"]
    try desfireOK(["write-file"] + app + ["--file", "4", "--hex", "0a0b"] + key1)
    #expect(try desfireOK(["read-file"] + app + ["--file", "4", "--length", "2"] + key1).stdout == "0a0b\n")
    try desfireRefused(["keys", "change"] + app + ["--change-key-no", "1", "--new-key-file", desKey, "--new-key-type", "2k3des",
                                            "--key-file", aesKey, "--key-type", "aes", "--auth", "ev2"], 64, "--new-key-type aes")
  }

  @Test func aWrongKeyIsRefusedByTheCardWith77() throws {
    let (_, app) = try card("desfire-ev3-8k")
    try desfireRefused(["read-file"] + app + ["--file", "2", "--length", "4"] + key(.ev2, file: wrongKey), 77, "AuthenticateEV2First (71h) key 0 answered 91 ae")
  }

  @Test func ev2WithAKeyThatIsNotAESIs64BeforeAnyWrite() throws {
    let (reader, app) = try card("desfire-ev2-4k")
    let image = String(reader.split(separator: ":", maxSplits: 2)[2])
    let before = try Data(contentsOf: URL(fileURLWithPath: image))
    try desfireRefused(["write-file"] + app + ["--file", "2", "--hex", "01", "--key-file", desKey, "--key-type", "2k3des", "--auth", "ev2"], 64,
                "--auth ev2 authenticates with an AES key, not a 2k3des key")
    #expect(try Data(contentsOf: URL(fileURLWithPath: image)) == before)
    try desfireRefused(["read-file"] + app + ["--file", "2", "--auth", "ev2"], 64, "--auth need the key")
  }

  @Test func autoOnAnEV1UsesEV1() throws {
    let reader = "sim:desfire-ev1-4k:" + directory.appendingPathComponent("ev1.img").path
    let app = ["--reader", reader, "--aid", "00E200"]
    try desfireOK(["create-app", "--reader", reader, "--aid", "00E200", "--key-count", "1", "--key-type", "aes"])
    try desfireOK(["create-file"] + app + ["--file", "2", "--size", "16", "--comm", "full", "--read", "0", "--write", "0"] + key(.auto))
    try desfireOK(["write-file"] + app + ["--file", "2", "--hex", "abcd"] + key(.auto))
    #expect(try desfireOK(["read-file"] + app + ["--file", "2", "--length", "2"] + key(.auto)).stdout == "abcd\n")
    try desfireRefused(["read-file"] + app + ["--file", "2", "--length", "2"] + key(.ev2), 65, "AuthenticateEV2First (71h) key 0 answered 91 1c")
  }
}
