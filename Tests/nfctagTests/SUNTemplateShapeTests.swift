import Foundation
import Hex
@testable import NTAG424
import NTAG424Emulator
import ProvisionCommands
import ProvisioningLedger
import ProvisioningLedgerSQLite
import SUNService
import Testing

/// Every SUN URL template shape: what `sdm setup` accepts is set up on a virtual NTAG 424 DNA,
/// tapped, and verified by `sdm verify` and by `sdm serve`'s verifier (SUNService's
/// `SUNVerifier`, the code behind `GET /verify`, in process); what it refuses leaves the tag's
/// image byte-identical (NTAG424's `SUNTemplateRule`, NT4H2421Gx datasheet §9.3).
@Suite final class SUNTemplateShapeTests {
  let directory: URL

  init() throws {
    registerVirtualNTAG424()
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-sun-shapes-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: directory) }

  func image(_ name: String) -> URL { directory.appendingPathComponent("\(name).bin") }
  func reader(_ name: String) -> String { "sim:ntag424dna:" + image(name).path }

  func json(_ text: String) throws -> [String: Any] { try jsonObject(text) }

  /// The URL a phone reads (``tappedURL(_:)``).
  func tap(_ reader: String) throws -> String { try tappedURL(reader) }

  /// An accepted shape: its template, the parameter names to verify it with, and file data.
  struct Accepted: CustomTestStringConvertible, Sendable {
    var template: String
    var picc = "p", mac = "c", enc = "enc"
    var fileData: String?
    var testDescription: String { template }
  }

  static let accepted: [Accepted] = [
    Accepted(template: "https://example.com/t?p={picc}&c={cmac}"),
    Accepted(template: "https://example.com/t?c={cmac}&p={picc}"),
    Accepted(template: "https://example.com/a/b/?id=42&p={picc}&c={cmac}&lang=en#top"),
    Accepted(template: "https://www.my424dna.com/?picc_data={picc}&cmac={cmac}", picc: "picc_data", mac: "cmac"),
    Accepted(template: "https://example.com/t?p={picc}&enc={enc:32}&c={cmac}", fileData: "secret data 0042"),
    Accepted(template: "https://example.com/t?e={enc:64}&x=1&p={picc}&m={cmac}", picc: "p", mac: "m", enc: "e",
             fileData: String(repeating: "0123456789abcdef", count: 2)),
    Accepted(template: "http://example.com?p={picc}&c={cmac}"),
  ]

  /// Set up, tapped, verified by `sdm verify` and by the service's verifier, with the factory keys
  /// the virtual tag has.
  @Test(arguments: accepted) func anAcceptedShapeIsVerifiedBySdmVerifyAndTheService(_ shape: Accepted) async throws {
    let name = "ok-\(abs(shape.template.hashValue))"
    var setupArguments = ["sdm", "setup", "--url", shape.template, "--reader", reader(name), "--format", "json", "--quiet"]
    if let data = shape.fileData {
      let file = directory.appendingPathComponent("\(name).data")
      try Data((data + "\n").utf8).write(to: file)
      setupArguments += ["--enc-data-file", file.path]
    }
    let setup = try runTool(setupArguments)
    #expect(setup.status == 0, "\(setup.stderr)")
    #expect(try json(setup.stdout)["verified"] as? Bool == true, "\(setup.stdout)")

    let url = try tap(reader(name))
    let names = ["--picc-param", shape.picc, "--mac-param", shape.mac, "--enc-param", shape.enc]
    let verify = try runTool(["sdm", "verify", url, "--format", "json", "--quiet"] + names)
    #expect(verify.status == 0, "\(url): \(verify.stdout) \(verify.stderr)")
    let verified = try json(verify.stdout)
    #expect(verified["authentic"] as? Bool == true && verified["counter"] as? Int == 2, "\(verify.stdout)")
    if let data = shape.fileData {
      #expect(verified["fileData"] as? String == hexString(Array(data.utf8)), "\(verify.stdout)")
    }

    let query = String(try #require(url.split(separator: "?", maxSplits: 1).last))
    let ledger = try SQLiteLedger(path: directory.appendingPathComponent("\(name).sqlite").path, job: LedgerJob(name: "job"))
    defer { ledger.close() }
    let service = SUNVerifier(keys: .byRole(metaRead: .factory, fileRead: .factory), counters: SUNCounters(ledgers: [ledger]),
                              names: SUNParameterNames(piccData: shape.picc, mac: shape.mac, fileData: shape.enc))
    let answer = await service.answer(query: query)
    #expect(answer.status == 200 && answer.outcome == .fresh, "\(url): \(answer.json)")
    // The whole URL, percent-encoded in `url=`, as a page forwards it.
    let encoded = url.utf8.map { byte in
      (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
        ? String(UnicodeScalar(byte)) : "%" + String(byte, radix: 16, uppercase: true)
    }.joined()
    let replay = await service.answer(query: "url=" + encoded)
    #expect(replay.outcome == .replayed, "\(replay.json)")
  }

  /// One shape through a spawned `sdm serve` over HTTP (`ServeProcess`, SUNServeProcessTests):
  /// parameters renamed and file data, the tag's keys 1 and 2 those the master key derives for
  /// its UID, the service told the names with --picc-param, --mac-param and --enc-param.
  @Test func aRenamedShapeWithFileDataIsVerifiedByAServedVerifier() throws {
    let reader = reader("served")
    let versions = try runTool(["keys", "versions", "--reader", reader, "--format", "json"])
    let uidText = try #require(try json(versions.stdout)["uid"] as? String)
    let uid = try #require(parseHex(uidText))
    let master = try AESKey(bytes: try #require(parseHex(ServeProcess.master)))
    let meta = try SDMKeyDiversification.metaReadKey(master: master), file = try SDMKeyDiversification.fileReadKey(master: master, uid: uid)
    let metaFile = directory.appendingPathComponent("meta.hex"), fileFile = directory.appendingPathComponent("file.hex")
    try Data(hexString(meta.bytes).utf8).write(to: metaFile)
    try Data(hexString(file.bytes).utf8).write(to: fileFile)
    for (number, key) in [(1, fileFile), (2, metaFile)] {
      let change = try runTool(["keys", "change", "--key", "\(number)", "--new-key-file", key.path, "--version", "1", "--reader", reader, "--quiet"])
      #expect(change.status == 0, "\(change.stderr)")
    }
    let data = directory.appendingPathComponent("served.data")
    try Data("lot 42, line 7..".utf8).write(to: data)
    let setup = try runTool(["sdm", "setup", "--url", "https://example.com/t?sun={picc}&d={enc:32}&mac={cmac}", "--reader", reader,
                             "--enc-data-file", data.path, "--meta-key-file", metaFile.path, "--file-key-file", fileFile.path, "--quiet"])
    #expect(setup.status == 0, "\(setup.stderr)")
    #expect(setup.stdout.contains("verify:    nfctag sdm verify URL --picc-param sun --mac-param mac --enc-param d"), "\(setup.stdout)")
    let url = try tap(reader)
    let ledger = directory.appendingPathComponent("served.sqlite").path
    try SQLiteLedger(path: ledger, job: LedgerJob(name: "batch")).close()
    let server = try ServeProcess(ledger: ledger, extra: ["--picc-param", "sun", "--mac-param", "mac", "--enc-param", "d"])
    let query = String(try #require(url.split(separator: "?", maxSplits: 1).last))
    let answer = try server.get("/verify?" + query)
    #expect(answer.status == 200 && answer.body.contains(#""valid":true,"uid":"\#(hexString(uid))","counter":2,"fresh":true"#),
            "\(url): \(answer.body)")
    #expect(server.stop().status == 0)
  }

  /// The rule the help states is the rule applied: `sdm setup --url`'s help
  /// states NTAG424's `SUNTemplateRule.statement`; `provision --help` no longer offers `{ctr}` or a
  /// bare `{enc:N}`.
  @Test func theHelpStatesTheRuleApplied() throws {
    #expect(SDMCommand.sunTemplateRule == SUNTemplateRule.statement)
    func flat(_ text: String) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
    let setup = try runTool(["sdm", "setup", "--help"])
    #expect(flat(setup.stdout).contains(flat(SUNTemplateRule.statement)), "\(setup.stdout)")
    #expect(!setup.stdout.contains("{uid}") && !setup.stdout.contains("{ctr}"), "\(setup.stdout)")
    let provision = try runTool(["provision", "--help"])
    #expect(!provision.stdout.contains("{ctr}") && !provision.stdout.contains("{enc:N}"), "\(provision.stdout)")
    #expect(flat(provision.stdout).contains("{picc} and {cmac}, each the whole value of a query parameter of its own"), "\(provision.stdout)")
  }

  /// A refused shape and a few words of the line that says why.
  static let refused: [(template: String, why: String)] = [
    ("https://example.com/{picc}/{cmac}", "path or host"),
    ("https://{picc}.example.com/?c={cmac}", "path or host"),
    ("https://example.com/t?p={picc}{cmac}", "run together"),
    ("https://example.com/t?p=x{picc}&c={cmac}", "the whole value"),
    ("https://example.com/t?p={picc}&c={cmac}x", "the whole value"),
    ("https://example.com/t?p={picc}#c={cmac}", "fragment"),
    ("https://example.com/t?u={uid}&n={ctr}&c={cmac}", "{uid} and {ctr}"),
    ("https://example.com/t?u={uid}", "{uid} and {ctr}"),
    ("https://example.com/t?c={cmac}", "{cmac} needs {picc}"),
    ("tel:+1{uid}", "{uid} and {ctr}"),
    ("https://example.com/t?p={picc}", "{picc} needs {cmac}"),
    ("https://example.com/t?p={picc}&p=1&c={cmac}", "more than once"),
    ("https://example.com/t?={picc}&c={cmac}", "parameter name"),
    ("https://example.com/t?p={picc}&enc={enc:32}&c={cmac}", "--enc-data-file"),
    ("https://example.com/t?p={picc}&enc={enc:32}&x=%41&c={cmac}", "percent"),
    ("https://example.com/t?p={picc}&c={cmac}&e={enc:32}", "{enc:N} needs a {cmac} after it"),
    ("https://example.com/", "needs {picc} and {cmac}"),
  ]

  /// Refused with 64 and the reason, before the tag is touched: its image is byte-identical.
  @Test func aRefusedShapeLeavesTheTagByteIdentical() throws {
    let reader = reader("refused")
    let first = try runTool(["sdm", "setup", "--url", "https://example.com/t?p={picc}&c={cmac}", "--reader", reader, "--quiet"])
    #expect(first.status == 0, "\(first.stderr)")
    let before = try Data(contentsOf: image("refused"))
    for (template, why) in Self.refused {
      let r = try runTool(["sdm", "setup", "--url", template, "--reader", reader, "--quiet"])
      #expect(r.status == 64, "\(template): \(r.stderr)")
      #expect(r.stderr.contains(why), "\(template): \(r.stderr)")
      #expect(try Data(contentsOf: image("refused")) == before, "\(template) changed the tag")
    }
    // File data without {enc:N}, and a data file of the wrong length: 64, the tag untouched.
    let data = directory.appendingPathComponent("refused.data")
    try Data("too short\n".utf8).write(to: data)
    for (template, why) in [("https://example.com/t?p={picc}&c={cmac}", "--enc-data-file goes with an {enc:N}"),
                            ("https://example.com/t?p={picc}&e={enc:32}&c={cmac}", "must be 16 printable ASCII characters")] {
      let r = try runTool(["sdm", "setup", "--url", template, "--enc-data-file", data.path, "--reader", reader, "--quiet"])
      #expect(r.status == 64 && r.stderr.contains(why) && !r.stderr.contains("too short"), "\(template): \(r.stderr)")
      #expect(try Data(contentsOf: image("refused")) == before, "\(template) changed the tag")
    }
  }
}
