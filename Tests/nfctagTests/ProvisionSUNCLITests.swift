import Foundation
import Hex
import NDEF
import NFCTransport
import NTAG424
import NTAG424Emulator
import NTAG424Tag
import Testing

/// `nfctag provision --sdm-url` through the in-process feeder of virtual NTAG 424 DNA tags
/// (`sim:ntag424dna+feed=N`): every tag done verifies with `sdm verify --master-key-file` and
/// nothing else; the command line's mistakes are refused before any tag.
struct ProvisionSUNCLITests {
  static let masterHex = "8d1c0f5e2a7b49c3be60d1f4a5972e3c"
  let directory: URL

  init() throws {
    NTAG424Emulator.register()
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-prov-sun-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  var keyFile: URL { directory.appendingPathComponent("master.hex") }
  var images: URL { directory.appendingPathComponent("img") }

  func writeFiles() throws -> URL {
    try Data((Self.masterHex + "\n").utf8).write(to: keyFile)
    let rows = directory.appendingPathComponent("tags.csv")
    try Data("id,sku\nA1,red shoe\nA2,blue/hat\nA3,cap\nA4,spare\n".utf8).write(to: rows)
    return rows
  }

  func provision(_ rows: URL, _ extra: [String] = [], feed: Int = 3) throws -> RunResult {
    try runTool(["provision", rows.path, "--sdm-url", "https://example.com/t/{id}?s={sku}&p={picc}&c={cmac}",
                 "--master-key-file", keyFile.path, "--json", "--timeout", "2",
                 "--reader", "sim:ntag424dna+feed=\(feed),seed=7,images=\(images.path)"] + extra)
  }

  /// The UID in a feed image's name (`NNNN-UID.bin`), which the image also ends with.
  static func uid(of image: URL) -> String {
    String(image.deletingPathExtension().lastPathComponent.split(separator: "-").last ?? "")
  }

  /// The URL a saved tag gives a phone now (one unauthenticated read, as a tap).
  static func tap(_ image: URL) throws -> String {
    let tag = try NTAG424DNAVirtualTag(image: Array(try Data(contentsOf: image)), uid: parseHex(uid(of: image)))
    let host = NTAG424DNA(link: Direct424Link(tag))
    try host.selectApplication()
    // One read of the file's first 200 bytes, as a phone's one ReadBinary: each read is a tap
    // with a counter of its own.
    let file = try host.readData(file: NativeCommand.ndefFile, offset: 0, length: 200, mode: .plain)
    let length = Int(file[0]) << 8 | Int(file[1])
    let decoded = try NDEFMessage(decoding: Array(file[2..<(2 + length)]))
    return try #require(decoded.records.first.flatMap(URIRecord.init)?.uri)
  }

  /// Four rows, three tags: the feed's last tag is saved when the run waits for the next one (a
  /// run that ends with its last row does not wait for the tag to leave).
  @Test func everyTagDoneVerifiesWithTheMasterKeyAlone() throws {
    let rows = try writeFiles()
    let r = try provision(rows)
    #expect(r.status == 75, "the feed ended with a row left: \(r.stderr)")
    let lines = r.stdout.split(separator: "\n")
    #expect(lines.filter { $0.contains(#""status":"done""#) }.count == 3, "\(r.stdout)")
    #expect(lines.last == #"{"event":"summary","done":3,"failed":0,"skipped":0,"remaining":1}"#)
    let saved = try FileManager.default.contentsOfDirectory(at: images, includingPropertiesForKeys: nil).filter { $0.pathExtension == "bin" }
    #expect(saved.count == 3)
    var seen: Set<String> = []
    for image in saved {
      let url = try Self.tap(image)
      #expect(url.hasPrefix("https://example.com/t/A"), "\(url)")
      let v = try runTool(["sdm", "verify", url, "--master-key-file", keyFile.path, "--format", "json"])
      #expect(v.status == 0, "\(url): \(v.stdout) \(v.stderr)")
      let uid = Self.uid(of: image)
      #expect(v.stdout.contains(#""uid":"\#(uid)""#), "\(v.stdout) for \(image.lastPathComponent)")
      seen.insert(String(url.prefix(24)))
    }
    #expect(seen.count == 3, "three rows on three tags: \(seen)")
    #expect(r.stdout.contains("s=blue%2Fhat") == false, "the events carry no URL")
    // The ledger holds each row done, and the job's template; never the key.
    let ledger = try Data(contentsOf: URL(fileURLWithPath: rows.path + ".ledger.sqlite"))
    #expect(ledger.range(of: Data(Self.masterHex.utf8)) == nil)
    #expect(ledger.range(of: Data(Self.masterHex.uppercased().utf8)) == nil)
    // What a verifier needs: UIDs, key versions, the scheme's version and the counter baseline.
    let export = try runTool(["ledger", "export", rows.path + ".ledger.sqlite", "--for-verifier"])
    #expect(export.status == 0, "\(export.stderr)")
    let exported = export.stdout.split(separator: "\n").map(String.init)
    #expect(exported.first == "uid,key_versions,diversification,counter_baseline")
    #expect(Set(exported.dropFirst()) == Set(saved.map { "\(Self.uid(of: $0)),0101010101,1,1" }), "\(export.stdout)")
    let json = try runTool(["ledger", "export", rows.path + ".ledger.sqlite", "--for-verifier", "--format", "jsonl"])
    #expect(json.stdout.split(separator: "\n").count == 3)
    #expect(json.stdout.contains(#"{"uid":"\#(Self.uid(of: saved[0]))","keyVersions":[1,1,1,1,1],"diversification":1,"counterBaseline":1}"#),
            "\(json.stdout)")
    // The same command again: the first tag is done already and is skipped, untouched.
    let again = try provision(rows, feed: 1)
    #expect(again.stdout.contains(#""status":"skipped""#), "\(again.stdout)")
  }

