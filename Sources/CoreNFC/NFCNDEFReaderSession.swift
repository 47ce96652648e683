#if os(Linux)
import Dispatch
import Foundation
import Locking
internal import NDEF
internal import NFCSession

/// The delegate of an ``NFCNDEFReaderSession``, as Core NFC declares it. Its methods run on the
/// session's queue; it need not be `Sendable`.
///
/// Implementing ``readerSession(_:didDetect:)`` takes the tags (connect, then read or write
/// them); a delegate that does not gets each tag's message through
/// ``readerSession(_:didDetectNDEFs:)``.
public protocol NFCNDEFReaderSessionDelegate: AnyObject {
  /// The session started polling.
  func readerSessionDidBecomeActive(_ session: NFCNDEFReaderSession)
  /// The session ended (an ``NFCReaderError``); it cannot be used again.
  func readerSession(_ session: NFCNDEFReaderSession, didInvalidateWithError error: any Error)
  /// The messages of the tags found, read by the session.
  func readerSession(_ session: NFCNDEFReaderSession, didDetectNDEFs messages: [NFCNDEFMessage])
  /// Tags were found: connect to one with ``NFCNDEFReaderSession/connect(to:completionHandler:)``;
  /// polling pauses until ``NFCNDEFReaderSession/restartPolling()`` or invalidation.
  func readerSession(_ session: NFCNDEFReaderSession, didDetect tags: [any NFCNDEFTag])
}

extension NFCNDEFReaderSessionDelegate {
  /// Does nothing.
  public func readerSessionDidBecomeActive(_ session: NFCNDEFReaderSession) {}
  /// The automatic read, for delegates that do not take tags: reads each tag's message and
  /// hands them to ``readerSession(_:didDetectNDEFs:)``; a single-read session then ends (204),
  /// a multi-read one polls again once the tag has left.
  public func readerSession(_ session: NFCNDEFReaderSession, didDetect tags: [any NFCNDEFTag]) {
    session.readMessages(of: tags)
  }
}

/// A session that reads and writes NDEF tags. Core NFC's `NFCNDEFReaderSession`, over
/// NFCSession's.
public final class NFCNDEFReaderSession: NFCReaderSession, @unchecked Sendable {  // lets only
  private let inner: NFCSession.NFCNDEFReaderSession
  private let forwarder: NDEFForwarder

  /// Core NFC's initialiser. The reader is `NFC_READER`'s (see ``NFCReaderSession``); `queue`
  /// nil: a serial queue of the session's own.
  public init(delegate: any NFCNDEFReaderSessionDelegate, queue: DispatchQueue?, invalidateAfterFirstRead: Bool) {
    let forwarder = NDEFForwarder(delegate)
    let inner = if let poller = ReaderInjection.poller {
      NFCSession.NFCNDEFReaderSession(delegate: forwarder, queue: queue, invalidateAfterFirstRead: invalidateAfterFirstRead,
                                      poller: poller)
    } else {
      NFCSession.NFCNDEFReaderSession(delegate: forwarder, queue: queue, invalidateAfterFirstRead: invalidateAfterFirstRead)
    }
    self.inner = inner
    self.forwarder = forwarder
    super.init(control: inner)
    forwarder.session.withLock { $0 = WeakReference(self) }
  }

  /// Polls again: the tags found so far become invalid, and a tag still in the field is found again.
  public func restartPolling() { inner.restartPolling() }

  /// Connects to one of the tags given to `didDetect`; the handler runs on the session's queue.
  public func connect(to tag: any NFCNDEFTag, completionHandler: @escaping ((any Error)?) -> Void) {
    let result = Result { () throws(NFCReaderError) in try connect(tag) }
    onQueue(sessionQueue) { completionHandler(result.error) }
  }

  /// ``connect(to:completionHandler:)``, async.
  public func connect(to tag: any NFCNDEFTag) async throws { try connect(tag) }

  private func connect(_ tag: any NFCNDEFTag) throws(NFCReaderError) {
    guard let tag = tag as? TagObject else {
      throw NFCReaderError(.readerTransceiveErrorTagNotConnected, message: "the tag was not found by this session")
    }
    try mapped { () throws(NFCSession.NFCReaderError) in try inner.connect(to: tag.ndef) }
  }

  /// The automatic read (the delegate's default `didDetect`), by NFCSession's session.
  func readMessages(of tags: [any NFCNDEFTag]) {
    inner.readMessages(of: tags.compactMap { ($0 as? TagObject)?.ndef })
  }
}

/// NFCSession's delegate for one Core NFC session: hands each call on, in Core NFC's types, on
/// the session's queue (where NFCSession calls it).
private final class NDEFForwarder: NFCSession.NFCNDEFReaderSessionDelegate, Sendable {
  let delegate: WeakReference<any NFCNDEFReaderSessionDelegate>
  /// The Core NFC session, set once, just after it is made (it is made around NFCSession's
  /// session, which is made with this forwarder); behind a lock, so that the write in its
  /// initialiser and the reads on the session's queue are ordered.
  let session = Locked<WeakReference<NFCNDEFReaderSession>?>(nil)
  init(_ delegate: any NFCNDEFReaderSessionDelegate) { self.delegate = WeakReference(delegate) }

  private var target: (NFCNDEFReaderSession, any NFCNDEFReaderSessionDelegate)? {
    guard let session = session.withLock({ $0?.object }), let delegate = delegate.object else { return nil }
    return (session, delegate)
  }

  func readerSessionDidBecomeActive(_ inner: NFCSession.NFCNDEFReaderSession) {
    guard case let (session, delegate)? = target else { return }
    delegate.readerSessionDidBecomeActive(session)
  }
  func readerSession(_ inner: NFCSession.NFCNDEFReaderSession, didInvalidateWithError error: NFCSession.NFCReaderError) {
    guard let session = session.withLock({ $0?.object }) else { return }
    delegate.object?.readerSession(session, didInvalidateWithError: NFCReaderError(error))
    session.ended()
  }
  func readerSession(_ inner: NFCSession.NFCNDEFReaderSession, didDetectNDEFs messages: [NDEFMessage]) {
    guard case let (session, delegate)? = target else { return }
    delegate.readerSession(session, didDetectNDEFs: messages.map(NFCNDEFMessage.init))
  }
  func readerSession(_ inner: NFCSession.NFCNDEFReaderSession, didDetect tags: [any NFCSession.NFCNDEFTag]) {
    guard case let (session, delegate)? = target else { return inner.invalidate() }
    delegate.readerSession(session, didDetect: tags.map { TagObject.ndefTag(for: $0, queue: inner.queue) })
  }
}
#endif
