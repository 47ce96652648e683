import Foundation
import Locking
import ProvisioningLedger
import Testing

extension LedgerConformance {
  /// A UID of this check's own: counters are per UID across jobs, and a PostgreSQL store keeps
  /// apart only the jobs of concurrent test runs.
  static func counterUID(_ head: String) -> String {
    head + (0..<5).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
  }

  /// SUN counters: the first counter of a UID is accepted, then only higher ones; each UID has
  /// its own; they are shared by every job of the store (a UID names one tag).
  static func sunCounters(_ open: LedgerFactory) throws {
    let ledger = try open(job)
    let (aa, bb) = (counterUID("04aa"), counterUID("04bb"))
    #expect(try ledger.acceptCounter(uid: aa, counter: 7) == .accepted)
    #expect(try ledger.acceptCounter(uid: aa, counter: 7) == .notAbove(last: 7))
    #expect(try ledger.acceptCounter(uid: aa, counter: 3) == .notAbove(last: 7))
    #expect(try ledger.acceptCounter(uid: aa, counter: 8) == .accepted)
    #expect(try ledger.acceptCounter(uid: bb, counter: 0) == .accepted)
    #expect(try ledger.acceptCounter(uid: bb, counter: 0) == .notAbove(last: 0))
    #expect(try ledger.acceptCounter(uid: bb, counter: 0xFF_FFFF) == .accepted)
    let other = try open(LedgerJob(name: "job-b"))
    #expect(try other.acceptCounter(uid: aa, counter: 8) == .notAbove(last: 8))
    #expect(try other.acceptCounter(uid: aa, counter: 9) == .accepted)
    #expect(try ledger.acceptCounter(uid: aa, counter: 9) == .notAbove(last: 9))
    #expect(try ledger.counts() == LedgerCounts())  // no row, no failure: counters are apart
  }

  /// A row finished with a counter baseline in its progress records that counter for its UID:
  /// a tap at or below it is not above the last one, the next is; a higher counter already
  /// accepted stays. A row without one records nothing.
  static func finishRecordsTheBaseline(_ open: LedgerFactory) throws {
    let ledger = try open(job)
    _ = try ledger.importRows(rows(1...3))
    let (aa, bb, cc) = (counterUID("04aa"), counterUID("04bb"), counterUID("04cc"))
    func finish(_ uid: String, baseline: Int?, at second: Int) throws {
      let record = try #require(claimed(try ledger.claim(uid: uid, at: place(second))))
      var done = done(record.id, uid, at: second)
      done.progress = LedgerTagProgress(step: "done", keyVersions: [1, 1, 1, 1, 1], diversificationVersion: 1,
                                        counterBaseline: baseline).encoded
      try ledger.finish(done)
    }
    try finish(aa, baseline: 2, at: 1)
    #expect(try ledger.acceptCounter(uid: aa, counter: 2) == .notAbove(last: 2))
    #expect(try ledger.acceptCounter(uid: aa, counter: 3) == .accepted)
    #expect(try ledger.acceptCounter(uid: bb, counter: 9) == .accepted)
    try finish(bb, baseline: 4, at: 2)
    #expect(try ledger.acceptCounter(uid: bb, counter: 9) == .notAbove(last: 9))
    try finish(cc, baseline: nil, at: 3)
    #expect(try ledger.acceptCounter(uid: cc, counter: 0) == .accepted)
  }

