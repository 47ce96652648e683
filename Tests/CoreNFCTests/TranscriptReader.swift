// A reader whose one tag answers from a transcript (NFCTestSupport's EmbeddedTransceiver): for
// commands the simulator's tags do not take. Like Simulator.swift, it knows the reader; the
// tests that use it are Core NFC code.
import Dispatch
@testable import CoreNFC
import NFCSession
import NFCTestSupport

/// A poller with one tag in its field, found once; later waits last until cancelled or timed out.
final class TranscriptPoller: TagPoller, @unchecked Sendable {  // the target is used by the session's one thread at a time
  let readerName = "transcript reader \(UInt64.random(in: 0...UInt64.max))"
  private let target: DetectedTarget
  private let lock = DispatchSemaphore(value: 1)
  private var delivered = false
  private let cancelled = DispatchSemaphore(value: 0)

  init(_ target: DetectedTarget) { self.target = target }

  func waitForTargets(timeoutMilliseconds: Int?) throws(PollError) -> [DetectedTarget] {
    lock.wait()
    let first = !delivered
    delivered = true
    lock.signal()
    if first { return [target] }
    let deadline: DispatchTime = timeoutMilliseconds.map { .now() + .milliseconds($0) } ?? .distantFuture
    if cancelled.wait(timeout: deadline) == .success { throw .cancelled }
    throw .timeout
  }
  func waitForRemoval(timeoutMilliseconds: Int?) throws(PollError) {
    let deadline: DispatchTime = timeoutMilliseconds.map { .now() + .milliseconds($0) } ?? .distantFuture
    if cancelled.wait(timeout: deadline) == .success { throw .cancelled }
    throw .timeout
  }
  func release() {}
  func cancel() { cancelled.signal() }
}

/// Runs `body` with every Core NFC session it makes polling a reader whose one FeliCa card, IDm
/// `idm`, answers `script` (LEN-prefixed frames, as on the link).
func onFeliCaTranscript<T>(idm: [UInt8], _ script: [EmbeddedTransceiver.Step],
                           _ body: () async throws -> T) async throws -> (T, EmbeddedTransceiver.LeftOver) {
  let link = EmbeddedTransceiver(script)
  let target = DetectedTarget(readerName: "transcript", identifier: idm, atr: [], platform: .type3, cardName: "FeliCa",
                              details: TargetDetails(felicaSystemCode: [0xFE, 0x00]), link: link)
  let result = try await ReaderInjection.$poller.withValue(TranscriptPoller(target)) { try await body() }
  return (result, link.finish())
}

/// Runs `body` with every Core NFC session it makes polling a reader whose one ISO 15693 tag,
/// UID `uid` (most significant byte first, E0h first), answers `script` (frames `flags command
/// [UID] parameters` and answers `flags data`, as on the link).
func onISO15693Transcript<T>(uid: [UInt8], _ script: [EmbeddedTransceiver.Step],
                             _ body: () async throws -> T) async throws -> (T, EmbeddedTransceiver.LeftOver) {
  let link = EmbeddedTransceiver(script)
  let target = DetectedTarget(readerName: "transcript", identifier: uid, atr: [], platform: .type5, cardName: "ICODE",
                              link: link)
  let result = try await ReaderInjection.$poller.withValue(TranscriptPoller(target)) { try await body() }
  return (result, link.finish())
}
