import DESFireEmulator
import Foundation
import NFCEmulator
import Testing

/// `nfctag desfire info`, `apps` and `create-app` with GetDFNames (6Dh) and GetCardUID (51h), in
/// process on `sim:desfire-ev1-4k` readers (docs/desfire.md, "Command line").
@Suite struct DESFireISONamesCLI {
  let cli: DESFireCommandsCLI

  init() throws { cli = try DESFireCommandsCLI() }

  func json(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
  }

  @Test func infoAndAppsShowEachApplicationsISOFileIDAndDFName() throws {
    let reader = cli.freshReader()
    try desfireOK(["create-app", "--reader", reader, "--aid", "000010", "--key-count", "1", "--key-type", "aes",
                "--iso-fid", "E120", "--df-name", "D2760000850199"])
    try desfireOK(["create-app", "--reader", reader, "--aid", "A1B2C3", "--key-count", "1", "--key-type", "des"])
    for command in ["info", "apps"] {
      let text = try desfireOK([command, "--reader", reader]).stdout
      #expect(text.contains("application 000010: 0f (") && text.contains("  ISO file ID e120, DF name d2760000850199\n"), "\(text)")
      #expect(text.components(separatedBy: "ISO file ID").count == 2, "\(text)")  // a1b2c3 has none
      let object = try json(try desfireOK([command, "--reader", reader, "--format", "json"]).stdout)
      let applications = try #require(object["applications"] as? [[String: Any]])
      let named = try #require(applications.first { $0["aid"] as? String == "000010" })
      #expect(named["isoFileID"] as? String == "e120")
      #expect(named["dfName"] as? String == "d2760000850199")
      let plain = try #require(applications.first { $0["aid"] as? String == "a1b2c3" })
      #expect(plain["isoFileID"] == nil && plain["dfName"] == nil)
    }
  }

  @Test func createAppRunAgainComparesTheISOFileIDAndDFName() throws {
    let reader = cli.freshReader()
    let app = ["create-app", "--reader", reader, "--aid", "000010", "--key-count", "1", "--key-type", "aes"]
    let names = ["--iso-fid", "E120", "--df-name", "D2760000850199"]
    try desfireOK(app + names)
    let again = try desfireOK(app + names)
    #expect(again.stderr.contains("application 000010 already exists with these settings"), "\(again.stderr)")
    try desfireRefused(app + ["--iso-fid", "E121", "--df-name", "D2760000850199"], 65, "ISO file ID e120, not e121")
    try desfireRefused(app + ["--iso-fid", "E120", "--df-name", "D27600008501"], 65, "DF name d2760000850199, not d27600008501")
    try desfireRefused(app, 65, "ISO file ID e120 and DF name d2760000850199, not none")
    let plain = ["create-app", "--reader", reader, "--aid", "000011", "--key-count", "1", "--key-type", "aes"]
    try desfireOK(plain)
    try desfireRefused(plain + ["--iso-fid", "E130", "--df-name", "D2760000850198"], 65, "no DF name, not d2760000850198")
  }

  @Test func infoWithThePICCMasterKeyShowsGetCardUIDsUID() throws {
    let reader = cli.freshReader()
    let environment = ["DESFIRE_PICC": String(repeating: "00", count: 8)]  // the factory DES zero key
    let withKey = ["info", "--reader", reader, "--picc-key-env", "DESFIRE_PICC"]
    let plain = try desfireOK(["info", "--reader", reader]).stdout
    #expect(!plain.contains("card UID"), "\(plain)")
    #expect(try json(try desfireOK(["info", "--reader", reader, "--format", "json"]).stdout)["cardUID"] == nil)
    let text = try runTool(["desfire"] + withKey, environment: environment)
    #expect(text.status == 0, "\(text.stderr)")
    let uid = try #require(text.stdout.split(separator: "\n").first { $0.hasPrefix("UID:") }?.split(separator: " ").last)
    #expect(text.stdout.contains("\ncard UID:     \(uid) (GetCardUID)\n"), "\(text.stdout)")
    let object = try json(try runTool(["desfire"] + withKey + ["--format", "json"], environment: environment).stdout)
    #expect(object["cardUID"] as? String == String(uid) && (object["uid"] as? String)?.count == 14)
  }

  @Test func aLockedCardShowsItsUIDAndNamesAndTakesACreateAppRerunWithTheKey() throws {
    let reader = try cli.lockedCardReader()
    let environment = ["DESFIRE_PICC": "00112233445566778899AABBCCDDEEFF"]
    let piccKey = ["--picc-key-env", "DESFIRE_PICC", "--picc-key-type", "aes"]
    let app = ["desfire", "create-app", "--reader", reader, "--aid", "000020", "--key-count", "1", "--key-type", "aes",
               "--iso-fid", "E140", "--df-name", "A00000000401"] + piccKey
    for _ in 0..<2 {  // the second run finds it made: GetDFNames needs the key again after 91 DE
      let r = try runTool(app, environment: environment)
      #expect(r.status == 0, "\(r.stderr)")
    }
    let info = try runTool(["desfire", "info", "--reader", reader] + piccKey, environment: environment)
    #expect(info.status == 0, "\(info.stderr)")
    #expect(info.stdout.contains("\ncard UID:     04"), "\(info.stdout)")
    #expect(info.stdout.contains("  ISO file ID e140, DF name a00000000401\n"), "\(info.stdout)")
    // Without the key the card hides the list, GetDFNames with it, and GetCardUID is not sent.
    let hidden = try runTool(["desfire", "info", "--reader", reader])
    #expect(hidden.status == 0 && !hidden.stdout.contains("card UID"), "\(hidden.stdout)")
  }
}
