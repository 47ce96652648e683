import Foundation
import NFCEmulator
import NFCTagCLI
import NTAG424Emulator
import Testing

/// Installs the virtual NTAG 424 DNA as nfctag-provision's `main` does, for the in-process tests
/// that perform its commands on a `sim:ntag424dna` reader (`runTool` performs them without that
/// `main`). Idempotent.
func registerVirtualNTAG424() { NTAG424Emulator.register() }

/// The virtual NTAG 424 DNA in the two programs: `nfctag` does not link it (NTAG424Emulator, with
/// swift-crypto), so the kind's name parses, `emulate` hands the command over to nfctag-provision
/// (which links and registers it, and runs the same `EmulateCommand`), and a `sim:ntag424dna`
/// reader in nfctag's own commands has its tag run by nfctag-provision (`virtual-card`); a feed of
/// it, or nfctag without nfctag-provision, ends with one line and 69 (docs/exit-codes.md).
///
/// These run the built binaries, not `runTool`: this test process links every module, and other
/// suites register the tag in it (NTAG424EmulatorTests, this one, in parallel), so only the
/// programs themselves show what each does without or with the module. No pcscd needed: the
/// commands fail before they open a reader, or at vpcd (whose port here, 1, has no listener):
/// a failure that only the program that has the tag reaches.
@Suite struct VirtualNTAG424Tests {
  static let refusal = "nfctag: the virtual NTAG 424 DNA is in the NTAG424Emulator module, which this program does not link\n"
  static let noVPCD = "nfctag: cannot reach vpcd at 127.0.0.1:1: is pcscd running with vsmartcard-vpcd? (`make pcscd` in the source tree starts it)\n"

  /// nfctag's own tag commands on a `sim:ntag424dna` reader: the tag runs in nfctag-provision
  /// (`virtual-card`, RemoteVirtualCard), so they work as on any virtual tag, nfctag still free of
  /// swift-crypto (HandOverTests' `nm` check).
  @Test(arguments: [
    (["read", "--reader", "sim:ntag424dna", "--timeout", "5"], "(empty NDEF message)"),
    (["info", "--reader", "sim:ntag424dna@part3", "--timeout", "5"], "NTAG 424 DNA (Type 4)"),
    (["scan", "--reader", "sim:ntag424dna", "--timeout", "5"], "NTAG 424 DNA (Type 4)"),
    (["dump", "--memory", "--reader", "sim:ntag424dna", "--timeout", "5"], "001720010000ff0406e104"),
    (["send", "9060000000", "--reader", "sim:ntag424dna", "--timeout", "5"], "< 04 04 02 30 00 11 05 91 af"),
  ])
  func nfctagRunsItsTagCommandsOnTheKind(_ arguments: [String], _ shown: String) throws {
    let result = try runNFCTag(arguments, timeout: 30)
    #expect(result.status == 0, "\(arguments): \(result.stderr)")
    #expect(result.stdout.contains(shown), "\(arguments): \(result.stdout)")
  }

