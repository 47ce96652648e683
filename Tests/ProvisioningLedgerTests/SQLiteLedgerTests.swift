import Foundation
import ProvisioningLedger
@testable import ProvisioningLedgerSQLite
import Testing

/// A directory of its own under the temporary directory, removed when the value goes.
final class ScratchDirectory: Sendable {
  let path: String
  init() throws {
    path = FileManager.default.temporaryDirectory.appendingPathComponent("ledger-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }
  deinit { try? FileManager.default.removeItem(atPath: path) }
  func file(_ name: String) -> String { path + "/" + name }
}

@Suite struct SQLiteLedgerConformance {
  @Test(arguments: LedgerConformance.all)
  func conforms(_ check: LedgerCheck) throws {
    let directory = try ScratchDirectory()
    let path = directory.file("ledger.sqlite")
    try check.run { job in try SQLiteLedger(path: path, job: job) }
  }
}

@Suite struct SQLiteLedgerFile {
  typealias C = LedgerConformance

  @Test func reopeningKeepsEverything() throws {
    let directory = try ScratchDirectory()
    let path = directory.file("ledger.sqlite")
    let ledger = try SQLiteLedger(path: path, job: C.job)
    _ = try ledger.importRows(C.rows(1...3))
    _ = try ledger.claim(uid: "04a1", at: C.place(1))
    _ = try ledger.claim(uid: "04a2", at: C.place(2))
    try ledger.finish(C.done("1", "04a1", at: 3))
    try ledger.fail(rowID: "2", uid: "04a2", failure: C.failure("removed", 74, at: 4))
    try ledger.recordTagFailure(uid: "04b1", failure: C.failure("unsupported", 65, at: 5))
    let records = try ledger.records(), failures = try ledger.tagFailures(), counts = try ledger.counts()
    ledger.close()
    #expect(!FileManager.default.fileExists(atPath: path + "-wal"))  // checkpointed on the last close
    let again = try SQLiteLedger(path: path, job: C.job, createIfMissing: false)
    #expect(try again.records() == records)
    #expect(try again.tagFailures() == failures)
    #expect(try again.counts() == counts)
    #expect(try again.claim(uid: "04a2", at: C.place(6)) == .resumed(records[1]))
  }

  @Test func walModeAndFullSync() throws {
    let directory = try ScratchDirectory()
    let path = directory.file("ledger.sqlite")
    let ledger = try SQLiteLedger(path: path, job: C.job)
    #expect(try ledger.pragma("journal_mode") == "wal")
    #expect(try ledger.pragma("synchronous") == "2")  // FULL
    #expect(try Int(ledger.pragma("busy_timeout") ?? "") == BlockingConnection.busyTimeout)
    #expect(try ledger.pragma("application_id") == String(LedgerSchema.applicationID))
    #expect(try ledger.pragma("user_version") == String(LedgerSchema.version))
    _ = try ledger.importRows(C.rows(1...1))
    #expect(FileManager.default.fileExists(atPath: path + "-wal"))
    // WAL is a property of the file: a plain connection sees it too.
    let raw = try BlockingConnection.open(path: path, create: false)
    defer { raw.close() }
    #expect(try raw.query("PRAGMA journal_mode").first?.column("journal_mode")?.string == "wal")
  }

  @Test func nothingIsCreatedWithoutCreateIfMissing() throws {
    let directory = try ScratchDirectory()
    let path = directory.file("missing.sqlite")
    #expect(throws: LedgerError.self) { try SQLiteLedger(path: path, job: C.job, createIfMissing: false) }
    #expect(throws: LedgerError.self) { try SQLiteLedger.jobs(path: path) }
    #expect(!FileManager.default.fileExists(atPath: path))
    do {
      _ = try SQLiteLedger.jobs(path: path)
    } catch {
      guard case .cannotOpen(let why) = error else { Issue.record("\(error)"); return }
      #expect(why.contains(path))
    }
  }

  @Test func aFileThatCannotBeOpenedSaysWhy() throws {
    let directory = try ScratchDirectory()
    let plain = directory.file("plain.txt")
    #expect(FileManager.default.createFile(atPath: plain, contents: Data("x".utf8)))
    let cases = [(directory.file("no/such/folder/l.sqlite"), "No such file or directory"),
                 (plain + "/l.sqlite", "Not a directory"), (directory.path, "Is a directory")]
    for (path, reason) in cases {
      for create in [true, false] {
        #expect(throws: LedgerError.cannotOpen("\(path): \(reason)")) {
          try SQLiteLedger(path: path, job: C.job, createIfMissing: create)
        }
      }
    }
  }

  @Test func aVersion1LedgerIsMigratedAndItsJobGetsSettingsOnItsNextRun() throws {
    let directory = try ScratchDirectory()
    let path = directory.file("v1.sqlite")
    // A ledger as version 1 wrote it: jobs without settings.
    let raw = try BlockingConnection.open(path: path, create: true)
    for statement in ["CREATE TABLE jobs (name TEXT PRIMARY KEY NOT NULL)"] + Self.version2Tables.dropFirst() {
      _ = try raw.query(statement)
    }
    _ = try raw.query("PRAGMA application_id = \(LedgerSchema.applicationID)")
    _ = try raw.query("PRAGMA user_version = 1")
    _ = try raw.query("INSERT INTO jobs (name) VALUES ('job-a')")
    _ = try raw.query("INSERT INTO rows (job, id, sequence, content_hash, status) VALUES ('job-a', '1', 1, 'h', 'pending')")
    raw.close()
    let ledger = try SQLiteLedger(path: path, job: C.job, createIfMissing: false)
    #expect(try ledger.pragma("user_version") == String(LedgerSchema.version))
    #expect(try ledger.records().map(\.id) == ["1"])
    #expect(try ledger.settings() == nil)
    #expect(try ledger.recordSettings("S", replacing: false) == .recorded)
    #expect(try ledger.recordSettings("T", replacing: false) == .differs(recorded: "S"))
  }

  /// The tables as schema version 3 created them: no `sun_counters`.
  static let version3Tables = LedgerSchema.tables.filter { $0 != LedgerSchema.sunCounters }
  /// The tables as schema version 2 created them: rows without `progress`.
  static let version2Tables = version3Tables.map { $0.replacingOccurrences(of: "  progress TEXT,\n", with: "") }

  @Test func aVersion2LedgerIsMigratedAndItsRowsGetProgress() throws {
    #expect(Self.version2Tables != LedgerSchema.tables)
    let directory = try ScratchDirectory()
    let path = directory.file("v2.sqlite")
    let raw = try BlockingConnection.open(path: path, create: true)
    for statement in Self.version2Tables { _ = try raw.query(statement) }
    _ = try raw.query("PRAGMA application_id = \(LedgerSchema.applicationID)")
    _ = try raw.query("PRAGMA user_version = 2")
    _ = try raw.query("INSERT INTO jobs (name) VALUES ('job-a')")
    _ = try raw.query("""
      INSERT INTO rows (job, id, sequence, content_hash, status, uid, updated_at) VALUES ('job-a', '1', 1, 'h', 'claimed', '04a1', 't')
      """)
    raw.close()
    let ledger = try SQLiteLedger(path: path, job: C.job, createIfMissing: false)
    #expect(try ledger.pragma("user_version") == String(LedgerSchema.version))
    #expect(try ledger.row(boundTo: "04a1")?.progress == nil)
    try ledger.recordProgress(rowID: "1", uid: "04a1", progress: "P")
    #expect(try ledger.row(boundTo: "04a1")?.progress == "P")
  }

  @Test func aVersion3LedgerIsMigratedAndKeepsSUNCounters() throws {
    #expect(Self.version3Tables.count == LedgerSchema.tables.count - 1)
    let directory = try ScratchDirectory()
    let path = directory.file("v3.sqlite")
    let raw = try BlockingConnection.open(path: path, create: true)
    for statement in Self.version3Tables { _ = try raw.query(statement) }
    _ = try raw.query("PRAGMA application_id = \(LedgerSchema.applicationID)")
    _ = try raw.query("PRAGMA user_version = 3")
    _ = try raw.query("INSERT INTO jobs (name) VALUES ('job-a')")
    raw.close()
    let ledger = try SQLiteLedger(path: path, job: C.job, createIfMissing: false)
    #expect(try ledger.pragma("user_version") == "4")
    #expect(try ledger.acceptCounter(uid: "04a1", counter: 5) == .accepted)
    #expect(try ledger.acceptCounter(uid: "04a1", counter: 5) == .notAbove(last: 5))
  }

  @Test func anEmptyFileBecomesALedgerOnlyWhenAsked() throws {
    let directory = try ScratchDirectory()
    let path = directory.file("empty.sqlite")
    #expect(FileManager.default.createFile(atPath: path, contents: Data()))
    #expect(throws: LedgerError.incompatible("\(path) is not a ledger (an empty database)")) {
      try SQLiteLedger(path: path, job: C.job, createIfMissing: false)
    }
    #expect(try SQLiteLedger(path: path, job: C.job).counts() == LedgerCounts())
  }

