import Locking
import ProvisioningLedger

/// Rows a run could not give back because the ledger was unavailable (a PostgreSQL server
/// restarting, a connection lost): their tags failed before the first write, so the rows belong
/// back to pending. They are given back before the next claim and while the run waits, once the
/// ledger takes it.
///
/// Retries and claims run under one lock while a give-back waits, so that a row is never given
/// back after its tag claimed it again: such a claim takes the waiting give-back over instead
/// (nothing was written to the tag, so the row is as good as newly claimed).
final class PendingGiveBacks: Sendable {
  private struct GiveBack {
    var rowID: String
    var uid: String
    var failure: LedgerFailure
  }
  private let waiting = Locked<[GiveBack]>([])

  /// The rows still waiting to be given back, and their tags' UIDs, oldest first.
  var rows: [(rowID: String, uid: String)] { waiting.withLock { $0.map { ($0.rowID, $0.uid) } } }

  /// Keeps a give-back for later.
  func add(rowID: String, uid: String, failure: LedgerFailure) {
    waiting.withLock { $0.append(GiveBack(rowID: rowID, uid: uid, failure: failure)) }
  }

  /// Gives the waiting rows back; the ones the ledger is still unavailable for keep waiting. A
  /// row the ledger no longer has bound to that UID (released meanwhile) is dropped.
  func retry(on ledger: any Ledger) {
    waiting.withLock { list in Self.retry(&list, on: ledger) }
  }

  /// Gives the waiting rows back, then runs `claim` for `uid`.
  /// - Returns: the claim, and whether it resumed a row whose give-back was waiting (then the
  ///   give-back is dropped and the row counts as newly claimed).
  func claim(uid: String, on ledger: any Ledger,
             _ claim: () throws(LedgerError) -> LedgerClaim) throws(LedgerError) -> (LedgerClaim, tookOver: Bool) {
    // Nothing waits (the usual case): claims of several readers do not queue behind one lock. A
    // give-back for this UID can only have been added before, by this tag's earlier failure.
    if waiting.withLock({ $0.isEmpty }) { return (try claim(), false) }
    return try waiting.withLock { list throws(LedgerError) in
      Self.retry(&list, on: ledger)
      let result = try claim()
      guard case .resumed(let row) = result, let i = list.firstIndex(where: { $0.rowID == row.id && $0.uid == uid }) else {
        return (result, false)
      }
      list.remove(at: i)
      return (result, true)
    }
  }

  private static func retry(_ list: inout [GiveBack], on ledger: any Ledger) {
    while let item = list.first {
      do {
        try ledger.unclaim(rowID: item.rowID, uid: item.uid, failure: item.failure)
      } catch .unavailable {
        return  // still away: this one and the rest wait for the next try
      } catch {
        // Not bound to that UID any more: nothing to give back.
      }
      list.removeFirst()
    }
  }
}
