import Dispatch
import NDEF
import NFCTags
import NFCTransport

/// The delegate of an ``NFCNDEFReaderSession``, as in Core NFC. Its methods run on the session's queue.
///
/// It need not be `Sendable`, as in Core NFC: the session calls it only on its queue (the
/// `queue` given to the initialiser, else a serial queue of its own), one call at a time, and
/// holds it weakly; what the delegate touches from there is the program's to guard, as with any
/// object a dispatch queue's work items share.
///
/// As in Core NFC, what the delegate implements chooses the session's mode: a delegate that
/// implements ``readerSession(_:didDetect:)`` gets the tags and works with them itself; one that
/// does not gets each tag's message through ``readerSession(_:didDetectNDEFs:)`` (the default
/// ``readerSession(_:didDetect:)`` reads them).
public protocol NFCNDEFReaderSessionDelegate: AnyObject {
  /// The session started polling.
  func readerSessionDidBecomeActive(_ session: NFCNDEFReaderSession)
  /// The session ended; it cannot be used again.
  func readerSession(_ session: NFCNDEFReaderSession, didInvalidateWithError error: NFCReaderError)
  /// NDEF messages were read by the default ``readerSession(_:didDetect:)``.
  func readerSession(_ session: NFCNDEFReaderSession, didDetectNDEFs messages: [NDEFMessage])
  /// Tags were found. Connect to one with ``NFCNDEFReaderSession/connect(to:)``; polling pauses
  /// until ``NFCNDEFReaderSession/restartPolling()`` or ``NFCNDEFReaderSession/invalidate()``.
  ///
  /// The session always calls this method. Implementing it is what takes the tags, as in Core
  /// NFC; the default implementation reads each tag's message and hands the messages to
  /// ``readerSession(_:didDetectNDEFs:)`` (see ``NFCNDEFReaderSession``).
  func readerSession(_ session: NFCNDEFReaderSession, didDetect tags: [any NFCNDEFTag])
  /// A tag of a multi-read session could not be identified or read, or held no valid message
  /// (nfctag: Core NFC drops it silently). Single-read sessions are invalidated with the error instead.
  func readerSession(_ session: NFCNDEFReaderSession, didFailToReadTag error: NFCReaderError)
}

extension NFCNDEFReaderSessionDelegate {
  /// Does nothing: a delegate need not watch the session start.
  public func readerSessionDidBecomeActive(_ session: NFCNDEFReaderSession) {}
  /// Does nothing: a delegate that takes tags gets no messages.
  public func readerSession(_ session: NFCNDEFReaderSession, didDetectNDEFs messages: [NDEFMessage]) {}
  /// The automatic read, for delegates that do not take tags: reads each tag's NDEF message and
  /// hands them to ``readerSession(_:didDetectNDEFs:)``; a single-read session then ends (204), a
  /// multi-read one polls again once the tag has left, so a tag left in place is read once. A tag
  /// that cannot be read ends a single-read session with the error and goes to
  /// ``readerSession(_:didFailToReadTag:)`` in a multi-read one.
  public func readerSession(_ session: NFCNDEFReaderSession, didDetect tags: [any NFCNDEFTag]) {
    session.readMessages(of: tags)
  }
  /// Always true: the session calls ``readerSession(_:didDetect:)`` for every delegate.
  @available(*, deprecated, message: "implement readerSession didDetect tags instead: implementing it is what takes tags, as in Core NFC")
  public var wantsTags: Bool { true }
  /// Does nothing: the session goes on polling, as Core NFC's does.
  public func readerSession(_ session: NFCNDEFReaderSession, didFailToReadTag error: NFCReaderError) {}
}

/// A session that reads NDEF tags, with Core NFC's rules: one active session per reader;
/// single-read sessions end after the first tag (204); multi-read sessions report each tag once
/// while it stays in the field and go on until invalidated; an invalidated session cannot begin again.
///
/// The time limit counts seconds without a tag (201), not the whole session: Core NFC's is 60 s
/// from ``begin()``, which suits a phone sheet, not a reader on a desk.
public final class NFCNDEFReaderSession: Sendable {
  private let weakDelegate: WeakReference<any NFCNDEFReaderSessionDelegate>
  /// The delegate, held weakly as in Core NFC.
  public var delegate: (any NFCNDEFReaderSessionDelegate)? { weakDelegate.object }
  /// The queue delegate calls and completion handlers run on.
  public var queue: DispatchQueue { engine.queue }
  /// True: the session ends after the first tag read (Core NFC ignores it when the delegate
  /// takes tags; here it means one tag, then the delegate invalidates).
  public let invalidateAfterFirstRead: Bool
  /// Seconds without a tag before the session ends with 201.
  public var timeout: Double { engine.timeout }
  /// The reader this session polls.
  public var readerName: String { engine.poller.readerName }
  /// APDUs exchanged with the reader so far, detection included (nfctag; 0 when the reader does
  /// not count).
  public var exchangeCount: Int { engine.poller.exchangeCount }
  let engine: SessionEngine

  /// Shown to the user while polling (Core NFC shows it on the sheet; the tool prints it).
  public var alertMessage: String {
    get { engine.alertMessage }
    set { engine.alertMessage = newValue }
  }

