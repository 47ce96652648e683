import Foundation
import ArgumentParser
import Testing
@testable import nfctag
@testable import nfctag_provision

/// `provision`, `ledger`, `sdm` and `keys` run in nfctag-provision, which nfctag `exec`s by the
/// command's name before parsing (``HandOver/commands``, docs/architecture.md); nfctag-provision
/// parses them with the same declarations, so their help and usage errors read the same, and
/// nfctag still shows them in its own help, man page and completions. No pcscd needed.
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

  /// The one table: the commands nfctag hands over by name are nfctag-provision's, but `emulate`
  /// (handed over for some tag kinds only, once parsed) and the hidden `virtual-card`; nfctag
  /// declares each of them too (its help, man page and completions).
  @Test func theHandedOverCommandsAreOneTable() {
    func names(_ commands: [any ParsableCommand.Type]) -> Set<String> {
      Set(commands.compactMap { $0.configuration.commandName })
    }
    let performed = names(NFCTagProvision.configuration.subcommands)
    #expect(HandOver.commands == performed.subtracting(["emulate", "virtual-card"]))
    #expect(HandOver.commands.isSubset(of: names(NFCTool.configuration.subcommands)))
    // Their help lists nfctag's `--version`, which answers the same in both programs.
    #expect(NFCTagProvision.configuration.version == NFCTool.configuration.version)
  }

  /// A command line is handed over when its first argument names one of the commands, whatever
  /// follows (nfctag-provision parses it); nfctag answers the rest itself.
  @Test func aCommandLineIsHandedOverByItsFirstArgument() {
    for line in [["provision", "--count", "1"], ["ledger"], ["sdm", "verify", "--bogus"], ["keys", "--help"]] {
      #expect(HandOver.namesHandedOverCommand(line), "\(line)")
    }
    for line in [[], ["--help"], ["help", "provision"], ["emulate", "--tag", "ntag424dna"], ["read"], ["--version"],
                 ["---completion", "provision", "--", "--reader"], ["Provision"],
                 ["provision", "--generate-completion-script", "bash"], ["sdm", "--generate-completion-script=zsh"]] {
      #expect(!HandOver.namesHandedOverCommand(line), "\(line)")
    }
  }

  /// Help and usage errors of a handed-over command come from nfctag-provision when it is there
  /// and from nfctag when it is not: the same bytes and status either way.
  @Test func helpAndUsageErrorsReadTheSameFromEitherProgram() throws {
    let lines = [
      ["provision", "--help"], ["provision", "--count", "1"], ["provision", "--bogus"], ["ledger"], ["ledger", "export", "--help"],
      ["ledger", "status"], ["sdm", "--help"], ["sdm", "setup", "--help"], ["sdm", "verify"], ["sdm", "serve", "--help"],
      ["keys", "change", "--help"], ["keys", "change", "--key", "9", "--key-version", "1"], ["keys", "-h"],
      ["provision", "--version"], ["ledger", "status", "--version"], ["provision", "--generate-completion-script", "bash"],
      ["sdm", "verify", "--experimental-dump-help"],
    ]
    try withLoneNFCTag { lone in
      for arguments in lines {
        let handedOver = try runNFCTag(arguments), parsedHere = try runProcess(lone, arguments)
        #expect(handedOver.status == parsedHere.status, "\(arguments)")
        #expect(handedOver.stdout == parsedHere.stdout, "\(arguments)")
        #expect(handedOver.stderr == parsedHere.stderr, "\(arguments)")
        #expect(handedOver.status == 0 || handedOver.status == 64, "\(arguments): \(handedOver.stderr)")
      }
    }
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
