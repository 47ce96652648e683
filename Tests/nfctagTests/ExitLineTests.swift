import Foundation
import Testing

/// Every non-zero exit prints one `nfctag: ` line on stderr with its status (docs/exit-codes.md),
/// the commands that print lines of their own before failing too: `ndef decode --lines` after a
/// bad line, `doctor` after a failed check.
@Suite struct ExitLineAfterOwnLines {
  @Test func decodeLinesWithABadLineEndsWith65AndOneLine() throws {
    let r = try runTool(["ndef", "decode", "--lines"], stdin: Data("d1010c55036578616d706c652e636f6d\nzz\n\nd101\n".utf8))
    #expect(r.status == 65)
    #expect(r.stdout.split(separator: "\n").count == 3)  // every line still answered on stdout
    #expect(r.stderr == "nfctag: 2 of 3 messages failed, the first on line 2\n", "\(r.stderr)")
  }

  @Test func decodeLinesWithoutABadLinePrintsNothingOnStderr() throws {
    let r = try runTool(["ndef", "decode", "--lines"], stdin: Data("d1010c55036578616d706c652e636f6d\n".utf8))
    #expect(r.status == 0)
    #expect(r.stderr.isEmpty)
  }

  @Test func doctorWithAFailedCheckEndsWith69AndOneLine() throws {
    // No pcscd at this socket: the first check fails (pcsc-lite reads PCSCLITE_CSOCK_NAME itself,
    // so the program runs in a process of its own).
    let r = try runNFCTag(["doctor"], environment: ["PCSCLITE_CSOCK_NAME": "/nonexistent/nfctag-test/pcscd.comm"])
    #expect(r.status == 69)
    #expect(r.stdout.contains("FAIL  pcscd does not answer"), "\(r.stdout)")
    let lines = r.stderr.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == 2 && lines.last == "", "\(r.stderr)")
    #expect(r.stderr.hasPrefix("nfctag: ") && r.stderr.contains("problem"), "\(r.stderr)")
  }
}
