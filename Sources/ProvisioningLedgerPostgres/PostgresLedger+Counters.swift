// The PostgreSQL ledger's SUN counters: a batch in one statement.
import PostgresNIO
import ProvisioningLedger

extension PostgresLedger {
  /// How many times a call of this ledger waited for the server's answer so far (tests).
  var answersWaitedFor: Int { session.answersWaited.value }

  public func acceptCounter(uid: String, counter: UInt32) throws(LedgerError) -> LedgerCounterCheck {
    guard let check = try acceptCounters([LedgerCounter(uid: uid, counter: counter)]).first else {
      throw .incompatible("a SUN counter of the ledger cannot be read")
    }
    return check
  }

  /// One statement whatever the batch's size, its answers and its repeated UIDs (with BEGIN and
  /// COMMIT, three round trips, chained on the connection's event loop so that the calling thread
  /// waits once: ``PostgresSession/chainedTransaction(repeatableRead:_:check:)``), in a
  /// REPEATABLE READ transaction: the highest counter offered
  /// for each UID goes to one multi-row upsert (`unnest` of two arrays, the UIDs in byte order so
  /// that every server locks the rows of its batch in the same order and two batches never wait
  /// for each other in a cycle), with the condition of ``acceptCounter(uid:counter:)``, and the
  /// same statement reads what each UID held before it. Each counter is then checked in the order
  /// given against that, as the SQLite backend does.
  ///
  /// What the statement read is what the upsert compared with: at REPEATABLE READ, an upsert
  /// that meets a row another transaction changed or inserted after the statement's snapshot
  /// fails with a serialisation failure (PostgreSQL documentation, "Transaction Isolation",
  /// §13.2.2 Repeatable Read Isolation Level), which runs the transaction again with a new
  /// snapshot. So of two servers offering one counter at once, the second sees the first's
  /// counter and refuses it. An upsert that did not do what the read predicts also runs it again.
  public func acceptCounters(_ counters: [LedgerCounter]) throws(LedgerError) -> [LedgerCounterCheck] {
    guard !counters.isEmpty else { return [] }
    var highestOffered: [String: UInt32] = [:]
    for offered in counters { highestOffered[offered.uid] = max(highestOffered[offered.uid] ?? 0, offered.counter) }
    let highest = highestOffered
    let uids = highest.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    let values = uids.map { Int64(highest[$0] ?? 0) }
    let statement: PostgresQuery = """
        WITH offered AS (
            SELECT * FROM unnest(\(uids)::text[], \(values)::int8[]) WITH ORDINALITY AS o(uid, counter, n)),
          written AS (
            INSERT INTO nfctag_sun_counters (uid, counter) SELECT uid, counter FROM offered ORDER BY n
            ON CONFLICT (uid) DO UPDATE SET counter = excluded.counter WHERE nfctag_sun_counters.counter < excluded.counter
            RETURNING uid)
        SELECT o.uid, s.counter, EXISTS (SELECT 1 FROM written w WHERE w.uid = o.uid)
        FROM offered o LEFT JOIN nfctag_sun_counters s ON s.uid = o.uid
        """
    // Checked on the event loop, between the statement's answer and COMMIT (one wait in all).
    return try session.chainedTransaction(repeatableRead: true, statement) { (rows) throws(TransactionError) in
      var stored: [String: UInt32] = [:]
      var written: Set<String> = []
      var answered = 0
      for row in rows {
        let (uid, counter, wrote): (String, Int64?, Bool)
        do {
          (uid, counter, wrote) = try row.decode((String, Int64?, Bool).self)
        } catch {
          throw .ledger(.incompatible("a ledger table does not have the columns this nfctag expects"))
        }
        if let counter {
          guard let value = UInt32(exactly: counter) else {
            throw .ledger(.incompatible("a SUN counter of the ledger cannot be read"))
          }
          stored[uid] = value
        }
        if wrote { written.insert(uid) }
        answered += 1
      }
      guard answered == uids.count else { throw .ledger(.incompatible("a SUN counter of the ledger cannot be read")) }
      for uid in uids {
        guard let offered = highest[uid] else { continue }
        let shouldWrite = stored[uid].map { $0 < offered } ?? true
        if shouldWrite != written.contains(uid) { throw .retry }
      }
      var checks: [LedgerCounterCheck] = []
      checks.reserveCapacity(counters.count)
      for offered in counters {
        if let last = stored[offered.uid], offered.counter <= last {
          checks.append(.notAbove(last: last))
        } else {
          checks.append(.accepted)
          stored[offered.uid] = offered.counter
        }
      }
      return checks
    }
  }
}
