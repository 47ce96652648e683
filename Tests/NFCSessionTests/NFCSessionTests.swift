import Dispatch
import Locking
import NDEF
import NFCEmulator
import NFCTags
import NFCTransport
import Testing
@testable import NFCSession

/// A Type 2 link straight onto a virtual tag (no reader in between).
final class DirectLink: Transceiver {
  let tag: any VirtualTag
  init(_ tag: any VirtualTag) { self.tag = tag }
  let capabilities = LinkCapabilities(maxResponseLength: 252, maxCommandLength: 250, rawCommands: true)
  func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    switch tag.respond(to: command) {
    case .data(let d): return d
    case .ack: return [0x0A]
    case .nak(let v): throw .nak(v)
    case .mute: throw .timeout
    }
  }
}

/// A scripted field: each step is the set of tags present until the next `advance()`. A tag
/// counts as removed once the field no longer holds it, so tests move the field from the
/// delegate's callbacks instead of sleeping.
final class ScriptedPoller: TagPoller {
  let readerName: String
  private struct State {
    var steps: [[any VirtualTag]]
    var cancelled = false
    var arrivals = 0
    var delivered: [ObjectIdentifier] = []
  }
  /// Virtual tags are used by one thread at a time (the session serialises tag commands).
  private let state: Locked<State>
  private let changed = DispatchSemaphore(value: 0)

  init(readerName: String = "test reader \(UInt64.random(in: 0...UInt64.max))", _ steps: [[any VirtualTag]]) {
    self.readerName = readerName
    // The virtual tags go into the mutex and are touched only under it or by the session,
    // which serialises tag commands.
    nonisolated(unsafe) let owned = State(steps: steps)
    state = Locked(owned)
  }

  var arrivals: Int { state.withLock { $0.arrivals } }

  /// The field changes to the next step.
  func advance() {
    state.withLock { if !$0.steps.isEmpty { $0.steps.removeFirst() } }
    changed.signal()
  }

  func waitForTargets(timeoutMilliseconds: Int?) throws(PollError) -> [DetectedTarget] {
    let deadline = DispatchTime.now() + .milliseconds(timeoutMilliseconds ?? 60_000)
    while true {
      let (cancelled, targets): (Bool, [DetectedTarget]) = state.withLock { s in
        guard !s.cancelled else { return (true, []) }
        let tags = s.steps.first ?? []
        guard !tags.isEmpty else { return (false, []) }
        s.arrivals += 1
        s.delivered = tags.map { ObjectIdentifier($0) }
        // Handed to the session's poll loop, which alone uses them until it passes them on.
        nonisolated(unsafe) let made = tags.map {
          DetectedTarget(readerName: readerName, identifier: $0.identifier, atr: [], platform: .type2,
                         cardName: "test", link: DirectLink($0))
        }
        return (false, made)
      }
      if cancelled { throw .cancelled }
      if !targets.isEmpty { return targets }
      if changed.wait(timeout: deadline) == .timedOut { throw .timeout }
    }
  }

  func waitForRemoval(timeoutMilliseconds: Int?) throws(PollError) {
    let deadline = DispatchTime.now() + .milliseconds(timeoutMilliseconds ?? 60_000)
    while true {
      let (cancelled, gone): (Bool, Bool) = state.withLock { s in
        let present = Set((s.steps.first ?? []).map { ObjectIdentifier($0) })
        return (s.cancelled, s.delivered.allSatisfy { !present.contains($0) })
      }
      if cancelled { throw .cancelled }
      if gone { return }
      if changed.wait(timeout: deadline) == .timedOut { throw .timeout }
    }
  }

  func release() {}
  func cancel() {
    state.withLock { $0.cancelled = true }
    changed.signal()
  }
}

/// Records delegate calls; `wait` blocks until the session is invalidated. With `takesTags`, it
/// takes the tags (a Core NFC delegate that implements `didDetect tags:`); without, it lets the
/// session read them, as a delegate that does not implement it.
final class Recorder: NFCNDEFReaderSessionDelegate, Sendable {
  private struct Log {
    var active = 0
    var messages: [[NDEFMessage]] = []
    var tags: [[any NFCNDEFTag]] = []
    var failures: [NFCReaderError] = []
    var error: NFCReaderError?
  }
  private let log = Locked(Log())
  let takesTags: Bool
  let done = DispatchSemaphore(value: 0)
  let onTags: (@Sendable (NFCNDEFReaderSession, [any NFCNDEFTag]) -> Void)?
  let onMessages: (@Sendable (NFCNDEFReaderSession, [NDEFMessage]) -> Void)?

