import Dispatch
import Locking
import ProvisioningLedger

/// The ledger connections that record accepted counters, and the provisioning baselines.
///
/// Ledger calls block their thread (a SQLite connection's, a PostgreSQL round trip), so each
/// connection gets a serial dispatch queue: a request waits its turn there, never on a thread of
/// the Swift concurrency pool or of an event loop. Requests go to the connections in turn.
public final class SUNCounters: Sendable {
  private let lanes: [(ledger: any Ledger, queue: DispatchQueue)]
  /// The lane the next request takes.
  private let next = Locked(0)
  /// Per UID (lowercase hex), the SDM read counter the provisioning run's own read-back left
  /// (``LedgerTagProgress/counterBaseline``): a tap must be above it.
  public let baselines: [String: UInt32]

  /// Records counters through `ledgers` (one or more connections to the same ledger).
  /// - Parameter baselines: per UID, the counter a tap must be above even when none was accepted yet.
  public init(ledgers: [any Ledger], baselines: [String: UInt32] = [:]) {
    precondition(!ledgers.isEmpty, "SUNCounters needs a ledger")
    lanes = ledgers.enumerated().map { ($0.element, DispatchQueue(label: "nfctag.sun-counters.\($0.offset)")) }
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

  /// ``Ledger/acceptCounter(uid:counter:)`` on the next connection's queue.
  func accept(uid: String, counter: UInt32) async throws(LedgerError) -> LedgerCounterCheck {
    let index = next.withLock { n in
      defer { n = (n + 1) % lanes.count }
      return n
    }
    let lane = lanes[index]
    let result: Result<LedgerCounterCheck, LedgerError> = await withCheckedContinuation { continuation in
      lane.queue.async {
        do throws(LedgerError) {
          continuation.resume(returning: .success(try lane.ledger.acceptCounter(uid: uid, counter: counter)))
        } catch {
          continuation.resume(returning: .failure(error))
        }
      }
    }
    return try result.get()
  }

  /// Closes every connection.
  public func close() {
    for lane in lanes { lane.queue.sync { lane.ledger.close() } }
  }
}
