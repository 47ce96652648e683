import ProvisioningLedger
import Testing

extension LedgerConformance {
  /// A tag's progress (an NTAG 424 DNA's steps and key versions): recorded only for the row bound
  /// to that UID, returned with the row, kept when the row fails or is done (finish replaces it
  /// when given one), forgotten when the row is given back or released.
  static func tagProgress(_ open: LedgerFactory) throws {
    let ledger = try open(job)
    _ = try ledger.importRows(rows(1...3))
    let written = LedgerTagProgress(step: "written", keyVersions: [0, 0, 0, 0, 0], diversificationVersion: 1).encoded
    #expect(throws: LedgerError.notBound(rowID: "1", uid: "04aa")) { try ledger.recordProgress(rowID: "1", uid: "04aa", progress: written) }
    _ = try ledger.claim(uid: "04aa", at: place(1))
    #expect(throws: LedgerError.notBound(rowID: "1", uid: "04bb")) { try ledger.recordProgress(rowID: "1", uid: "04bb", progress: written) }
    #expect(throws: LedgerError.unknownRow("9")) { try ledger.recordProgress(rowID: "9", uid: "04aa", progress: written) }
    try ledger.recordProgress(rowID: "1", uid: "04aa", progress: written)
    #expect(try ledger.row(boundTo: "04aa")?.progress == written)
    // Failed: kept, and a claim by the same tag hands it back with the row.
    try ledger.fail(rowID: "1", uid: "04aa", failure: failure("removed", 74, at: 2))
    let keys = LedgerTagProgress(step: "keys 4/5", keyVersions: [0, 1, 1, 1, 1], diversificationVersion: 1,
                                 failedAuthentications: ["key 0 version 01"]).encoded
    try ledger.recordProgress(rowID: "1", uid: "04aa", progress: keys)
    guard case .resumed(let resumed) = try ledger.claim(uid: "04aa", at: place(3)) else { Issue.record("not resumed"); return }
    #expect(resumed.progress == keys)
    // Done without progress keeps it; with, replaces it; a done row takes no more.
    var finished = done("1", "04aa", at: 4)
    try ledger.finish(finished)
    #expect(try ledger.row(boundTo: "04aa")?.progress == keys)
    #expect(throws: LedgerError.notBound(rowID: "1", uid: "04aa")) { try ledger.recordProgress(rowID: "1", uid: "04aa", progress: written) }
    _ = try ledger.claim(uid: "04bb", at: place(5))
    let final = LedgerTagProgress(step: "done", keyVersions: [1, 1, 1, 1, 1], diversificationVersion: 1, counterBaseline: 1).encoded
    finished = done("2", "04bb", at: 6)
    finished.progress = final
    try ledger.finish(finished)
    #expect(try ledger.row(boundTo: "04bb")?.progress == final)
    // Given back or released: forgotten.
    _ = try ledger.claim(uid: "04cc", at: place(7))
    try ledger.recordProgress(rowID: "3", uid: "04cc", progress: written)
    try ledger.unclaim(rowID: "3", uid: "04cc", failure: failure("not a 424 DNA", 65, at: 8))
    #expect(try ledger.records().last == LedgerRecord(id: "3", sequence: 3, status: .pending))
    _ = try ledger.claim(uid: "04dd", at: place(9))
    try ledger.recordProgress(rowID: "3", uid: "04dd", progress: written)
    _ = try ledger.release(rowID: "3")
    #expect(try ledger.records().last == LedgerRecord(id: "3", sequence: 3, status: .pending))
    // The text round-trips.
    #expect(LedgerTagProgress(decoding: final) == LedgerTagProgress(step: "done", keyVersions: [1, 1, 1, 1, 1],
                                                                    diversificationVersion: 1, counterBaseline: 1))
    #expect(LedgerTagProgress(decoding: keys)?.failedAuthentications == ["key 0 version 01"])
    #expect(LedgerTagProgress(decoding: "not json") == nil)
  }
}
