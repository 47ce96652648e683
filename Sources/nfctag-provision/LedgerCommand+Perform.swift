import NFCTagCLI
import ProvisionCommands
import ProvisioningLedger

extension LedgerOptions {
  /// Opens it, creating nothing, and runs `body` on it.
  func withLedger<T>(_ body: (any Ledger) throws(LedgerError) -> T) throws(CLIFailure) -> T {
    let opened = try LedgerOpener.openExisting(ledger, job: job)
    defer { opened.close() }
    return try LedgerOpener.ledgerCall { () throws(LedgerError) -> T in try body(opened) }
  }
}

extension LedgerCommand.Status: PerformedCommand {
  /// Prints the counts, and the claimed rows with the command that frees each (a row left
  /// claimed when its tag went away stays so until released); a failure is thrown.
  func perform(in context: CommandContext) throws {
    let (job, counts, claimed) = try options.withLedger { ledger throws(LedgerError) in
      let counts = try ledger.counts()
      // Every row is read only when some are claimed: the counts are one query on a large job.
      let claimed = counts.claimed > 0 ? try ledger.records().filter { $0.status == .claimed } : []
      return (ledger.job, counts, claimed)
    }
    let output = StandardOutput(context.output)
    output.write(json ? LedgerStatusText.json(job: job, counts: counts, claimed: claimed)
                      : LedgerStatusText.text(job: job, counts: counts, claimed: claimed, ledger: options.ledger, jobOption: options.job))
    output.flush()
  }
}

extension LedgerCommand.Export: PerformedCommand {
  /// Writes the report; a failure is thrown.
  func perform(in context: CommandContext) throws {
    let csv = format == .csv
    let verifier = forVerifier
    let (text, rows, failures) = try options.withLedger { ledger throws(LedgerError) in
      if verifier {
        let records = try ledger.records()
        let text = csv ? try LedgerVerifierExport.csv(records: records) : LedgerVerifierExport.jsonLines(records: records)
        // The lines, without the CSV header: the tags exported.
        return (text, text.split(separator: "\n").count - (csv ? 1 : 0), 0)
      }
      let records = try ledger.records(), tagFailures = try ledger.tagFailures()
      let text = csv ? try LedgerReport.csv(records: records, tagFailures: tagFailures)
                     : LedgerReport.jsonLines(records: records, tagFailures: tagFailures)
      return (text, records.count, tagFailures.count)
    }
    guard let output, output != "-" else {
      let out = StandardOutput(context.output)
      out.write(text)
      out.flush()
      return
    }
    try writeReport(text, to: output, ledger: options.ledger)
    context.say("wrote \(rows) row(s) and \(failures) tag failure(s) to \(sanitizeLine(output))")
  }
}

extension LedgerCommand.Release: PerformedCommand {
  /// Frees the row; a failure is thrown.
  func perform(in context: CommandContext) throws {
    let id = row
    let was = try options.withLedger { ledger throws(LedgerError) in try ledger.release(rowID: id) }
    let how = was.status == .failed ? "had failed on" : "was claimed by"
    context.say(sanitizeLine("row \(was.id) released (\(how) \(was.uid ?? "no tag"))"))
  }
}

/// Writes the report to `path` (created or truncated), refusing to overwrite the ledger itself.
/// - Throws: 64 when `path` is the ledger file, 73 when it cannot be written.
private func writeReport(_ text: String, to path: String, ledger: String) throws(CLIFailure) {
  var target = stat(), source = stat()
  if stat(path, &target) == 0, stat(ledger, &source) == 0, target.st_dev == source.st_dev, target.st_ino == source.st_ino {
    throw CLIFailure(.invalidValue("--output names the ledger itself"))
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
  CLIFailure(.unwritableFile("cannot write \(sanitizeLine(path)): \(String(cString: strerror(errno)))"))
}
