import Foundation
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

  /// The UID in a feed image's name (`NNNN-UID.bin`): the image holds the memory, not the UID.
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
    // A template without {cmac}, or one the planner refuses: 65, one line per row, before any tag.
    let noMAC = try runTool(["provision", rows.path, "--sdm-url", "https://e.com/{id}?p={picc}", "--master-key-file", keyFile.path,
                             "--reader", "sim:ntag424dna"])
    #expect(noMAC.status == 65)
    #expect(noMAC.stderr.contains("row A1 (line 2): --sdm-url: the URL has no {picc} and {cmac}"), "\(noMAC.stderr)")
    let long = String(repeating: "x", count: 300)
    let tooLong = try runTool(["provision", rows.path, "--sdm-url", "https://e.com/\(long)?p={picc}&c={cmac}",
                               "--master-key-file", keyFile.path, "--reader", "sim:ntag424dna"])
    #expect(tooLong.status == 65, "\(tooLong.stderr)")
    #expect(!FileManager.default.fileExists(atPath: rows.path + ".ledger.sqlite"), "a refused job leaves no ledger")
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
