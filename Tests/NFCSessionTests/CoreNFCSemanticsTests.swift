import Dispatch
import Locking
import NDEF
import NFCEmulator
import NFCReaders
import NFCTags
import NFCTransport
import Testing
@testable import NFCSession

/// A delegate written as Core NFC code is: it implements `readerSession(_:didDetect:)` and the
/// end, nothing else (no `wantsTags`).
final class TagModeDelegate: NFCNDEFReaderSessionDelegate, Sendable {
  let onTags: @Sendable (NFCNDEFReaderSession, [any NFCNDEFTag]) -> Void
  let detections = Locked(0)
  let ended = Locked<NFCReaderError?>(nil)
  let done = DispatchSemaphore(value: 0)
  init(_ onTags: @escaping @Sendable (NFCNDEFReaderSession, [any NFCNDEFTag]) -> Void) { self.onTags = onTags }

  func readerSession(_ session: NFCNDEFReaderSession, didDetect tags: [any NFCNDEFTag]) {
    detections.withLock { $0 += 1 }
    onTags(session, tags)
  }
  func readerSession(_ session: NFCNDEFReaderSession, didInvalidateWithError error: NFCReaderError) {
    ended.withLock { $0 = error }
    done.signal()
  }
  /// The error the session ended with, once it ended (nil after 10 s without an end).
  func end() -> NFCReaderError? {
    done.wait(timeout: .now() + 10) == .success ? ended.withLock { $0 } : nil
  }
}

/// A tag reader session's delegate that records what it was given.
final class TypedRecorder: NFCTagReaderSessionDelegate, Sendable {
  let onTags: @Sendable (NFCTagReaderSession, [NFCTag]) -> Void
  let detections = Locked(0)
  let ended = Locked<NFCReaderError?>(nil)
  let done = DispatchSemaphore(value: 0)
  init(_ onTags: @escaping @Sendable (NFCTagReaderSession, [NFCTag]) -> Void) { self.onTags = onTags }
  func tagReaderSession(_ session: NFCTagReaderSession, didDetect tags: [NFCTag]) {
    detections.withLock { $0 += 1 }
    onTags(session, tags)
  }
  func tagReaderSession(_ session: NFCTagReaderSession, didInvalidateWithError error: NFCReaderError) {
    ended.withLock { $0 = error }
    done.signal()
  }
  func end() -> NFCReaderError? {
    done.wait(timeout: .now() + 10) == .success ? ended.withLock { $0 } : nil
  }
}

/// An in-process simulated reader of its own, as the tool's `--reader sim:…` makes one.
func simulator(_ spec: String) throws -> SimulatorPoller {
  try SimulatorPoller(spec: try SimulatorSpec(parsing: spec)) { transport throws(PollError) in
    try detectTarget(on: transport)
  }
}

/// Where this package's sessions behaved otherwise than Core NFC's.
@Suite struct CoreNFCSemantics {
  @Test func implementingDidDetectTagsSwitchesToTagMode() throws {
    let tag = try tagWith("before")
    let delegate = TagModeDelegate { session, tags in
      guard let tag = tags.first else { return }
      do {
        try session.connect(to: tag)
        try tag.writeNDEF(NDEFMessage(records: [TextRecord(text: "after").record]))
        session.invalidate()
      } catch {
        session.invalidate(errorMessage: "\(error)")
      }
    }
    let session = NFCNDEFReaderSession(delegate: delegate, queue: nil, invalidateAfterFirstRead: false,
                                       poller: ScriptedPoller([[tag]]), timeout: 3)
    session.begin()
    let end = delegate.end()
    #expect(end?.code == .readerSessionInvalidationErrorUserCanceled, "\(String(describing: end))")
    #expect(delegate.detections.withLock { $0 } == 1)
    let bytes = try Type2Tag(identifier: tag.identifier, link: DirectLink(tag)).readNDEF()
    #expect(TextRecord(try NDEFMessage(decoding: bytes).records[0])?.text == "after")
  }

