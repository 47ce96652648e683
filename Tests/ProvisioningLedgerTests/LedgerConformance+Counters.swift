import Foundation
import Locking
import ProvisioningLedger
import Testing

extension LedgerConformance {
  /// SUN counters: the first counter of a UID is accepted, then only higher ones; each UID has
  /// its own; they are shared by every job of the store (a UID names one tag).
  static func sunCounters(_ open: LedgerFactory) throws {
    let ledger = try open(job)
    #expect(try ledger.acceptCounter(uid: "04aa", counter: 7) == .accepted)
    #expect(try ledger.acceptCounter(uid: "04aa", counter: 7) == .notAbove(last: 7))
    #expect(try ledger.acceptCounter(uid: "04aa", counter: 3) == .notAbove(last: 7))
    #expect(try ledger.acceptCounter(uid: "04aa", counter: 8) == .accepted)
    #expect(try ledger.acceptCounter(uid: "04bb", counter: 0) == .accepted)
    #expect(try ledger.acceptCounter(uid: "04bb", counter: 0) == .notAbove(last: 0))
    #expect(try ledger.acceptCounter(uid: "04bb", counter: 0xFF_FFFF) == .accepted)
    let other = try open(LedgerJob(name: "job-b"))
    #expect(try other.acceptCounter(uid: "04aa", counter: 8) == .notAbove(last: 8))
    #expect(try other.acceptCounter(uid: "04aa", counter: 9) == .accepted)
    #expect(try ledger.acceptCounter(uid: "04aa", counter: 9) == .notAbove(last: 9))
    #expect(try ledger.counts() == LedgerCounts())  // no row, no failure: counters are apart
  }

  /// Two ledger objects (two connections), two threads on each, all offering the same counters
  /// 1…100 of one UID in the same order: each counter is accepted exactly once in all.
  static func concurrentCounters(_ open: LedgerFactory) throws {
    let ledgers = [try open(job), try open(job)]
    let accepted = Locked<[UInt32]>([])
    let errors = Locked<[String]>([])
    let finished = DispatchGroup()
    for thread in 0..<4 {
      finished.enter()
      Thread.detachNewThread {
        defer { finished.leave() }
        for counter in UInt32(1)...100 {
          do {
            if try ledgers[thread % 2].acceptCounter(uid: "04cc", counter: counter) == .accepted {
              accepted.withLock { $0.append(counter) }
            }
          } catch {
            errors.withLock { $0.append("\(counter): \(error)") }
            return
          }
        }
      }
    }
    #expect(finished.wait(timeout: .now() + 120) == .success)
    #expect(errors.withLock { $0 } == [])
    #expect(accepted.withLock { $0 }.sorted() == Array(1...100))
  }
}