  /// A batch: one transaction, each counter checked as alone, in the order given within a UID.
  static func sunCounterBatches(_ open: LedgerFactory) throws {
    let ledger = try open(job)
    let (aa, bb) = (counterUID("04aa"), counterUID("04bb"))
    #expect(try ledger.acceptCounter(uid: bb, counter: 10) == .accepted)
    let batch = [LedgerCounter(uid: aa, counter: 5), LedgerCounter(uid: bb, counter: 9),
                 LedgerCounter(uid: aa, counter: 5), LedgerCounter(uid: aa, counter: 4),
                 LedgerCounter(uid: bb, counter: 11), LedgerCounter(uid: aa, counter: 6)]
    #expect(try ledger.acceptCounters(batch) == [.accepted, .notAbove(last: 10), .notAbove(last: 5), .notAbove(last: 5),
                                                 .accepted, .accepted])
    #expect(try ledger.acceptCounters([]) == [])
    #expect(try ledger.acceptCounter(uid: aa, counter: 6) == .notAbove(last: 6))
    #expect(try ledger.acceptCounter(uid: bb, counter: 11) == .notAbove(last: 11))
  }

  /// A batch offering one UID several times: each offer answered as if the batch's counters of
  /// that UID came one at a time in the order given (the first of equal counters accepted, a
  /// later equal or lower one refused with the highest so far, a later higher one accepted),
  /// whatever the UID held before the batch (nothing, less, more).
  static func sunCounterBatchesRepeatingAUID(_ open: LedgerFactory) throws {
    let ledger = try open(job)
    let (aa, bb, cc, dd) = (counterUID("04aa"), counterUID("04bb"), counterUID("04cc"), counterUID("04dd"))
    #expect(try ledger.acceptCounter(uid: aa, counter: 5) == .accepted)
    #expect(try ledger.acceptCounter(uid: dd, counter: 10) == .accepted)
    let batch = [LedgerCounter(uid: aa, counter: 3), LedgerCounter(uid: aa, counter: 7), LedgerCounter(uid: bb, counter: 2),
                 LedgerCounter(uid: dd, counter: 4), LedgerCounter(uid: aa, counter: 6), LedgerCounter(uid: aa, counter: 7),
                 LedgerCounter(uid: bb, counter: 2), LedgerCounter(uid: cc, counter: 0), LedgerCounter(uid: dd, counter: 10),
                 LedgerCounter(uid: aa, counter: 9), LedgerCounter(uid: bb, counter: 1), LedgerCounter(uid: dd, counter: 2),
                 LedgerCounter(uid: aa, counter: 8), LedgerCounter(uid: bb, counter: 3), LedgerCounter(uid: aa, counter: 5)]
    #expect(try ledger.acceptCounters(batch) == [
      .notAbove(last: 5), .accepted, .accepted,
      .notAbove(last: 10), .notAbove(last: 7), .notAbove(last: 7),
      .notAbove(last: 2), .accepted, .notAbove(last: 10),
      .accepted, .notAbove(last: 2), .notAbove(last: 10),
      .notAbove(last: 9), .accepted, .notAbove(last: 9),
    ])
    // What the batch left: the highest accepted counter of each UID, untouched where none was.
    let other = try open(LedgerJob(name: "job-b"))
    #expect(try other.acceptCounters([LedgerCounter(uid: aa, counter: 9), LedgerCounter(uid: bb, counter: 3),
                                      LedgerCounter(uid: cc, counter: 0), LedgerCounter(uid: dd, counter: 10)])
            == [.notAbove(last: 9), .notAbove(last: 3), .notAbove(last: 0), .notAbove(last: 10)])
    // The same UID only, twice the same counter, the top of the range.
    let ee = counterUID("04ee")
    #expect(try ledger.acceptCounters([LedgerCounter(uid: ee, counter: 0xFF_FFFF), LedgerCounter(uid: ee, counter: 0xFF_FFFF)])
            == [.accepted, .notAbove(last: 0xFF_FFFF)])
  }

  /// Two ledger objects (two connections), two threads on each, all offering the same counters
  /// 1…100 of one UID in the same order: each counter is accepted exactly once in all.
  static func concurrentCounters(_ open: LedgerFactory) throws {
    let ledgers = [try open(job), try open(job)]
    let (cc, dd) = (counterUID("04cc"), counterUID("04dd"))
    let accepted = Locked<[UInt32]>([])
    let errors = Locked<[String]>([])
    let allEnded = onFourThreads { thread in
      for counter in UInt32(1)...100 {
        do {
          // Threads 0 and 1 one counter at a time; 2 and 3 in batches of two, another UID first.
          let won = thread < 2
            ? try ledgers[thread % 2].acceptCounter(uid: cc, counter: counter) == .accepted
            : try ledgers[thread % 2].acceptCounters([LedgerCounter(uid: dd, counter: counter),
                                                      LedgerCounter(uid: cc, counter: counter)]).last == .accepted
          if won {
            accepted.withLock { $0.append(counter) }
          }
        } catch {
          errors.withLock { $0.append("\(counter): \(error)") }
          return
        }
      }
    }
    #expect(allEnded)
    #expect(errors.withLock { $0 } == [])
    #expect(accepted.withLock { $0 }.sorted() == Array(1...100))
  }
}
