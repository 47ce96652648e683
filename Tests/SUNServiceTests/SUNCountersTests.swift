import Dispatch
import Foundation
import ProvisioningLedger
import ProvisioningLedgerSQLite
import Testing
@testable import SUNService

/// How ``SUNCounters`` hands requests to its lanes (ledger connections).
@Suite struct SUNCountersLanes {
  /// Two lanes, the first held in a transaction: every request after it is recorded by the free
  /// lane, none waits for the held one (handed out in turn, every second request did).
  @Test func aRequestNeverWaitsForABusyLaneWhileAnotherIsFree() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sun-lanes-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let ledger = try SQLiteLedger(path: folder.appendingPathComponent("ledger.sqlite").path, job: LedgerJob(name: "job"))
    let held = HeldLedger(ledger)
    let counters = SUNCounters(ledgers: [held, ledger])
    defer { counters.close() }

    let first = Task { try await counters.accept(uid: "04aa", counter: 1) }
    held.entered.wait()
    for n in UInt32(1)...4 {
      let done = Answered()
      Task { done.set(try? await counters.accept(uid: "04bb", counter: n)) }
      let answer = await done.value(within: .seconds(5))
      #expect(answer == .accepted, "request \(n) waited for the held lane")
      if answer == nil { break }
    }
    held.release.signal()
    #expect(try await first.value == .accepted)
  }
}

/// An answer set by one task and waited for, with a deadline, by another.
private final class Answered: @unchecked Sendable {
  private let lock = NSLock()
  private var answer: LedgerCounterCheck??

  func set(_ value: LedgerCounterCheck?) {
    lock.lock()
    answer = .some(value)
    lock.unlock()
  }

  /// The answer, or nil when none came within `limit`.
  func value(within limit: Duration) async -> LedgerCounterCheck? {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
      if let value = lock.withLock({ answer }) { return value }
      try? await Task.sleep(for: .milliseconds(5))
    }
    return nil
  }
}

/// A ledger whose first counter batch waits for ``release`` (after signalling ``entered``); every
/// call goes to `inner`.
private final class HeldLedger: Ledger, @unchecked Sendable {
  let inner: any Ledger
  let entered = DispatchSemaphore(value: 0)
  let release = DispatchSemaphore(value: 0)
  private let first = NSLock()
  private var held = false

  init(_ inner: any Ledger) { self.inner = inner }

  func acceptCounters(_ counters: [LedgerCounter]) throws(LedgerError) -> [LedgerCounterCheck] {
    first.lock()
    let hold = !held
    held = true
    first.unlock()
    if hold {
      entered.signal()
      release.wait()
    }
    return try inner.acceptCounters(counters)
  }

  var job: LedgerJob { inner.job }
  func importRows(_ rows: [LedgerRowInput]) throws(LedgerError) -> LedgerImport { try inner.importRows(rows) }
  func settings() throws(LedgerError) -> String? { try inner.settings() }
  func recordSettings(_ settings: String, replacing: Bool) throws(LedgerError) -> LedgerSettingsCheck {
    try inner.recordSettings(settings, replacing: replacing)
  }
  func row(boundTo uid: String) throws(LedgerError) -> LedgerRecord? { try inner.row(boundTo: uid) }
  func claim(uid: String, at place: LedgerPlace) throws(LedgerError) -> LedgerClaim { try inner.claim(uid: uid, at: place) }
  func finish(_ done: LedgerDone) throws(LedgerError) { try inner.finish(done) }
  func recordProgress(rowID: String, uid: String, progress: String) throws(LedgerError) {
    try inner.recordProgress(rowID: rowID, uid: uid, progress: progress)
  }
  func fail(rowID: String, uid: String, failure: LedgerFailure) throws(LedgerError) {
    try inner.fail(rowID: rowID, uid: uid, failure: failure)
  }
  func unclaim(rowID: String, uid: String, failure: LedgerFailure) throws(LedgerError) {
    try inner.unclaim(rowID: rowID, uid: uid, failure: failure)
  }
  func recordTagFailure(uid: String, failure: LedgerFailure) throws(LedgerError) {
    try inner.recordTagFailure(uid: uid, failure: failure)
  }
  func release(rowID: String) throws(LedgerError) -> LedgerRecord { try inner.release(rowID: rowID) }
  func records() throws(LedgerError) -> [LedgerRecord] { try inner.records() }
  func tagFailures() throws(LedgerError) -> [LedgerTagFailure] { try inner.tagFailures() }
  func counts() throws(LedgerError) -> LedgerCounts { try inner.counts() }
  func acceptCounter(uid: String, counter: UInt32) throws(LedgerError) -> LedgerCounterCheck {
    try inner.acceptCounter(uid: uid, counter: counter)
  }
  /// `inner` is the other lane's ledger, closed by it.
  func close() {}
}