  init(takesTags: Bool = false, onTags: (@Sendable (NFCNDEFReaderSession, [any NFCNDEFTag]) -> Void)? = nil,
       onMessages: (@Sendable (NFCNDEFReaderSession, [NDEFMessage]) -> Void)? = nil) {
    self.takesTags = takesTags
    self.onTags = onTags
    self.onMessages = onMessages
  }
  var active: Int { log.withLock { $0.active } }
  var messages: [[NDEFMessage]] { log.withLock { $0.messages } }
  var tags: [[any NFCNDEFTag]] { log.withLock { $0.tags } }
  var failures: [NFCReaderError] { log.withLock { $0.failures } }
  var error: NFCReaderError? { log.withLock { $0.error } }

  func readerSessionDidBecomeActive(_ session: NFCNDEFReaderSession) { log.withLock { $0.active += 1 } }
  func readerSession(_ session: NFCNDEFReaderSession, didInvalidateWithError error: NFCReaderError) {
    log.withLock { $0.error = error }
    done.signal()
  }
  func readerSession(_ session: NFCNDEFReaderSession, didDetectNDEFs messages: [NDEFMessage]) {
    log.withLock { $0.messages.append(messages) }
    onMessages?(session, messages)
  }
  func readerSession(_ session: NFCNDEFReaderSession, didDetect tags: [any NFCNDEFTag]) {
    guard takesTags else { return session.readMessages(of: tags) }
    log.withLock { $0.tags.append(tags) }
    onTags?(session, tags)
  }
  func readerSession(_ session: NFCNDEFReaderSession, didFailToReadTag error: NFCReaderError) {
    log.withLock { $0.failures.append(error) }
  }
  func wait() -> Bool { done.wait(timeout: .now() + 10) == .success }
}

func tagWith(_ text: String?) throws -> Type2VirtualTag {
  let tag = try Type2VirtualTag(chip: .ntag215)
  if let text {
    let bytes = try NDEFMessage(records: [TextRecord(text: text).record]).encoded()
    try Type2Tag(identifier: tag.identifier, link: DirectLink(tag)).writeNDEF(bytes, verify: true)
  }
  return tag
}

/// The Apple sample's invalidation handler: no alert for FirstNDEFTagRead or UserCanceled.
func sampleAlert(for error: NFCReaderError) -> String? {
  if error.code == .readerSessionInvalidationErrorFirstNDEFTagRead || error.code == .readerSessionInvalidationErrorUserCanceled {
    return nil
  }
  return "Session Invalidated: \(error.message)"
}

@Suite(.serialized) struct CoreNFCSessions {
  @Test func singleReadEndsAfterTheFirstTagWith204() throws {
    let recorder = Recorder()
    let session = NFCNDEFReaderSession(delegate: recorder, queue: nil, invalidateAfterFirstRead: true,
                                       poller: ScriptedPoller([[try tagWith("hello")]]), timeout: 5)
    session.begin()
    #expect(recorder.wait())
    #expect(recorder.active == 1)
    #expect(recorder.messages.count == 1)
    #expect(recorder.messages.first?.first.flatMap { $0.records.first }.flatMap(TextRecord.init)?.text == "hello")
    #expect(recorder.error?.code == .readerSessionInvalidationErrorFirstNDEFTagRead)
    #expect(recorder.error?.code.rawValue == 204)
    #expect(sampleAlert(for: try #require(recorder.error)) == nil)
  }

