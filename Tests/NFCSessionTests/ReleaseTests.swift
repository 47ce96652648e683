import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Locking
import NFCEmulator
import NFCTransport
import Testing
@testable import NFCSession

/// A link onto a virtual tag that can be taken away: once `gone`, every command fails as PC/SC
/// reports a removed card.
final class RemovableLink: Transceiver {
  let direct: DirectLink
  let gone: Locked<Bool>
  init(_ tag: any VirtualTag, gone: Locked<Bool>) {
    direct = DirectLink(tag)
    self.gone = gone
  }
  var capabilities: LinkCapabilities { direct.capabilities }
  func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    if gone.withLock({ $0 }) { throw .tagRemoved }
    return try direct.transceive(command)
  }
}

/// One tag on a `RemovableLink`; counts how the session releases it.
final class ReleaseCountingPoller: TagPoller {
  let readerName = "release test reader \(UInt64.random(in: 0...UInt64.max))"  // one session per reader: a name of its own
  /// Set to take the tag away.
  let gone = Locked(false)
  let releases = Locked((leave: 0, reset: 0))
  /// The tag, until the session has it (then the session alone uses it).
  private let tag: Locked<(any VirtualTag)?>
  private let cancelled = DispatchSemaphore(value: 0)

  init(_ tag: any VirtualTag) {
    nonisolated(unsafe) let owned: (any VirtualTag)? = tag
    self.tag = Locked(owned)
  }

  func waitForTargets(timeoutMilliseconds: Int?) throws(PollError) -> [DetectedTarget] {
    let targets: [DetectedTarget] = tag.withLock { tag in
      defer { tag = nil }
      guard let tag else { return [] }
      nonisolated(unsafe) let made = [DetectedTarget(readerName: readerName, identifier: tag.identifier, atr: [], platform: .type2,
                                                     cardName: "test", link: RemovableLink(tag, gone: gone))]
      return made
    }
    if !targets.isEmpty { return targets }
    _ = cancelled.wait(timeout: .now() + .milliseconds(timeoutMilliseconds ?? 60_000))
    throw .cancelled
  }

  func waitForRemoval(timeoutMilliseconds: Int?) throws(PollError) {}
  func release() { releases.withLock { $0.leave += 1 } }
  func releaseResetting() { releases.withLock { $0.reset += 1 } }
  func cancel() { cancelled.signal() }
}

/// How a session lets go of its card: reset after a raw command (no authentication outlives the
/// session), but not when the card left in the middle: the field ended what it was doing, and a
/// reset of a card that is gone keeps some readers busy for many seconds (vpcd: over 30 s before
/// pcscd shows the next card).
@Suite struct CardRelease {
  /// Sends a READ to the first tag, with the tag taken away first when `removed`; returns the
  /// poller's count of releases once the session ended.
  func release(afterRemoval removed: Bool) throws -> (leave: Int, reset: Int) {
    let poller = ReleaseCountingPoller(try tagWith("release"))
    let failed = Locked<Bool?>(nil)
    let handled = DispatchSemaphore(value: 0)
    let recorder = TagReaderSessions.TagRecorder { session, tags in
      defer { handled.signal() }
      guard case .miFare(let tag)? = tags.first else { session.invalidate(errorMessage: "not MiFare"); return }
      do {
        try session.connect(to: .miFare(tag))
        if removed { poller.gone.withLock { $0 = true } }
        _ = try tag.sendMiFareCommand([0x30, 0x04])
        failed.withLock { $0 = false }
      } catch {
        failed.withLock { $0 = true }
      }
      session.invalidate()
    }
    let session = NFCTagReaderSession(pollingOption: [.iso14443], delegate: recorder, poller: poller, timeout: 10)
    session.begin()
    #expect(recorder.done.wait(timeout: .now() + 10) == .success)
    #expect(handled.wait(timeout: .now() + 10) == .success, "\(String(describing: recorder.ended.withLock { $0 }))")
    #expect(failed.withLock { $0 } == removed, "the READ failed: \(String(describing: failed.withLock { $0 }))")
    // The session lets go of the card as its poll loop ends, just after the invalidation.
    for _ in 0..<200 where poller.releases.withLock({ $0.leave + $0.reset }) == 0 { usleep(10_000) }
    return poller.releases.withLock { $0 }
  }

  @Test func aRawCommandEndsWithAReset() throws {
    let releases = try release(afterRemoval: false)
    #expect(releases.reset == 1 && releases.leave == 0, "\(releases)")
  }

  @Test func aCardThatLeftInACommandIsNotReset() throws {
    let releases = try release(afterRemoval: true)
    #expect(releases.reset == 0 && releases.leave == 1, "\(releases)")
  }
}
