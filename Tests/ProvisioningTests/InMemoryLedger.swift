import Locking
import NFCTransport
import ProvisioningLedger

/// The ledger's semantics in memory, for fast unit tests of the engine (the real backends have
/// their own conformance suite).
final class InMemoryLedger: Ledger {
  let job = LedgerJob(name: "test")
  private struct State {
    var rows: [LedgerRecord] = []
    var failures: [LedgerTagFailure] = []
    var settings: String?
    var counters: [String: UInt32] = [:]
  }
  private let state = Locked(State())
  /// How many `unclaim` calls still fail as unavailable (a server restarting).
  let unclaimOutages = Locked(0)

  func settings() throws(LedgerError) -> String? { state.withLock { $0.settings } }

  func recordSettings(_ settings: String, replacing: Bool) throws(LedgerError) -> LedgerSettingsCheck {
    state.withLock { s in
      let check = LedgerSettingsCheck(current: s.settings, given: settings, replacing: replacing)
      if check == .recorded { s.settings = settings }
      return check
    }
  }

  func importRows(_ rows: [LedgerRowInput]) throws(LedgerError) -> LedgerImport {
    state.withLock { s in
      var added = 0
      for row in rows where !s.rows.contains(where: { $0.id == row.id }) {
        s.rows.append(LedgerRecord(id: row.id, sequence: row.sequence, status: .pending))
        added += 1
      }
      s.rows.sort { $0.sequence < $1.sequence }
      return LedgerImport(added: added, alreadyThere: rows.count - added)
    }
  }

  func row(boundTo uid: String) throws(LedgerError) -> LedgerRecord? {
    state.withLock { s in s.rows.first { $0.uid == uid } }
  }

  func claim(uid: String, at place: LedgerPlace) throws(LedgerError) -> LedgerClaim {
    state.withLock { s in
      if let bound = s.rows.first(where: { $0.uid == uid }) {
        return bound.status == .done ? .alreadyDone(bound) : .resumed(bound)
      }
      guard let i = s.rows.firstIndex(where: { $0.status == .pending }) else { return .exhausted }
      s.rows[i].status = .claimed
      s.rows[i].uid = uid
      s.rows[i].station = place.station
      s.rows[i].reader = place.reader
      return .claimed(s.rows[i])
    }
  }

  func finish(_ done: LedgerDone) throws(LedgerError) {
    try state.withLock { s throws(LedgerError) in
      guard let i = s.rows.firstIndex(where: { $0.id == done.rowID && $0.uid == done.uid }) else {
        throw .notBound(rowID: done.rowID, uid: done.uid)
      }
      s.rows[i].status = .done
      s.rows[i].messageHex = done.messageHex
      s.rows[i].messageSHA256 = done.messageSHA256
      if let progress = done.progress { s.rows[i].progress = progress }
    }
  }

  func recordProgress(rowID: String, uid: String, progress: String) throws(LedgerError) {
    try state.withLock { s throws(LedgerError) in
      guard let i = s.rows.firstIndex(where: { $0.id == rowID && $0.uid == uid && $0.status != .done }) else {
        throw .notBound(rowID: rowID, uid: uid)
      }
      s.rows[i].progress = progress
    }
  }

  func fail(rowID: String, uid: String, failure: LedgerFailure) throws(LedgerError) {
    state.withLock { s in
      guard let i = s.rows.firstIndex(where: { $0.id == rowID && $0.uid == uid }) else { return }
      s.rows[i].status = .failed
      s.rows[i].error = failure.reason
      s.rows[i].exitStatus = failure.exitStatus
    }
  }

  func unclaim(rowID: String, uid: String, failure: LedgerFailure) throws(LedgerError) {
    let down = unclaimOutages.withLock { n in
      defer { n = max(0, n - 1) }
      return n > 0
    }
    if down { throw .unavailable("the connection was lost (server restarting)") }
    state.withLock { s in
      if let i = s.rows.firstIndex(where: { $0.id == rowID && $0.uid == uid }) {
        s.rows[i] = LedgerRecord(id: rowID, sequence: s.rows[i].sequence, status: .pending)
      }
      s.failures.append(LedgerTagFailure(uid: uid, rowID: rowID, failure: failure))
    }
  }

  func recordTagFailure(uid: String, failure: LedgerFailure) throws(LedgerError) {
    state.withLock { $0.failures.append(LedgerTagFailure(uid: uid, rowID: nil, failure: failure)) }
  }

  func release(rowID: String) throws(LedgerError) -> LedgerRecord {
    throw .unknownRow(rowID)
  }

  func records() throws(LedgerError) -> [LedgerRecord] { state.withLock { $0.rows } }
  func tagFailures() throws(LedgerError) -> [LedgerTagFailure] { state.withLock { $0.failures } }

  func acceptCounter(uid: String, counter: UInt32) throws(LedgerError) -> LedgerCounterCheck {
    state.withLock { s in
      if let last = s.counters[uid], last >= counter { return .notAbove(last: last) }
      s.counters[uid] = counter
      return .accepted
    }
  }

  func acceptCounters(_ counters: [LedgerCounter]) throws(LedgerError) -> [LedgerCounterCheck] {
    var checks: [LedgerCounterCheck] = []
    for offered in counters { checks.append(try acceptCounter(uid: offered.uid, counter: offered.counter)) }
    return checks
  }

  func counts() throws(LedgerError) -> LedgerCounts {
    state.withLock { s in
      // Every failed tag once, as the backends count them.
      let failedUIDs = Set(s.rows.filter { $0.status == .failed }.compactMap(\.uid)).union(s.failures.map(\.uid))
      var c = LedgerCounts(failedTags: failedUIDs.count)
      for row in s.rows {
        switch row.status {
        case .pending: c.pending += 1
        case .claimed: c.claimed += 1
        case .done: c.done += 1
        case .failed: c.failed += 1
        }
      }
      return c
    }
  }

  func close() {}
}
