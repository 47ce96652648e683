import ArgumentParser
import Locking
import Logging
import NFCSession
import NFCTagCLI
import ProvisionCommands
import Provisioning
import ProvisioningLedger

extension ProvisionCommand: PerformedCommand {
  /// Runs the job, in five steps; a failure is thrown.
  /// 1. ``checkJob(in:)``: the rows, the template, every row checked, the secrets; nothing
  ///    touched yet (`ProvisionCommand+Job.swift`).
  /// 2. ``openLedger(for:in:)``: the ledger opened (created when new), the job's settings checked,
  ///    its rows imported.
  /// 3. ``makePollers(logger:in:)``: the readers.
  /// 4. ``run(_:on:pollers:logger:in:)``: one session per reader until the job is done, Ctrl-C,
  ///    or every session ends, with the reporter's lines.
  /// 5. ``finish(_:ledger:in:)``: what the ledger holds now, and the exit status.
  ///
  /// A ledger file this run creates is removed again when the job is refused before any tag was
  /// written (or the run cannot start): a refused job leaves nothing behind. A ledger that was
  /// there before is never removed.
  func perform(in context: CommandContext) throws {
    let job = try checkJob(in: context)
    let ledger = try openLedger(for: job, in: context)
    var keepNewFile = false
    defer { ledger.close(removingNewFile: !keepNewFile) }
    let logger = trace ? context.trace.logger() : nil
    let pollers = try makePollers(logger: logger, in: context)
    let outcome = run(job, on: ledger, pollers: pollers, logger: logger, in: context)
    keepNewFile = outcome.end != .refused
    try finish(outcome, ledger: ledger, in: context)
  }

  /// Step 2: the ledger `--ledger` names (by default beside the rows file), the job's settings
  /// recorded or compared (``checkSettings(_:in:)``), then the rows imported (idempotent: a rerun
  /// imports nothing new). A ledger file created here is removed again when this step fails.
  private func openLedger(for checked: ProvisionJob, in context: CommandContext) throws -> ProvisionLedger {
    let jobName = job ?? rows.map(baseName) ?? "nfctag-provision"
    let location = ledger ?? (rows.map { $0 + ".ledger.sqlite" } ?? "nfctag-provision.sqlite")
    let newFile = LedgerOpener.fileToBeCreated(location)
    do {
      let book = try LedgerOpener.openForProvisioning(location, job: jobName)
      do {
        try checkSettings(checked.settings, in: book)
        try importRows(checked.rows, into: book, in: context)
        let before = try LedgerOpener.ledgerCall { () throws(LedgerError) in try book.counts() }
        return ProvisionLedger(book: book, location: location, jobName: jobName, before: before, newFile: newFile)
      } catch {
        book.close()
        throw error
      }
    } catch {
      if let newFile { LedgerOpener.removeLedgerFile(newFile) }
      throw error
    }
  }

  /// Records the job's settings on its first run (or, with --allow-template-change, replaces
  /// them); a run with other settings is refused (65) before anything is imported or written.
  private func checkSettings(_ settings: JobSettings, in book: any Ledger) throws(CLIFailure) {
    let check = try LedgerOpener.ledgerCall { () throws(LedgerError) in
      try book.recordSettings(settings.encoded, replacing: allowTemplateChange)
    }
    guard case .differs(let recorded) = check else { return }
    let differences = settings.differences(from: JobSettings(decoding: recorded))
    throw CLIFailure(.malformedInput(sanitizeLine(differences.joined(separator: "; ")
      + ": rerun with the job's, or add --allow-template-change to go on with this run's")))
  }

  /// The rows into the ledger; 65 after one line per row when the ledger holds other rows under
  /// the same ids.
  private func importRows(_ rows: RowsFile, into book: any Ledger, in context: CommandContext) throws(CLIFailure) {
    do {
      _ = try book.importRows(rows.rows.map(\.ledgerInput))
    } catch .rowsDiffer(let lines) {
      for line in lines { context.say(sanitizeLine(line)) }
      throw CLIFailure(.malformedInput("the ledger holds other rows under the same ids: use another --ledger or --job"))
    } catch {
      throw cliFailure(for: error)
    }
  }

  /// Step 3: one poller per `--reader` (every PC/SC reader for `all`; `NFC_READER` or the only
  /// reader without one).
  private func makePollers(logger: Logger?, in context: CommandContext) throws(CLIFailure) -> [any TagPoller] {
    var specs: [String?] = reader.isEmpty ? [nil] : reader
    if reader == ["all"] {
      let names = try pcscReaderNames()
      guard !names.isEmpty else { throw CLIFailure(.readerUnavailable("no reader is attached")) }
      specs = names
    }
    var pollers: [any TagPoller] = []
    for spec in specs { pollers.append(try makeTagPoller(spec: spec, logger: logger, in: context)) }
    return pollers
  }

