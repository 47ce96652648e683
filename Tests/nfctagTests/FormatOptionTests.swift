import Foundation
import Testing

/// Every command with an output format names the option `--format`; `--json`
/// stays as a hidden alias where it was.
@Suite struct FormatOptionEverywhere {
  /// Provisioning's commands are outside this change (their `--json` is the lead's to rename).
  static let notYet: Set<String> = ["provision", "ledger status"]

  /// Every command path of the tool, from the SUBCOMMANDS sections of the help.
  func commandPaths(_ prefix: [String] = []) throws -> [[String]] {
    let help = try runTool(prefix + ["--help"]).stdout
    guard prefix.count < 3, let section = help.range(of: "SUBCOMMANDS:\n") else { return [prefix] }
    let names = help[section.upperBound...].split(separator: "\n").compactMap { line -> String? in
      guard line.hasPrefix("  "), !line.hasPrefix("   "), !line.hasPrefix("  See "),
            let name = line.split(separator: " ").first else { return nil }
      return String(name.filter { $0 != "," })
    }
    return try [prefix] + names.flatMap { try commandPaths(prefix + [$0]) }
  }

  @Test func noCommandOffersJSONOrAnOutputFormatUnderAnotherName() throws {
    let paths = try commandPaths()
    #expect(paths.count > 25, "\(paths)")
    for path in paths where !path.isEmpty && !Self.notYet.contains(path.joined(separator: " ")) {
      let help = try runTool(path + ["--help"]).stdout
      let options = help.split(separator: "\n").filter { $0.hasPrefix("  -") }
      #expect(!options.contains { $0.contains("--json") }, "\(path): \(options)")
      for option in options where option.contains("Output:") || option.contains("output format") {
        #expect(option.contains("--format"), "\(path): \(option)")
      }
    }
  }

  @Test(arguments: [["readers"], ["scan", "--reader", "sim:ntag213"], ["info", "--reader", "sim:ntag213"]])
  func formatJSONAndTheOldJSONFlagAgree(command: [String]) throws {
    let format = try runTool(command + ["--format", "json"])
    let old = try runTool(command + ["--json"])
    // `readers` needs pcscd: without it both spellings fail alike (69), which is still agreement.
    #expect(format.stdout.hasPrefix("{") || (command == ["readers"] && format.status == 69),
            "\(command): \(format.stdout)\(format.stderr)")
    // A simulated reader's name carries its number in this process ("… 00 00", "… 01 00"…), and
    // `readers` says whether a card is in each reader, where the end-to-end tests' cards come and
    // go beside this test; with a card, an ACS reader is identified by its firmware, without one
    // by its name.
    let comparable = { (output: String) in
      withoutReaderNumbers(output).replacing(/"card":(true|false)/) { _ in #""card":…"# }
        .replacing(/"identifiedBy":"[a-z]+"(,"firmware":"[^"]*")?/) { _ in #""identifiedBy":…"# }
    }
    #expect(comparable(format.stdout) == comparable(old.stdout), "\(command)")
    #expect(format.status == old.status)
    let text = try runTool(command + ["--format", "text"])
    #expect(!text.stdout.hasPrefix("{"), "\(command): \(text.stdout)")
    #expect(text.status == format.status, "\(command)")
    let both = try runTool(command + ["--json", "--format", "text"])
    #expect(both.status == 64, "\(command)")
  }
}

/// `text` with the numbers of simulated readers ("(simulated ntag213) 12 00") taken out: every
/// simulator made in this process has a name of its own.
func withoutReaderNumbers(_ text: String) -> String {
  text.replacing(/\(simulated ([^)]*)\) [0-9]+ 00/) { "(simulated \($0.output.1)) NN 00" }
}