  @Test func aFileThatIsNotADatabaseIsLeftAlone() throws {
    let directory = try ScratchDirectory()
    let path = directory.file("rows.csv")
    let text = Data(String(repeating: "id,name\n1,Ada Lovelace\n", count: 50).utf8)
    #expect(FileManager.default.createFile(atPath: path, contents: text))
    for create in [true, false] {
      #expect(throws: LedgerError.incompatible("\(path) is not a ledger (not an SQLite database)")) {
        try SQLiteLedger(path: path, job: C.job, createIfMissing: create)
      }
    }
    #expect(FileManager.default.contents(atPath: path) == text)
  }

  @Test func anotherProgramsDatabaseIsLeftAlone() throws {
    let directory = try ScratchDirectory()
    let path = directory.file("other.sqlite")
    let raw = try BlockingConnection.open(path: path, create: true)
    _ = try raw.query("CREATE TABLE notes (body TEXT)")
    raw.close()
    let before = FileManager.default.contents(atPath: path)
    #expect(throws: LedgerError.incompatible("\(path) is not a ledger (an SQLite database of another program)")) {
      try SQLiteLedger(path: path, job: C.job)
    }
    #expect(FileManager.default.contents(atPath: path) == before)
  }

  @Test func aNewerSchemaIsRefused() throws {
    let directory = try ScratchDirectory()
    let path = directory.file("ledger.sqlite")
    try SQLiteLedger(path: path, job: C.job).close()
    let raw = try BlockingConnection.open(path: path, create: false)
    _ = try raw.query("PRAGMA user_version = 99")
    raw.close()
    let expected = LedgerError.incompatible(
      "\(path) was written by a newer nfctag (ledger schema 99; this one knows up to \(LedgerSchema.version))")
    #expect(throws: expected) { try SQLiteLedger(path: path, job: C.job) }
    #expect(throws: expected) { try SQLiteLedger.jobs(path: path) }
  }

  @Test func jobsAreListedAndAnUnknownOneIsRefused() throws {
    let directory = try ScratchDirectory()
    let path = directory.file("ledger.sqlite")
    try SQLiteLedger(path: path, job: LedgerJob(name: "zeta")).close()
    try SQLiteLedger(path: path, job: LedgerJob(name: "alpha")).close()
    #expect(try SQLiteLedger.jobs(path: path) == ["alpha", "zeta"])
    #expect(throws: LedgerError.unknownJob("beta")) {
      try SQLiteLedger(path: path, job: LedgerJob(name: "beta"), createIfMissing: false)
    }
    #expect(try SQLiteLedger.jobs(path: path) == ["alpha", "zeta"])  // and not added
  }

  @Test func pathsAreNotReadAsURIs() throws {
    let directory = try ScratchDirectory()
    let path = directory.file("a b?mode=ro#x%41.sqlite")
    try SQLiteLedger(path: path, job: C.job).close()
    #expect(FileManager.default.fileExists(atPath: path))
    #expect(try SQLiteLedger.jobs(path: path) == [C.job.name])
    #expect(sqliteURI(path: "/t/a b?#%", create: false) == "file:///t/a%20b%3F%23%25?mode=rw")
    #expect(sqliteURI(path: "rel/x.db", create: true) == "file:rel/x.db?mode=rwc")
  }

  @Test func oneObjectFromManyThreads() throws {
    let directory = try ScratchDirectory()
    let ledger = try SQLiteLedger(path: directory.file("ledger.sqlite"), job: C.job)
    _ = try ledger.importRows(C.rows(1...40))
    let group = DispatchGroup()
    for thread in 0..<8 {
      group.enter()
      Thread.detachNewThread {
        defer { group.leave() }
        for n in 0..<5 { _ = try? ledger.claim(uid: "\(thread)-\(n)", at: C.place(1)) }
      }
    }
    #expect(group.wait(timeout: .now() + 60) == .success)
    let records = try ledger.records()
    #expect(records.allSatisfy { $0.status == .claimed })
    #expect(Set(records.compactMap(\.uid)).count == 40)
  }
}
