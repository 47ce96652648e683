import DESFireEmulator
import Foundation
import Hex
import NTAG424
import Testing

/// `nfctag provision` onto MIFARE DESFire cards through the in-process feeder
/// (`sim:desfire-ev3-8k+feed=N`): every card done holds its row's message and answers to the PICC
/// master key diversified from the master key and its UID (AN10922, computed here with NTAG424's
/// AES scheme); the command line's mistakes are refused before any tag (64).
struct ProvisionDESFireCLITests {
  static let masterHex = "5a1c0f5e2a7b49c3be60d1f4a5972e3c"
  let scratch: ScratchFolder
  var directory: URL { scratch.url }

  init() throws {
    DESFireEmulator.register()   // the in-process runner calls no `main`
    scratch = try ScratchFolder("nfctag-prov-desfire")
    _ = try scratch.keyFile("master.hex", Self.masterHex)
  }

  var keyFile: URL { directory.appendingPathComponent("master.hex") }
  var images: URL { directory.appendingPathComponent("img") }

  func provision(_ extra: [String] = [], feed: Int = 3, kind: String = "desfire-ev3-8k") throws -> RunResult {
    try runTool(["provision", "--count", "3", "--url", "https://example.com/d/{n:03}?u={uid}", "--json", "--timeout", "2",
                 "--ledger", directory.appendingPathComponent("l.sqlite").path, "--desfire-master-key-file", keyFile.path,
                 "--reader", "sim:\(kind)+feed=\(feed),seed=11,images=\(images.path)"] + extra)
  }

  /// The card's PICC master key: AN10922 AES-128 with M = UID ‖ 000000 ‖ "nfctag".
  func piccKeyFile(uid: [UInt8]) throws -> URL {
    let master = try AESKey(bytes: try #require(parseHex(Self.masterHex)))
    let key = try KeyDiversification.aes128(master: master, input: uid + [0, 0, 0] + Array("nfctag".utf8))
    let file = directory.appendingPathComponent("picc-\(hexString(uid)).hex")
    try Data((hexString(key.packageBytes) + "\n").utf8).write(to: file)
    return file
  }

  @Test(arguments: ["desfire-ev1-4k", "desfire-ev2-4k", "desfire-ev3-8k"])
  func everyCardDoneHoldsItsRowAndItsDerivedKeys(kind: String) throws {
    let r = try provision(kind: kind)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.split(separator: "\n").last == #"{"event":"summary","done":3,"failed":0,"skipped":0,"remaining":0}"#, "\(r.stdout)")
    let saved = try FileManager.default.contentsOfDirectory(at: images, includingPropertiesForKeys: nil).filter { $0.pathExtension == "bin" }
    #expect(saved.count == 3)
    var urls: Set<String> = []
    for image in saved {
      let uidHex = String(image.deletingPathExtension().lastPathComponent.split(separator: "-").last ?? "")
      let reader = "sim:\(kind):\(image.path)"
      let read = try runTool(["read", "--reader", reader])
      #expect(read.stdout.contains("?u=\(uidHex)"), "\(read.stdout)")
      urls.insert(read.stdout)
      let info = try runTool(["desfire", "info", "--reader", reader, "--picc-key-file", try piccKeyFile(uid: try #require(parseHex(uidHex))).path,
                              "--picc-key-type", "aes"])
      #expect(info.status == 0 && info.stdout.contains("card UID:     \(uidHex)"), "\(info.stdout) \(info.stderr)")
      let factory = try runTool(["desfire", "info", "--reader", reader, "--picc-key-file", keyFile.path, "--picc-key-type", "aes"])
      #expect(factory.status != 0, "the master key itself is not a card's key")
    }
    #expect(urls.count == 3, "three rows on three cards")
    let ledger = try Data(contentsOf: directory.appendingPathComponent("l.sqlite"))
    #expect(ledger.range(of: Data(Self.masterHex.utf8)) == nil && ledger.range(of: Data(Self.masterHex.uppercased().utf8)) == nil)
  }

  @Test func commandLineMistakesAreRefusedBeforeAnyTag() throws {
    let base = ["provision", "--count", "1", "--url", "https://e.com/{n}", "--reader", "sim:desfire-ev3-8k"]
    for arguments in [["--desfire-master-key-file", keyFile.path, "--desfire-master-key-env", "K"],
                      ["--desfire-master-key-file", keyFile.path, "--desfire-keys-file", keyFile.path],
                      ["--desfire-key-type", "3k3des"],
                      ["--desfire-system-id", "abcdefg"],
                      ["--desfire-master-key-file", keyFile.path, "--desfire-system-id", "short"],
                      ["--desfire-master-key-file", keyFile.path, "--desfire-key-type", "3k3des"],
                      ["--desfire-keys-file", keyFile.path]] {
      let r = try runTool(base + arguments)
      #expect(r.status == 64, "\(arguments): \(r.stderr)")
      #expect(!r.stderr.contains(Self.masterHex) && !r.stderr.contains("5a1c"), "\(r.stderr)")
      #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
    }
    // `--sdm-url` with DESFire keys: ProvisionDESFireSUNCLITests.
  }
}
