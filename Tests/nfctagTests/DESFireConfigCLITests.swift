import DESFireEmulator
import Foundation
import NFCEmulator
import NFCTagEmulate
import Testing

/// `nfctag desfire config` (SetConfiguration: random UID, FormatPICC disabled), `desfire info` and
/// `scan` on a card that shows a random ID, and a feed of such cards, in process on `sim:` readers.
@Suite struct DESFireConfigCLI {
  let directory: URL

  init() throws {
    DESFireEmulator.register()
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-desfire-config-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  func freshReader() -> String { "sim:desfire-ev3-8k:" + directory.appendingPathComponent("card-\(UUID().uuidString).img").path }

  static let zeroKey = ["DESFIRE_PICC": String(repeating: "00", count: 8)]

  func value(_ label: String, in text: String) -> String? {
    // The first word after the label.
    text.split(separator: "\n").first { $0.hasPrefix(label) }
      .flatMap { $0.dropFirst(label.count).split(separator: " ").first.map(String.init) }
  }

  @Test func randomUIDNeedsYesAndThenTheCardShowsARandomIDAndGetCardUIDTheRealOne() throws {
    let reader = freshReader()
    let refused = try runTool(["desfire", "config", "random-uid", "--reader", reader])
    #expect(refused.status == 64, "\(refused.stderr)")
    #expect(refused.stderr.contains("--yes") && refused.stderr.contains("nothing was sent"), "\(refused.stderr)")
    #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
    let none = try runTool(["desfire", "config", "--reader", reader, "--yes"])
    #expect(none.status == 64, "\(none.stderr)")
    let before = try runTool(["scan", "--reader", reader, "--format", "json"])
    let real = try #require(try JSONSerialization.jsonObject(with: Data(before.stdout.utf8)) as? [String: Any])["uid"] as? String
    #expect(real?.count == 14 && !before.stdout.contains("uidRandom"), "\(before.stdout)")

    let set = try runTool(["desfire", "config", "random-uid", "--reader", reader, "--yes", "--picc-key-env", "DESFIRE_PICC"],
                          environment: Self.zeroKey)
    #expect(set.status == 0, "\(set.stderr)")
    #expect(value("UID (real):", in: set.stdout) == real, "\(set.stdout)")
    let shown = try #require(value("UID (shown):", in: set.stdout), "\(set.stdout)")
    #expect(shown.count == 8 && shown.hasPrefix("08"), "\(set.stdout)")

    // scan marks it, in text and JSON; a new activation shows another one.
    let json = try runTool(["scan", "--reader", reader, "--format", "json"])
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    #expect(object["uidRandom"] as? Bool == true, "\(json.stdout)")
    #expect((object["uid"] as? String)?.hasPrefix("08") == true && (object["uid"] as? String) != real)
    let text = try runTool(["scan", "--reader", reader])
    #expect(text.stdout.contains("(random: a new one at each activation, not the card's identity)"), "\(text.stdout)")

    // info with the key: the real UID from GetCardUID, and the random ID named.
    let info = try runTool(["desfire", "info", "--reader", reader, "--picc-key-env", "DESFIRE_PICC"], environment: Self.zeroKey)
    #expect(info.status == 0, "\(info.stderr)")
    #expect(value("card UID:", in: info.stdout) == real, "\(info.stdout)")
    #expect(info.stdout.contains("\nrandom ID:    on (the card shows 08"), "\(info.stdout)")
    #expect(value("UID:", in: info.stdout) == "00000000000000", "\(info.stdout)")
    let infoJSON = try runTool(["desfire", "info", "--reader", reader, "--picc-key-env", "DESFIRE_PICC", "--format", "json"],
                               environment: Self.zeroKey)
    let infoObject = try #require(try JSONSerialization.jsonObject(with: Data(infoJSON.stdout.utf8)) as? [String: Any])
    #expect(infoObject["cardUID"] as? String == real && infoObject["randomUID"] as? Bool == true, "\(infoJSON.stdout)")
    #expect((infoObject["shownUID"] as? String)?.hasPrefix("08") == true, "\(infoJSON.stdout)")

    // Run again: the bit is set already, nothing changes, the same answers.
    let again = try runTool(["desfire", "config", "random-uid", "--reader", reader, "--yes", "--picc-key-env", "DESFIRE_PICC"],
                            environment: Self.zeroKey)
    #expect(again.status == 0 && value("UID (real):", in: again.stdout) == real, "\(again.stderr)")
  }

  @Test func disableFormatThenFormatCardIsRefused() throws {
    let reader = freshReader()
    let refused = try runTool(["desfire", "config", "--disable-format", "--reader", reader])
    #expect(refused.status == 64 && refused.stderr.contains("--yes"), "\(refused.stderr)")
    let set = try runTool(["desfire", "config", "--disable-format", "--reader", reader, "--yes"])
    #expect(set.status == 0, "\(set.stderr)")
    #expect(set.stdout.contains("FormatPICC:   disabled"), "\(set.stdout)")
    let format = try runTool(["desfire", "format-card", "--reader", reader, "--yes"])
    #expect(format.status == 77 && format.stderr.contains("FormatPICC answered 91 9d"), "\(format.stderr)")
  }

  @Test func aWrongPICCKeyIsRefusedWith77() throws {
    let reader = freshReader()
    let r = try runTool(["desfire", "config", "random-uid", "--reader", reader, "--yes", "--picc-key-env", "K"],
                        environment: ["K": "0011223344556677"])
    #expect(r.status == 77, "\(r.stderr)")
    #expect(!r.stderr.contains("0011223344556677"))
  }

  @Test func aFeedOfRandomIDCards() throws {
    let images = directory.appendingPathComponent("feed").path
    let r = try runTool(["scan", "--reader", "sim:desfire-ev3-8k+feed=2,uid=random,hand-ms=100,images=\(images)", "--format", "json",
                         "--continuous", "--timeout", "2"])
    let lines = r.stdout.split(separator: "\n")
    #expect(lines.count == 2, "\(r.stdout) \(r.stderr)")
    for line in lines {
      #expect(line.contains("\"uid\":\"08") && line.contains("\"uidRandom\":true"), "\(line)")
    }
    #expect(lines.first != lines.last)
    // The saved images are named after the real UIDs (7 bytes from 04), never the random ones.
    let names = try FileManager.default.contentsOfDirectory(atPath: images).sorted()
    #expect(names.count == 2 && names.allSatisfy { $0.count == "0001-".count + 14 + ".bin".count && $0.dropFirst(5).hasPrefix("04") },
            "\(names)")
    // emulate --feed takes it too, for desfire kinds only; without --feed it is refused.
    #expect(try EmulateCommand.parse(["--tag", "desfire-ev3-8k,desfire-ev1-4k", "--feed", "2", "--random-uid"]).randomUID)
    for (arguments, why) in [(["emulate", "--tag", "ntag213", "--feed", "2", "--random-uid"], "--random-uid is for desfire kinds"),
                             (["emulate", "--tag", "desfire-ev3-8k", "--random-uid"], "--random-uid goes with --feed N")] {
      let refused = try runTool(arguments)
      #expect(refused.status == 64 && refused.stderr.contains(why), "\(arguments): \(refused.stderr)")
    }
    let bad = try runTool(["scan", "--reader", "sim:ntag215+feed=2,uid=random"])
    #expect(bad.status == 64 && bad.stderr.contains("uid=random"), "\(bad.stderr)")
  }
}
