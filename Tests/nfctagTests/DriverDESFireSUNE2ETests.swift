import Foundation
import Hex
import NTAG424
import Testing

/// A MIFARE DESFire EV3's SUN and random ID through the real pcscd, behind nfctag's pcsc-lite
/// driver's readers (docs/ifd-handler.md), each step a run of the built programs:
/// - `sdm setup` on an EV3 formatted with AES keys, then 20 reads each verified by `sdm verify`
///   with a counter store, the counter one above the last each time, the card's UID in each, and
///   a replayed URL refused (docs/desfire.md, "SDM on the virtual EV3");
/// - the random ID turned on (`desfire config random-uid`), then `provision` keyed by the real UID
///   (GetCardUID), never the random one the reader reports (docs/desfire.md, "Random UID";
///   docs/provisioning.md, "MIFARE DESFire").
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .enabled(if: ifdHandlerInstalled, ifdHandlerSkipReason))
final class DriverDESFireSUNEndToEnd {
  let scratch: ScratchFolder
  var directory: URL { scratch.url }
  static let template = "https://sun.example/t?p={picc}&c={cmac}"
  static let rowsTemplate = "https://example.com/d/{slug}?u={uid}"
  static let masterHex = "2b7e151628aed2a6abf7158809cf4f3c"
  /// The factory PICC master key: DES, zeros.
  static let factoryHex = String(repeating: "00", count: 8)
  /// The faces of the SUN and the diversified random-ID tests: the Part 3 reader (three of the
  /// driver's readers are its), and in CI (``fullCounts``) the ACR122U too, whose face resets
  /// the card between its poll and its first command.
  static var faces: [String] { fullCounts ? ["acr1552u", "acr122u"] : ["acr1552u"] }

  init() throws {
    scratch = try ScratchFolder("nfctag-driver-sun")
  }

  func path(_ name: String) -> String { scratch.path(name) }

  func keyFile(_ name: String, _ hex: String) throws -> String { try scratch.keyFile(name, hex) }

