import Dispatch
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

/// A scripted field: each step is the set of tags present until the next `advance()`.
final class ScriptedPoller: TagPoller, @unchecked Sendable {
  let readerName: String
  private var steps: [[any VirtualTag]]
  private let lock = DispatchSemaphore(value: 1)
  private var cancelled = false
  private(set) var arrivals = 0

  init(readerName: String = "test reader", _ steps: [[any VirtualTag]]) {
    self.readerName = readerName
    self.steps = steps
  }

  private var current: [any VirtualTag] {
    lock.wait(); defer { lock.signal() }
    return steps.first ?? []
  }

  /// The field changes to the next step.
  func advance() { lock.wait(); if !steps.isEmpty { steps.removeFirst() }; lock.signal() }

  func waitForTargets(timeoutMilliseconds: Int?) throws(PollError) -> [DetectedTarget] {
    let deadline = nowSeconds() + Double(timeoutMilliseconds ?? 60_000) / 1000
    while nowSeconds() < deadline {
      if cancelled { throw .cancelled }
      let tags = current
      if !tags.isEmpty {
        arrivals += 1
        return tags.map { DetectedTarget(readerName: readerName, identifier: $0.identifier, atr: [], platform: .type2,
                                         cardName: "test", link: DirectLink($0)) }
      }
      usleep(5_000)
    }
    throw .timeout
  }

  func waitForRemoval(timeoutMilliseconds: Int?) throws(PollError) {
    if cancelled { throw .cancelled }
    if current.isEmpty { return }
    usleep(UInt32(min(timeoutMilliseconds ?? 100, 100)) * 1000)
    throw .timeout
  }

  func release() {}
  func cancel() { cancelled = true }
}

/// Records delegate calls; `wait` blocks until the session is invalidated.
final class Recorder: NFCNDEFReaderSessionDelegate, @unchecked Sendable {
  var active = 0
  var messages: [[NDEFMessage]] = []
  var tags: [[NFCNDEFTag]] = []
  var error: NFCReaderError?
  let wantsTags: Bool
  let done = DispatchSemaphore(value: 0)
  var onTags: ((NFCNDEFReaderSession, [NFCNDEFTag]) -> Void)?

  init(wantsTags: Bool = false) { self.wantsTags = wantsTags }
  func readerSessionDidBecomeActive(_ session: NFCNDEFReaderSession) { active += 1 }
  func readerSession(_ session: NFCNDEFReaderSession, didInvalidateWithError error: NFCReaderError) {
    self.error = error
    done.signal()
  }
  func readerSession(_ session: NFCNDEFReaderSession, didDetectNDEFs messages: [NDEFMessage]) { self.messages.append(messages) }
  func readerSession(_ session: NFCNDEFReaderSession, didDetect tags: [NFCNDEFTag]) {
    self.tags.append(tags)
    onTags?(session, tags)
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
    let recorder = Recorder(wantsTags: true)
    var alerts: [String] = []
    recorder.onTags = { session, tags in
      if tags.count > 1 {
        session.alertMessage = "More than 1 tag is detected. Please remove all tags and try again."
        alerts.append(session.alertMessage)
        poller.advance()
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(500)) { session.restartPolling() }
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
    }
    let session = NFCNDEFReaderSession(delegate: recorder, queue: nil, invalidateAfterFirstRead: false, poller: poller, timeout: 10)
    session.begin()
    #expect(recorder.wait())
    #expect(alerts == ["More than 1 tag is detected. Please remove all tags and try again."])
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
    let recorder = Recorder(wantsTags: true)
    let small = try Type2VirtualTag(chip: .ntag213)
    let found = DispatchSemaphore(value: 0)
    var tag: NFCNDEFTag?
    recorder.onTags = { _, tags in tag = tags.first; found.signal() }
    let session = NFCNDEFReaderSession(delegate: recorder, queue: nil, invalidateAfterFirstRead: false,
                                       poller: ScriptedPoller([[small]]), timeout: 10)
    session.begin()
    #expect(found.wait(timeout: .now() + 5) == .success)
    let t = try #require(tag)
    #expect(throws: NFCReaderError(.readerTransceiveErrorTagNotConnected, "")) { try t.queryNDEFStatus() }
    try session.connect(to: t)
    let big = NDEFMessage(records: [TextRecord(text: String(repeating: "x", count: 300)).record])
    #expect(throws: NFCReaderError(.ndefReaderSessionErrorTagSizeTooSmall, "")) { try t.writeNDEF(big) }
    #expect(throws: NFCReaderError(.ndefReaderSessionErrorZeroLengthMessage, "")) { try t.readNDEF() }
    session.restartPolling()
    #expect(throws: NFCReaderError(.readerTransceiveErrorSessionInvalidated, "")) { try t.queryNDEFStatus() }
    session.invalidate()
    #expect(recorder.wait())
    #expect(throws: NFCReaderError(.readerTransceiveErrorSessionInvalidated, "")) { try t.readNDEF() }
  }

  @Test func multiReadReportsEachArrivalOnce() throws {
    let poller = ScriptedPoller([[try tagWith("one")], [], [try tagWith("two")]])
    let recorder = Recorder()
    let session = NFCNDEFReaderSession(delegate: recorder, queue: nil, invalidateAfterFirstRead: false, poller: poller, timeout: 10)
    session.begin()
    usleep(300_000)          // "one" stays in the field: reported once
    poller.advance()         // removed
    usleep(300_000)
    poller.advance()         // "two" arrives
    usleep(300_000)
    session.invalidate()
    #expect(recorder.wait())
    let texts = recorder.messages.flatMap { $0 }.compactMap { $0.records.first.flatMap(TextRecord.init)?.text }
    #expect(texts == ["one", "two"])
    #expect(recorder.error.map { sampleAlert(for: $0) } == .some(nil))
  }
}

#if canImport(Glibc)
import Glibc
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
