import ArgumentParser
import Locking
import Logging
import NFCSession
import NFCTagCLI
import NTAG424
import ProvisionCommands
import Provisioning
import ProvisioningLedger

extension ProvisionCommand: PerformedCommand {
  /// `--mirror` as Provisioning's mode.
  var mirrorMode: MirrorMode? { mirror.flatMap { MirrorMode(rawValue: $0.rawValue) } }

  /// Runs the job; a failure is thrown.
  func perform(in context: CommandContext) throws {
    // 1. The job, checked whole before any tag is touched: a --sdm-url template by the rule
    // `sdm setup` applies (64), then every row.
    if let sdmUrl {
      do { _ = try SUNTemplate.check(sdmUrl) } catch {
        throw CLIFailure(ExitStatus.usage, sanitizeLine("--sdm-url: \(error)"))
      }
    }
    if let rows, access(rows, R_OK) != 0 {
      throw CLIFailure(ExitStatus.noInput, "cannot read the rows file \(rows): \(String(cString: strerror(errno)))")
    }
    let rowsFile = rows.map { RowsFile.load(path: $0) } ?? RowsFile.counted(count ?? 0)
    let (template, settings) = try makeTemplate(in: context)
    let validation = JobValidation(rows: rowsFile, template: template, mirror: mirrorMode)
    if !validation.problems.isEmpty {
      for problem in validation.problems { context.say(sanitizeLine(problem.description)) }
      throw ExitCode(ExitStatus.dataError)
    }
    if let sdmUrl {
      let problems = Self.sunProblems(rows: rowsFile, template: template, validation: validation, source: sdmUrl, lock: lock)
      if !problems.isEmpty {
        for problem in problems { context.say(sanitizeLine(problem)) }
        throw ExitCode(ExitStatus.dataError)
      }
    }
    let secret = try readSecret(in: context)
    let sun = try readMasterKey(in: context).map { SUNProvisioning(masterKey: $0, lock: lock) }

    // 2. The ledger, with the rows imported (idempotent).
    let jobName = job ?? rows.map(baseName) ?? "nfctag-provision"
    let location = ledger ?? (rows.map { $0 + ".ledger.sqlite" } ?? "nfctag-provision.sqlite")
    // A ledger file this run creates is removed again when the job is refused before any tag
    // was written (or the run cannot start): a refused job leaves nothing behind. A ledger that
    // was there before is never removed.
    let newFile = LedgerOpener.fileToBeCreated(location)
    var discardNewFile = newFile != nil
    defer { if discardNewFile, let newFile { LedgerOpener.removeLedgerFile(newFile) } }
    let book = try LedgerOpener.openForProvisioning(location, job: jobName)
    defer { book.close() }
    try checkSettings(settings, in: book)
    do {
      _ = try book.importRows(rowsFile.rows.map(\.ledgerInput))
    } catch .rowsDiffer(let lines) {
      for line in lines { context.say(sanitizeLine(line)) }
      throw CLIFailure(ExitStatus.dataError, "the ledger holds other rows under the same ids: use another --ledger or --job")
    } catch {
      throw cliFailure(for: error)
    }
    let before = try LedgerOpener.ledgerCall { () throws(LedgerError) in try book.counts() }

    // 3. The readers, one session each.
    let logger = trace ? context.trace.logger() : nil
    let pollers = try makePollers(logger: logger, in: context)
    let content = JobContent(rows: rowsFile, template: template, mirror: mirrorMode, validation: validation)
    let protection = secret.map { secret in
      ProvisioningOptions.Protection(protectReads: protectReads) { uid in
        let derived = derivePassword(secret: secret, uid: uid)
        return (derived.pwd, derived.pack)
      }
    }
    let options = ProvisioningOptions(station: station ?? hostName(), lock: lock, protection: protection,
                                      timeout: timeout, feedback: !noFeedback, sun: sun,
                                      recordedStatus: { failure in failure.exitStatus })
    let style: ProvisionReporter.Style = json ? .json : quiet ? .quiet : .text
    let reporter = ProvisionReporter(style: style, total: before.total, alreadyDone: before.done, context: context)
    let run = ProvisioningRun(ledger: book, content: content, options: options) { reporter.handle($0) }
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
    discardNewFile = discardNewFile && end == .refused
    watch.stop()
    interrupt.stop()

    // 4. What the ledger says now.
    let after = (try? book.counts()) ?? before
    let remaining = after.total - after.done
    reporter.finish(remaining: remaining)
    for (row, uid) in run.rowsNotGivenBack {
      context.say("row \(sanitizeLine(row)) stays claimed by tag \(uid): the ledger was unavailable to give it back; if the tag "
        + "is gone, \(LedgerStatusText.releaseCommand(ledger: location, jobOption: jobName, row: row)) frees it")
    }
    let tally = reporter.current
    switch end {
    case .complete:
      return
    case .refused:
      throw ExitCode(ExitStatus.dataError)
    case .ledgerFailed(let why):
      throw CLIFailure(ExitStatus.unavailable, sanitizeLine(why))
    case .stopped:
      throw ExitCode(tally.worstExit > 0 ? tally.worstExit : ExitStatus.interrupted)
    case .timedOut:
      throw ExitCode(tally.worstExit > 0 ? tally.worstExit : ExitStatus.tempFail)
    case .readersEnded(let why):
      if tally.worstExit > 0 { throw ExitCode(tally.worstExit) }
      throw CLIFailure(ExitStatus.unavailable, sanitizeLine(why))
    }
  }