  @Test func theSampleWriteFlow() throws {
    let target = try tagWith(nil)
    let poller = ScriptedPoller([[try tagWith(nil), try tagWith(nil)], [target]])
    let alerts = Locked<[String]>([])
    let recorder = Recorder(takesTags: true, onTags: { session, tags in
      if tags.count > 1 {
        session.alertMessage = "More than 1 tag is detected. Please remove all tags and try again."
        alerts.withLock { $0.append(session.alertMessage) }
        poller.advance()
        session.restartPolling()
        return
      }
      guard let tag = tags.first else { return }
      do {
        try session.connect(to: tag)
        let (status, _) = try tag.queryNDEFStatus()
        guard status == .readWrite else { session.invalidate(errorMessage: "Tag is not NDEF compliant"); return }
        try tag.writeNDEF(NDEFMessage(records: [URIRecord(uri: "https://example.com").record]))
        session.alertMessage = "Update success!"
        session.invalidate()
      } catch {
        session.invalidate(errorMessage: "Write failed: \(error)")
      }
    })
    let session = NFCNDEFReaderSession(delegate: recorder, queue: nil, invalidateAfterFirstRead: false, poller: poller, timeout: 10)
    session.begin()
    #expect(recorder.wait())
    #expect(alerts.withLock { $0 } == ["More than 1 tag is detected. Please remove all tags and try again."])
    #expect(recorder.tags.map(\.count) == [2, 1])
    #expect(session.alertMessage == "Update success!")
    #expect(recorder.error?.code == .readerSessionInvalidationErrorUserCanceled)
    let written = try Type2Tag(identifier: target.identifier, link: DirectLink(target)).readNDEF()
    #expect(URIRecord(try NDEFMessage(decoding: written).records[0])?.uri == "https://example.com")
  }

  @Test func oneActiveSessionPerReader() throws {
    let first = Recorder(), second = Recorder()
    let a = NFCNDEFReaderSession(delegate: first, queue: nil, invalidateAfterFirstRead: true,
                                 poller: ScriptedPoller(readerName: "busy", [[]]), timeout: 5)
    let b = NFCNDEFReaderSession(delegate: second, queue: nil, invalidateAfterFirstRead: true,
                                 poller: ScriptedPoller(readerName: "busy", [[]]), timeout: 5)
    a.begin()
    b.begin()
    #expect(second.wait())
    #expect(second.error?.code == .readerSessionInvalidationErrorSystemIsBusy)
    a.invalidate()
    #expect(first.wait())
  }

  @Test func timeoutIs201AndAnInvalidatedSessionCannotBegin() throws {
    let recorder = Recorder()
    let session = NFCNDEFReaderSession(delegate: recorder, queue: nil, invalidateAfterFirstRead: true,
                                       poller: ScriptedPoller([[]]), timeout: 0.3)
    session.begin()
    #expect(recorder.wait())
    #expect(recorder.error?.code == .readerSessionInvalidationErrorSessionTimeout)
    session.begin()
    #expect(recorder.active == 1)
    #expect(!session.isReady)
  }

  @Test func commandRules() throws {
    let small = try Type2VirtualTag(chip: .ntag213)
    let found = DispatchSemaphore(value: 0)
    let recorder = Recorder(takesTags: true, onTags: { _, _ in found.signal() })
    let session = NFCNDEFReaderSession(delegate: recorder, queue: nil, invalidateAfterFirstRead: false,
                                       poller: ScriptedPoller([[small]]), timeout: 10)
    session.begin()
    #expect(found.wait(timeout: .now() + 5) == .success)
    let t = try #require(recorder.tags.first?.first)
    #expect(throws: NFCReaderError(.readerTransceiveErrorTagNotConnected, "")) { try t.queryNDEFStatus() }
    try session.connect(to: t)
    let big = NDEFMessage(records: [TextRecord(text: String(repeating: "x", count: 300)).record])
    #expect(throws: NFCReaderError(.ndefReaderSessionErrorTagSizeTooSmall, "")) { try t.writeNDEF(big) }
    #expect(throws: NFCReaderError(.ndefReaderSessionErrorZeroLengthMessage, "")) { try t.readNDEF() }
    session.restartPolling()
    #expect(throws: NFCReaderError(.readerTransceiveErrorSessionInvalidated, "")) { try t.queryNDEFStatus() }
    #expect(!t.isAvailable)
    session.invalidate()
    #expect(recorder.wait())
    #expect(throws: NFCReaderError(.readerTransceiveErrorSessionInvalidated, "")) { try t.readNDEF() }
  }