  @Test func aJobStartedWithSDMURLRefusesAnotherTemplate() throws {
    let rows = try writeFiles()
    #expect(try provision(rows, feed: 1).status != 64)
    let other = try runTool(["provision", rows.path, "--url", "https://example.com/t/{id}", "--timeout", "1",
                             "--reader", "sim:ntag213+feed=1,images=\(images.path)"])
    #expect(other.status == 65)
    #expect(other.stderr.contains("the job was started with --sdm-url 'https://example.com/t/{id}?s={sku}&p={picc}&c={cmac}'"), "\(other.stderr)")
  }

  @Test func commandLineMistakesAreRefusedBeforeAnyTag() throws {
    let rows = try writeFiles()
    let url = "https://e.com/{id}?p={picc}&c={cmac}"
    for arguments in [["--sdm-url", url],
                      ["--sdm-url", url, "--master-key-file", keyFile.path, "--master-key-env", "K"],
                      ["--url", "https://e.com/{id}", "--master-key-file", keyFile.path],
                      ["--sdm-url", url, "--master-key-file", keyFile.path, "--protect", "--secret-env", "S"],
                      ["--sdm-url", url, "--master-key-file", keyFile.path, "--mirror", "uid"],
                      ["--sdm-url", url, "--master-key-file", keyFile.path, "--lock"]] {
      let r = try runTool(["provision", rows.path] + arguments)
      #expect(r.status == 64, "\(arguments): \(r.stderr)")
    }
    // A key that is not 32 hex digits: 64, the line names the file, never the digits.
    let bad = directory.appendingPathComponent("bad.hex")
    try Data("8d1c0f5e2a7b49c3be60d1f4a5972e3\n".utf8).write(to: bad)
    let short = try runTool(["provision", rows.path, "--sdm-url", url, "--master-key-file", bad.path, "--reader", "sim:ntag424dna"])
    #expect(short.status == 64)
    #expect(short.stderr.contains("--master-key-file") && !short.stderr.contains("8d1c0f5e"), "\(short.stderr)")
    let unset = try runTool(["provision", rows.path, "--sdm-url", url, "--master-key-env", "NFCTAG_NO_SUCH_VARIABLE", "--reader", "sim:ntag424dna"])
    #expect(unset.status == 64, "\(unset.stderr)")
    let missing = try runTool(["provision", rows.path, "--sdm-url", url, "--master-key-file", directory.appendingPathComponent("none").path])
    #expect(missing.status == 66, "\(missing.stderr)")
    // A template `sdm setup` would refuse, by the same rule, 64 before any
    // row or tag, naming what is wrong; {enc:N} without a column (the same data on every tag) too.
    for (template, why) in [("https://e.com/{id}?p={picc}", "--sdm-url: {picc} needs {cmac}"),
                            ("https://e.com/{id}?c={cmac}", "--sdm-url: {cmac} needs {picc}"),
                            ("https://e.com/{id}/{picc}/{cmac}", "in the path or host"),
                            ("https://e.com/{id}?p={picc}{cmac}", "run together"),
                            ("https://e.com/{id}?p={picc}&n={ctr}&c={cmac}", "{ctr}"),
                            ("https://e.com/{id}?p={picc}&e={enc:32}&c={cmac}", "{enc:N:COLUMN}")] {
      let r = try runTool(["provision", rows.path, "--sdm-url", template, "--master-key-file", keyFile.path, "--reader", "sim:ntag424dna"])
      #expect(r.status == 64 && r.stderr.contains(why), "\(template): \(r.stderr)")
    }
    let long = String(repeating: "x", count: 300)
    let tooLong = try runTool(["provision", rows.path, "--sdm-url", "https://e.com/\(long)?p={picc}&c={cmac}",
                               "--master-key-file", keyFile.path, "--reader", "sim:ntag424dna"])
    #expect(tooLong.status == 65, "\(tooLong.stderr)")
    #expect(!FileManager.default.fileExists(atPath: rows.path + ".ledger.sqlite"), "a refused job leaves no ledger")
  }