  /// Step 4: the run (``ProvisioningRun``), its events on the reporter; the first Ctrl-C stops it
  /// after the tag in hand, the second between two tag commands; PC/SC readers plugged in or out
  /// meanwhile are reported (and, with `--reader all`, new ones join).
  private func run(_ job: ProvisionJob, on ledger: ProvisionLedger, pollers: [any TagPoller], logger: Logger?,
                   in context: CommandContext) -> ProvisionOutcome {
    let content = JobContent(rows: job.rows, template: job.template, mirror: mirrorMode, validation: job.validation)
    let style: ProvisionReporter.Style = json ? .json : quiet ? .quiet : .text
    let reporter = ProvisionReporter(style: style, total: ledger.before.total, alreadyDone: ledger.before.done, context: context)
    let run = ProvisioningRun(ledger: ledger.book, content: content, options: runOptions(job)) { reporter.handle($0) }
    context.keepAlive(run)
    let interrupts = Locked(0)
    let interrupt = context.interrupts.listen {
      let n = interrupts.withLock { n in n += 1; return n }
      if n == 1 { run.stop() } else { run.abort() }
    }
    let watch = ReaderWatch(initial: pollers.map(\.readerName))
    // PC/SC readers only: a `sim:` reader (named by --reader or NFC_READER) is in no reader list.
    if !pollers.contains(where: { $0 is SimulatorPoller }) {
      watch.start(run: run, addingNew: reader == ["all"], logger: logger, context: context) { name, change in
        reporter.readerChanged(name, change)
      }
    }
    let end = run.run(pollers: pollers)
    watch.stop()
    interrupt.stop()
    return ProvisionOutcome(run: run, end: end, reporter: reporter)
  }

  /// What every tag gets beyond its row: the station's name, `--lock`, `--protect`'s password
  /// derived per UID, `--timeout`, the reader's feedback, `--sdm-url`'s keys.
  private func runOptions(_ job: ProvisionJob) -> ProvisioningOptions {
    let protection = job.secret.map { secret in
      ProvisioningOptions.Protection(protectReads: protectReads) { uid in
        let derived = derivePassword(secret: secret, uid: uid)
        return (derived.pwd, derived.pack)
      }
    }
    return ProvisioningOptions(station: station ?? hostName(), lock: lock, protection: protection,
                               timeout: timeout, feedback: !noFeedback, sun: job.sun, desfire: job.desfire,
                               recordedStatus: { failure in failure.exitStatus })
  }

  /// Step 5: the reporter's last line from what the ledger says now, one line per row left
  /// claimed (with the command that frees it), then the exit status (``failure(ending:worstExit:)``).
  private func finish(_ outcome: ProvisionOutcome, ledger: ProvisionLedger, in context: CommandContext) throws {
    let after = (try? ledger.book.counts()) ?? ledger.before
    outcome.reporter.finish(remaining: after.total - after.done)
    for (row, uid) in outcome.run.rowsNotGivenBack {
      context.say("row \(sanitizeLine(row)) stays claimed by tag \(uid): the ledger was unavailable to give it back; if the tag "
        + "is gone, \(LedgerStatusText.releaseCommand(ledger: ledger.location, jobOption: ledger.jobName, row: row)) frees it")
    }
    if let failure = Self.failure(ending: outcome.end, worstExit: outcome.reporter.current.worstExit) { throw failure }
  }

  /// The exit status of a run that ended so (nil: 0, every row done): 65 refused, 69 the ledger
  /// or every reader lost, else the highest status of a failed tag, or 130 (Ctrl-C) or 75
  /// (`--timeout`) when no tag failed. `worstExit`: the highest exit status of a failed tag, 0 for none.
  static func failure(ending end: ProvisioningEnd, worstExit: Int32) -> (any Error)? {
    switch end {
    case .complete:
      return nil
    case .refused:
      return ExitCode(ExitStatus.dataError)
    case .ledgerFailed(let why):
      return CLIFailure(.serviceUnavailable(sanitizeLine(why)))
    case .stopped:
      return ExitCode(worstExit > 0 ? worstExit : ExitStatus.interrupted)
    case .timedOut:
      return ExitCode(worstExit > 0 ? worstExit : ExitStatus.tempFail)
    case .readersEnded(let why):
      if worstExit > 0 { return ExitCode(worstExit) }
      return CLIFailure(.readerUnavailable(sanitizeLine(why)))
    }
  }
}

/// The job's ledger, open (step 2): its settings checked, its rows imported.
struct ProvisionLedger {
  /// The ledger.
  let book: any Ledger
  /// Where it is: `--ledger`, or its default.
  let location: String
  /// The job's name in it: `--job`, or its default.
  let jobName: String
  /// Its counts before the run.
  let before: LedgerCounts
  /// The ledger file this run created, nil when the ledger was there before (or is PostgreSQL).
  let newFile: String?

  /// Closes the ledger, and removes the file this run created when `removingNewFile`.
  func close(removingNewFile: Bool) {
    book.close()
    if removingNewFile, let newFile { LedgerOpener.removeLedgerFile(newFile) }
  }
}

/// A run that ended (step 4): how, the rows it could not give back, and the reporter's tally.
struct ProvisionOutcome {
  let run: ProvisioningRun
  let end: ProvisioningEnd
  let reporter: ProvisionReporter
}

func baseName(_ path: String) -> String {
  String(path.split(separator: "/").last ?? Substring(path))
}

func hostName() -> String {
  var buffer = [CChar](repeating: 0, count: 256)
  guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
  return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
