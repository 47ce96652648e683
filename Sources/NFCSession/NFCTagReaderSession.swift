import Dispatch
import NFCTags
import NFCTransport

/// The delegate of an ``NFCTagReaderSession``, as in Core NFC. Its methods run on the session's
/// queue; it need not be `Sendable` (see ``NFCNDEFReaderSessionDelegate``).
public protocol NFCTagReaderSessionDelegate: AnyObject {
  /// The session started polling.
  func tagReaderSessionDidBecomeActive(_ session: NFCTagReaderSession)
  /// The session ended; it cannot be used again.
  func tagReaderSession(_ session: NFCTagReaderSession, didInvalidateWithError error: NFCReaderError)
  /// Tags were found. Connect to one with ``NFCTagReaderSession/connect(to:)``; polling pauses
  /// until ``NFCTagReaderSession/restartPolling()`` or ``NFCTagReaderSession/invalidate()``.
  func tagReaderSession(_ session: NFCTagReaderSession, didDetect tags: [NFCTag])
}

extension NFCTagReaderSessionDelegate {
  /// Does nothing: a delegate need not watch the session start.
  public func tagReaderSessionDidBecomeActive(_ session: NFCTagReaderSession) {}
}

/// A session that finds tags of the kinds asked for and hands them over typed, for their native
/// commands (Core NFC's `NFCTagReaderSession`). Same lifecycle as ``NFCNDEFReaderSession``.
public final class NFCTagReaderSession: Sendable {
  /// Which kinds of tag to look for.
  public struct PollingOption: OptionSet, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// ISO 14443 (NFC Forum Types 1, 2 and 4).
    public static let iso14443 = PollingOption(rawValue: 1)
    /// ISO 15693 (Type 5).
    public static let iso15693 = PollingOption(rawValue: 2)
    /// ISO 18092 / FeliCa (Type 3).
    public static let iso18092 = PollingOption(rawValue: 4)
    /// NFC Forum Type 1 (Topaz), reported as ``NFCTag/miFare(_:)`` of family
    /// ``NFCMiFareFamily/unknown`` whose commands are Type 1's own (nfctag; not in Core NFC).
    ///
    /// Core NFC's tag reader session finds ISO 7816, ISO 15693, FeliCa and MIFARE tags only
    /// (Apple, Core NFC documentation, `NFCTagReaderSession`): a Topaz is none of them, and it
    /// answers none of the MIFARE commands a Core NFC program sends to a `.miFare` tag (READ `30`,
    /// GET_VERSION `60`), so ``iso14443`` passes it over, as Core NFC would. NDEF sessions read and
    /// write it as any other NFC Forum tag.
    public static let nfcForumType1 = PollingOption(rawValue: 0x100)
  }

  /// The kinds of tag this session reports; others are passed over.
  public let pollingOption: PollingOption
  private let weakDelegate: WeakReference<any NFCTagReaderSessionDelegate>
  /// The delegate, held weakly as in Core NFC.
  public var delegate: (any NFCTagReaderSessionDelegate)? { weakDelegate.object }
  /// The queue delegate calls and completion handlers run on.
  public var queue: DispatchQueue { engine.queue }
  let engine: SessionEngine

  /// Shown to the user while polling.
  public var alertMessage: String {
    get { engine.alertMessage }
    set { engine.alertMessage = newValue }
  }

  /// Core NFC's initialiser, with the reader (`poller`) the session polls and its time limit in
  /// seconds without a tag.
  public init(pollingOption: PollingOption, delegate: any NFCTagReaderSessionDelegate, queue: DispatchQueue? = nil,
              poller: any TagPoller, timeout: Double = 60) {
    self.pollingOption = pollingOption
    weakDelegate = WeakReference(delegate)
    engine = SessionEngine(poller: poller, timeout: timeout, queue: queue)
  }

  /// Core NFC's initialiser on a reader by name: a PC/SC reader or a simulated one (`sim:ntag215`);
  /// nil takes the reader `NFC_READER` names (see ``NFCNDEFReaderSession``'s and ``SessionReaders``).
  public convenience init(pollingOption: PollingOption, delegate: any NFCTagReaderSessionDelegate, queue: DispatchQueue? = nil,
                          readerName: String? = nil, timeout: Double = 60) {
    self.init(pollingOption: pollingOption, delegate: delegate, queue: queue,
              poller: SessionReaders.pollerOrFailure(named: readerName), timeout: timeout)
  }

  /// Core NFC's `readingAvailable` (``SessionReaders/readingAvailable``).
  public static var readingAvailable: Bool { SessionReaders.readingAvailable }

  /// True while the session polls.
  public var isReady: Bool { engine.isPolling }

  /// Starts polling (see ``NFCNDEFReaderSession/begin()``).
  public func begin() {
    engine.begin(SessionEngine.Hooks(
      becameActive: { [self] in delegate?.tagReaderSessionDidBecomeActive(self) },
      deliver: { [self] targets, generation in deliver(targets, generation: generation) },
      identificationFailed: { [self] error in
        engine.invalidate(error)
        return .stop
      },
      invalidated: { [self] error in delegate?.tagReaderSession(self, didInvalidateWithError: error) }))
  }

  /// Ends the session (user cancel: 200).
  public func invalidate() {
    engine.invalidate(NFCReaderError(.readerSessionInvalidationErrorUserCanceled, "the session was invalidated"))
  }

  /// Ends the session showing an error message.
  public func invalidate(errorMessage: String) {
    alertMessage = errorMessage
    engine.invalidate(NFCReaderError(.readerSessionInvalidationErrorUserCanceled, errorMessage))
  }

  /// Connects to one of the tags given to `didDetect`.
  public func connect(to tag: NFCTag) throws(NFCReaderError) {
    let connection = tag.ndefTag.connection
    try engine.connect(ObjectIdentifier(connection), generation: connection.generation)
  }

  /// Polls again: the tags found so far become invalid.
  public func restartPolling() { engine.restartPolling(afterRemoval: false) }

  private func deliver(_ targets: sending [DetectedTarget], generation: Int) -> AfterDelivery {
    let tags = TagConnection.connections(to: targets, engine: engine, generation: generation).map(\.tag)
      .filter { pollingOption.contains($0.pollingOption) }
    guard !tags.isEmpty else { return .passOver }
    queue.async { [self] in delegate?.tagReaderSession(self, didDetect: tags) }
    return .waitForRestart
  }
}
