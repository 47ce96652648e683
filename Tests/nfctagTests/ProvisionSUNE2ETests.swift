import Foundation
@testable import NTAG424
import NTAG424Emulator
import NFCTransport
import Testing

/// `nfctag provision --sdm-url` end to end: the real binary, the real pcscd, NTAG 424 DNA tags fed
/// by `nfctag emulate --tag ntag424dna --feed` (handed over to nfctag-provision), a real SQLite
/// ledger. Every tag done verifies with `sdm verify --master-key-file` alone; a run killed at
/// random moments leaves every key of every tag either the factory key or the derived one, and
/// no tag with a changed key that the ledger does not bind to a row.
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .virtualReader)
struct ProvisionSUNEndToEnd {
  let base = ProvisionEndToEnd()
  static let masterHex = "3c2e9a5d7f0b4c61a8e2d91b07f6c435"
  static let template = "https://example.com/t/{slug}?p={picc}&c={cmac}"

  init() { NTAG424Emulator.register() }

  func masterKeyFile(_ dir: URL) throws -> URL {
    let file = dir.appendingPathComponent("master.hex")
    try Data((Self.masterHex + "\n").utf8).write(to: file)
    return file
  }

  /// Every done row's tag gives a URL that `sdm verify --master-key-file` accepts, with its UID.
  func expectDoneTagsVerify(_ dir: URL, ledger: URL, key: URL, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
    let done = try base.export(ledger).filter { !$0[0].isEmpty && $0[2] == "done" }
    let imageByUID = Dictionary(try base.images(dir).map { ($0.uid, $0.file) }, uniquingKeysWith: { a, _ in a })
    for row in done {
      guard let image = imageByUID[row[1]] else {
        Issue.record("row \(row[0]) is done on \(row[1]), which has no image", sourceLocation: sourceLocation)
        continue
      }
      let url = try ProvisionSUNCLITests.tap(image)
      let v = try runTool(["sdm", "verify", url, "--master-key-file", key.path, "--format", "json"])
      #expect(v.status == 0 && v.stdout.contains(#""uid":"\#(row[1])""#), "row \(row[0]) on \(row[1]): \(url) \(v.stdout)",
              sourceLocation: sourceLocation)
    }
    return done.count
  }

  /// Each key of each tag the feeder saved is the factory key with version 00 or the derived key
  /// with version 01, never another; a tag with a derived key is bound to a row of the ledger.
  func expectNoUnrecordedKeys(_ dir: URL, ledger: URL, context: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let bound = Set(try base.export(ledger).filter { !$0[0].isEmpty }.map { $0[1] }.filter { !$0.isEmpty })
    let master = try AESKey(bytes: parseHex(Self.masterHex) ?? [])
    for (uid, file) in try base.images(dir) {
      let uidBytes = try #require(parseHex(uid))
      let tag = try NTAG424DNAVirtualTag(image: Array(try Data(contentsOf: file)), uid: uidBytes)
      let derived = try SDMKeyDiversification.applicationKeys(master: master, uid: uidBytes)
      var changed = 0
      for number in 0..<5 {
        let factory = tag.keyVersion(number) == 0 && tag.keyEquals(number, AESKey.factory.bytes)
        let new = tag.keyVersion(number) == 1 && tag.keyEquals(number, derived[number].bytes)
        #expect(factory || new, "tag \(uid) key \(number): version \(tag.keyVersion(number) ?? 99), neither factory nor derived, \(context)",
                sourceLocation: sourceLocation)
        if new { changed += 1 }
        #expect(tag.failedAuthenticationCounter(key: number) == 0, "tag \(uid) key \(number) failed, \(context)", sourceLocation: sourceLocation)
      }
      if changed > 0 {
        #expect(bound.contains(uid), "tag \(uid) has \(changed) derived key(s) and no row in the ledger, \(context)", sourceLocation: sourceLocation)
      }
    }
  }

  @Test func fourTagsEndToEndEachVerifyWithTheMasterKey() throws {
    let (dir, rows) = try base.job(rows: 4)
    let key = try masterKeyFile(dir)
    let feed = try base.feeder(dir, count: 4, kinds: "ntag424dna", seed: 11)
    defer { base.stopFeeder(feed) }
    let ledger = dir.appendingPathComponent("ledger.sqlite")
    let r = try runNFCTag(["provision", rows.path, "--sdm-url", Self.template, "--master-key-file", key.path,
                           "--ledger", ledger.path, "--reader", e2eReader, "--timeout", "20", "--json"], timeout: 120)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(base.waitForExit(feed) == 0)
    let events = r.stdout.split(separator: "\n")
    #expect(events.filter { $0.contains(#""status":"done""#) }.count == 4, "\(r.stdout)")
    // The tag's 13 exchanges and the reader's own (detection, LED): the ACR122U face's pseudo-APDUs.
    for event in events where event.contains(#""status":"done""#) { #expect(event.contains(#""apdus":"#)) }
    #expect(try expectDoneTagsVerify(dir, ledger: ledger, key: key) == 4)
    try expectNoUnrecordedKeys(dir, ledger: ledger, context: "four tags")
    let export = try runNFCTag(["ledger", "export", ledger.path, "--for-verifier"])
    #expect(export.stdout.split(separator: "\n").count == 5 && export.stdout.contains(",0101010101,1,1"), "\(export.stdout)")
  }

  /// The crash test with 424 DNA: six SIGKILLs at random moments rather than the NTAG213 test's
  /// twenty, to keep its slot time small (each kill costs up to 1.8 s of a run and the feeder's
  /// hand time); the in-process tests already take a tag away after every single APDU.
  @Test func killedAtRandomMomentsEveryKeyIsFactoryOrDerived() throws {
    let (dir, rows) = try base.job(rows: 8)
    let key = try masterKeyFile(dir)
    let feed = try base.feeder(dir, count: 20, kinds: "ntag424dna", seed: 13)
    defer { base.stopFeeder(feed) }
    let ledger = dir.appendingPathComponent("ledger.sqlite")
    let arguments = ["provision", rows.path, "--sdm-url", Self.template, "--master-key-file", key.path, "--ledger", ledger.path,
                     "--reader", e2eReader, "--json"]
    var delays: [Int] = []
    for run in 1...6 {
      let process = Process()
      process.executableURL = nfctagBinary()
      process.arguments = arguments
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      let delay = Int.random(in: 150...1500)
      delays.append(delay)
      usleep(UInt32(delay) * 1000)
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      #expect(process.terminationReason == .uncaughtSignal || process.terminationStatus == 0, "run \(run)")
      try base.checkLedgerInvariants(ledger, context: "after kill \(run) (delays \(delays))")
    }
    // The rerun finishes the tag still in the reader, if any, and goes on.
    let r = try runNFCTag(arguments + ["--timeout", "4"], timeout: 120)
    #expect([0, 74, 75].contains(r.status), "\(r.stderr)")
    base.stopFeeder(feed)  // every tag it presented is saved
    let done = try expectDoneTagsVerify(dir, ledger: ledger, key: key)
    try expectNoUnrecordedKeys(dir, ledger: ledger, context: "delays \(delays)")
    let exported = try base.export(ledger).filter { !$0[0].isEmpty }
    let bound = exported.filter { $0[2] == "claimed" || $0[2] == "failed" }.count
    #expect(done + bound == 8, "done \(done), bound \(bound), delays \(delays)")
  }
}
