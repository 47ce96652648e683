import Foundation
import Testing

/// Hardening items 8 and 9: a refused command line is one `nfctag:` line and exit 64; locking a
/// locked tag is not an error.
@Suite struct CommandLineRefusals {
  @Test(arguments: [
    ["read", "--timeout", "0"], ["read", "--timeout", "-1"], ["read", "--bogus"], ["lock", "--reader", "sim:ntag213"],
    ["write", "text"], ["emulate", "--tag", "ntag215", "--uid", "0102"], ["send"],
    ["reader", "led", "--period", "150"],
  ])
  func isOneLineAndExit64(arguments: [String]) throws {
    let r = try runNFCTag(arguments)
    #expect(r.status == 64, "\(arguments): \(r.stderr)")
    #expect(r.stderr.hasPrefix("nfctag: "), "\(arguments): \(r.stderr)")
    #expect(r.stderr.split(separator: "\n").count == 1, "\(arguments): \(r.stderr)")
  }

  @Test func theTimeoutMessageSaysWhatItTakes() throws {
    for value in ["0", "-1"] {
      let r = try runNFCTag(["read", "--timeout", value])
      #expect(r.stderr.contains("more than 0 and at most 86400"), "\(value): \(r.stderr)")
    }
  }

  @Test func helpAndVersionStillExitZero() throws {
    #expect(try runNFCTag(["--version"]).status == 0)
    #expect(try runNFCTag(["read", "--help"]).stdout.contains("USAGE: nfctag read"))
  }

  @Test func lockingALockedTagSaysSoAndSucceeds() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-lock-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let reader = "sim:ntag213:" + directory.appendingPathComponent("t.bin").path
    #expect(try runNFCTag(["lock", "--yes", "--reader", reader]).stderr == "nfctag: the tag is now read-only\n")
    let again = try runNFCTag(["lock", "--yes", "--reader", reader])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stderr == "nfctag: the tag is already read-only\n")
  }
}

/// Hardening item 13's small ones.
@Suite struct SmallFixes {
  @Test(arguments: ["topaz512", "felica-lite-s", "type4", "icode-slix2", "ntag215"])
  func infoJSONHasNoEmptyVersion(kind: String) throws {
    let r = try runNFCTag(["info", "--json", "--reader", "sim:\(kind)"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(!r.stdout.contains(#""version":"""#))
  }
}