  /// `nfctag ARGUMENTS` on `reader`; its status checked against `expected`.
  @discardableResult
  func nfctag(_ arguments: [String], on reader: DriverReader, _ expected: Int32? = 0, timeout: String = "5",
              sourceLocation: SourceLocation = #_sourceLocation) throws -> RunResult {
    let r = try runNFCTag(arguments + ["--reader", reader.name, "--timeout", timeout])
    if let expected {
      #expect(r.status == expected, "\(arguments.prefix(3).joined(separator: " ")): \(r.status) \(r.stderr)",
              sourceLocation: sourceLocation)
    }
    return r
  }

  /// The UID `scan --json` shows, and whether it is marked random.
  func scannedUID(on reader: DriverReader, sourceLocation: SourceLocation = #_sourceLocation) throws -> (uid: String, random: Bool) {
    let scan = try nfctag(["scan", "--json"], on: reader, sourceLocation: sourceLocation)
    let object = try jsonObject(scan.stdout)
    return (try #require(object["uid"] as? String, "\(scan.stdout)", sourceLocation: sourceLocation),
            object["uidRandom"] as? Bool == true)
  }

  /// The first word after `label` on the line that starts with it.
  func value(_ label: String, in text: String) -> String? {
    text.split(separator: "\n").first { $0.hasPrefix(label) }
      .flatMap { $0.dropFirst(label.count).split(separator: " ").first.map(String.init) }
  }

  /// The ledger's audit rows (`ledger export --format csv`), each by its header's names.
  func exportedRows(_ ledger: String) throws -> [[String: String]] {
    let r = try runNFCTag(["ledger", "export", ledger, "--format", "csv"])
    #expect(r.status == 0, "\(r.stderr)")
    let lines = r.stdout.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    guard let header = lines.first else { return [] }
    return lines.dropFirst().map { Dictionary(zip(header, $0), uniquingKeysWith: { a, _ in a }) }
  }

  /// The key AN10922 AES-128 diversifies from the master key for `uid` at `level` (`000000` the PICC
  /// master key, `010000` the NDEF application's key 0), with the default system identifier
  /// (docs/provisioning.md, "Keys"), in a file.
  func derivedKeyFile(uid: String, level: [UInt8]) throws -> String {
    let master = try AESKey(bytes: try #require(parseHex(Self.masterHex)))
    let input = try #require(parseHex(uid)) + level + Array("nfctag".utf8)
    let key = try KeyDiversification.aes128(master: master, input: input)
    return try keyFile("derived-\(hexString(level)).hex", hexString(key.packageBytes))
  }

  /// Turns the random ID on (the factory PICC master key from a file): `scan` then shows a random
  /// ID, not `real`. Returns the key file.
  func turnRandomIDOn(on reader: DriverReader, real: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
    let factory = try keyFile("factory.hex", Self.factoryHex)
    let set = try nfctag(["desfire", "config", "random-uid", "--yes", "--picc-key-file", factory], on: reader,
                         sourceLocation: sourceLocation)
    #expect(value("UID (real):", in: set.stdout) == real, "\(set.stdout)", sourceLocation: sourceLocation)
    let shown = try scannedUID(on: reader, sourceLocation: sourceLocation)
    #expect(shown.random && shown.uid.count == 8 && shown.uid.hasPrefix("08") && shown.uid != real,
            "scan after random-uid: \(shown)", sourceLocation: sourceLocation)
    return factory
  }

  /// A two-row job (`r1`, `r2`) with `{uid}` in its URL.
  func rows() throws -> String {
    try "id,slug\nr1,item-1\nr2,item-2\n".write(to: directory.appendingPathComponent("rows.csv"), atomically: true, encoding: .utf8)
    return path("rows.csv")
  }

  /// The `tag` events of a `provision --json` run.
  func tagEvents(_ r: RunResult) -> [[String: Any]] {
    r.stdout.split(separator: "\n").compactMap { try? jsonObject(String($0)) }.filter { $0["event"] as? String == "tag" }
  }

  /// The ledger after the first run: r1 done on the real UID with its message, r2 on no card.
  func expectFirstRun(_ ledger: String, real: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let exported = try exportedRows(ledger)
    let r1 = exported.first { $0["row"] == "r1" }, r2 = exported.first { $0["row"] == "r2" }
    #expect(r1?["uid"] == real && r1?["status"] == "done", "\(exported)", sourceLocation: sourceLocation)
    let url = Array("https://example.com/d/item-1?u=\(real)".utf8).dropFirst("https://".count)
    #expect(r1?["message_hex"]?.lowercased().contains(hexString(Array(url)).lowercased()) == true, "\(exported)",
            sourceLocation: sourceLocation)
    #expect(r2 != nil && r2?["uid"] == "" && r2?["status"] != "done", "\(exported)", sourceLocation: sourceLocation)
  }

  /// EV3 SUN through pcscd: `format --key-type aes`, `sdm setup` (verified, counter 1), then 20
  /// reads each verified with the counter exactly one above the last and the card's UID, and the
  /// last URL replayed refused (65).
  @Test(arguments: Self.faces)
  func sdmSetupOnAnEV3ThenTwentyVerifiedReadsThroughPcscd(face: String) throws {
    let zero = String(repeating: "0", count: 32)
    let key0 = try keyFile("key0", zero), meta = try keyFile("meta", zero), file = try keyFile("file", zero)
    let store = path("counters.txt")
    try withDriverReader(face: face, tag: "desfire-ev3-4k") { reader, _ in
      let (uid, random) = try scannedUID(on: reader)
      #expect(uid.count == 14 && !random, "\(uid)")
      try nfctag(["format", "--key-type", "aes", "--quiet"], on: reader)
      let setup = try nfctag(["sdm", "setup", "--url", Self.template, "--auth-key-file", key0, "--meta-key-file", meta,
                              "--file-key-file", file, "--format", "json"], on: reader)
      let result = try jsonObject(setup.stdout)
      #expect(result["verified"] as? Bool == true && result["counter"] as? Int == 1, "\(setup.stdout)")
      #expect(!setup.stderr.contains(zero))
      let verify = ["--meta-key-file", meta, "--file-key-file", file, "--counter-store", store]
      var last = ""
      for n in 2...21 {
        let read = try nfctag(["read", "--format", "json", "--quiet"], on: reader)
        let records = try jsonObject(read.stdout)["records"] as? [[String: Any]]
        let url = try #require(records?.first?["uri"] as? String, "read \(n): \(read.stdout)")
        #expect(url.hasPrefix("https://sun.example/t?p=") && url != last, "read \(n): \(url)")
        let v = try runNFCTag(["sdm", "verify", url] + verify + ["--format", "json", "--quiet"])
        #expect(v.status == 0, "read \(n): \(url): \(v.stderr)")
        let object = try jsonObject(v.stdout)
        #expect(object["authentic"] as? Bool == true && object["counter"] as? Int == n && object["uid"] as? String == uid,
                "read \(n): \(v.stdout)")
        last = url
      }
      let replay = try runNFCTag(["sdm", "verify", last] + verify)
      #expect(replay.status == 65 && replay.stderr.contains("replayed: counter 21 is not above 21"), "\(replay.stderr)")
    }
  }

  /// Random ID on, then `provision` with keys diversified from a master key: the row, `{uid}` in
  /// the written URL and the keys all from the real UID (GetCardUID), which `desfire info` with
  /// the derived PICC master key reads back; the factory key no longer opens the card. A second
  /// run cannot tell which card it is (its real UID needs the key that needs the UID: the
  /// documented refusal, 65): it claims no row and tries no key.
  @Test(arguments: Self.faces)
  func randomIDThenProvisioningWithDiversifiedKeysKeyedByTheRealUID(face: String) throws {
    let master = try keyFile("master.hex", Self.masterHex)
    let ledger = path("ledger.sqlite")
    try withDriverReader(face: face, tag: "desfire-ev3-4k") { reader, _ in
      let (real, random) = try scannedUID(on: reader)
      #expect(real.count == 14 && !random, "\(real)")
      let factory = try turnRandomIDOn(on: reader, real: real)
      let run = ["provision", try rows(), "--url", Self.rowsTemplate, "--desfire-master-key-file", master, "--ledger", ledger, "--json"]
      let first = try nfctag(run, on: reader, 75, timeout: "2")  // r2 waits for a card that never comes
      let events = tagEvents(first)
      #expect(events.count == 1 && events.first?["row"] as? String == "r1" && events.first?["uid"] as? String == real
              && events.first?["status"] as? String == "done", "\(first.stdout) \(first.stderr)")
      #expect(!first.stdout.contains(Self.masterHex) && !first.stderr.contains(Self.masterHex))
      try expectFirstRun(ledger, real: real)
      let read = try nfctag(["read", "--format", "json"], on: reader)
      #expect(read.stdout.contains(#""uri":"https://example.com/d/item-1?u=\#(real)""#), "\(read.stdout)")
      // The keys are the ones diversified from the real UID.
      let picc = try derivedKeyFile(uid: real, level: [0, 0, 0])
      let info = try nfctag(["desfire", "info", "--picc-key-file", picc, "--picc-key-type", "aes"], on: reader)
      #expect(value("card UID:", in: info.stdout) == real && info.stdout.contains("\nrandom ID:    on (the card shows 08"),
              "\(info.stdout)")
      let application = try derivedKeyFile(uid: real, level: [1, 0, 0])
      try nfctag(["desfire", "files", "--aid", "000001", "--key-file", application, "--key-type", "aes"], on: reader)
      #expect(try nfctag(["desfire", "info", "--picc-key-file", factory], on: reader, nil).status != 0,
              "the factory PICC master key still opens the card")
      // A second run: the card shows another random ID, and its PICC master key is the job's.
      let second = try nfctag(run, on: reader, 65, timeout: "2")
      let again = tagEvents(second)
      #expect(again.count == 1 && again.first?["status"] as? String == "failed"
              && (again.first?["error"] as? String)?.contains("shows a random ID") == true, "\(second.stdout) \(second.stderr)")
      try expectFirstRun(ledger, real: real)
      #expect(try Data(contentsOf: URL(fileURLWithPath: ledger)).range(of: Data(#""failedAuthentications":[""#.utf8)) == nil)
    }
  }

  /// Random ID on, then `provision` with the same keys on every card (`--desfire-keys-file`): the
  /// row and `{uid}` from the real UID, and a second run on the same card (another random ID)
  /// finds that UID's row done and skips the card, r2 left for another card.
  @Test func randomIDThenProvisioningWithFixedKeysASecondRunFindsTheRowDone() throws {
    let keys = try keyFile("keys.hex", "00112233445566778899aabbccddeeff\nffeeddccbbaa99887766554433221100")
    let ledger = path("ledger.sqlite")
    try withDriverReader(face: "acr1552u", tag: "desfire-ev3-4k") { reader, _ in
      let (real, _) = try scannedUID(on: reader)
      _ = try turnRandomIDOn(on: reader, real: real)
      let run = ["provision", try rows(), "--url", Self.rowsTemplate, "--desfire-keys-file", keys, "--ledger", ledger, "--json"]
      let first = try nfctag(run, on: reader, 75, timeout: "2")
      #expect(tagEvents(first).map { "\($0["row"] ?? "") \($0["uid"] ?? "") \($0["status"] ?? "")" } == ["r1 \(real) done"],
              "\(first.stdout) \(first.stderr)")
      try expectFirstRun(ledger, real: real)
      let picc = try keyFile("picc.hex", "00112233445566778899aabbccddeeff")
      let info = try nfctag(["desfire", "info", "--picc-key-file", picc, "--picc-key-type", "aes"], on: reader)
      #expect(value("card UID:", in: info.stdout) == real, "\(info.stdout)")
      let shown = try scannedUID(on: reader)
      #expect(shown.random && shown.uid != real, "\(shown)")
      let second = try nfctag(run, on: reader, 75, timeout: "2")
      let again = tagEvents(second)
      #expect(again.count == 1 && again.first?["row"] as? String == "r1" && again.first?["uid"] as? String == real
              && again.first?["status"] as? String == "skipped", "\(second.stdout) \(second.stderr)")
      try expectFirstRun(ledger, real: real)
    }
  }
}