  @Test func restartPollingFindsTheTagStillInTheFieldAgain() throws {
    let restarted = Locked(false)
    let restarting = TagModeDelegate { session, _ in
      // The first time polling restarts; the tag, still in the field, comes back.
      if restarted.withLock({ r in defer { r = true }; return !r }) { session.restartPolling() } else { session.invalidate() }
    }
    let session = NFCNDEFReaderSession(delegate: restarting, queue: nil, invalidateAfterFirstRead: false,
                                       poller: try simulator("sim:ntag215"), timeout: 2)
    session.begin()
    #expect(restarting.end()?.code == .readerSessionInvalidationErrorUserCanceled)
    #expect(restarting.detections.withLock { $0 } == 2)
  }

  @Test func aTagReaderSessionsRestartFindsTheTagAgain() throws {
    let restarted = Locked(false)
    let restarting = TypedRecorder { session, _ in
      if restarted.withLock({ r in defer { r = true }; return !r }) { session.restartPolling() } else { session.invalidate() }
    }
    let session = NFCTagReaderSession(pollingOption: .iso14443, delegate: restarting,
                                      poller: try simulator("sim:ntag213"), timeout: 2)
    session.begin()
    #expect(restarting.end()?.code == .readerSessionInvalidationErrorUserCanceled)
    #expect(restarting.detections.withLock { $0 } == 2)
  }

  @Test func theIdleTimeoutAfterATagSaysSo() throws {
    let recorder = Recorder()
    let session = NFCNDEFReaderSession(delegate: recorder, queue: nil, invalidateAfterFirstRead: false,
                                       poller: ScriptedPoller([[try tagWith("stays")]]), timeout: 0.3)
    session.begin()
    #expect(recorder.wait())
    #expect(recorder.messages.count == 1)
    #expect(recorder.error?.code == .readerSessionInvalidationErrorSessionTimeout)
    #expect(recorder.error?.message == "no new tag was presented within 0.3 s after the last one, which is still in the field")
  }

  @Test func twoSimulatedReadersOfOneKindHaveTheirOwnNames() throws {
    let first = try simulator("sim:ntag215"), second = try simulator("sim:ntag215")
    #expect(first.readerName != second.readerName)
    let a = TagModeDelegate { session, _ in session.invalidate() }
    let b = TagModeDelegate { session, _ in session.invalidate() }
    let one = NFCNDEFReaderSession(delegate: a, queue: nil, invalidateAfterFirstRead: false, poller: first, timeout: 2)
    let two = NFCNDEFReaderSession(delegate: b, queue: nil, invalidateAfterFirstRead: false, poller: second, timeout: 2)
    one.begin()
    two.begin()
    #expect(a.end()?.code == .readerSessionInvalidationErrorUserCanceled)
    #expect(b.end()?.code == .readerSessionInvalidationErrorUserCanceled)  // not 203: a reader of its own
  }

  @Test func aTopazIsNotOfferedAsAMiFareTag() throws {
    let recorder = TypedRecorder { session, tags in session.invalidate(errorMessage: "offered \(tags)") }
    let session = NFCTagReaderSession(pollingOption: [.iso14443, .iso15693, .iso18092], delegate: recorder,
                                      poller: try simulator("sim:topaz512"), timeout: 0.3)
    session.begin()
    let end = recorder.end()
    #expect(end?.code == .readerSessionInvalidationErrorSessionTimeout)
    #expect(end?.message == "no tag was presented within 0.3 s")  // a tag passed over is not one handled
    #expect(recorder.detections.withLock { $0 } == 0)
  }

  @Test func anNDEFSessionStillReadsATopaz() throws {
    let delegate = TagModeDelegate { session, tags in
      guard let tag = tags.first else { return }
      do {
        try session.connect(to: tag)
        try tag.writeNDEF(NDEFMessage(records: [TextRecord(text: "jewel").record]))
        let text = try tag.readNDEF().records.first.flatMap(TextRecord.init)?.text
        session.invalidate(errorMessage: text ?? "no text")
      } catch {
        session.invalidate(errorMessage: "\(error)")
      }
    }
    let session = NFCNDEFReaderSession(delegate: delegate, queue: nil, invalidateAfterFirstRead: false,
                                       poller: try simulator("sim:topaz96"), timeout: 2)
    session.begin()
    #expect(delegate.end()?.message == "jewel")
  }