  /// A tag set up under another master key: key 0 refused (91 AE, 77), with a hint as `sdm setup`
  /// gives one (here: the master key, not --auth-key-file); `ledger status` counts the tag among
  /// the failed tags as it counts its row among the failed rows.
  @Test func aTagOfAnotherMasterKeyIsExplainedAndCounted() throws {
    _ = try writeFiles()
    let other = directory.appendingPathComponent("other.hex")
    try Data("00112233445566778899aabbccddeeff\n".utf8).write(to: other)
    let reader = "sim:ntag424dna:" + directory.appendingPathComponent("tag.bin").path
    func provision(_ key: URL, _ ledger: String) throws -> RunResult {
      try runTool(["provision", "--count", "1", "--sdm-url", "https://example.com/t?p={picc}&c={cmac}", "--master-key-file", key.path,
                   "--ledger", directory.appendingPathComponent(ledger).path, "--timeout", "2", "--reader", reader])
    }
    let first = try provision(other, "first.sqlite")
    #expect(first.status == 0, "\(first.stdout) \(first.stderr)")
    let second = try provision(keyFile, "second.sqlite")
    #expect(second.status == 77, "\(second.stdout) \(second.stderr)")
    #expect(second.stdout.contains(": failed: AuthenticateEV2First (key 0): command af answered 91ae (wrong key: "), "\(second.stdout)")
    #expect(second.stdout.contains("--master-key-file"), "\(second.stdout)")
    let status = try runTool(["ledger", "status", directory.appendingPathComponent("second.sqlite").path])
    #expect(status.status == 0, "\(status.stderr)")
    #expect(status.stdout.hasSuffix("failed:      1\nfailed tags: 1\n"), "\(status.stdout)")
  }

