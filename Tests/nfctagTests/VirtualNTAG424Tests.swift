import Foundation
import NTAG424Emulator
import Testing

/// Installs the virtual NTAG 424 DNA as nfctag-provision's `main` does, for the in-process tests
/// that perform its commands on a `sim:ntag424dna` reader (`runTool` performs them without that
/// `main`). Idempotent.
func registerVirtualNTAG424() { NTAG424Emulator.register() }

/// The virtual NTAG 424 DNA in the two programs: `nfctag` does not link it (NTAG424Emulator, with
/// swift-crypto), so the kind's name parses and making the tag ends with one line and 69
/// (docs/exit-codes.md); nfctag-provision links and registers it, so its commands have the tag.
///
/// The refusal is checked on the built `nfctag` binary, not with `runTool`: this test process
/// links every module, and other suites register the tag in it (NTAG424EmulatorTests, this one,
/// in parallel), so only the program itself shows what it does without the module. In process,
/// ExitStatusMapping checks the typed failure's line and status, and NFCEmulatorTests'
/// VirtualTagFactoriesTests the refusal of a kind no factory was registered for (a table of their
/// own). No pcscd needed: each refused command fails before it opens a reader or vpcd (whose port
/// here, 1, has no listener either).
@Suite struct VirtualNTAG424Tests {
  static let refusal = "nfctag: the virtual NTAG 424 DNA is in the NTAG424Emulator module, which this program does not link\n"

  @Test(arguments: [
    ["emulate", "--tag", "ntag424dna", "--vpcd", "127.0.0.1:1"],
    ["emulate", "--tag", "ntag424dna", "--uid", "04A1B2C3D4E5F6", "--vpcd", "127.0.0.1:1"],
    ["emulate", "--tag", "ntag424dna", "--image", "/nonexistent/ntag424.bin", "--vpcd", "127.0.0.1:1"],
    ["emulate", "--feed", "2", "--tag", "ntag213,ntag424dna", "--vpcd", "127.0.0.1:1"],
    ["read", "--reader", "sim:ntag424dna", "--timeout", "1"],
    ["info", "--reader", "sim:ntag424dna@part3", "--timeout", "1"],
  ])
  func nfctagRefusesTheKindWithOneLineAnd69(_ arguments: [String]) throws {
    let result = try runNFCTag(arguments, timeout: 30)
    #expect(result.status == 69, "\(arguments): \(result.stderr)")
    #expect(result.stderr == Self.refusal, "\(arguments)")
    #expect(result.stdout.isEmpty)
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

  /// `sdm setup` and `keys` through the built programs: nfctag hands them over (`exec`) and
  /// nfctag-provision, which registers the tag, runs them on one image file.
  @Test func nfctagHandsSdmSetupAndKeysOver() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(at: dir) }
    let reader = "sim:ntag424dna:" + dir.appendingPathComponent("tag.bin").path
    let setup = try runNFCTag(["sdm", "setup", "--url", "https://example.com/t?p={picc}&c={cmac}", "--reader", reader,
                               "--format", "json", "--quiet"], timeout: 30)
    #expect(setup.status == 0, "\(setup.stderr)")
    #expect(setup.stdout.contains(#""counter":1,"verified":true,"exchanges":9}"#), "\(setup.stdout)")
    let versions = try runNFCTag(["keys", "versions", "--reader", reader], timeout: 30)
    #expect(versions.status == 0, "\(versions.stderr)")
    #expect(versions.stdout.hasPrefix("key 0: version 00\n"), "\(versions.stdout)")
  }
}
