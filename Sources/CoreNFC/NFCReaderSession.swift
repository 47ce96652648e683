#if os(Linux)
import Dispatch
import Locking
internal import NFCSession

/// What Core NFC's sessions have in common. Core NFC's `NFCReaderSession`.
///
/// A session runs on one of NFCSession's (no second engine): it polls on its own serial queue
/// and calls its delegate there, as Core NFC does. The delegate need not be `Sendable`: the
/// session touches it only on that queue, and the program's own state it captures is the
/// program's to touch from there, Core NFC's contract.
///
/// The reader is the one NFCSession's `SessionReaders` chooses with no name: `NFC_READER`
/// (a PC/SC reader's name, prefix or index, or a simulator, `sim:ntag215`), else the first
/// PC/SC reader with a tag, else the first reader. A Core NFC program needs no new argument.
///
/// While it polls, a session keeps itself alive (as Core NFC's system does) until it is
/// invalidated.
public class NFCReaderSession: @unchecked Sendable {  // its state: NFCSession's session (Sendable) and `lifetime` (locked)
  let control: any SessionControl
  /// Whether ``begin()`` was called, and this session while it polls (cleared by ``ended()``).
  private let lifetime = Locked<(began: Bool, keptAlive: NFCReaderSession?)>((false, nil))

  init(control: any SessionControl) { self.control = control }

  /// True while the session polls (after ``begin()``, before invalidation).
  public var isReady: Bool { control.isReady }

  /// The message shown while polling (Core NFC shows it on the sheet; here it is kept).
  public var alertMessage: String {
    get { control.alertMessage }
    set { control.alertMessage = newValue }
  }

  /// The queue the delegate and completion handlers run on.
  public var sessionQueue: DispatchQueue { control.queue }

  /// True when a reader can be used: `NFC_READER` names a simulator, or pcscd answers and a
  /// reader is attached.
  public class var readingAvailable: Bool {
    ReaderInjection.poller != nil || NFCSession.SessionReaders.readingAvailable
  }

  /// Starts polling. An invalidated session cannot begin again.
  public func begin() {
    // Only the first call keeps the session alive: it is the one that starts NFCSession's
    // session, which always ends with an invalidation (then ``ended()``); later calls start
    // nothing and hear nothing, as in Core NFC.
    let first = lifetime.withLock { lifetime -> Bool in
      guard !lifetime.began else { return false }
      lifetime = (true, self)
      return true
    }
    guard first else { return }
    control.begin()
  }

  /// Ends the session; the delegate hears `readerSessionInvalidationErrorUserCanceled` (200).
  public func invalidate() { control.invalidate() }

  /// Ends the session with a message for the user (Core NFC shows it on the sheet).
  public func invalidate(errorMessage: String) { control.invalidate(errorMessage: errorMessage) }

  /// Called after the delegate heard the end: the session no longer keeps itself alive.
  func ended() { lifetime.withLock { $0.keptAlive = nil } }
}

/// What CoreNFC's sessions ask of NFCSession's two sessions.
protocol SessionControl: Sendable {
  var isReady: Bool { get }
  var alertMessage: String { get nonmutating set }
  var queue: DispatchQueue { get }
  func begin()
  func invalidate()
  func invalidate(errorMessage: String)
  func restartPolling()
}

extension NFCSession.NFCNDEFReaderSession: SessionControl {}
extension NFCSession.NFCTagReaderSession: SessionControl {}

/// The reader a test gives the sessions it makes, instead of the environment's (the
/// `NFC_READER` of a process of its own): a poller set for the task that makes the session.
enum ReaderInjection {
  @TaskLocal static var poller: (any TagPoller)?
}
#endif