  /// `{enc:N:COLUMN}` encrypts each row's own characters (it encrypted zeros);
  /// a row whose value is not N/2 printable characters is refused before any tag.
  @Test func encryptedFileDataComesFromARowColumn() throws {
    try Data((Self.masterHex + "\n").utf8).write(to: keyFile)
    let rows = directory.appendingPathComponent("serials.csv")
    try Data("id,serial\nS1,sn 0000-0001/abc\n".utf8).write(to: rows)
    let template = "https://example.com/t/{id}?p={picc}&enc={enc:32:serial}&c={cmac}"
    let r = try runTool(["provision", rows.path, "--sdm-url", template, "--master-key-file", keyFile.path, "--json", "--timeout", "2",
                         "--reader", "sim:ntag424dna+feed=1,seed=9,images=\(images.path)"])
    #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
    let saved = try FileManager.default.contentsOfDirectory(at: images, includingPropertiesForKeys: nil).filter { $0.pathExtension == "bin" }
    let image = try #require(saved.first)
    let url = try Self.tap(image)
    let v = try runTool(["sdm", "verify", url, "--master-key-file", keyFile.path, "--format", "json"])
    #expect(v.status == 0, "\(url): \(v.stderr)")
    #expect(v.stdout.contains(#""fileData":"\#(hexString(Array("sn 0000-0001/abc".utf8)))""#), "\(v.stdout)")

    let short = directory.appendingPathComponent("short.csv")
    try Data("id,serial\nS2,too short\n".utf8).write(to: short)
    let refused = try runTool(["provision", short.path, "--sdm-url", template, "--master-key-file", keyFile.path,
                               "--reader", "sim:ntag424dna"])
    #expect(refused.status == 65 && refused.stderr.contains("must be 16 printable ASCII characters"), "\(refused.stderr)")
    #expect(!refused.stderr.contains("too short"), "the row's data is not echoed")
  }

  /// A key 1 at version 00 that is not the factory key (`keys change --version 0`): its ChangeKey
  /// with the factory value answers `91 1E`, named as such (77); the ledger notes it, and the tag
  /// coming back is refused before the factory value is sent again.
  @Test func aKeyAtVersion00ThatIsNotTheFactoryKeyIsNotTriedAgain() throws {
    _ = try writeFiles()
    let reader = "sim:ntag424dna:" + directory.appendingPathComponent("tag.bin").path
    let k1 = directory.appendingPathComponent("k1.hex")
    try Data("11111111111111111111111111111111\n".utf8).write(to: k1)
    let set = try runTool(["keys", "change", "--key", "1", "--new-key-file", k1.path, "--version", "0", "--reader", reader, "--quiet"])
    #expect(set.status == 0, "\(set.stderr)")
    func provision() throws -> RunResult {
      try runTool(["provision", "--count", "1", "--sdm-url", "https://example.com/t?p={picc}&c={cmac}", "--master-key-file", keyFile.path,
                   "--ledger", directory.appendingPathComponent("l.sqlite").path, "--timeout", "2", "--reader", reader, "--trace"])
    }
    let first = try provision()
    #expect(first.status == 77, "\(first.stdout) \(first.stderr)")
    #expect(first.stdout.contains("failed: ChangeKey (key 1): the old value given for key 1 is not the tag's"), "\(first.stdout)")
    #expect(first.stdout.contains("(key 1 has version 00 but is not the factory key"), "\(first.stdout)")
    let second = try provision()
    #expect(second.status == 77, "\(second.stdout) \(second.stderr)")
    #expect(second.stdout.contains("key 1 has version 00 but was not the factory key on this tag before: not tried again"), "\(second.stdout)")
    #expect(!second.stderr.lowercased().contains("90 c4"), "no ChangeKey sent: \(second.stderr)")
  }

  @Test func anNTAG21xIsNotA424DNA() throws {
    let rows = try writeFiles()
    let r = try runTool(["provision", rows.path, "--sdm-url", "https://e.com/{id}?p={picc}&c={cmac}", "--master-key-file", keyFile.path,
                         "--json", "--timeout", "1", "--reader", "sim:ntag215+feed=1,images=\(images.path)"])
    #expect(r.status == 65, "\(r.stdout) \(r.stderr)")
    #expect(r.stdout.contains("not an NTAG 424 DNA"), "\(r.stdout)")
  }
}

/// APDUs straight to a virtual 424 DNA.
final class Direct424Link: Transceiver {
  let tag: NTAG424DNAVirtualTag
  init(_ tag: NTAG424DNAVirtualTag) { self.tag = tag }
  var capabilities: LinkCapabilities { LinkCapabilities(maxResponseLength: 250, maxCommandLength: 250, rawCommands: true) }
  func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard case .data(let answer) = tag.respond(to: command) else { throw .tagRemoved }
    return answer
  }
}
