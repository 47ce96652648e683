import Foundation
import ProvisioningLedger
import ProvisioningLedgerPostgres
import ProvisioningLedgerSQLite
import Testing

/// `nfctag ledger` on a postgres:// URL, run as the real binary.
@Suite struct LedgerCLIPostgresURL {
  @Test func aPasswordInTheURLIsRefusedUnshown() throws {
    for command in [["status"], ["export"], ["release", "--row", "1"]] {
      let r = try runTool(["ledger", command[0], "postgres://station:s3cret-pw@db.example/line"] + command.dropFirst())
      #expect(r.status == 66, "\(command): \(r.stderr)")
      #expect(r.stderr == "nfctag: cannot open the ledger: the ledger URL holds a password: give it through PGPASSFILE or PGPASSWORD, never in the URL\n")
      #expect(!r.stdout.contains("s3cret") && !r.stderr.contains("s3cret"))
    }
  }

  @Test func anUnreachableServerIsOneLine() throws {
    let r = try runTool(["ledger", "status", "postgres://station@127.0.0.1:1/line", "--job", "x"])
    #expect(r.status == 69, "\(r.stderr)")
    #expect(r.stderr.hasPrefix("nfctag: the ledger is unavailable, nothing of this step was committed: "
      + "cannot connect to PostgreSQL at postgres://station@127.0.0.1:1/line: "), "\(r.stderr)")
    #expect(r.stderr.split(separator: "\n").count == 1)
  }
}

/// The same job in a SQLite file and in PostgreSQL (NFCTAG_TEST_POSTGRES): `ledger status`,
/// `export` and `release` print the same bytes.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["NFCTAG_TEST_POSTGRES"]?.isEmpty == false,
                             "needs PostgreSQL: NFCTAG_TEST_POSTGRES is not set (`make test` starts a throw-away server)"))
final class LedgerCLIPostgres {
  let url = ProcessInfo.processInfo.environment["NFCTAG_TEST_POSTGRES"] ?? ""
  let directory: URL
  let path: String
  /// A job name of this test's own: the test database is shared.
  let job = "batch-\(UUID().uuidString.prefix(8).lowercased())"

  init() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-pg-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    path = directory.appendingPathComponent("run.ledger").path
  }

  deinit { try? FileManager.default.removeItem(at: directory) }

  static let sha = String(repeating: "ab", count: 32)

  static func place(_ second: Int) -> LedgerPlace {
    LedgerPlace(station: "bench-1", reader: "ACS ACR122U 00 00", time: "2026-11-24T10:15:0\(second).000Z")
  }

  /// Rows 1–4: 1 done, 2 claimed, 3 failed, 4 pending; a tag failure with a comma and quotes.
  static func fill(_ ledger: any Ledger) throws {
    _ = try ledger.importRows((1...4).map { LedgerRowInput(id: String($0), sequence: $0, contentHash: sha) })
    _ = try ledger.claim(uid: "04a1", at: place(1))
    _ = try ledger.claim(uid: "04a1b2c3d4e5f6", at: place(2))
    _ = try ledger.claim(uid: "04a3", at: place(3))
    try ledger.finish(LedgerDone(rowID: "1", uid: "04a1", messageHex: "d1010454026869", messageSHA256: sha, place: place(4)))
    try ledger.fail(rowID: "3", uid: "04a3",
                    failure: LedgerFailure(reason: "the tag was removed, \"try again\"", exitStatus: 74, place: place(5)))
    try ledger.recordTagFailure(uid: "04f1", failure: LedgerFailure(reason: "not NDEF formatted", exitStatus: 65, place: place(6)))
    ledger.close()
  }

  func makeBoth() throws {
    try Self.fill(SQLiteLedger(path: path, job: LedgerJob(name: job)))
    try Self.fill(PostgresLedger(url: url, job: LedgerJob(name: job)))
  }

  @Test func exportStatusAndReleaseAreTheSameBytes() throws {
    try makeBoth()
    for arguments in [["export", "--job", job], ["export", "--format", "jsonl", "--job", job], ["status", "--job", job],
                      ["status", "--json", "--job", job], ["release", "--row", "2", "--job", job],
                      ["release", "--row", "1", "--job", job], ["export", "--job", job]] {
      let fromFile = try runTool(["ledger", arguments[0], path] + arguments.dropFirst())
      let fromServer = try runTool(["ledger", arguments[0], url] + arguments.dropFirst())
      #expect(fromServer.status == fromFile.status, "\(arguments): \(fromServer.stderr)")
      // `status` names the ledger in the command that frees a claimed row: the one difference.
      #expect(fromServer.stdout.replacingOccurrences(of: url, with: "LEDGER")
              == fromFile.stdout.replacingOccurrences(of: path, with: "LEDGER"), "\(arguments)")
      #expect(fromServer.stderr == fromFile.stderr, "\(arguments)")
      #expect(!fromServer.stdout.isEmpty || !fromServer.stderr.isEmpty)
    }
  }

  @Test func anUnknownJobIsNamedAndNotCreated() throws {
    let r = try runTool(["ledger", "status", url, "--job", job + "-nope"])
    #expect(r.status == 65, "\(r.stderr)")
    #expect(r.stderr.hasPrefix("nfctag: the ledger has no job \(job)-nope ("))
    #expect(try !PostgresLedger.jobs(settings: PostgresSettings(url: url)).contains(job + "-nope"))
  }

  /// A database of its own, so that it holds one job: `ledger status URL` needs no --job.
  @Test func theOnlyJobNeedsNoJobOption() throws {
    let database = "nfctag_cli_\(UUID().uuidString.prefix(8).lowercased())"
    let base = try PostgresSettings(url: url)
    let psql = URL(fileURLWithPath: "/usr/bin/psql")
    let created = try runProcess(psql, ["-X", "-q", "-c", "CREATE DATABASE \(database)"])
    try #require(created.status == 0, "\(created.stderr)")
    defer { _ = try? runProcess(psql, ["-X", "-q", "-c", "DROP DATABASE IF EXISTS \(database) WITH (FORCE)"]) }
    let own = "postgres://\(base.user)@\(base.host):\(base.port)/\(database)"
    let empty = try runTool(["ledger", "status", own])
    #expect(empty.status == 65)
    #expect(empty.stderr == "nfctag: the ledger holds no job\n")
    try Self.fill(PostgresLedger(url: own, job: LedgerJob(name: "only")))
    let r = try runTool(["ledger", "status", own])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.hasPrefix("job:         only\ntotal:       4\n"))
    try PostgresLedger(url: own, job: LedgerJob(name: "second")).close()
    let two = try runTool(["ledger", "status", own])
    #expect(two.status == 64)
    #expect(two.stderr == "nfctag: the ledger holds 2 jobs (only, second): name one with --job\n")
  }
}
