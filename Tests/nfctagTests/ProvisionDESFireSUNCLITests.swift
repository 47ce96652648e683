import DESFireEmulator
import Foundation
import Hex
import NTAG424Emulator
import Testing

/// `nfctag provision --sdm-url` onto MIFARE DESFire EV3 cards through the in-process feeder
/// (`sim:desfire-ev3-8k+feed=N`): every card done gives a URL that `sdm verify` checks with the
/// SDM master key alone, the counter rising tap after tap; an EV2 and the options that cannot go
/// with SDM are refused with 64, nothing written.
struct ProvisionDESFireSUNCLITests {
  static let sdmMasterHex = "8d1c0f5e2a7b49c3be60d1f4a5972e3c"
  static let desfireMasterHex = "5a1c0f5e2a7b49c3be60d1f4a5972e3c"
  static let template = "https://example.com/t/{n:03}?p={picc}&c={cmac}"
  let directory: URL

  init() throws {
    DESFireEmulator.register()   // the in-process runner calls no `main`
    NTAG424Emulator.register()
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-prov-desfire-sun-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try Data((Self.sdmMasterHex + "\n").utf8).write(to: sdmKeyFile)
    try Data((Self.desfireMasterHex + "\n").utf8).write(to: desfireKeyFile)
  }

  var sdmKeyFile: URL { directory.appendingPathComponent("sdm-master.hex") }
  var desfireKeyFile: URL { directory.appendingPathComponent("desfire-master.hex") }
  var images: URL { directory.appendingPathComponent("img") }
  var ledger: String { directory.appendingPathComponent("l.sqlite").path }

  func provision(kind: String = "desfire-ev3-8k", _ extra: [String] = []) throws -> RunResult {
    try runTool(["provision", "--count", "3", "--sdm-url", Self.template, "--master-key-file", sdmKeyFile.path,
                 "--desfire-master-key-file", desfireKeyFile.path, "--json", "--timeout", "2", "--ledger", ledger,
                 "--reader", "sim:\(kind)+feed=3,seed=11,images=\(images.path)"] + extra)
  }

  @Test func threeEV3CardsEachVerifyWithTheMasterKeyTapAfterTap() throws {
    let r = try provision()
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.split(separator: "\n").last == #"{"event":"summary","done":3,"failed":0,"skipped":0,"remaining":0}"#, "\(r.stdout)")
    let saved = try FileManager.default.contentsOfDirectory(at: images, includingPropertiesForKeys: nil).filter { $0.pathExtension == "bin" }
    #expect(saved.count == 3)
    var rows: Set<String> = []
    let store = directory.appendingPathComponent("counters.txt").path
    for image in saved {
      let uid = String(image.deletingPathExtension().lastPathComponent.split(separator: "-").last ?? "")
      var last = -1
      for tap in 1...2 {
        let url = try tappedURL("sim:desfire-ev3-8k:\(image.path)")
        #expect(url.hasPrefix("https://example.com/t/00"), "\(url)")
        rows.insert(String(url.prefix(25)))
        let v = try runTool(["sdm", "verify", url, "--master-key-file", sdmKeyFile.path, "--counter-store", store, "--format", "json", "--quiet"])
        #expect(v.status == 0, "tap \(tap) of \(uid): \(v.stdout) \(v.stderr)")
        let result = try jsonObject(v.stdout)
        #expect(result["uid"] as? String == uid, "\(v.stdout)")
        let counter = try #require(result["counter"] as? Int)
        #expect(counter > last, "the counter rises: \(counter) after \(last)")
        last = counter
      }
    }
    #expect(rows.count == 3, "three rows on three cards: \(rows)")
    // What a verifier needs: every card's six keys at 01 and the counter the run's read-back left.
    let export = try runTool(["ledger", "export", ledger, "--for-verifier"])
    #expect(export.status == 0, "\(export.stderr)")
    let lines = export.stdout.split(separator: "\n").dropFirst()
    #expect(lines.count == 3 && lines.allSatisfy { $0.contains(",010101010101,1,") }, "\(export.stdout)")
    let bytes = try Data(contentsOf: URL(fileURLWithPath: ledger))
    for key in [Self.sdmMasterHex, Self.desfireMasterHex] {
      #expect(bytes.range(of: Data(key.utf8)) == nil && bytes.range(of: Data(key.uppercased().utf8)) == nil)
    }
  }

  @Test func anEV2IsRefusedBeforeAnyWrite() throws {
    let r = try provision(kind: "desfire-ev2-4k")
    #expect(r.status == 64, "\(r.stderr)")
    #expect(r.stdout.contains("SDM needs a MIFARE DESFire EV3"), "\(r.stdout)")
    #expect(!r.stdout.contains(#""status":"done""#), "\(r.stdout)")
    let saved = try FileManager.default.contentsOfDirectory(at: images, includingPropertiesForKeys: nil).filter { $0.pathExtension == "bin" }
    for image in saved {
      let read = try runTool(["read", "--reader", "sim:desfire-ev2-4k:\(image.path)"])
      #expect(read.status != 0, "no NDEF application was made: \(read.stdout)")
    }
  }

  /// An NTAG 424 DNA answers GetVersion too, but a job with DESFire keys is for DESFire cards.
  @Test func a424DNAIsNotTakenForADESFire() throws {
    let r = try provision(kind: "ntag424dna")
    #expect(r.status == 65, "\(r.stdout) \(r.stderr)")
    #expect(r.stdout.contains("not a MIFARE DESFire"), "\(r.stdout)")
  }

  @Test func optionsThatCannotGoWithSDMAreRefusedBeforeAnyTag() throws {
    let base = ["provision", "--count", "1", "--sdm-url", Self.template, "--master-key-file", sdmKeyFile.path, "--reader", "sim:desfire-ev3-8k"]
    for extra in [["--desfire-master-key-file", desfireKeyFile.path, "--desfire-key-type", "2k3des"],
                  ["--desfire-master-key-file", desfireKeyFile.path, "--desfire-key-type", "3k3des"],
                  ["--desfire-keys-file", desfireKeyFile.path]] {
      let r = try runTool(base + extra)
      #expect(r.status == 64, "\(extra): \(r.stderr)")
      #expect(r.stderr.split(separator: "\n").count == 1 && !r.stderr.contains("5a1c") && !r.stderr.contains("8d1c"), "\(r.stderr)")
    }
  }
}
