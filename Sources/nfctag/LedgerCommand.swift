import ArgumentParser
import ProvisioningLedger
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The ledger a `ledger` subcommand works on.
struct LedgerOptions: ParsableArguments {
  @Argument(help: "The ledger: a file (SQLite), or a postgres:// URL.") var ledger: String
  @Option(help: ArgumentHelp("The job, when the ledger holds more than one.", valueName: "name")) var job: String?

  /// Opens it, creating nothing, and runs `body` on it.
  func withLedger<T>(_ body: (any Ledger) throws(LedgerError) -> T) throws(CLIFailure) -> T {
    let opened = try LedgerOpener.openExisting(ledger, job: job)
    defer { opened.close() }
    return try LedgerOpener.ledgerCall { () throws(LedgerError) -> T in try body(opened) }
  }
}

/// What `ledger export` writes.
enum LedgerExportFormat: String, ExpressibleByArgument, CaseIterable {
  case csv, jsonl
}

/// `nfctag ledger status|export|release`: what a provisioning ledger holds, its audit report,
/// and freeing a row by hand. Works the same on a ledger file and on a PostgreSQL ledger.
struct LedgerCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "ledger",
    abstract: "Show, export or repair a provisioning ledger.",
    discussion: """
      The ledger records which row went onto which tag. LEDGER is the ledger file, or a \
      postgres:// URL. Without --job, the ledger's only job is used. These commands never \
      create a ledger.
      """,
    subcommands: [Status.self, Export.self, Release.self])

  /// `ledger status`: the job's rows by state.
  struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "status", abstract: "Count the job's rows by state, and the tags that failed.")
    @OptionGroup var options: LedgerOptions
    @Flag(help: "Print one JSON object.") var json = false

    func run() throws {
      do {
        let (job, counts) = try options.withLedger { ledger throws(LedgerError) in (ledger.job, try ledger.counts()) }
        let output = StandardOutput()
        output.write(json ? LedgerStatusText.json(job: job, counts: counts) : LedgerStatusText.text(job: job, counts: counts))
        output.flush()
      } catch {
        throw fail(cliFailure(for: error))
      }
    }
  }

  /// `ledger export`: the audit report.
  struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "export",
      abstract: "Write the audit report: one line per row, then one per tag that failed.",
      discussion: """
        Columns: row, uid, status, message_hex, message_sha256, station, reader, written_at, \
        error, exit_status. Rows come by sequence number; a tag that failed with no row bound \
        to it follows them, with status failed and the row it was given back, if any.
        """)
    @OptionGroup var options: LedgerOptions
    @Option(help: "The report's format (jsonl: one JSON object per line).") var format: LedgerExportFormat = .csv
    @Option(help: ArgumentHelp("Write the report to this file instead of standard output.", valueName: "file"))
    var output: String?

    func run() throws {
      do {
        let csv = format == .csv
        let (text, rows, failures) = try options.withLedger { ledger throws(LedgerError) in
          let records = try ledger.records(), tagFailures = try ledger.tagFailures()
          let text = csv ? try LedgerReport.csv(records: records, tagFailures: tagFailures)
                         : LedgerReport.jsonLines(records: records, tagFailures: tagFailures)
          return (text, records.count, tagFailures.count)
        }
        guard let output, output != "-" else {
          let out = StandardOutput()
          out.write(text)
          out.flush()
          return
        }
        try writeReport(text, to: output, ledger: options.ledger)
        writeStderr("nfctag: wrote \(rows) row(s) and \(failures) tag failure(s) to \(sanitizeLine(output))\n")
      } catch {
        throw fail(cliFailure(for: error))
      }
    }
  }

  /// `ledger release`: a claimed or failed row back to pending, its tag forgotten.
  struct Release: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "release",
      abstract: "Free a claimed or failed row: pending again, its tag forgotten.",
      discussion: """
        For a tag that was lost or thrown away: its row goes to the next tag. A pending or done \
        row is never released.
        """)
    @OptionGroup var options: LedgerOptions
    @Option(help: ArgumentHelp("The id of the row to free.", valueName: "id")) var row: String

    func run() throws {
      do {
        let id = row
        let was = try options.withLedger { ledger throws(LedgerError) in try ledger.release(rowID: id) }
        let how = was.status == .failed ? "had failed on" : "was claimed by"
        writeStderr(sanitizeLine("nfctag: row \(was.id) released (\(how) \(was.uid ?? "no tag"))") + "\n")
      } catch {
        throw fail(cliFailure(for: error))
      }
    }
  }
}

/// Writes the report to `path` (created or truncated), refusing to overwrite the ledger itself.
/// - Throws: 64 when `path` is the ledger file, 73 when it cannot be written.
private func writeReport(_ text: String, to path: String, ledger: String) throws(CLIFailure) {
  var target = stat(), source = stat()
  if stat(path, &target) == 0, stat(ledger, &source) == 0, target.st_dev == source.st_dev, target.st_ino == source.st_ino {
    throw CLIFailure(ExitStatus.usage, "--output names the ledger itself")
  }
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
  guard fd >= 0 else { throw cannotWrite(path) }
  defer { close(fd) }
  var bytes = Array(text.utf8)
  var offset = 0
  while offset < bytes.count {
    let n = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress.map { $0 + offset }, $0.count - offset) }
    if n < 0 {
      if errno == EINTR { continue }
      throw cannotWrite(path)
    }
    offset += n
  }
}

private func cannotWrite(_ path: String) -> CLIFailure {
  CLIFailure(ExitStatus.cantCreate, "cannot write \(sanitizeLine(path)): \(String(cString: strerror(errno)))")
}
