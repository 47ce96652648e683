import Foundation
import ProvisioningLedger
@testable import ProvisioningLedgerSQLite
import Testing

/// The environment variable that turns ``SQLiteLedgerCrashChild`` on: the ledger file it works on.
private let childVariable = "NFCTAG_LEDGER_CRASH_CHILD"

/// A station killed with SIGKILL in the middle of its claims loses nothing it was told was
/// committed, and leaves nothing half-done. The child is this test binary run again with a
/// filter that selects only ``SQLiteLedgerCrashChild`` (the tool has no claiming command, on
/// purpose, and a test binary cannot fork safely).
@Suite struct SQLiteLedgerCrash {
  @Test func aKilledStationLosesNothingCommitted() throws {
    let directory = try ScratchDirectory()
    let path = directory.file("ledger.sqlite")
    let acknowledged = path + ".acknowledged"
    let setup = try SQLiteLedger(path: path, job: LedgerConformance.job)
    _ = try setup.importRows(LedgerConformance.rows(1...5000))
    setup.close()

    let child = Process()
    child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    child.arguments = ["--testing-library", "swift-testing", "--filter", "SQLiteLedgerCrashChild"]
    child.environment = ProcessInfo.processInfo.environment.merging([childVariable: path]) { $1 }
    child.standardOutput = FileHandle.nullDevice
    child.standardError = FileHandle.nullDevice
    try child.run()
    // Kill it once it has finished at least 100 rows, at an arbitrary point of its loop.
    let deadline = Date().addingTimeInterval(60)
    while child.isRunning, Date() < deadline, lines(acknowledged).count < 100 { usleep(5_000) }
    usleep(UInt32.random(in: 0..<20_000))
    let wasRunning = child.isRunning
    kill(child.processIdentifier, SIGKILL)
    child.waitUntilExit()
    #expect(wasRunning, "the child stopped on its own (status \(child.terminationStatus))")
    #expect(child.terminationReason == .uncaughtSignal)

    let told = lines(acknowledged).map { $0.split(separator: " ").map(String.init) }
    #expect(told.count >= 100)
    let ledger = try SQLiteLedger(path: path, job: LedgerConformance.job, createIfMissing: false)
    #expect(try ledger.pragma("integrity_check") == "ok")
    let records = try ledger.records()
    let byID = Dictionary(uniqueKeysWithValues: records.map { ($0.id, $0) })
    for entry in told where entry.count == 2 {
      #expect(byID[entry[0]]?.status == .done && byID[entry[0]]?.uid == entry[1], "row \(entry[0])")
    }
    let counts = try ledger.counts()
    // At most one finish committed after the last acknowledgement, at most one claim in flight.
    #expect(counts.done == told.count || counts.done == told.count + 1, "\(counts), \(told.count) acknowledged")
    #expect(counts.claimed <= 1)
    #expect(counts.failed == 0)
    #expect(counts.total == 5000)
    // The rows go on in order: the claimed one to its tag, then the next pending one.
    if let inFlight = records.first(where: { $0.status == .claimed }), let uid = inFlight.uid {
      #expect(try ledger.claim(uid: uid, at: LedgerConformance.place(9)) == .resumed(inFlight))
    }
    let next = records.first { $0.status == .pending }
    #expect(next?.sequence == counts.done + counts.claimed + 1)
    if case .claimed(let row) = try ledger.claim(uid: "04ffff", at: LedgerConformance.place(9)) {
      #expect(row.id == next?.id)
    } else {
      Issue.record("no row claimed after the crash")
    }
  }

  /// The lines of `path` that end in a newline (a line cut by the kill is left out).
  private func lines(_ path: String) -> [Substring] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
    return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { $0 }
  }
}

/// The station that ``SQLiteLedgerCrash`` kills: claims and finishes rows until killed, and
/// appends `row uid` to `<ledger>.acknowledged` after each finish returned.
@Suite(.enabled(if: ProcessInfo.processInfo.environment[childVariable] != nil,
                "runs only as the child of SQLiteLedgerCrash"))
struct SQLiteLedgerCrashChild {
  @Test func claimUntilKilled() throws {
    let path = try #require(ProcessInfo.processInfo.environment[childVariable])
    let ledger = try SQLiteLedger(path: path, job: LedgerConformance.job)
    let log = open(path + ".acknowledged", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    #expect(log >= 0)
    var n = 0
    while true {
      let uid = String(format: "04%06x", n)
      n += 1
      guard case .claimed(let row) = try ledger.claim(uid: uid, at: LedgerConformance.place(1)) else { return }
      try ledger.finish(LedgerConformance.done(row.id, uid, at: 2))
      let line = Array("\(row.id) \(uid)\n".utf8)
      #expect(line.withUnsafeBytes { write(log, $0.baseAddress, $0.count) } == line.count)
    }
  }
}
