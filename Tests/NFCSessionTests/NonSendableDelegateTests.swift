import Dispatch
import NDEF
import NFCEmulator
import Testing
@testable import NFCSession

// Delegates as Core NFC code writes them: plain mutable state, no lock, not `Sendable`. The
// session calls them only on its queue, one call at a time; each call checks that it runs there.

private let onDelegateQueue = DispatchSpecificKey<Bool>()

/// A queue that marks the work it runs, for `DispatchQueue.getSpecific(key: onDelegateQueue)`.
private func delegateQueue() -> DispatchQueue {
  let queue = DispatchQueue(label: "plain delegate")
  queue.setSpecific(key: onDelegateQueue, value: true)
  return queue
}

final class PlainNDEFDelegate: NFCNDEFReaderSessionDelegate {
  var calls: [String] = []
  var texts: [String] = []
  let done = DispatchSemaphore(value: 0)

  private func note(_ call: String) {
    calls.append(DispatchQueue.getSpecific(key: onDelegateQueue) == true ? call : "\(call) off the queue")
  }
  func readerSessionDidBecomeActive(_ session: NFCNDEFReaderSession) { note("active") }
  func readerSession(_ session: NFCNDEFReaderSession, didDetectNDEFs messages: [NDEFMessage]) {
    note("messages")
    texts += messages.compactMap { $0.records.first.flatMap(TextRecord.init)?.text }
  }
  func readerSession(_ session: NFCNDEFReaderSession, didInvalidateWithError error: NFCReaderError) {
    note("ended \(error.code.rawValue)")
    done.signal()
  }
}

final class PlainTagDelegate: NFCTagReaderSessionDelegate {
  var calls: [String] = []
  var version: [UInt8] = []
  let done = DispatchSemaphore(value: 0)

  private func note(_ call: String) {
    calls.append(DispatchQueue.getSpecific(key: onDelegateQueue) == true ? call : "\(call) off the queue")
  }
  func tagReaderSessionDidBecomeActive(_ session: NFCTagReaderSession) { note("active") }
  func tagReaderSession(_ session: NFCTagReaderSession, didDetect tags: [NFCTag]) {
    note("tags \(tags.count)")
    guard let found = tags.first, case .miFare(let tag) = found else { return session.invalidate(errorMessage: "not a MIFARE tag") }
    do {
      try session.connect(to: found)
      version = try tag.sendMiFareCommand([0x60])  // GET_VERSION
      session.invalidate()
    } catch {
      session.invalidate(errorMessage: "\(error)")
    }
  }
  func tagReaderSession(_ session: NFCTagReaderSession, didInvalidateWithError error: NFCReaderError) {
    note("ended \(error.code.rawValue)")
    done.signal()
  }
}

@Suite struct NonSendableDelegates {
  @Test func anNDEFSessionCallsAPlainDelegateOnItsQueue() throws {
    let delegate = PlainNDEFDelegate()
    let session = NFCNDEFReaderSession(delegate: delegate, queue: delegateQueue(), invalidateAfterFirstRead: true,
                                       poller: ScriptedPoller([[try tagWith("plain")]]), timeout: 5)
    session.begin()
    #expect(delegate.done.wait(timeout: .now() + 10) == .success)
    // The semaphore orders the delegate's last call before these reads.
    #expect(delegate.calls == ["active", "messages", "ended 204"])
    #expect(delegate.texts == ["plain"])
  }

  @Test func aTagSessionCallsAPlainDelegateOnItsQueue() throws {
    let delegate = PlainTagDelegate()
    let session = NFCTagReaderSession(pollingOption: .iso14443, delegate: delegate, queue: delegateQueue(),
                                      poller: ScriptedPoller([[try tagWith(nil)]]), timeout: 5)
    session.begin()
    #expect(delegate.done.wait(timeout: .now() + 10) == .success)
    #expect(delegate.calls == ["active", "tags 1", "ended 200"])
    #expect(delegate.version == [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])  // NTAG215
  }
}
