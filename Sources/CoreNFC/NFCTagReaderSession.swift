#if os(Linux)
import Dispatch
import Foundation
import Locking
internal import NFCSession

/// The delegate of an ``NFCTagReaderSession``, as Core NFC declares it. Its methods run on the
/// session's queue; it need not be `Sendable`.
public protocol NFCTagReaderSessionDelegate: AnyObject {
  /// The session started polling.
  func tagReaderSessionDidBecomeActive(_ session: NFCTagReaderSession)
  /// The session ended (an ``NFCReaderError``); it cannot be used again.
  func tagReaderSession(_ session: NFCTagReaderSession, didInvalidateWithError error: any Error)
  /// Tags were found: connect to one with ``NFCTagReaderSession/connect(to:completionHandler:)``;
  /// polling pauses until ``NFCTagReaderSession/restartPolling()`` or invalidation.
  func tagReaderSession(_ session: NFCTagReaderSession, didDetect tags: [NFCTag])
}

extension NFCTagReaderSessionDelegate {
  /// Does nothing.
  public func tagReaderSessionDidBecomeActive(_ session: NFCTagReaderSession) {}
  /// Does nothing: polling stays paused until the program restarts it or invalidates the session.
  public func tagReaderSession(_ session: NFCTagReaderSession, didDetect tags: [NFCTag]) {}
}

/// A session that finds tags of the kinds asked for and hands them over typed, for their native
/// commands. Core NFC's `NFCTagReaderSession`, over NFCSession's.
public final class NFCTagReaderSession: NFCReaderSession, @unchecked Sendable {  // lets only
  /// Which kinds of tag to look for: Core NFC's options, with the bits of NFCSession's (whose own
  /// `nfcForumType1` Core NFC does not have: its sessions pass a Topaz over, as this one does).
  public struct PollingOption: OptionSet, Hashable, Sendable {
    /// The bits.
    public let rawValue: Int
    /// Options from their bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    private init(_ option: Inner) { rawValue = option.rawValue }
    fileprivate typealias Inner = NFCSession.NFCTagReaderSession.PollingOption
    /// ISO 14443: MIFARE (Type 2) and ISO 7816 (Type 4) tags.
    public static let iso14443 = PollingOption(Inner.iso14443)
    /// ISO 15693 (Type 5).
    public static let iso15693 = PollingOption(Inner.iso15693)
    /// ISO 18092: FeliCa (Type 3).
    public static let iso18092 = PollingOption(Inner.iso18092)
    /// PACE (Core NFC's; a PC/SC reader does not poll for it, so it finds nothing here).
    public static let pace = PollingOption(rawValue: 8)
  }

  private let inner: NFCSession.NFCTagReaderSession
  private let forwarder: TagForwarder

  /// Core NFC's initialiser; nil when `pollingOption` asks for no kind of tag the session finds.
  /// The reader is `NFC_READER`'s (see ``NFCReaderSession``).
  public init?(pollingOption: PollingOption, delegate: any NFCTagReaderSessionDelegate, queue: DispatchQueue? = nil) {
    let options = PollingOption.Inner(rawValue: pollingOption.rawValue).intersection([.iso14443, .iso15693, .iso18092])
    guard !options.isEmpty else { return nil }
    let forwarder = TagForwarder(delegate)
    let inner = if let poller = ReaderInjection.poller {
      NFCSession.NFCTagReaderSession(pollingOption: options, delegate: forwarder, queue: queue, poller: poller)
    } else {
      NFCSession.NFCTagReaderSession(pollingOption: options, delegate: forwarder, queue: queue)
    }
    self.inner = inner
    self.forwarder = forwarder
    super.init(control: inner)
    forwarder.session.withLock { $0 = WeakReference(self) }
  }

  /// Polls again: the tags found so far become invalid, and a tag still in the field is found again.
  public func restartPolling() { inner.restartPolling() }

  /// Connects to one of the tags given to `didDetect`; the handler runs on the session's queue.
  public func connect(to tag: NFCTag, completionHandler: @escaping ((any Error)?) -> Void) {
    let result = Result { () throws(NFCReaderError) in try connect(tag) }
    onQueue(sessionQueue) { completionHandler(result.error) }
  }

  /// ``connect(to:completionHandler:)``, async.
  public func connect(to tag: NFCTag) async throws { try connect(tag) }

  private func connect(_ tag: NFCTag) throws(NFCReaderError) {
    guard let tag = tag.ndefTag as? TagObject else {
      throw NFCReaderError(.readerTransceiveErrorTagNotConnected, message: "the tag was not found by this session")
    }
    try mapped { () throws(NFCSession.NFCReaderError) in try inner.connect(to: tag.inner) }
  }
}

/// NFCSession's delegate for one Core NFC tag session (see `NDEFForwarder`).
private final class TagForwarder: NFCSession.NFCTagReaderSessionDelegate, Sendable {
  let delegate: WeakReference<any NFCTagReaderSessionDelegate>
  /// The Core NFC session, set once, just after it is made (it is made around NFCSession's
  /// session, which is made with this forwarder); behind a lock, so that the write in its
  /// initialiser and the reads on the session's queue are ordered.
  let session = Locked<WeakReference<NFCTagReaderSession>?>(nil)
  init(_ delegate: any NFCTagReaderSessionDelegate) { self.delegate = WeakReference(delegate) }

  private var target: (NFCTagReaderSession, any NFCTagReaderSessionDelegate)? {
    guard let session = session.withLock({ $0?.object }), let delegate = delegate.object else { return nil }
    return (session, delegate)
  }

  func tagReaderSessionDidBecomeActive(_ inner: NFCSession.NFCTagReaderSession) {
    guard case let (session, delegate)? = target else { return }
    delegate.tagReaderSessionDidBecomeActive(session)
  }
  func tagReaderSession(_ inner: NFCSession.NFCTagReaderSession, didInvalidateWithError error: NFCSession.NFCReaderError) {
    guard let session = session.withLock({ $0?.object }) else { return }
    delegate.object?.tagReaderSession(session, didInvalidateWithError: NFCReaderError(error))
    session.ended()
  }
  func tagReaderSession(_ inner: NFCSession.NFCTagReaderSession, didDetect tags: [NFCSession.NFCTag]) {
    guard case let (session, delegate)? = target else { return inner.invalidate() }
    delegate.tagReaderSession(session, didDetect: tags.map { TagObject.tag(for: $0, queue: inner.queue) })
  }
}
#endif
