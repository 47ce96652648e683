import Dispatch
import Locking
import Logging
import NFCTagCLI
import NTAG424
import ProvisionCommands
import ProvisioningLedger
import ProvisioningLedgerPostgres
import ProvisioningLedgerSQLite
import SUNService

extension SDMCommand.Serve: PerformedCommand {
  /// Reads the master key once, opens the ledger (it must exist: `provision` made it), then serves
  /// until SIGTERM or SIGINT (0). 64 bad key, 66 unreadable key file or ledger, 65 not a ledger,
  /// 69 ledger unreachable or the address cannot be listened on. Three steps: the key, the
  /// ledger's counters (``openCounters()``), the service (``serve(_:in:)``).
  func perform(in context: CommandContext) throws {
    guard let master = try SDMKeys.key(file: masterKeyFile, env: masterKeyEnv, role: "the master key",
                                       options: ("--master-key-file", "--master-key-env"), in: context) else {
      throw CLIFailure(.invalidCommandLine("give the master key with one of --master-key-file or --master-key-env"))
    }
    let counters = try openCounters()
    defer { counters.close() }
    let verifier = SUNVerifier(keys: .master(try SUNMasterKey(master)), counters: counters,
                               names: SUNParameterNames(piccData: parameters.piccParam, mac: parameters.macParam,
                                                        fileData: parameters.encParam))
    try serve(verifier, in: context)
  }

  /// The last counter per UID, kept in the ledger: `--connections` connections to it (1 for a
  /// file, 4 for PostgreSQL by default), with the job's counter baselines.
  private func openCounters() throws(CLIFailure) -> SUNCounters {
    let first = try LedgerOpener.openExisting(ledger, job: job)
    let baselines = SUNCounters.baselines(of: try LedgerOpener.ledgerCall { () throws(LedgerError) in try first.records() })
    var ledgers: [any Ledger] = [first]
    let wanted: Int
    switch LedgerLocation(ledger) {
    case .file: wanted = connections ?? 1
    case .postgres: wanted = connections ?? 4
    }
    while ledgers.count < wanted { ledgers.append(try LedgerOpener.openExisting(ledger, job: first.job.name)) }
    return SUNCounters(ledgers: ledgers, baselines: baselines)
  }

  /// Serves `verifier` on `--listen` until SIGTERM or SIGINT; the line `listening on HOST:PORT`
  /// on standard output once it listens.
  private func serve(_ verifier: SUNVerifier, in context: CommandContext) throws(CLIFailure) {
    var logger = Logger(label: "nfctag.sdm-serve")
    logger.logLevel = .error
    let sink = context.output
    let address = listen
    let outcome = Locked<Result<Void, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
      do {
        try await SUNServer.run(verifier, host: address.host, port: address.port, logger: logger) { port in
          // Unbuffered: whoever started the service waits for this line to know the port.
          let line = Array("listening on \(ListenAddress(host: address.host, port: port).defaultValueDescription)\n".utf8)
          line.withUnsafeBytes { sink.write($0) }
        }
        outcome.withLock { $0 = .success(()) }
      } catch {
        outcome.withLock { $0 = .failure(error) }
      }
      done.signal()
    }
    done.wait()
    if case .failure(let error)? = outcome.withLock({ $0 }) { throw Self.listenFailure(address, error) }
  }

  /// 69: the service could not listen on `address` (in use, not an address of this machine, no
  /// permission), or stopped on an error.
  static func listenFailure(_ address: ListenAddress, _ error: any Error) -> CLIFailure {
    CLIFailure(.serviceUnavailable(sanitizeLine("cannot listen on \(address.defaultValueDescription): \(SUNServer.reason(for: error))")))
  }
}
