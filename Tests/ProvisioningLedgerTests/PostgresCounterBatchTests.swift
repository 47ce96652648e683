import Foundation
import Testing
import ProvisioningLedger
@testable import ProvisioningLedgerPostgres

/// How a batch of SUN counters reaches PostgreSQL: its statements, and how often the calling
/// thread waits for an answer (each wait is a wake-up of that thread by the event loop).
@Suite(.serialized, .enabled(if: TestPostgres.available, TestPostgres.skipReason))
struct PostgresCounterBatchTests {
  /// BEGIN, the batch's statement and COMMIT are chained on the connection's event loop: three
  /// statements (round trips), one wait, whatever the batch; a race lost to another connection
  /// (a serialisation failure in the statement) is rolled back and run again.
  @Test func aCounterBatchIsThreeStatementsAndOneWait() throws {
    let ledger = try PostgresLedger(settings: try TestPostgres.settings(), job: TestPostgres.freshJob("waits"))
    defer { ledger.close() }
    let head = "04" + (0..<4).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    let fresh = (0..<64).map { LedgerCounter(uid: head + String(format: "%02x", $0), counter: UInt32($0 + 1)) }
    let before = (statements: ledger.statementsSent, waits: ledger.answersWaitedFor)
    #expect(try ledger.acceptCounters(fresh) == Array(repeating: .accepted, count: 64))
    #expect(ledger.statementsSent - before.statements == 3)
    #expect(ledger.answersWaitedFor - before.waits == 1)
    let again = (statements: ledger.statementsSent, waits: ledger.answersWaitedFor)
    #expect(try ledger.acceptCounters([fresh[0], fresh[1]]) == [.notAbove(last: 1), .notAbove(last: 2)])
    #expect(ledger.statementsSent - again.statements == 3)
    #expect(ledger.answersWaitedFor - again.waits == 1)
  }

  /// A statement the server refuses inside the chain (here a counter outside the column's CHECK)
  /// ends the chain before COMMIT: rolled back, reported, and the connection serves the next batch.
  @Test func aRefusedBatchIsRolledBackAndTheNextOneIsRecorded() throws {
    let ledger = try PostgresLedger(settings: try TestPostgres.settings(), job: TestPostgres.freshJob("refused"))
    defer { ledger.close() }
    let uid = "04" + (0..<6).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    #expect(throws: LedgerError.self) {
      try ledger.acceptCounters([LedgerCounter(uid: uid, counter: 5), LedgerCounter(uid: uid + "00", counter: UInt32.max)])
    }
    #expect(try ledger.acceptCounters([LedgerCounter(uid: uid, counter: 5)]) == [.accepted])
    #expect(try ledger.acceptCounter(uid: uid, counter: 5) == .notAbove(last: 5))
  }
}
