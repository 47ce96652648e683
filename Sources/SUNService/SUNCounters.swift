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
/// Requests wait in one list, and the first lane that is free takes what waits: a request never
/// waits for a busy lane while another lane is idle (handed out in turn, a request waited on
/// average half a busy lane's transaction more).
public final class SUNCounters: Sendable {
  /// The most counters one transaction records.
  public static let maxBatch = 128

  typealias Answer = CheckedContinuation<Result<LedgerCounterCheck, LedgerError>, Never>
  private struct Waiting {
    var counters: [LedgerCounter] = []
    var answers: [Answer] = []
    /// The lanes with nothing to do, the one to take next last.
    var idle: [Int]
  }

  private let lanes: [Lane]
  private let waiting: Locked<Waiting>
  /// Per UID (lowercase hex), the SDM read counter the provisioning run's own read-back left
  /// (``LedgerTagProgress/counterBaseline``): a tap must be above it.
  public let baselines: [String: UInt32]

  /// Records counters through `ledgers` (one or more connections to the same ledger).
  /// - Parameter baselines: per UID, the counter a tap must be above even when none was accepted yet.
  public init(ledgers: [any Ledger], baselines: [String: UInt32] = [:]) {
    precondition(!ledgers.isEmpty, "SUNCounters needs a ledger")
    lanes = ledgers.enumerated().map { Lane(ledger: $0.element, number: $0.offset) }
    waiting = Locked(Waiting(idle: Array(ledgers.indices.reversed())))
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

  /// ``Ledger/acceptCounter(uid:counter:)``, in the next batch a free lane records.
  func accept(uid: String, counter: UInt32) async throws(LedgerError) -> LedgerCounterCheck {
    try await withCheckedContinuation { (answer: Answer) in
      let lane = waiting.withLock { w -> Int? in
        w.counters.append(LedgerCounter(uid: uid, counter: counter))
        w.answers.append(answer)
        return w.idle.popLast()
      }
      if let lane { lanes[lane].queue.async { self.drain(lane) } }
    }.get()
  }

  /// Lane `index` records what waits, a batch at a time, until nothing does; then it is idle.
  private func drain(_ index: Int) {
    let ledger = lanes[index].ledger
    while true {
      let (counters, answers) = waiting.withLock { w -> ([LedgerCounter], [Answer]) in
        let n = min(w.counters.count, SUNCounters.maxBatch)
        if n == 0 { w.idle.append(index) }
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

  /// Closes every connection, once the lanes are idle.
  public func close() {
    for lane in lanes { lane.close() }
  }
}

/// One ledger connection and the serial queue its calls block.
private final class Lane: Sendable {
  let ledger: any Ledger
  let queue: DispatchQueue

  init(ledger: any Ledger, number: Int) {
    self.ledger = ledger
    queue = DispatchQueue(label: "nfctag.sun-counters.\(number)")
  }

  func close() { queue.sync { ledger.close() } }
}
