import NFCTagCLI
import ProvisioningLedger
import ProvisioningLedgerPostgres
import ProvisioningLedgerSQLite

/// Where a ledger lives, as the LEDGER argument names it.
enum LedgerLocation: Equatable {
  /// A file: the embedded SQLite ledger.
  case file(String)
  /// A `postgres://` or `postgresql://` URL: the shared PostgreSQL ledger.
  case postgres(String)

  init(_ argument: String) {
    self = PostgresSettings.isPostgresURL(argument) ? .postgres(argument) : .file(argument)
  }
}

/// Opens ledgers that exist already (`nfctag ledger status|export|release`): nothing is created.
enum LedgerOpener {
  /// The ledger at `argument`, for `job` or, without one, for the only job it holds.
  /// - Throws: 66 for a missing or unreadable file, 65 for one that is not a ledger or an unknown
  ///   job, 64 when the ledger holds several jobs and none was named.
  static func openExisting(_ argument: String, job: String?) throws(CLIFailure) -> any Ledger {
    switch LedgerLocation(argument) {
    case .file(let path):
      try checkReadable(path)
      return try open(job: job, listingJobs: { () throws(LedgerError) in try SQLiteLedger.jobs(path: path) }) {
        (name) throws(LedgerError) in try SQLiteLedger(path: path, job: LedgerJob(name: name), createIfMissing: false)
      }
    case .postgres(let url):
      // Settings from the URL and the PG* variables; the password never comes from argv.
      let settings = try ledgerCall { () throws(LedgerError) in try PostgresSettings(url: url) }
      return try open(job: job, listingJobs: { () throws(LedgerError) in try PostgresLedger.jobs(settings: settings) }) {
        (name) throws(LedgerError) in try PostgresLedger(settings: settings, job: LedgerJob(name: name), createIfMissing: false)
      }
    }
  }

  /// Opens `job`, or the ledger's only job when none is named; an unknown job is named with the
  /// jobs the ledger does hold.
  private static func open(job: String?, listingJobs: () throws(LedgerError) -> [String],
                           _ opening: (String) throws(LedgerError) -> any Ledger) throws(CLIFailure) -> any Ledger {
    let name: String
    if let job { name = job } else { name = try onlyJob(ledgerCall(listingJobs)) }
    do {
      return try opening(name)
    } catch .unknownJob(let name) {
      throw unknownJob(name, among: try ledgerCall(listingJobs))
    } catch {
      throw cliFailure(for: error)
    }
  }

  /// The job when the ledger holds exactly one.
  static func onlyJob(_ jobs: [String]) throws(CLIFailure) -> String {
    guard let first = jobs.first else { throw CLIFailure(.malformedInput("the ledger holds no job")) }
    guard jobs.count == 1 else {
      throw CLIFailure(.invalidCommandLine("the ledger holds \(jobs.count) jobs (\(jobList(jobs))): name one with --job"))
    }
    return first
  }

  static func unknownJob(_ name: String, among jobs: [String]) -> CLIFailure {
    let known = jobs.isEmpty ? "it holds no job" : "its jobs: \(jobList(jobs))"
    return CLIFailure(.malformedInput(sanitizeLine("the ledger has no job \(name) (\(known))")))
  }

  private static func jobList(_ jobs: [String]) -> String {
    sanitizeLine(jobs.prefix(10).joined(separator: ", ") + (jobs.count > 10 ? ", …" : ""))
  }

  /// Runs a ledger call; its failure becomes the tool's one line and exit status.
  static func ledgerCall<T>(_ body: () throws(LedgerError) -> T) throws(CLIFailure) -> T {
    do { return try body() } catch { throw cliFailure(for: error) }
  }

  /// 66 unless `path` is a file this process can read (SQLite itself would create a missing one).
  static func checkReadable(_ path: String) throws(CLIFailure) {
    var info = stat()
    var problem: Int32 = 0
    if stat(path, &info) != 0 || access(path, R_OK) != 0 {
      problem = errno
    } else if info.st_mode & S_IFMT == S_IFDIR {
      problem = EISDIR
    }
    guard problem != 0 else { return }
    throw CLIFailure(.unreadableFile("cannot read the ledger \(sanitizeLine(path)): \(String(cString: strerror(problem)))"))
  }
}

extension LedgerOpener {
  /// The path of the ledger file that opening `argument` for `provision` would create: nil for
  /// a PostgreSQL ledger or a file that exists (or cannot be looked at).
  static func fileToBeCreated(_ argument: String) -> String? {
    guard case .file(let path) = LedgerLocation(argument) else { return nil }
    var info = stat()
    return lstat(path, &info) != 0 && errno == ENOENT ? path : nil
  }

  /// Removes a ledger file this process created, with SQLite's companions (`-wal`, `-shm`,
  /// `-journal`). Call it only once the ledger is closed.
  static func removeLedgerFile(_ path: String) {
    for suffix in ["-wal", "-shm", "-journal", ""] { unlink(path + suffix) }
  }

  /// The ledger `provision` works on: created when missing (a SQLite file; PostgreSQL's tables),
  /// the job created on first use.
  static func openForProvisioning(_ argument: String, job: String) throws(CLIFailure) -> any Ledger {
    switch LedgerLocation(argument) {
    case .file(let path):
      do {
        return try SQLiteLedger(path: path, job: LedgerJob(name: job), createIfMissing: true)
      } catch {
        throw cliFailure(for: error)
      }
    case .postgres(let url):
      // The tables and the job are created on first use; the password comes from PGPASSWORD or
      // the password file, never from argv.
      do {
        return try PostgresLedger(settings: PostgresSettings(url: url), job: LedgerJob(name: job), createIfMissing: true)
      } catch {
        throw cliFailure(for: error)
      }
    }
  }
}