  @Test func multiReadReportsEachArrivalOnce() throws {
    let one = try tagWith("one"), two = try tagWith("two")
    let poller = ScriptedPoller([[one], [], [two]])
    let recorder = Recorder(onMessages: { session, messages in
      let text = messages.first?.records.first.flatMap(TextRecord.init)?.text
      if text == "one" {
        poller.advance()  // removed
        poller.advance()  // "two" arrives
      } else {
        session.invalidate()
      }
    })
    let session = NFCNDEFReaderSession(delegate: recorder, queue: nil, invalidateAfterFirstRead: false, poller: poller, timeout: 10)
    session.begin()
    #expect(recorder.wait())
    let texts = recorder.messages.flatMap { $0 }.compactMap { $0.records.first.flatMap(TextRecord.init)?.text }
    #expect(texts == ["one", "two"])
    #expect(poller.arrivals == 2)
    #expect(recorder.error.map { sampleAlert(for: $0) } == .some(nil))
  }

  @Test func aMalformedMessageEndsASingleReadSessionAtOnceWith102() throws {
    let tag = try Type2VirtualTag(chip: .ntag215)
    // A TLV that announces 5 bytes of NDEF holding a record header that runs past them.
    try Type2Tag(identifier: tag.identifier, link: DirectLink(tag)).writeNDEF([0xD1, 0x01, 0x20], verify: true)
    let recorder = Recorder()
    let session = NFCNDEFReaderSession(delegate: recorder, queue: nil, invalidateAfterFirstRead: true,
                                       poller: ScriptedPoller([[tag]]), timeout: 60)
    session.begin()
    #expect(recorder.wait())  // well before the 60 s timeout: the wait gives up after 10
    #expect(recorder.error?.code == .readerTransceiveErrorTagResponseError)
    #expect(recorder.error?.underlyingError is NDEFError)
    #expect(recorder.messages.isEmpty)
  }

  @Test func aMultiReadSessionReportsBadAndEmptyTagsAndGoesOn() throws {
    let bad = try Type2VirtualTag(chip: .ntag213)
    try Type2Tag(identifier: bad.identifier, link: DirectLink(bad)).writeNDEF([0xD1, 0x01, 0x20], verify: true)
    let empty = try tagWith(nil), good = try tagWith("good")
    let poller = ScriptedPoller([[bad], [empty], [good]])
    let recorder = Recorder(onMessages: { session, _ in session.invalidate() })
    let session = NFCNDEFReaderSession(delegate: recorder, queue: nil, invalidateAfterFirstRead: false, poller: poller, timeout: 10)
    session.begin()
    // Each failure is reported before the poller moves on: advance the field as reports come.
    for expected in 1...2 {
      let deadline = DispatchTime.now() + 5
      while recorder.failures.count < expected, DispatchTime.now() < deadline { usleep(1000) }
      poller.advance()
    }
    #expect(recorder.wait())
    #expect(recorder.failures.map(\.code) == [.readerTransceiveErrorTagResponseError, .ndefReaderSessionErrorZeroLengthMessage])
    #expect(recorder.messages.count == 1)
  }

  @Test func restartAfterRemovalDoesNotReportTheSameTagAgain() throws {
    let first = try tagWith("a"), second = try tagWith("b")
    let poller = ScriptedPoller([[first], [second]])
    let seen = Locked(0)
    let recorder = Recorder(takesTags: true, onTags: { session, tags in
      if seen.withLock({ n in n += 1; return n }) == 1 {
        session.restartPollingAfterRemoval()
        poller.advance()
      } else {
        session.invalidate()
      }
    })
    let session = NFCNDEFReaderSession(delegate: recorder, queue: nil, invalidateAfterFirstRead: false, poller: poller, timeout: 10)
    session.begin()
    #expect(recorder.wait())
    #expect(recorder.tags.count == 2)
    #expect(poller.arrivals == 2)
  }

  @Test func invalidateWhileWaitingIsUserCancel200() throws {
    let active = DispatchSemaphore(value: 0)
    final class ActiveRecorder: NFCNDEFReaderSessionDelegate, Sendable {
      let active: DispatchSemaphore
      let ended = Locked<NFCReaderError?>(nil)
      let done = DispatchSemaphore(value: 0)
      init(_ active: DispatchSemaphore) { self.active = active }
      func readerSessionDidBecomeActive(_ session: NFCNDEFReaderSession) { active.signal() }
      func readerSession(_ session: NFCNDEFReaderSession, didInvalidateWithError error: NFCReaderError) {
        ended.withLock { $0 = error }
        done.signal()
      }
    }
    let recorder = ActiveRecorder(active)
    let session = NFCNDEFReaderSession(delegate: recorder, queue: nil, invalidateAfterFirstRead: true,
                                       poller: ScriptedPoller([[]]), timeout: 60)
    session.begin()
    #expect(active.wait(timeout: .now() + 5) == .success)
    session.invalidate()
    #expect(recorder.done.wait(timeout: .now() + 5) == .success)
    #expect(recorder.ended.withLock { $0 }?.code.rawValue == 200)
  }
}

