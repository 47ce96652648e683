import Dispatch
import Locking
import ProvisioningLedger

/// The ledger connections that record accepted counters, and the provisioning baselines.
///
/// Ledger calls block their thread (a SQLite connection's, a PostgreSQL round trip), so each
/// connection is a lane with a serial dispatch queue: requests never wait on a thread of the
/// Swift concurrency pool or of an event loop. The requests that arrive while a lane is busy are
/// recorded together, in one transaction (``Ledger/acceptCounters(_:)``): one commit, one fsync,
/// for up to ``maxBatch`` verifications, and each answered only once that commit returned.
/// Requests go to the lanes in turn.
public final class SUNCounters: Sendable {
  /// The most counters one transaction records.
  public static let maxBatch = 128

  private let lanes: [Lane]
  /// The lane the next request takes.
  private let next = Locked(0)
  /// Per UID (lowercase hex), the SDM read counter the provisioning run's own read-back left
  /// (``LedgerTagProgress/counterBaseline``): a tap must be above it.
  public let baselines: [String: UInt32]

  /// Records counters through `ledgers` (one or more connections to the same ledger).
  /// - Parameter baselines: per UID, the counter a tap must be above even when none was accepted yet.
  public init(ledgers: [any Ledger], baselines: [String: UInt32] = [:]) {
    precondition(!ledgers.isEmpty, "SUNCounters needs a ledger")
    lanes = ledgers.enumerated().map { Lane(ledger: $0.element, number: $0.offset) }
    self.baselines = baselines
  }

  /// The baselines of `records` (a job's rows): its done rows whose progress holds one.
  public static func baselines(of records: [LedgerRecord]) -> [String: UInt32] {
    var baselines: [String: UInt32] = [:]
    for record in records where record.status == .done {
      guard let uid = record.uid, let text = record.progress, let progress = LedgerTagProgress(decoding: text),
            let baseline = progress.counterBaseline, let value = UInt32(exactly: baseline) else { continue }
      baselines[uid] = value
    }
    return baselines
  }

  /// ``Ledger/acceptCounter(uid:counter:)``, through the next lane's queue and batch.
  func accept(uid: String, counter: UInt32) async throws(LedgerError) -> LedgerCounterCheck {
    let index = next.withLock { n in
      defer { n = (n + 1) % lanes.count }
      return n
    }
    return try await lanes[index].accept(LedgerCounter(uid: uid, counter: counter)).get()
  }

  /// Closes every connection, once the lanes are idle.
  public func close() {
    for lane in lanes { lane.close() }
  }
}

/// One ledger connection, its queue, and the requests waiting for it.
private final class Lane: Sendable {
  typealias Answer = CheckedContinuation<Result<LedgerCounterCheck, LedgerError>, Never>
  private struct Waiting {
    var counters: [LedgerCounter] = []
    var answers: [Answer] = []
    /// True while a drain is queued or running: a new request only joins the list.
    var draining = false
  }

  private let ledger: any Ledger
  private let queue: DispatchQueue
  private let waiting = Locked(Waiting())

  init(ledger: any Ledger, number: Int) {
    self.ledger = ledger
    queue = DispatchQueue(label: "nfctag.sun-counters.\(number)")
  }

  func accept(_ counter: LedgerCounter) async -> Result<LedgerCounterCheck, LedgerError> {
    await withCheckedContinuation { (answer: Answer) in
      let start = waiting.withLock { w -> Bool in
        w.counters.append(counter)
        w.answers.append(answer)
        defer { w.draining = true }
        return !w.draining
      }
      if start { queue.async { self.drain() } }
    }
  }

  /// Records what waits, a batch at a time, until nothing does.
  private func drain() {
    while true {
      let (counters, answers) = waiting.withLock { w -> ([LedgerCounter], [Answer]) in
        let n = min(w.counters.count, SUNCounters.maxBatch)
        if n == 0 { w.draining = false }
        defer {
          w.counters.removeFirst(n)
          w.answers.removeFirst(n)
        }
        return (Array(w.counters.prefix(n)), Array(w.answers.prefix(n)))
      }
      guard !counters.isEmpty else { return }
      do throws(LedgerError) {
        let checks = try ledger.acceptCounters(counters)
        guard checks.count == answers.count else {
          throw LedgerError.incompatible("the ledger answered \(checks.count) of \(answers.count) counters")
        }
        for (answer, check) in zip(answers, checks) { answer.resume(returning: .success(check)) }
      } catch {
        for answer in answers { answer.resume(returning: .failure(error)) }
      }
    }
  }

  func close() { queue.sync { ledger.close() } }
}
