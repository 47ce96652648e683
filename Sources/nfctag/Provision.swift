import ArgumentParser
import Logging
import NFCSession
import Provisioning
import ProvisioningLedger
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension MirrorMode: ExpressibleByArgument {}

extension NFCTool {
  /// `nfctag provision`: a row per tag from a rows file (or a count), verified, recorded in a ledger.
  struct Provision: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "provision",
      abstract: "Write one row per tag from a CSV or JSON-lines file, verified and recorded in a ledger.",
      discussion: """
        Every tag gets the next pending row, rendered from the template: {COLUMN} from the row, \
        {uid} (the tag's UID, lowercase hex), {n} or {n:06} (the row's number), {{ and }} for \
        braces, {mirror} (the room for --mirror). The whole job is checked before any tag is \
        touched (exit 65). Each tag is written tear-safely, read back, optionally mirrored, \
        protected and locked, read back again, and only then recorded as done in the ledger \
        (SQLite by default; postgres://USER@HOST:PORT/DB for several stations). Rerunning the \
        same command continues where it stopped; a tag whose UID is done is skipped. Ctrl-C \
        finishes the tag in hand, then stops; a second Ctrl-C stops between two tag commands.
        Exit 0 when every row is done; 75 when --timeout passed with rows remaining; otherwise \
        the highest exit status of a failed tag (docs/exit-codes.md).
        """)

    @Argument(help: "The rows: CSV with a header row, or JSON lines (.jsonl). A column `id` names each row.")
    var rows: String?

    @Option(help: "A URL template, e.g. https://example.com/t/{id}.") var url: String?
    @Option(help: "A text template (an NFC Forum Text record, English).") var text: String?
    @Option(help: "A message template: the message JSON of docs/json-format.md with placeholders in its strings.")
    var message: String?
    @Option(help: "The ledger: a SQLite file (default ROWS.ledger.sqlite, or nfctag-provision.sqlite) or postgres://USER@HOST:PORT/DB.")
    var ledger: String?
    @Option(help: "The job's name in the ledger (default: the rows file's name).") var job: String?
    @Option(help: "Without ROWS: provision N tags from the template alone.") var count: Int?
    @Option(name: .shortAndLong, parsing: .singleValue,
            help: "A reader (name, unique prefix, index, or a sim: simulator); repeat for several, or `all`.")
    var reader: [String] = []
    @Option(help: "This station's name on every row it writes (default: the host name).") var station: String?
    @Option(parsing: .unconditional, help: "Seconds without a tag before the run ends (default: never).")
    var timeout: Double?
    @Flag(help: "Make every tag read-only after writing it (permanent: needs --yes).") var lock = false
    @Flag(help: "Confirm a permanent operation (--lock).") var yes = false
    @Flag(help: "Protect every tag with its own password: PWD = HMAC-SHA256(secret, UID)[0..<4], PACK the next 2 bytes.")
    var protect = false
    @Option(help: "A file holding the provisioning secret (at least 16 bytes).") var secretFile: String?
    @Option(help: "An environment variable holding the provisioning secret.") var secretEnv: String?
    @Flag(help: "With --protect: reads need the password too.") var protectReads = false
    @Option(help: "NTAG213/215/216 mirror into the {mirror} room of the URL: uid, counter or uid+counter.")
    var mirror: MirrorMode?
    @Flag(help: "One JSON event per line on stdout.") var json = false
    @Flag(name: .shortAndLong, help: "Print errors only.") var quiet = false
    @Flag(help: "Do not signal outcomes on the reader (ACR122U LEDs and buzzer).") var noFeedback = false
    @Flag(help: "Print every APDU in and out on stderr (secrets are masked).") var trace = false

    func validate() throws {
      let templates = [url, text, message].compactMap { $0 }.count
      guard templates == 1 else { throw ValidationError("give the message with exactly one of --url, --text or --message.") }
      if rows != nil, count != nil { throw ValidationError("give ROWS or --count, not both.") }
      if rows == nil, count == nil { throw ValidationError("give ROWS (a CSV or .jsonl file) or --count N.") }
      if let count, !(1...1_000_000).contains(count) { throw ValidationError("--count must be between 1 and 1000000.") }
      if lock, !yes { throw ValidationError("--lock makes every tag read-only for good: add --yes to confirm.") }
      if protect != ((secretFile != nil) || (secretEnv != nil)) || (secretFile != nil && secretEnv != nil) {
        throw ValidationError(protect ? "--protect needs exactly one of --secret-file or --secret-env."
                                      : "--secret-file and --secret-env go with --protect.")
      }
      if protectReads, !protect { throw ValidationError("--protect-reads goes with --protect.") }
      if let timeout, !(timeout > 0 && timeout <= 86_400) {
        throw ValidationError("--timeout must be more than 0 and at most 86400 seconds.")
      }
      if json, quiet { throw ValidationError("give --json or --quiet, not both.") }
    }

    func run() throws {
      do {
        try provision()
      } catch let failure as CLIFailure {
        throw fail(failure)
      }
    }

    private func provision() throws {
      // 1. The job, checked whole before any tag is touched.
      if let rows, access(rows, R_OK) != 0 {
        throw CLIFailure(ExitStatus.noInput, "cannot read the rows file \(rows): \(String(cString: strerror(errno)))")
      }
      let rowsFile = rows.map { RowsFile.load(path: $0) } ?? RowsFile.counted(count ?? 0)
      let template = try makeTemplate()
      let validation = JobValidation(rows: rowsFile, template: template, mirror: mirror)
      if !validation.problems.isEmpty {
        for problem in validation.problems { writeStderr("nfctag: \(sanitizeLine(problem.description))\n") }
        throw ExitCode(ExitStatus.dataError)
      }
      let secret = try readSecret()

      // 2. The ledger, with the rows imported (idempotent).
      let jobName = job ?? rows.map(baseName) ?? "nfctag-provision"
      let location = ledger ?? (rows.map { $0 + ".ledger.sqlite" } ?? "nfctag-provision.sqlite")
      let book = try LedgerOpener.openForProvisioning(location, job: jobName)
      defer { book.close() }
      do {
        _ = try book.importRows(rowsFile.rows.map(\.ledgerInput))
      } catch .rowsDiffer(let lines) {
        for line in lines { writeStderr("nfctag: \(sanitizeLine(line))\n") }
        throw CLIFailure(ExitStatus.dataError, "the ledger holds other rows under the same ids: use another --ledger or --job")
      } catch {
        throw cliFailure(for: error)
      }
      let before = try LedgerOpener.ledgerCall { () throws(LedgerError) in try book.counts() }

      // 3. The readers, one session each.
      let logger = trace ? makeTraceLogger() : nil
      let pollers = try makePollers(logger: logger)
      let content = JobContent(rows: rowsFile, template: template, mirror: mirror, validation: validation)
      let protection = secret.map { secret in
        ProvisioningOptions.Protection(protectReads: protectReads) { uid in
          let derived = derivePassword(secret: secret, uid: uid)
          return (derived.pwd, derived.pack)
        }
      }
      let options = ProvisioningOptions(station: station ?? hostName(), lock: lock, protection: protection,
                                        timeout: timeout, feedback: !noFeedback,
                                        exitStatus: { error in provisioningExitStatus(for: error) })
      let style: ProvisionReporter.Style = json ? .json : quiet ? .quiet : .text
      let reporter = ProvisionReporter(style: style, total: before.total, alreadyDone: before.done)
      let run = ProvisioningRun(ledger: book, content: content, options: options) { reporter.handle($0) }
      ProcessLifetime.keep(run)
      let interrupts = Locked(0)
      let interrupt = InterruptFlag.install {
        let n = interrupts.withLock { n in n += 1; return n }
        if n == 1 { run.stop() } else { run.abort() }
      }
      let watch = ReaderWatch(initial: pollers.map(\.readerName))
      if !reader.contains(where: { $0.hasPrefix("sim:") }) {
        watch.start(run: run, addingNew: reader == ["all"], logger: logger) { name, change in
          reporter.readerChanged(name, change)
        }
      }
      let end = run.run(pollers: pollers)
      watch.stop()
      interrupt.uninstall()

      // 4. What the ledger says now.
      let after = (try? book.counts()) ?? before
      let remaining = after.total - after.done
      reporter.finish(remaining: remaining)
      let tally = reporter.current
      switch end {
      case .complete:
        return
      case .refused:
        throw ExitCode(ExitStatus.dataError)
      case .ledgerFailed(let why):
        throw CLIFailure(ExitStatus.unavailable, "the ledger: \(why)")
      case .stopped:
        throw ExitCode(tally.worstExit > 0 ? tally.worstExit : ExitStatus.interrupted)
      case .timedOut:
        throw ExitCode(tally.worstExit > 0 ? tally.worstExit : ExitStatus.tempFail)
      case .readersEnded(let why):
        if tally.worstExit > 0 { throw ExitCode(tally.worstExit) }
        throw CLIFailure(ExitStatus.unavailable, sanitizeLine(why))
      }
    }

    private func makeTemplate() throws(CLIFailure) -> MessageTemplate {
      do {
        if let url { return .url(try Template(url)) }
        if let text { return .text(try Template(text)) }
        if let message {
          let bytes = try readInputOrFail(message)
          return .message(try MessageJSONTemplate(parsing: bytes))
        }
      } catch let failure as CLIFailure {
        throw failure
      } catch {
        throw CLIFailure(ExitStatus.dataError, "the template: \(sanitizeLine("\(error)"))")
      }
      throw CLIFailure(ExitStatus.usage, "no template")
    }

    private func readSecret() throws(CLIFailure) -> ProvisioningSecret? {
      guard protect else { return nil }
      do {
        if let secretFile {
          let bytes = try readInputOrFail(secretFile)
          return try ProvisioningSecret(text: String(decoding: bytes, as: UTF8.self))
        }
        if let secretEnv {
          guard let value = getenv(secretEnv) else {
            throw CLIFailure(ExitStatus.usage, "the environment variable \(secretEnv) (the provisioning secret) is not set")
          }
          return try ProvisioningSecret(text: String(cString: value))
        }
      } catch let failure as CLIFailure {
        throw failure
      } catch {
        throw CLIFailure(ExitStatus.usage, "the provisioning secret: \(error)")
      }
      return nil
    }

    private func makePollers(logger: Logger?) throws(CLIFailure) -> [any TagPoller] {
      var specs: [String?] = reader.isEmpty ? [nil] : reader
      if reader == ["all"] {
        let names: [String]
        do { names = try PCSCReaders.names() } catch { throw cliFailure(for: error) }
        guard !names.isEmpty else { throw CLIFailure(ExitStatus.unavailable, "no reader is attached") }
        specs = names
      }
      var pollers: [any TagPoller] = []
      for spec in specs { pollers.append(try TagSession.makePoller(spec: spec, logger: logger)) }
      return pollers
    }
  }
}

/// The exit status a provisioning failure is recorded with.
func provisioningExitStatus(for error: any Error) -> Int32 {
  switch error {
  case let failure as CLIFailure: return failure.code
  case is LedgerError: return ExitStatus.tempFail
  case let failure as ProvisioningFailure:
    switch failure.kind {
    case .security: return ExitStatus.noPermission
    case .verification: return ExitStatus.ioError
    case .unsupported: return ExitStatus.dataError
    }
  case is RenderFailure: return ExitStatus.dataError
  default: return exitStatus(for: NFCReaderError(error).code)
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