/// Core NFC's tag reader session: typed tags and their native commands.
@Suite struct TagReaderSessions {
  final class TagRecorder: NFCTagReaderSessionDelegate, Sendable {
    let onTags: @Sendable (NFCTagReaderSession, [NFCTag]) -> Void
    let ended = Locked<NFCReaderError?>(nil)
    let done = DispatchSemaphore(value: 0)
    init(_ onTags: @escaping @Sendable (NFCTagReaderSession, [NFCTag]) -> Void) { self.onTags = onTags }
    func tagReaderSession(_ session: NFCTagReaderSession, didDetect tags: [NFCTag]) { onTags(session, tags) }
    func tagReaderSession(_ session: NFCTagReaderSession, didInvalidateWithError error: NFCReaderError) {
      ended.withLock { $0 = error }
      done.signal()
    }
  }

  @Test func aMiFareTagAnswersGetVersionAndReadsNDEF() throws {
    let answers = Locked<([UInt8], [UInt8], String?)?>(nil)
    let recorder = TagRecorder { session, tags in
      guard case .miFare(let tag)? = tags.first else { session.invalidate(errorMessage: "not MiFare"); return }
      do {
        try session.connect(to: .miFare(tag))
        let version = try tag.sendMiFareCommand([0x60])
        let nak = try tag.sendMiFareCommand([0x30, 0xFF])  // READ past the end: NAK 0
        let text = try tag.readNDEF().records.first.flatMap(TextRecord.init)?.text
        answers.withLock { $0 = (version, nak, text) }
        #expect(tag.mifareFamily == .ultralight)
        session.invalidate()
      } catch {
        session.invalidate(errorMessage: "\(error)")
      }
    }
    let session = NFCTagReaderSession(pollingOption: [.iso14443], delegate: recorder,
                                      poller: ScriptedPoller([[try tagWith("typed")]]), timeout: 10)
    session.begin()
    #expect(recorder.done.wait(timeout: .now() + 10) == .success)
    let (version, nak, text) = try #require(answers.withLock { $0 })
    #expect(version == [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])  // NTAG215
    #expect(nak == [0x00])
    #expect(text == "typed")
  }

  @Test func tagsOfOtherKindsArePassedOver() throws {
    let recorder = TagRecorder { session, _ in session.invalidate(errorMessage: "should not be reported") }
    let session = NFCTagReaderSession(pollingOption: [.iso15693], delegate: recorder,
                                      poller: ScriptedPoller([[try tagWith(nil)]]), timeout: 0.5)
    session.begin()
    #expect(recorder.done.wait(timeout: .now() + 10) == .success)
    #expect(recorder.ended.withLock { $0 }?.code == .readerSessionInvalidationErrorSessionTimeout)
  }

  @Test func apdusParse() {
    #expect(NFCISO7816APDU(data: [0x00, 0xA4]) == nil)
    #expect(NFCISO7816APDU(data: [0x00, 0xA4, 0x04, 0x00, 0x07, 1, 2, 3]) == nil)
    #expect(NFCISO7816APDU(data: [0x00, 0xA4, 0x04, 0x00, 0x02, 0xE1, 0x03, 0x00])?.instructionCode == 0xA4)
  }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct AsyncFace {
  @Test func readOnceReturnsTheFirstMessage() async throws {
    let message = try await NFCNDEFReaderSession.readOnce(poller: ScriptedPoller(readerName: "async", [[try tagWith("async")]]), timeout: 5)
    #expect(message.records.first.flatMap(TextRecord.init)?.text == "async")
  }

  @Test func readOnceTimesOutWith201() async throws {
    await #expect(throws: NFCReaderError(.readerSessionInvalidationErrorSessionTimeout, "")) {
      try await NFCNDEFReaderSession.readOnce(poller: ScriptedPoller(readerName: "async-empty", [[]]), timeout: 0.2)
    }
  }
}