  @Test func aSimulatorReaderNameWorksInTheTagReaderSessionsInitialiser() throws {
    let version = Locked<[UInt8]>([])
    let recorder = TypedRecorder { session, tags in
      guard case .miFare(let tag)? = tags.first else { return session.invalidate(errorMessage: "not MiFare") }
      do {
        try session.connect(to: .miFare(tag))
        let answer = try tag.sendMiFareCommand([0x60])  // GET_VERSION
        version.withLock { $0 = answer }
        session.invalidate()
      } catch {
        session.invalidate(errorMessage: "\(error)")
      }
    }
    let session = NFCTagReaderSession(pollingOption: .iso14443, delegate: recorder, readerName: "sim:ntag216", timeout: 2)
    session.begin()
    let end = recorder.end()
    #expect(end?.code == .readerSessionInvalidationErrorUserCanceled, "\(String(describing: end))")
    #expect(version.withLock { $0 } == [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x13, 0x03])  // NTAG216 (NXP NTAG213/215/216 §10.1)
  }

  @Test func aSimulatorReaderNameWorksInTheNDEFSessionsInitialiser() throws {
    // One simulated reader per spec in a process: what the first session wrote, the second reads.
    let writer = TagModeDelegate { session, tags in
      guard let tag = tags.first else { return }
      do {
        try session.connect(to: tag)
        try tag.writeNDEF(NDEFMessage(records: [TextRecord(text: "kept").record]))
        session.invalidate()
      } catch {
        session.invalidate(errorMessage: "\(error)")
      }
    }
    let write = NFCNDEFReaderSession(delegate: writer, queue: nil, invalidateAfterFirstRead: false,
                                     readerName: "sim:ultralight-ev1", timeout: 2)
    write.begin()
    let end = writer.end()
    #expect(end?.code == .readerSessionInvalidationErrorUserCanceled, "\(String(describing: end))")
    #expect(write.readerName.contains("(simulated ultralight-ev1)"))
    let reader = Recorder()
    let read = NFCNDEFReaderSession(delegate: reader, queue: nil, invalidateAfterFirstRead: true,
                                    readerName: "sim:ultralight-ev1", timeout: 2)
    read.begin()
    #expect(reader.wait())
    #expect(reader.error?.code == .readerSessionInvalidationErrorFirstNDEFTagRead)
    #expect(reader.messages.first?.first?.records.first.flatMap(TextRecord.init)?.text == "kept")
    #expect(read.readerName == write.readerName)
  }

  @Test func aBadSimulatorSpecEndsTheSessionSayingWhy() throws {
    let delegate = TagModeDelegate { session, _ in session.invalidate() }
    let session = NFCNDEFReaderSession(delegate: delegate, queue: nil, invalidateAfterFirstRead: false,
                                       readerName: "sim:ntag999", timeout: 2)
    session.begin()
    let end = delegate.end()
    #expect(end?.code == .readerSessionInvalidationErrorSessionTerminatedUnexpectedly)
    #expect(end?.message.contains("unknown tag kind 'ntag999'") == true, "\(String(describing: end))")
  }

  @Test func aTopazIsOfferedOnlyToSessionsThatAskForType1() throws {
    let answer = Locked<(NFCMiFareFamily, [UInt8])?>(nil)
    let recorder = TypedRecorder { session, tags in
      guard case .miFare(let tag)? = tags.first else { return session.invalidate(errorMessage: "not MiFare") }
      do {
        try session.connect(to: .miFare(tag))
        let all = try tag.sendMiFareCommand([0x00, 0x00, 0x00] + tag.identifier.prefix(4))  // RALL with UID0-3
        answer.withLock { $0 = (tag.mifareFamily, all) }
        session.invalidate()
      } catch {
        session.invalidate(errorMessage: "\(error)")
      }
    }
    let session = NFCTagReaderSession(pollingOption: [.iso14443, .nfcForumType1], delegate: recorder,
                                      poller: try simulator("sim:topaz512"), timeout: 2)
    session.begin()
    #expect(recorder.end()?.code == .readerSessionInvalidationErrorUserCanceled)
    let (family, all) = try #require(answer.withLock { $0 })
    #expect(family == .unknown)
    #expect(all.count == 122)
    #expect(all.prefix(2) == [0x12, 0x4C])  // HR0 HR1 of a Topaz 512 (NFC Forum T1T: HR0 12h for dynamic memory)
  }

