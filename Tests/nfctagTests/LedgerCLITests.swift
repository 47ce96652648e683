import Foundation
import ProvisioningLedger
import ProvisioningLedgerSQLite
import Testing

/// `nfctag ledger status|export|release`, run as the real binary on ledgers built through the
/// library.
@Suite final class LedgerCLI {
  let directory: URL
  let path: String

  init() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-ledger-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    path = directory.appendingPathComponent("run.ledger").path
  }

  deinit { try? FileManager.default.removeItem(at: directory) }

  static let sha = String(repeating: "ab", count: 32)

  static func place(_ second: Int) -> LedgerPlace {
    LedgerPlace(station: "bench-1", reader: "ACS ACR122U 00 00", time: "2026-11-24T10:15:0\(second).000Z")
  }

  /// Rows 1–4 of job "batch-7": 1 done, 2 claimed, 3 failed, 4 pending; two tag failures.
  @discardableResult
  func makeLedger(job: String = "batch-7") throws -> SQLiteLedger {
    let ledger = try SQLiteLedger(path: path, job: LedgerJob(name: job))
    _ = try ledger.importRows((1...4).map { LedgerRowInput(id: String($0), sequence: $0, contentHash: Self.sha) })
    _ = try ledger.claim(uid: "04a1", at: Self.place(1))
    _ = try ledger.claim(uid: "04a1b2c3d4e5f6", at: Self.place(2))
    _ = try ledger.claim(uid: "04a3", at: Self.place(3))
    try ledger.finish(LedgerDone(rowID: "1", uid: "04a1", messageHex: "d1010454026869", messageSHA256: Self.sha,
                                 place: Self.place(4)))
    try ledger.fail(rowID: "3", uid: "04a3",
                    failure: LedgerFailure(reason: "the tag was removed, try again", exitStatus: 74, place: Self.place(5)))
    try ledger.recordTagFailure(uid: "04f1", failure: LedgerFailure(reason: "not NDEF formatted", exitStatus: 65,
                                                                   place: Self.place(6)))
    return ledger
  }

  static let csv = """
    row,uid,status,message_hex,message_sha256,station,reader,written_at,error,exit_status
    1,04a1,done,d1010454026869,\(sha),bench-1,ACS ACR122U 00 00,2026-11-24T10:15:04.000Z,,
    2,04a1b2c3d4e5f6,claimed,,,bench-1,ACS ACR122U 00 00,2026-11-24T10:15:02.000Z,,
    3,04a3,failed,,,bench-1,ACS ACR122U 00 00,2026-11-24T10:15:05.000Z,"the tag was removed, try again",74
    4,,pending,,,,,,,
    ,04f1,failed,,,bench-1,ACS ACR122U 00 00,2026-11-24T10:15:06.000Z,not NDEF formatted,65

    """

  @Test func statusCountsRows() throws {
    try makeLedger().close()
    let r = try runTool(["ledger", "status", path])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout == """
      job:         batch-7
      total:       4
      done:        1
      pending:     1
      claimed:     1
      failed:      1
      failed tags: 2
      claimed rows (each on a tag being written, or left claimed when its tag went away; free a row whose tag is gone with the command shown):
        row 2, tag 04a1b2c3d4e5f6, station bench-1, since 2026-11-24T10:15:02.000Z: nfctag ledger release \(path) --row 2

      """)
    let json = try runTool(["ledger", "status", path, "--json"])
    #expect(json.stdout == #"{"job":"batch-7","total":4,"done":1,"pending":1,"claimed":1,"failed":1,"failedTags":2,"claimedRows":[{"row":"2","uid":"04a1b2c3d4e5f6","station":"bench-1","reader":"ACS ACR122U 00 00","since":"2026-11-24T10:15:02.000Z"}]}"# + "\n")
  }

  /// The command `ledger status` shows for a claimed row frees it: the row is pending again and
  /// the status lists no claimed row.
  @Test func theCommandStatusShowsFreesTheClaimedRow() throws {
    try makeLedger().close()
    let status = try runTool(["ledger", "status", path])
    let line = try #require(status.stdout.split(separator: "\n").first { $0.hasPrefix("  row 2,") })
    let command = try #require(line.range(of: ": nfctag ").map { line[$0.upperBound...] })
    #expect(command == "ledger release \(path) --row 2")
    let release = try runTool(command.split(separator: " ").map(String.init))
    #expect(release.status == 0, "\(release.stderr)")
    let after = try runTool(["ledger", "status", path])
    #expect(after.stdout.contains("claimed:     0\n") && !after.stdout.contains("claimed rows"), "\(after.stdout)")
  }

  @Test func statusNeedsAJobWhenThereAreSeveral() throws {
    try makeLedger().close()
    try SQLiteLedger(path: path, job: LedgerJob(name: "alpha")).close()
    let r = try runTool(["ledger", "status", path])
    #expect(r.status == 64)
    #expect(r.stderr == "nfctag: the ledger holds 2 jobs (alpha, batch-7): name one with --job\n")
    #expect(try runTool(["ledger", "status", path, "--job", "alpha"]).stdout.hasPrefix("job:         alpha\ntotal:       0\n"))
    let unknown = try runTool(["ledger", "status", path, "--job", "beta"])
    #expect(unknown.status == 65)
    #expect(unknown.stderr == "nfctag: the ledger has no job beta (its jobs: alpha, batch-7)\n")
  }

  @Test func exportIsTheAuditReport() throws {
    try makeLedger().close()
    let csv = try runTool(["ledger", "export", path])
    #expect(csv.status == 0, "\(csv.stderr)")
    #expect(csv.stdout == Self.csv)
    let jsonl = try runTool(["ledger", "export", path, "--format", "jsonl", "--job", "batch-7"])
    #expect(jsonl.status == 0, "\(jsonl.stderr)")
    let lines = jsonl.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == 6 && lines.last == "")
    #expect(lines.first == #"{"row":"1","uid":"04a1","status":"done","message_hex":"d1010454026869","message_sha256":"\#(Self.sha)","station":"bench-1","reader":"ACS ACR122U 00 00","written_at":"2026-11-24T10:15:04.000Z","error":null,"exit_status":null}"#)
    #expect(lines[2] == #"{"row":"3","uid":"04a3","status":"failed","message_hex":null,"message_sha256":null,"station":"bench-1","reader":"ACS ACR122U 00 00","written_at":"2026-11-24T10:15:05.000Z","error":"the tag was removed, try again","exit_status":74}"#)
    #expect(lines[4] == #"{"row":null,"uid":"04f1","status":"failed","message_hex":null,"message_sha256":null,"station":"bench-1","reader":"ACS ACR122U 00 00","written_at":"2026-11-24T10:15:06.000Z","error":"not NDEF formatted","exit_status":65}"#)
  }

  @Test func exportToAFile() throws {
    try makeLedger().close()
    let report = directory.appendingPathComponent("report.csv").path
    let r = try runTool(["ledger", "export", path, "--output", report])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.isEmpty)
    #expect(r.stderr == "nfctag: wrote 4 row(s) and 1 tag failure(s) to \(report)\n")
    #expect(try String(contentsOfFile: report, encoding: .utf8) == Self.csv)
    // Never over the ledger itself.
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    let onto = try runTool(["ledger", "export", path, "--output", path])
    #expect(onto.status == 64)
    #expect(onto.stderr == "nfctag: --output names the ledger itself\n")
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    let nowhere = try runTool(["ledger", "export", path, "--output", directory.appendingPathComponent("no/such/dir.csv").path])
    #expect(nowhere.status == 73)
  }

  @Test func releaseFreesAClaimedRow() throws {
    try makeLedger().close()
    let r = try runTool(["ledger", "release", path, "--row", "2"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stderr == "nfctag: row 2 released (was claimed by 04a1b2c3d4e5f6)\n")
    let failed = try runTool(["ledger", "release", path, "--row", "3"])
    #expect(failed.stderr == "nfctag: row 3 released (had failed on 04a3)\n")
    let ledger = try SQLiteLedger(path: path, job: LedgerJob(name: "batch-7"), createIfMissing: false)
    #expect(try ledger.counts() == LedgerCounts(pending: 3, claimed: 0, done: 1, failed: 0, failedTags: 1))
    #expect(try ledger.row(boundTo: "04a1b2c3d4e5f6") == nil)
  }

  @Test func releaseRefusesDonePendingAndUnknownRows() throws {
    let ledger = try makeLedger()
    let before = try ledger.records()
    for (row, message) in [("1", "row 1 is done; only a claimed or failed row can be released"),
                           ("4", "row 4 is pending; only a claimed or failed row can be released"),
                           ("9", "the ledger has no row 9 in this job")] {
      let r = try runTool(["ledger", "release", path, "--row", row])
      #expect(r.status == 65, "\(row): \(r.stderr)")
      #expect(r.stderr == "nfctag: \(message)\n")
    }
    #expect(try ledger.records() == before)
    let noRow = try runTool(["ledger", "release", path])
    #expect(noRow.status == 64)
    #expect(noRow.stderr.hasPrefix("nfctag: ") && noRow.stderr.split(separator: "\n").count == 1, "\(noRow.stderr)")
  }

  @Test func aMissingLedgerIsNotCreated() throws {
    let missing = directory.appendingPathComponent("missing.ledger").path
    for arguments in [["status", missing], ["export", missing], ["release", missing, "--row", "1"]] {
      let r = try runTool(["ledger"] + arguments)
      #expect(r.status == 66, "\(arguments): \(r.stderr)")
      #expect(r.stderr == "nfctag: cannot read the ledger \(missing): No such file or directory\n")
    }
    #expect(!FileManager.default.fileExists(atPath: missing))
    let folder = try runTool(["ledger", "status", directory.path])
    #expect(folder.status == 66)
    #expect(folder.stderr == "nfctag: cannot read the ledger \(directory.path): Is a directory\n")
  }

  @Test func aFileThatIsNotALedgerIsBadData() throws {
    let text = directory.appendingPathComponent("rows.csv").path
    let contents = Data(String(repeating: "id,url\n1,https://example.com/a\n", count: 40).utf8)
    #expect(FileManager.default.createFile(atPath: text, contents: contents))
    for arguments in [["status", text], ["export", text], ["release", text, "--row", "1"]] {
      let r = try runTool(["ledger"] + arguments)
      #expect(r.status == 65, "\(arguments): \(r.stderr)")
      #expect(r.stderr == "nfctag: \(text) is not a ledger (not an SQLite database)\n")
    }
    #expect(FileManager.default.contents(atPath: text) == contents)
    let empty = directory.appendingPathComponent("empty.ledger").path
    #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
    let r = try runTool(["ledger", "status", empty])
    #expect(r.status == 65)
    #expect(r.stderr == "nfctag: \(empty) is not a ledger (an empty database)\n")
  }

  @Test(arguments: [
    ["ledger", "status"], ["ledger", "export", "x.ledger", "--format", "xml"], ["ledger", "release", "x.ledger"],
    ["ledger", "frobnicate", "x.ledger"],
  ])
  func refusedCommandLinesAreOneLineAnd64(arguments: [String]) throws {
    let r = try runTool(arguments)
    #expect(r.status == 64, "\(arguments): \(r.stderr)")
    #expect(r.stderr.hasPrefix("nfctag: ") && r.stderr.split(separator: "\n").count == 1, "\(arguments): \(r.stderr)")
  }
}
