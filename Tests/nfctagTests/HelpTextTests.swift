import ArgumentParser
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
    for name in ["read", "write", "provision", "ledger", "emulate", "text"] {
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
}