  @Test func aSecondSessionOnASimulatorInUseGets203AndLeavesTheFirstAlone() throws {
    let second = TagModeDelegate { session, _ in session.invalidate() }
    let other = NFCNDEFReaderSession(delegate: second, queue: nil, invalidateAfterFirstRead: false,
                                     readerName: "sim:ntag213", timeout: 2)
    let first = TagModeDelegate { session, _ in
      // The second detection: the reader was not cancelled or released by the other session.
      guard other.isReady == false, second.ended.withLock({ $0 }) == nil else { return session.invalidate() }
      other.begin()  // while this session holds the tag, a second one on the same reader name
      #expect(second.end()?.code == .readerSessionInvalidationErrorSystemIsBusy)
      session.restartPolling()
    }
    let session = NFCNDEFReaderSession(delegate: first, queue: nil, invalidateAfterFirstRead: false,
                                       readerName: "sim:ntag213", timeout: 2)
    session.begin()
    #expect(first.end()?.code == .readerSessionInvalidationErrorUserCanceled)
    #expect(first.detections.withLock { $0 } == 2)
  }

  @Test func nfcReaderNamesTheReaderWhenTheSessionNamesNone() throws {
    let environment: (String) -> String? = { $0 == "NFC_READER" ? "sim:felica-lite-s" : nil }
    let poller = try SessionReaders.poller(named: nil, logger: nil, exchangeTimeout: nil, environment: environment)
    #expect(poller.readerName.contains("(simulated felica-lite-s)"))
    // A name given wins over the environment.
    let named = try SessionReaders.poller(named: "sim:type4", logger: nil, exchangeTimeout: nil, environment: environment)
    #expect(named.readerName.contains("(simulated type4)"))
  }

  @Test func readingIsAvailableWithASimulator() {
    #expect(SessionReaders.readingAvailable(environment: { $0 == "NFC_READER" ? "sim:ntag215" : nil }))
    #expect(!SessionReaders.readingAvailable(environment: { _ in "sim:ntag999" }))  // not a simulator
  }

  @Test func theIdleTimeoutAfterATagLeftSaysSo() throws {
    let poller = ScriptedPoller([[try tagWith("leaves")], []])
    let recorder = Recorder(onMessages: { _, _ in poller.advance() })  // read, then taken away
    let session = NFCNDEFReaderSession(delegate: recorder, queue: nil, invalidateAfterFirstRead: false,
                                       poller: poller, timeout: 0.3)
    session.begin()
    #expect(recorder.wait())
    #expect(recorder.error?.message == "no new tag was presented within 0.3 s after the last one")
  }

  @Test func restartPollingFindsAFedTagStillInTheFieldAgain() throws {
    let uids = Locked<[[UInt8]]>([])
    let delegate = TagModeDelegate { session, tags in
      let count = uids.withLock { seen in
        seen.append(tags.first?.identifier ?? [])
        return seen.count
      }
      if count == 1 { session.restartPolling() } else { session.invalidate() }
    }
    let session = NFCNDEFReaderSession(delegate: delegate, queue: nil, invalidateAfterFirstRead: false,
                                       poller: try simulator("sim:ntag213+feed=2,hand-ms=60000"), timeout: 2)
    session.begin()
    #expect(delegate.end()?.code == .readerSessionInvalidationErrorUserCanceled)
    let seen = uids.withLock { $0 }
    #expect(seen.count == 2)
    #expect(seen.first == FeederUIDs.uid(for: .ntag213, seed: 0, index: 1))
    #expect(seen.last == seen.first)  // the same tag, not the feed's next one
  }

  @Test func aSimulatorIsCancelledUntilReleased() throws {
    let poller = try simulator("sim:ntag215")
    #expect(try poller.waitForTargets(timeoutMilliseconds: 100).count == 1)
    poller.cancel()  // a session ends: its waits end at once, however long they were to last
    #expect(throws: PollError.cancelled) { try poller.waitForRemoval(timeoutMilliseconds: 60_000) }
    #expect(throws: PollError.cancelled) { try poller.waitForTargets(timeoutMilliseconds: 60_000) }
    poller.release()  // the next session: the tag, still in the field, is found again
    #expect(try poller.waitForTargets(timeoutMilliseconds: 100).count == 1)
    #expect(throws: PollError.timeout) { try poller.waitForRemoval(timeoutMilliseconds: 10) }
  }
}
