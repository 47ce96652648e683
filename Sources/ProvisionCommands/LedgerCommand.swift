import ArgumentParser
import NFCTagCLI

/// The ledger a `ledger` subcommand works on.
package struct LedgerOptions: ParsableArguments {
  @Argument(help: "The ledger: a file (SQLite), or a postgres:// URL.") package var ledger: String
  @Option(help: ArgumentHelp("The job, when the ledger holds more than one.", valueName: "name")) package var job: String?

  package init() {}
}

/// What `ledger export` writes.
package enum LedgerExportFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
  case csv, jsonl
}

/// `nfctag ledger status|export|release`: what a provisioning ledger holds, its audit report,
/// and freeing a row by hand. Works the same on a ledger file and on a PostgreSQL ledger.
///
/// The declarations: options only. nfctag-provision parses and performs them (nfctag hands
/// `ledger` over by name, before parsing: its `HandOver.commands`); `run(in:)` dispatches the command
/// (``CommandContext/dispatch(_:)``: performed in nfctag-provision).
package struct LedgerCommand: ParsableCommand {
  package static let configuration = CommandConfiguration(
    commandName: "ledger",
    abstract: "Show, export or repair a provisioning ledger.",
    discussion: """
      The ledger records which row went onto which tag. LEDGER is the ledger file, or a \
      postgres:// URL. Without --job, the ledger's only job is used. These commands never \
      create a ledger.
      """,
    subcommands: [Status.self, Export.self, Release.self])

  package init() {}

  /// `ledger status`: the job's rows by state.
  package struct Status: ToolCommand {
    package static let configuration = CommandConfiguration(
      commandName: "status", abstract: "Count the job's rows by state, and the tags that failed.")
    @OptionGroup package var options: LedgerOptions
    @Flag(help: "Print one JSON object.") package var json = false

    package init() {}

    package func run(in context: CommandContext) throws { try context.dispatch(self) }
  }

  /// `ledger export`: the audit report.
  package struct Export: ToolCommand {
    package static let configuration = CommandConfiguration(
      commandName: "export",
      abstract: "Write the audit report: one line per row, then one per tag that failed.",
      discussion: """
        Columns: row, uid, status, message_hex, message_sha256, station, reader, written_at, \
        error, exit_status. Rows come by sequence number; a tag that failed with no row bound \
        to it follows them, with status failed and the row it was given back, if any.
        """)
    @OptionGroup package var options: LedgerOptions
    @Option(help: "The report's format (jsonl: one JSON object per line).") package var format: LedgerExportFormat = .csv
    @Option(help: ArgumentHelp("Write the report to this file instead of standard output.", valueName: "file"))
    package var output: String?
    @Flag(help: ArgumentHelp("""
      What a SUN verifier needs of the job's NTAG 424 DNA tags (provision --sdm-url), no key: \
      uid, key_versions, diversification, counter_baseline, one line per done tag.
      """))
    package var forVerifier = false

    package init() {}

    package func run(in context: CommandContext) throws { try context.dispatch(self) }
  }

  /// `ledger release`: a claimed or failed row back to pending, its tag forgotten.
  package struct Release: ToolCommand {
    package static let configuration = CommandConfiguration(
      commandName: "release",
      abstract: "Free a claimed or failed row: pending again, its tag forgotten.",
      discussion: """
        For a tag that was lost or thrown away: its row goes to the next tag. A pending or done \
        row is never released.
        """)
    @OptionGroup package var options: LedgerOptions
    @Option(help: ArgumentHelp("The id of the row to free.", valueName: "id")) package var row: String

    package init() {}

    package func run(in context: CommandContext) throws { try context.dispatch(self) }
  }
}
