import Foundation
import Testing
@testable import nfctag

/// `provision` and `ledger` run in nfctag-provision, which nfctag `exec`s once the command line
/// is parsed (docs/architecture.md); nfctag itself shows their help, usage errors and
/// completions. No pcscd needed.
struct HandOverTests {
  /// Runs `body` with an nfctag that has no nfctag-provision next to it nor in ../libexec/nfctag:
  /// a hard link (a copy across file systems) in a folder of its own, since nfctag looks where
  /// its real file is. The folder is removed afterwards.
  func withLoneNFCTag(_ body: (URL) throws -> Void) throws {
    let build = nfctagBinary().deletingLastPathComponent().deletingLastPathComponent()
    let root = build.appendingPathComponent("nfctag-lone-\(UUID().uuidString)")
    let dir = root.appendingPathComponent("bin")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    let lone = dir.appendingPathComponent("nfctag")
    if link(nfctagBinary().path, lone.path) != 0 { try FileManager.default.copyItem(at: nfctagBinary(), to: lone) }
    try body(lone)
  }

  /// nfctag-provision is looked for next to nfctag's own file and in ../libexec/nfctag from it;
  /// never in the current directory, when nfctag's own path is unknown (no /proc/self/exe) or
  /// relative (an argv[0] found on PATH).
  @Test func whereNFCTagProvisionIsLookedFor() {
    #expect(HandOver.candidates(executable: "/usr/bin/nfctag")
            == ["/usr/bin/nfctag-provision", "/usr/bin/../libexec/nfctag/nfctag-provision"])
    #expect(HandOver.candidates(executable: "/nfctag") == ["/nfctag-provision", "/../libexec/nfctag/nfctag-provision"])
    #expect(HandOver.candidates(executable: nil).isEmpty)
    #expect(HandOver.candidates(executable: "nfctag").isEmpty)
    #expect(HandOver.candidates(executable: "./nfctag").isEmpty)
    #expect(HandOver.candidates(executable: "bin/nfctag").isEmpty)
  }

  @Test func theHelperIsBuiltNextToNFCTag() {
    let helper = nfctagBinary().deletingLastPathComponent().appendingPathComponent("nfctag-provision")
    #expect(FileManager.default.isExecutableFile(atPath: helper.path), "\(helper.path)")
  }

  @Test func aFailureOfTheRunComesFromTheHelperAsBefore() throws {
    // Raised by the run (the variable is read there), not by the parser: nfctag handed over.
    let variable = "NFCTAG_UNSET_\(UUID().uuidString.prefix(8))"
    let r = try runNFCTag(["provision", "--count", "1", "--url", "https://e.com/{n}", "--protect", "--secret-env", variable])
    #expect(r.status == 64)
    #expect(r.stderr == "nfctag: the environment variable \(variable) (the provisioning secret, --secret-env) is not set\n")
    #expect(r.stdout.isEmpty)
    let ledger = try runNFCTag(["ledger", "status", "/nonexistent/l.sqlite"])
    #expect(ledger.status == 66)
    #expect(ledger.stderr == "nfctag: cannot read the ledger /nonexistent/l.sqlite: No such file or directory\n")
    // Without the helper the same command lines end differently: nfctag really handed them over.
    try withLoneNFCTag { lone in
      let without = try runProcess(lone, ["ledger", "status", "/nonexistent/l.sqlite"])
      #expect(without.status == 69)
    }
  }

  @Test func aMissingHelperIsOneLineAnd69() throws {
    try withLoneNFCTag { lone in
      for arguments in [["provision", "--count", "1", "--url", "https://e.com/{n}", "--ledger", "/nonexistent/l.sqlite"],
                        ["ledger", "export", "/nonexistent/l.sqlite"]] {
        let r = try runProcess(lone, arguments)
        #expect(r.status == 69, "\(arguments): \(r.stderr)")
        #expect(r.stderr.hasPrefix("nfctag: cannot run nfctag-provision, which provision, ledger, sdm, keys and the virtual NTAG 424 DNA need (looked for "),
                "\(r.stderr)")
        #expect(r.stderr.hasSuffix("/libexec/nfctag/nfctag-provision): No such file or directory; reinstall nfctag\n"))
        #expect(r.stderr.split(separator: "\n").count == 1)
        #expect(r.stdout.isEmpty)
      }
      // Help and usage errors need no helper: nfctag parses the command line itself.
      let help = try runProcess(lone, ["provision", "--help"])
      #expect(help.status == 0)
      #expect(help.stdout.contains("--secret-env"))
      let usage = try runProcess(lone, ["provision", "--count", "1"])
      #expect(usage.status == 64)
      #expect(usage.stderr == "nfctag: give the message with exactly one of --url, --text, --message or --sdm-url. (see `nfctag help`)\n")
    }
  }

  @Test func theHelperRunsOnItsOwnWithTheSameCommandLines() throws {
    let helper = nfctagBinary().deletingLastPathComponent().appendingPathComponent("nfctag-provision")
    let r = try runProcess(helper, ["ledger", "status", "/nonexistent/l.sqlite"])
    #expect(r.status == 66)
    #expect(r.stderr == "nfctag: cannot read the ledger /nonexistent/l.sqlite: No such file or directory\n")
    let usage = try runProcess(helper, ["provision", "--url", "x"])
    #expect(usage.status == 64)
    #expect(usage.stderr == "nfctag: give ROWS (a CSV or .jsonl file) or --count N. (see `nfctag help`)\n")
  }

  /// Every option of `provision` and `ledger`, as nfctag's help, completions and man page show them.
  static let provisionOptions = [
    "--url", "--text", "--message", "--ledger", "--job", "--count", "--reader", "--station", "--timeout", "--lock",
    "--yes", "--protect", "--secret-file", "--secret-env", "--protect-reads", "--mirror", "--json", "--quiet",
    "--no-feedback", "--trace",
  ]

  @Test func helpAndCompletionsStillListProvisionAndLedger() throws {
    let top = try runNFCTag(["--help"]).stdout
    #expect(top.contains("  provision ") && top.contains("  ledger "), "\(top)")
    let help = try runNFCTag(["provision", "--help"])
    #expect(help.status == 0)
    for option in Self.provisionOptions { #expect(help.stdout.contains(option), "provision --help: \(option)") }
    #expect(help.stdout.contains("uid, counter or uid+counter"))
    let export = try runNFCTag(["ledger", "export", "--help"]).stdout
    #expect(export.contains("--format <format>") && export.contains("--output <file>") && export.contains("--job <name>"))
    for shell in ["bash", "zsh", "fish"] {
      let script = try runNFCTag(["--generate-completion-script", shell]).stdout
      for option in Self.provisionOptions + ["--format", "--output", "--row"] {
        #expect(script.contains(String(option.dropFirst(2))), "\(shell) completion: \(option)")
      }
      for word in ["provision", "ledger", "status", "export", "release"] {
        #expect(script.contains(word), "\(shell) completion: \(word)")
      }
    }
    // The man page's source: every subcommand with every option.
    let dump = try runNFCTag(["--experimental-dump-help"]).stdout
    for option in Self.provisionOptions { #expect(dump.contains("\"\(option.dropFirst(2))\""), "dump-help: \(option)") }
  }

  @Test func nfctagLinksNoFoundationNIOOrCrypto() throws {
    // The debug build links Swift's libraries dynamically: Foundation would be a NEEDED entry;
    // SwiftNIO and swift-crypto are linked in statically, so their symbols would be defined.
    let readelf = "/usr/bin/readelf", nm = "/usr/bin/nm"
    guard FileManager.default.isExecutableFile(atPath: readelf), FileManager.default.isExecutableFile(atPath: nm) else {
      print("skipped: binutils (readelf, nm) not installed"); return
    }
    let needed = try runProgram(readelf, ["-d", nfctagBinary().path]).stdout
    #expect(needed.contains("libswiftCore"), "readelf worked")
    // FoundationEssentials (ArgumentParser's) is allowed; Foundation and its ICU are not.
    for library in ["[libFoundation.so", "libFoundationInternationalization", "lib_FoundationICU", "libFoundationNetworking"] {
      #expect(!needed.contains(library), "\(needed)")
    }
    // OpenSSL's libcrypto is loaded by `info` when it checks a signature (COpenSSL), never at start.
    #expect(!needed.contains("libcrypto"), "\(needed)")
    // nm's output is piped through grep: a debug binary's symbol table is tens of megabytes.
    let scan = #"nm --defined-only "$0" | grep -E "$1" | head -3"#
    let own = try runProgram("/bin/sh", ["-c", scan, nfctagBinary().path, "9NFCTagCLI"], timeout: 120).stdout
    #expect(!own.isEmpty, "nm worked")
    // Nor the virtual NTAG 424 DNA, which needs swift-crypto (NTAG424Emulator: UnlinkedTagKindTests).
    let foreign = try runProgram("/bin/sh", ["-c", scan, nfctagBinary().path,
                                             "7NIOCore|CCryptoBoringSSL|10Foundation|9SQLiteNIO|15NTAG424Emulator"],
                                 timeout: 120).stdout
    #expect(foreign.isEmpty, "nfctag defines symbols of the provisioning dependencies: \(foreign)")
  }
}
