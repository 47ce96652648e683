import ArgumentParser
import ProvisionCommands
import Testing

@testable import nfctag

/// The man page is generated from the same help texts (`swift package generate-manual`), and its
/// generator drops every character outside ASCII ("Type 1–3" became "Type 13" in the page): the
/// help of every command stays in ASCII.
@Suite struct HelpText {
  /// Every command of the tree, the root included.
  static func commands(from root: ParsableCommand.Type = NFCTool.self) -> [ParsableCommand.Type] {
    [root] + root.configuration.subcommands.flatMap { commands(from: $0) }
  }

  @Test func theTreeHasEveryCommand() {
    let names = Self.commands().map { $0._commandName }
    for name in ["read", "write", "provision", "ledger", "sdm", "verify", "emulate", "text"] {
      #expect(names.contains(name), "\(name) missing from \(names)")
    }
  }

  @Test func everyHelpTextIsASCII() {
    for command in Self.commands() {
      let help = NFCTool.helpMessage(for: command, includeHidden: true, columns: 10_000)
      let outside = help.unicodeScalars.filter { !$0.isASCII }
      #expect(outside.isEmpty, "\(command._commandName): \(String(String.UnicodeScalarView(outside)))")
    }
  }

  /// An installed nfctag has no docs/ folder beside it: help texts name a documentation file by
  /// its name, and the root help says where the folder is: the one found where the program runs
  /// (EverydayCommandLine's tests), else the package's and make install's.
  @Test func helpNamesInstalledDocumentation() {
    for command in Self.commands() where ObjectIdentifier(command) != ObjectIdentifier(ProvisionCommand.self) {
      let help = NFCTool.helpMessage(for: command, includeHidden: true, columns: 10_000)
      #expect(!help.contains("docs/"), "\(command._commandName) points at the source tree's docs/")
    }
    let root = NFCTool.helpMessage(for: NFCTool.self, columns: 10_000)
    #expect(root.contains("The documentation folder holds the Markdown files help texts name"))
    let installed = DocumentationFolder.sentence(folder: nil)
    #expect(installed.contains("/usr/share/doc/nfctag") && installed.contains("PREFIX/share/doc/nfctag"))
    #expect(root.contains("section EXIT STATUS"))
  }

  /// --reader gives the simulator's whole syntax: FACE and the feed's options too, with spaces
  /// where the man page may break a line (`man --warnings` warns of a word it cannot break, in
  /// the deeply nested `desfire value get`).
  @Test func readerHelpGivesTheWholeSimulatorSyntax() {
    let help = NFCTool.helpMessage(for: NFCTool.Read.self, columns: 10_000)
    #expect(help.contains("sim:KIND[@FACE][:IMAGE] or sim:KIND[/KIND...][@FACE]+feed=N[,OPTION...] "
                          + "(OPTION: seed=S, images=DIR, hand-ms=MS, latency=none|acr122u, uid=random)"))
    #expect(help.contains("FACE: acr122u, acr1252u, acr1552u, utrust3700f, omnikey5022, omnikey5422, scl3711"))
  }
}
