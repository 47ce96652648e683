import CPCSC
import Testing
@testable import PCSC
import NFCReaders
import NFCTransport

/// A tag taken away and another shown while the poller's process was stopped (SIGSTOP, a
/// debugger, a swapped-out VM): pcscd saw the removal and the arrival, but the reader's state
/// word is "present" before and after. Only the event count in the upper 16 bits of
/// `dwEventState` (pcsc-lite's SCardGetStatusChange documentation) tells the card changed; a
/// poller waiting for the first card to leave must take that for its removal, or the station
/// never sees the second tag until it is lifted (docs/reliability.md, Findings item 2).
@Suite struct PollerTagSwap {
  static let present = UInt32(SCARD_STATE_PRESENT)

  /// A poller on reader "r" with a card found at event count `count`.
  func pollerWithCard(_ calls: ScriptedCalls, count: UInt32) throws -> PCSCTagPoller {
    calls.eventStates = [Self.present | UInt32(SCARD_STATE_CHANGED) | count << 16]
    let poller = PCSCTagPoller(context: try PCSCContext(calls: calls), readerName: "r")
    _ = try poller.waitForTargets(timeoutMilliseconds: 1000)
    poller.release()
    return poller
  }

  @Test func aCardSwappedWhileTheProcessWasStoppedCountsAsTheFirstOnesRemoval() throws {
    let calls = ScriptedCalls()
    let poller = try pollerWithCard(calls, count: 1)
    // Removed (count 2) and another inserted (count 3) while nothing ran: still "present".
    calls.eventStates = [Self.present | 3 << 16]
    try poller.waitForRemoval(timeoutMilliseconds: 500)
    // The new card is found, and it is not taken for gone while its count holds.
    _ = try poller.waitForTargets(timeoutMilliseconds: 1000)
    poller.release()
    #expect(throws: PollError.timeout) { try poller.waitForRemoval(timeoutMilliseconds: 300) }
  }

  @Test func theSameCardStillThereIsNotARemoval() throws {
    let calls = ScriptedCalls()
    let poller = try pollerWithCard(calls, count: 1)
    calls.eventStates = [Self.present | 1 << 16]
    #expect(throws: PollError.timeout) { try poller.waitForRemoval(timeoutMilliseconds: 300) }
    #expect(throws: PollError.timeout) { try poller.waitForRemoval(timeoutMilliseconds: 300) }
  }

  @Test func anEmptyReaderIsARemovalAsBefore() throws {
    let calls = ScriptedCalls()
    let poller = try pollerWithCard(calls, count: 1)
    calls.eventStates = [UInt32(SCARD_STATE_EMPTY) | 2 << 16]
    try poller.waitForRemoval(timeoutMilliseconds: 500)
  }
}