  /// The URL docs/ntag-424-dna.md shows, without pcscd: `sdm setup` on an image, then nfctag's
  /// own `read` of it, a SUN that `sdm verify` takes; the image keeps what each read changed.
  @Test func nfctagReadsTheSUNOfAnImage() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(at: dir) }
    let reader = "sim:ntag424dna:" + dir.appendingPathComponent("tag.bin").path
    let setup = try runNFCTag(["sdm", "setup", "--url", "https://example.com/t?p={picc}&c={cmac}", "--reader", reader, "--quiet"], timeout: 30)
    #expect(setup.status == 0, "\(setup.stderr)")
    var urls: [String] = []
    for _ in 0..<2 {
      let read = try runNFCTag(["read", "--reader", reader, "--format", "json"], timeout: 30)
      #expect(read.status == 0, "\(read.stderr)")
      let object = try JSONSerialization.jsonObject(with: Data(read.stdout.utf8)) as? [String: Any]
      let url = try #require(((object?["records"] as? [[String: Any]])?.first?["uri"]) as? String, "\(read.stdout)")
      urls.append(url)
    }
    let counters = try urls.map { url in
      let verify = try runNFCTag(["sdm", "verify", url, "--format", "json"], timeout: 30)
      #expect(verify.status == 0, "\(url): \(verify.stderr)")
      return verify.stdout.components(separatedBy: #""counter":"#).dropFirst().first?.prefix { $0.isNumber } ?? ""
    }
    #expect(counters == ["2", "3"], "\(counters)")   // setup's read-back was 1
  }

  /// A feed of the kind is still nfctag-provision's alone (one line and 69), and nfctag without
  /// nfctag-provision beside it refuses the kind as before.
  @Test func aFeedAndNFCTagAloneRefuseTheKind() throws {
    let feed = try runNFCTag(["read", "--reader", "sim:ntag424dna+feed=2", "--timeout", "2"], timeout: 30)
    #expect(feed.status == 69 && feed.stderr == Self.refusal, "\(feed.stderr)")
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(at: dir) }
    let alone = dir.appendingPathComponent("nfctag")
    try FileManager.default.copyItem(at: nfctagBinary(), to: alone)
    let refused = try runProcess(alone, ["read", "--reader", "sim:ntag424dna", "--timeout", "2"], timeout: 30)
    #expect(refused.status == 69 && refused.stderr == Self.refusal, "\(refused.stderr)")
  }

  /// `emulate` with an `ntag424dna` among its kinds goes to nfctag-provision, which builds the tag
  /// and then reaches for vpcd: the line is the vpcd one, never the refusal.
  @Test(arguments: [
    ["emulate", "--tag", "ntag424dna", "--vpcd", "127.0.0.1:1"],
    ["emulate", "--tag", "ntag424dna", "--uid", "04A1B2C3D4E5F6", "--vpcd", "127.0.0.1:1"],
    ["emulate", "--tag", "ntag424dna", "--remove-after", "3", "--fault", "nak@2", "--vpcd", "127.0.0.1:1"],
    ["emulate", "--feed", "2", "--tag", "ntag213,ntag424dna", "--vpcd", "127.0.0.1:1"],
  ])
  func nfctagHandsEmulateOver(_ arguments: [String]) throws {
    let result = try runNFCTag(arguments, timeout: 30)
    #expect(result.status == 69, "\(arguments): \(result.stderr)")
    #expect(result.stderr == Self.noVPCD, "\(arguments)")
    #expect(result.stdout.isEmpty)
  }

  /// The tag is built in nfctag-provision: its model checks the UID (64, the option named) and
  /// creates the image file (here in a folder that does not exist: 65), as for every kind.
  @Test func theHandedOverCommandBuildsTheTag() throws {
    let short = try runNFCTag(["emulate", "--tag", "ntag424dna", "--uid", "04A1B2", "--vpcd", "127.0.0.1:1"], timeout: 30)
    #expect(short.status == 64, "\(short.stderr)")
    #expect(short.stderr == "nfctag: --uid: an NTAG 424 DNA UID has 7 bytes (got 3) (see `nfctag help`)\n", "\(short.stderr)")
    let image = try runNFCTag(["emulate", "--tag", "ntag424dna", "--image", "/nonexistent/ntag424.bin", "--vpcd", "127.0.0.1:1"], timeout: 30)
    #expect(image.status == 65, "\(image.stderr)")
    #expect(image.stderr.hasPrefix("nfctag: cannot write /nonexistent/ntag424.bin"), "\(image.stderr)")
  }

  /// A kind nfctag links is never handed over: the same vpcd line comes from nfctag itself, so
  /// it starts even with no nfctag-provision next to it (a copy of nfctag alone in a folder).
  @Test func otherKindsStayInNFCTag() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(at: dir) }
    let alone = dir.appendingPathComponent("nfctag")
    try FileManager.default.copyItem(at: nfctagBinary(), to: alone)
    let kept = try runProcess(alone, ["emulate", "--tag", "ntag215", "--vpcd", "127.0.0.1:1"], timeout: 30)
    #expect(kept.status == 69 && kept.stderr == Self.noVPCD, "\(kept.stderr)")
    let handed = try runProcess(alone, ["emulate", "--tag", "ntag424dna", "--vpcd", "127.0.0.1:1"], timeout: 30)
    #expect(handed.status == 69, "\(handed.stderr)")
    #expect(handed.stderr.hasPrefix("nfctag: cannot run nfctag-provision, which provision, ledger, sdm, keys and the virtual NTAG 424 DNA need"),
            "\(handed.stderr)")
  }

  /// The library's refusal, where no factory is registered (a table of its own, since this
  /// process registers the tag elsewhere): the typed reason, and the tool's line and 69.
  @Test func anUnregisteredKindIsRefusedWithOneLineAnd69() {
    let empty = VirtualTagFactories()
    #expect(!empty.canMake(.ntag424dna))
    #expect(empty.canMake(.ntag215))
    do {
      _ = try empty.makeTag(.ntag424dna, uid: nil)
      Issue.record("an empty table made an NTAG 424 DNA")
    } catch {
      #expect(error.reason == .kindNotLinked(.ntag424dna))
      let failure = cliFailure(for: error)
      #expect(failure.code == 69)
      #expect("nfctag: \(failure.message)\n" == Self.refusal)
    }
  }

  /// The name is still a kind in nfctag: help lists it, and a misspelt one is still 64.
  @Test func theNameStillParsesInNFCTag() throws {
    #expect(try runNFCTag(["emulate", "--help"]).stdout.contains("ntag424dna"))
    let wrong = try runNFCTag(["read", "--reader", "sim:ntag424", "--timeout", "1"])
    #expect(wrong.status == 64 && wrong.stderr.contains("unknown tag kind 'ntag424'"), "\(wrong.stderr)")
  }

  func scratch() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-424-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
  }

  /// `provision` is handed to nfctag-provision, whose `main` registers the tag: a row goes onto a
  /// `sim:ntag424dna` tag through the built programs (the `exec` included).
  @Test func nfctagProvisionHasTheTag() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(at: dir) }
    let r = try runNFCTag(["provision", "--count", "1", "--url", "https://example.com/{n}", "--timeout", "5",
                           "--ledger", dir.appendingPathComponent("l.sqlite").path, "--reader", "sim:ntag424dna"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stderr.contains("(simulated ntag424dna)") && r.stderr.contains("1 done, 0 failed"), "\(r.stderr)")
  }

  /// The same in process, the tag registered by the helper as nfctag-provision's `main` does:
  /// a feed of two 424 DNA tags, each written and verified through the Type 4 platform.
  @Test func provisionInProcessOnAFeedOf424DNATags() throws {
    registerVirtualNTAG424()
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(at: dir) }
    let r = try runTool(["provision", "--count", "2", "--url", "https://example.com/{n}", "--json", "--timeout", "5",
                         "--ledger", dir.appendingPathComponent("l.sqlite").path, "--reader", "sim:ntag424dna+feed=2,seed=3"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.hasSuffix(#"{"event":"summary","done":2,"failed":0,"skipped":0,"remaining":0}"# + "\n"), "\(r.stdout)")
  }

  /// `keys change` of key 1 with a wrong current value (none given: the factory one; or a wrong
  /// file): the tag's `91 1E` to ChangeKey after key 0 authenticated names the old value, 77 (a
  /// key refused), not "tap again" and 74; one ChangeKey each time; the right value changes it.
  @Test func keysChangeWithAWrongOldValueNamesIt() throws {
    registerVirtualNTAG424()
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(at: dir) }
    let reader = "sim:ntag424dna:" + dir.appendingPathComponent("tag.bin").path
    func keyFile(_ name: String, _ hex: String) throws -> String {
      let url = dir.appendingPathComponent(name)
      try (hex + "\n").write(to: url, atomically: true, encoding: .utf8)
      return url.path
    }
    let one = try keyFile("k1", "11111111111111111111111111111111"), two = try keyFile("k2", "22222222222222222222222222222222")
    let wrong = try keyFile("w", "33333333333333333333333333333333")
    let first = try runTool(["keys", "change", "--key", "1", "--new-key-file", one, "--version", "1", "--reader", reader, "--quiet"])
    #expect(first.status == 0, "\(first.stderr)")
    for old in [[], ["--old-key-file", wrong]] {
      let r = try runTool(["keys", "change", "--key", "1", "--new-key-file", two, "--version", "2", "--reader", reader, "--trace"] + old)
      #expect(r.status == 77, "\(old): \(r.stderr)")
      let line = r.stderr.split(separator: "\n").last.map(String.init) ?? ""
      #expect(line == "nfctag: ChangeKey (key 1): the old value given for key 1 is not the tag's (91 1E: the new key's CRC did not check against the key the tag holds): give its current value with --old-key-file or --old-key-env (--old-keys-file or --old-keys-env with --all)",
              "\(line)")
      #expect(!r.stderr.contains("tap again"))
      // Commands only: a tag's random answer may hold the bytes 90 C4 too.
      let changeKeys = r.stderr.split(separator: "\n").filter { $0.contains("> ") && $0.lowercased().contains("90 c4 00 00") }
      #expect(changeKeys.count == 1, "one ChangeKey: \(r.stderr)")
    }
    let right = try runTool(["keys", "change", "--key", "1", "--new-key-file", two, "--old-key-file", one, "--version", "2",
                             "--reader", reader, "--quiet"])
    #expect(right.status == 0, "\(right.stderr)")
  }

  /// `sdm setup` and `keys` through the built programs: nfctag hands them over (`exec`) and
  /// nfctag-provision, which registers the tag, runs them on one image file.
  @Test func nfctagHandsSdmSetupAndKeysOver() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(at: dir) }
    let reader = "sim:ntag424dna:" + dir.appendingPathComponent("tag.bin").path
    let setup = try runNFCTag(["sdm", "setup", "--url", "https://example.com/t?p={picc}&c={cmac}", "--reader", reader,
                               "--format", "json", "--quiet"], timeout: 30)
    #expect(setup.status == 0, "\(setup.stderr)")
    #expect(setup.stdout.contains(#""counter":1,"verified":true,"exchanges":10}"#), "\(setup.stdout)")
    let versions = try runNFCTag(["keys", "versions", "--reader", reader], timeout: 30)
    #expect(versions.status == 0, "\(versions.stderr)")
    #expect(versions.stdout.hasPrefix("key 0: version 00\n"), "\(versions.stdout)")
  }
}
