import ProvisioningLedger
import Testing

/// What the ledger module writes for people and programs, whatever the backend.
@Suite struct LedgerText {
  @Test func errorsReadAsOneLine() {
    let errors: [LedgerError] = [
      .rowsDiffer((1...8).map { "row \($0): its content differs from the ledger's" }),
      .notBound(rowID: "7\nfake", uid: "04aa"), .cannotRelease(rowID: "17", status: .done),
      .unavailable("x\u{202E}y"),
    ]
    for error in errors {
      #expect(!error.description.contains("\n") && !error.description.contains("\u{202E}"), "\(error)")
    }
    #expect(errors[0].description.hasPrefix("8 rows differ from the rows already in the ledger: row 1: "))
    #expect(errors[0].description.hasSuffix("row 5: its content differs from the ledger's; and 3 more"))
    #expect(errors[1].description == "row 7?fake is not claimed by tag 04aa")
    #expect(errors[2].description == "row 17 is done; only a claimed or failed row can be released")
    #expect(LedgerError.rowsDiffer(["row 2: x"]).description == "1 row differs from the rows already in the ledger: row 2: x")
  }

  @Test func statusTextAndJSON() {
    let counts = LedgerCounts(pending: 40, claimed: 5, done: 150, failed: 5, failedTags: 3)
    #expect(LedgerStatusText.text(job: LedgerJob(name: "batch\u{1B}[2J-7"), counts: counts) == """
      job:         batch?[2J-7
      total:       200
      done:        150
      pending:     40
      claimed:     5
      failed:      5
      failed tags: 3

      """)
    #expect(LedgerStatusText.json(job: LedgerJob(name: "a\"b"), counts: counts)
            == #"{"job":"a\"b","total":200,"done":150,"pending":40,"claimed":5,"failed":5,"failedTags":3,"claimedRows":[]}"# + "\n")
  }

  /// A claimed row whose tag went away (a give-back the ledger could not take before the run
  /// ended) stays claimed: the status lists each claimed row with the command that frees it,
  /// every word of it quoted for a shell and no control character in it.
  @Test func statusListsClaimedRowsWithTheCommandThatFreesThem() {
    let counts = LedgerCounts(pending: 0, claimed: 2, done: 0, failed: 0, failedTags: 0)
    let claimed = [
      LedgerRecord(id: "r1", sequence: 1, status: .claimed, uid: "04aa", station: "s1", reader: "R", updatedAt: "2026-11-24T10:15:02.000Z"),
      LedgerRecord(id: "it's\n2", sequence: 2, status: .claimed, uid: "04bb", station: "s\u{202E}2", reader: "R", updatedAt: "t"),
    ]
    let text = LedgerStatusText.text(job: LedgerJob(name: "j"), counts: counts, claimed: claimed, ledger: "/tmp/my ledger.sqlite", jobOption: "j")
    #expect(text.hasSuffix("""
      failed tags: 0
      claimed rows (each on a tag being written, or left claimed when its tag went away; free a row whose tag is gone with the command shown):
        row r1, tag 04aa, station s1, since 2026-11-24T10:15:02.000Z: nfctag ledger release '/tmp/my ledger.sqlite' --job j --row r1
        row it's?2, tag 04bb, station s?2, since t: nfctag ledger release '/tmp/my ledger.sqlite' --job j --row 'it'\\''s?2'

      """), "\(text)")
    #expect(LedgerStatusText.releaseCommand(ledger: "postgres://db/x", jobOption: nil, row: "7") == "nfctag ledger release postgres://db/x --row 7")
    let many = (1...25).map { LedgerRecord(id: "r\($0)", sequence: $0, status: .claimed, uid: "04", station: "s", reader: "R", updatedAt: "t") }
    let long = LedgerStatusText.text(job: LedgerJob(name: "j"), counts: counts, claimed: many, ledger: "l")
    #expect(long.split(separator: "\n").filter { $0.hasPrefix("  row ") }.count == 20)
    #expect(long.hasSuffix("  … and 5 more (nfctag ledger export lists every row)\n"), "\(long)")
    #expect(LedgerStatusText.json(job: LedgerJob(name: "j"), counts: counts, claimed: Array(claimed.prefix(1)))
            == #"{"job":"j","total":2,"done":0,"pending":0,"claimed":2,"failed":0,"failedTags":0,"claimedRows":[{"row":"r1","uid":"04aa","station":"s1","reader":"R","since":"2026-11-24T10:15:02.000Z"}]}"# + "\n")
  }

  @Test func theJSONReportEscapesEveryControlCharacter() throws {
    let record = LedgerRecord(id: "r\u{7}1", sequence: 1, status: .failed, uid: "04aa", station: "s\u{202E}1",
                              reader: "r", updatedAt: "t", error: "tab\there", exitStatus: 74)
    let json = LedgerReport.jsonLines(records: [record], tagFailures: [])
    #expect(json == #"{"row":"r\u00071","uid":"04aa","status":"failed","message_hex":null,"message_sha256":null,"station":"s\u202e1","reader":"r","written_at":"t","error":"tab\there","exit_status":74}"# + "\n")
    #expect(!json.unicodeScalars.dropLast().contains { $0.value < 0x20 })
    // CSV keeps the text as it is, quoted where RFC 4180 needs it.
    let csv = try LedgerReport.csv(records: [record], tagFailures: [])
    #expect(csv.hasSuffix("\nr\u{7}1,04aa,failed,,,s\u{202E}1,r,t,tab\there,74\n"))
  }

  @Test func rowsAreReportedBySequence() throws {
    let records = [LedgerRecord(id: "b", sequence: 2, status: .pending), LedgerRecord(id: "a", sequence: 1, status: .pending)]
    #expect(try LedgerReport.csv(records: records, tagFailures: []).split(separator: "\n").dropFirst().map { $0.prefix(1) }
            == ["a", "b"])
  }

  @Test func anImportPlanCountsAndWordsDifferences() throws {
    let existing = [LedgerRowInput(id: "1", sequence: 1, contentHash: "aa")]
    let plan = LedgerImportPlan(importing: [
      LedgerRowInput(id: "1", sequence: 1, contentHash: "aa"), LedgerRowInput(id: "2", sequence: 2, contentHash: "bb"),
      LedgerRowInput(id: "2", sequence: 2, contentHash: "bb"),
    ], existing: existing)
    #expect(plan.result == LedgerImport(added: 1, alreadyThere: 2))
    #expect(plan.differences.isEmpty)
    let twice = LedgerImportPlan(importing: [
      LedgerRowInput(id: "2", sequence: 2, contentHash: "bb"), LedgerRowInput(id: "2", sequence: 2, contentHash: "cc"),
    ], existing: existing)
    #expect(throws: LedgerError.rowsDiffer(["row 2: given twice, differently"])) { try twice.checkNoDifference() }
  }
}