  /// Core NFC's initialiser, with the reader (`poller`) the session polls and its time limit.
  public init(delegate: any NFCNDEFReaderSessionDelegate, queue: DispatchQueue?, invalidateAfterFirstRead: Bool,
              poller: any TagPoller, timeout: Double = 60) {
    weakDelegate = WeakReference(delegate)
    self.invalidateAfterFirstRead = invalidateAfterFirstRead
    engine = SessionEngine(poller: poller, timeout: timeout, queue: queue)
  }

  /// Core NFC's initialiser on a reader by name: a PC/SC reader's name, a unique prefix of one or
  /// its index, or a simulated reader (`sim:ntag215`); nil takes the reader `NFC_READER` names,
  /// else the first PC/SC reader with a tag, else the first reader (see ``SessionReaders``). A
  /// reader that cannot be opened ends the session at ``begin()`` (202).
  public convenience init(delegate: any NFCNDEFReaderSessionDelegate, queue: DispatchQueue?,
                          invalidateAfterFirstRead: Bool, readerName: String? = nil, timeout: Double = 60) {
    self.init(delegate: delegate, queue: queue, invalidateAfterFirstRead: invalidateAfterFirstRead,
              poller: SessionReaders.pollerOrFailure(named: readerName), timeout: timeout)
  }

  /// Core NFC's `readingAvailable`: `NFC_READER` names a simulated reader, or pcscd answers and
  /// at least one reader is attached (``SessionReaders/readingAvailable``).
  public static var readingAvailable: Bool { SessionReaders.readingAvailable }

  /// True while the session polls (after ``begin()``, before invalidation).
  public var isReady: Bool { engine.isPolling }

  /// Starts polling. An invalidated session cannot begin again; a second session on a busy
  /// reader is invalidated with SystemIsBusy (203).
  public func begin() {
    engine.begin(SessionEngine.Hooks(
      becameActive: { [self] in delegate?.readerSessionDidBecomeActive(self) },
      deliver: { [self] targets, generation in deliver(targets, generation: generation) },
      identificationFailed: { [self] error in
        if invalidateAfterFirstRead {
          engine.invalidate(error)
          return .stop
        }
        queue.async { [self] in delegate?.readerSession(self, didFailToReadTag: error) }
        return .waitForRemoval
      },
      invalidated: { [self] error in delegate?.readerSession(self, didInvalidateWithError: error) }))
  }

  /// Ends the session (user cancel: 200).
  public func invalidate() {
    engine.invalidate(NFCReaderError(.readerSessionInvalidationErrorUserCanceled, "the session was invalidated"))
  }

  /// Ends the session showing an error message (Core NFC shows it on the sheet).
  public func invalidate(errorMessage: String) {
    alertMessage = errorMessage
    engine.invalidate(NFCReaderError(.readerSessionInvalidationErrorUserCanceled, errorMessage))
  }

  /// Connects to one of the tags given to `didDetect`.
  public func connect(to tag: any NFCNDEFTag) throws(NFCReaderError) {
    try engine.connect(ObjectIdentifier(tag.connection), generation: tag.connection.generation)
  }

  /// ``connect(to:)`` with Core NFC's completion handler, run on the session's queue.
  public func connect(to tag: any NFCNDEFTag, completionHandler: @escaping @Sendable (NFCReaderError?) -> Void) {
    let result = Result { () throws(NFCReaderError) in try connect(to: tag) }
    queue.async { completionHandler(result.failureValue) }
  }

  /// Polls again: the tags found so far become invalid, and a tag still in the field is found again.
  public func restartPolling() { engine.restartPolling(afterRemoval: false) }

  /// Polls again once the field is empty: the tag just handled is not found again (nfctag).
  public func restartPollingAfterRemoval() { engine.restartPolling(afterRemoval: true) }

  // MARK: - What the poll loop found

  private func deliver(_ targets: sending [DetectedTarget], generation: Int) -> AfterDelivery {
    guard delegate != nil else { return .waitForRemoval }
    let tags = TagConnection.connections(to: targets, engine: engine, generation: generation).map(\.ndefTag)
    queue.async { [self] in
      guard let delegate else { return engine.restartPolling(afterRemoval: true) }
      delegate.readerSession(self, didDetect: tags)
    }
    return .waitForRestart
  }

  /// The automatic read of the default ``NFCNDEFReaderSessionDelegate/readerSession(_:didDetect:)``,
  /// on the session's queue while polling is paused.
  package func readMessages(of tags: [any NFCNDEFTag]) {
    var messages: [NDEFMessage] = []
    for tag in tags {
      do {
        try connect(to: tag)
        messages.append(try tag.readNDEF())
      } catch {
        // A tag that cannot be used ends a single-read session; a multi-read one goes on.
        guard !invalidateAfterFirstRead else { return engine.invalidate(error) }
        delegate?.readerSession(self, didFailToReadTag: error)
      }
    }
    guard !messages.isEmpty else { return engine.restartPolling(afterRemoval: true) }
    guard invalidateAfterFirstRead else {
      // Before the delegate hears: a restartPolling() it calls comes after this one and wins.
      engine.restartPolling(afterRemoval: true)
      delegate?.readerSession(self, didDetectNDEFs: messages)
      return
    }
    delegate?.readerSession(self, didDetectNDEFs: messages)
    engine.invalidate(NFCReaderError(.readerSessionInvalidationErrorFirstNDEFTagRead, "the session ends after the first NDEF tag read"))
  }
}