  /// The template, and the job's settings (what every tag gets) to record or compare.
  private func makeTemplate(in context: CommandContext) throws(CLIFailure) -> (MessageTemplate, JobSettings) {
    func settings(_ kind: JobSettings.TemplateKind, _ source: String) -> JobSettings {
      JobSettings(kind: kind, template: source, mirror: mirrorMode, protect: protect, protectReads: protectReads, lock: lock)
    }
    do {
      if let url { return (.url(try Template(url)), settings(.url, url)) }
      if let text { return (.text(try Template(text)), settings(.text, text)) }
      if let sdmUrl { return (.url(try Template(SUNTemplate.escaping(sdmUrl))), settings(.sdmURL, sdmUrl)) }
      if let message {
        let bytes = try readInputOrFail(message, in: context)
        return (.message(try MessageJSONTemplate(parsing: bytes)), settings(.message, String(decoding: bytes, as: UTF8.self)))
      }
    } catch let failure as CLIFailure {
      throw failure
    } catch {
      throw CLIFailure(ExitStatus.dataError, "the template: \(sanitizeLine("\(error)"))")
    }
    throw CLIFailure(ExitStatus.usage, "no template")
  }

  /// Records the job's settings on its first run (or, with --allow-template-change, replaces
  /// them); a run with other settings is refused (65) before anything is imported or written.
  private func checkSettings(_ settings: JobSettings, in book: any Ledger) throws(CLIFailure) {
    let check = try LedgerOpener.ledgerCall { () throws(LedgerError) in
      try book.recordSettings(settings.encoded, replacing: allowTemplateChange)
    }
    guard case .differs(let recorded) = check else { return }
    let differences = settings.differences(from: JobSettings(decoding: recorded))
    throw CLIFailure(ExitStatus.dataError, sanitizeLine(differences.joined(separator: "; ")
      + ": rerun with the job's, or add --allow-template-change to go on with this run's"))
  }

  /// `--sdm-url`: every row's URL planned for the tag (with a stand-in UID) before any tag is
  /// touched: one line per row the planner refuses.
  static func sunProblems(rows: RowsFile, template: MessageTemplate, validation: JobValidation, source: String, lock: Bool) -> [String] {
    let content = JobContent(rows: rows, template: template, mirror: nil, validation: validation)
    let job = SUNProvisioning(masterKey: .factory, lock: lock)
    let standIn = [UInt8](repeating: 0, count: 7)
    var problems: [String] = []
    for row in rows.rows {
      do {
        let message = try content.render(rowID: row.id, sequence: row.sequence, uid: standIn)
        _ = try job.plan(url: try SUNProvisioning.urlTemplate(of: message))
      } catch {
        problems.append("\(row.label): --sdm-url: \(error)")
        if problems.count == 20 { problems.append("(further rows not checked)"); break }
      }
    }
    return problems
  }

  /// `--sdm-url`'s master key, from its file or variable; nil without --sdm-url. Errors name
  /// the option and the source, never a digit of the key.
  private func readMasterKey(in context: CommandContext) throws(CLIFailure) -> AESKey? {
    guard sdmUrl != nil else { return nil }
    return try SDMKeys.key(file: masterKeyFile, env: masterKeyEnv, role: "the master key",
                           options: ("--master-key-file", "--master-key-env"), in: context)
  }

  private func readSecret(in context: CommandContext) throws(CLIFailure) -> ProvisioningSecret? {
    guard protect else { return nil }
    // The error names the secret's length and where it came from, never a byte of it.
    func secret(_ text: String, from source: String) throws(CLIFailure) -> ProvisioningSecret {
      do { return try ProvisioningSecret(text: text) } catch {
        throw CLIFailure(ExitStatus.usage, sanitizeLine("\(error) (read from \(source))"))
      }
    }
    if let secretFile {
      let bytes = try readSecretInputOrFail(secretFile, option: "--secret-file", alternative: "--secret-env", in: context)
      return try secret(String(decoding: bytes, as: UTF8.self), from: "the file \(secretSourceName(secretFile, option: "--secret-file"))")
    }
    if let secretEnv {
      let value = try secretVariableOrFail(secretEnv, option: "--secret-env", alternative: "--secret-file",
                                           what: "the provisioning secret", in: context)
      return try secret(value, from: "the environment variable \(secretSourceName(secretEnv, option: "--secret-env"))")
    }
    return nil
  }

  private func makePollers(logger: Logger?, in context: CommandContext) throws(CLIFailure) -> [any TagPoller] {
    var specs: [String?] = reader.isEmpty ? [nil] : reader
    if reader == ["all"] {
      let names = try pcscReaderNames()
      guard !names.isEmpty else { throw CLIFailure(ExitStatus.unavailable, "no reader is attached") }
      specs = names
    }
    var pollers: [any TagPoller] = []
    for spec in specs { pollers.append(try makeTagPoller(spec: spec, logger: logger, in: context)) }
    return pollers
  }
}

func baseName(_ path: String) -> String {
  String(path.split(separator: "/").last ?? Substring(path))
}

func hostName() -> String {
  var buffer = [CChar](repeating: 0, count: 256)
  guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
  return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
