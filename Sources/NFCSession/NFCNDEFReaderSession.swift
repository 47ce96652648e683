import Dispatch
import NDEF
import NFCTags
import NFCTransport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The delegate of an ``NFCNDEFReaderSession``, as in Core NFC.
public protocol NFCNDEFReaderSessionDelegate: AnyObject {
  /// The session started polling.
  func readerSessionDidBecomeActive(_ session: NFCNDEFReaderSession)
  /// The session ended; it cannot be used again.
  func readerSession(_ session: NFCNDEFReaderSession, didInvalidateWithError error: NFCReaderError)
  /// NDEF messages were read (read-only sessions: a delegate that does not want tags).
  func readerSession(_ session: NFCNDEFReaderSession, didDetectNDEFs messages: [NDEFMessage])
  /// Tags were found (read-write sessions). Connect to one with ``NFCNDEFReaderSession/connect(to:)``.
  func readerSession(_ session: NFCNDEFReaderSession, didDetect tags: [NFCNDEFTag])
  /// True to get ``readerSession(_:didDetect:)`` instead of messages (Core NFC: implementing it).
  var wantsTags: Bool { get }
}

extension NFCNDEFReaderSessionDelegate {
  public func readerSessionDidBecomeActive(_ session: NFCNDEFReaderSession) {}
  public func readerSession(_ session: NFCNDEFReaderSession, didDetect tags: [NFCNDEFTag]) {}
  public var wantsTags: Bool { false }
}

/// Whether a tag holds NDEF and may be written. Core NFC's `NFCNDEFStatus`.
public typealias NFCNDEFStatus = NDEFStatus

/// A tag found by a session. Commands work only after ``NFCNDEFReaderSession/connect(to:)`` and
/// before the session is invalidated or polling restarts.
public final class NFCNDEFTag: @unchecked Sendable {
  let target: DetectedTarget
  let platform: any NDEFTagPlatform
  weak var session: NFCNDEFReaderSession?
  let generation: Int

  init(target: DetectedTarget, platform: any NDEFTagPlatform, session: NFCNDEFReaderSession, generation: Int) {
    self.target = target
    self.platform = platform
    self.session = session
    self.generation = generation
  }

  /// UID or IDm.
  public var identifier: [UInt8] { target.identifier }
  /// False once the session is invalidated or polling restarted.
  public var isAvailable: Bool { session?.isUsable(self) ?? false }

  private func checked() throws(NFCReaderError) -> any NDEFTagPlatform {
    guard let session, session.isActive else {
      throw NFCReaderError(.readerTransceiveErrorSessionInvalidated, "the session is invalidated")
    }
    guard session.generation == generation else {
      throw NFCReaderError(.readerTransceiveErrorSessionInvalidated, "polling restarted: this tag is no longer valid")
    }
    guard session.connected === self else {
      throw NFCReaderError(.readerTransceiveErrorTagNotConnected, "connect to the tag first")
    }
    return platform
  }

  /// The NDEF status and the capacity in bytes.
  public func queryNDEFStatus() throws(NFCReaderError) -> (NFCNDEFStatus, Int) {
    let platform = try checked()
    do {
      let report = try platform.queryNDEFStatus()
      return (report.status, report.capacity)
    } catch {
      throw mapped(error)
    }
  }

  /// Reads the message. An empty tag is ``NFCReaderError/Code-swift.struct/ndefReaderSessionErrorZeroLengthMessage`` (403).
  public func readNDEF() throws(NFCReaderError) -> NDEFMessage {
    let platform = try checked()
    let bytes: [UInt8]
    do { bytes = try platform.readNDEF() } catch { throw mapped(error) }
    guard !bytes.isEmpty else { throw NFCReaderError(.ndefReaderSessionErrorZeroLengthMessage, "the tag holds no NDEF message") }
    do { return try NDEFMessage(decoding: bytes) } catch {
      throw NFCReaderError(.readerTransceiveErrorTagResponseError, "invalid NDEF message: \(error)")
    }
  }

  /// Writes `message`, checking status and capacity first (Core NFC's rules).
  public func writeNDEF(_ message: NDEFMessage) throws(NFCReaderError) {
    let platform = try checked()
    guard !message.records.isEmpty, let bytes = try? message.encoded() else {
      throw NFCReaderError(.ndefReaderSessionErrorZeroLengthMessage, "the message is empty")
    }
    let report: NDEFStatusReport
    do { report = try platform.queryNDEFStatus() } catch { throw mapped(error) }
    guard report.status == .readWrite else {
      throw NFCReaderError(.ndefReaderSessionErrorTagNotWritable, report.status == .readOnly ? "the tag is read-only" : "the tag is not NDEF formatted")
    }
    guard bytes.count <= report.capacity else {
      throw NFCReaderError(.ndefReaderSessionErrorTagSizeTooSmall, "the message needs \(bytes.count) bytes; the tag holds \(report.capacity)")
    }
    do { try platform.writeNDEF(bytes, verify: true) } catch { throw mapped(error) }
  }

  /// Makes the tag read-only, permanently.
  public func writeLock() throws(NFCReaderError) {
    let platform = try checked()
    do { try platform.makeReadOnly() } catch { throw mapped(error) }
  }

  /// Completion-handler faces, as in Core NFC; the handler runs on the session's queue.
  public func queryNDEFStatus(completionHandler: @escaping @Sendable (NFCNDEFStatus, Int, NFCReaderError?) -> Void) {
    let queue = session?.queue ?? .global()
    do {
      let (status, capacity) = try queryNDEFStatus()
      queue.async { completionHandler(status, capacity, nil) }
    } catch {
      queue.async { completionHandler(.notSupported, 0, error) }
    }
  }

  public func writeNDEF(_ message: NDEFMessage, completionHandler: @escaping @Sendable (NFCReaderError?) -> Void) {
    let queue = session?.queue ?? .global()
    do {
      try writeNDEF(message)
      queue.async { completionHandler(nil) }
    } catch {
      queue.async { completionHandler(error) }
    }
  }

  private func mapped(_ error: TagError) -> NFCReaderError {
    if error.isTagLost { return NFCReaderError(.readerTransceiveErrorTagConnectionLost, error.description) }
    switch error {
    case .readOnly: return NFCReaderError(.ndefReaderSessionErrorTagNotWritable, error.description)
    case .insufficientCapacity: return NFCReaderError(.ndefReaderSessionErrorTagSizeTooSmall, error.description)
    case .verifyFailed: return NFCReaderError(.ndefReaderSessionErrorTagUpdateFailure, error.description)
    case .transceive: return NFCReaderError(.ndefReaderSessionErrorTagUpdateFailure, error.description)
    default: return NFCReaderError(.readerTransceiveErrorTagResponseError, error.description)
    }
  }
}

/// A session that reads NDEF tags, with Core NFC's rules: one active session per reader,
/// single-read sessions end after the first tag (204), multi-read sessions go on until
/// invalidated or the timeout (201), an invalidated session cannot begin again.
public final class NFCNDEFReaderSession: @unchecked Sendable {
  public weak var delegate: (any NFCNDEFReaderSessionDelegate)?
  public let queue: DispatchQueue
  public let invalidateAfterFirstRead: Bool
  /// Shown to the user while polling (the CLI prints it).
  public var alertMessage: String = ""
  /// The session's time limit in seconds (Core NFC: 60).
  public let timeout: Double

  let poller: any TagPoller
  let makePlatform: (DetectedTarget) throws(TagError) -> any NDEFTagPlatform
  private let lock = Mutex(())
  private var state: State = .idle
  private(set) var generation = 0
  var connected: NFCNDEFTag?
  private var restartRequested = false

  enum State { case idle, active, invalidated }

  /// Core NFC's initialiser, with the reader (poller) this session polls.
  public init(delegate: any NFCNDEFReaderSessionDelegate, queue: DispatchQueue?, invalidateAfterFirstRead: Bool,
              poller: any TagPoller, timeout: Double = 60,
              platformFactory: @escaping (DetectedTarget) throws(TagError) -> any NDEFTagPlatform = NFCTags.makePlatform(for:)) {
    self.delegate = delegate
    self.queue = queue ?? DispatchQueue(label: "nfcsession.delegate")
    self.invalidateAfterFirstRead = invalidateAfterFirstRead
    self.poller = poller
    self.timeout = timeout
    self.makePlatform = platformFactory
  }

  var isActive: Bool { lock.withLock { _ in state == .active } }
  /// True while the session polls (after ``begin()``, before invalidation).
  public var isReady: Bool { isActive }

  func isUsable(_ tag: NFCNDEFTag) -> Bool { lock.withLock { _ in state == .active && generation == tag.generation } }

  /// Starts polling. An invalidated session cannot begin again (it stays invalidated); a second
  /// session on a busy reader is invalidated with SystemIsBusy (203).
  public func begin() {
    let canStart: Bool = lock.withLock { _ in
      guard state == .idle else { return false }
      state = .active
      return true
    }
    guard canStart else { return }
    guard ActiveSessions.claim(poller.readerName, by: self) else {
      invalidate(with: NFCReaderError(.readerSessionInvalidationErrorSystemIsBusy, "another session is using \(poller.readerName)"))
      return
    }
    queue.async { [self] in delegate?.readerSessionDidBecomeActive(self) }
    let worker = SessionThread { [self] in poll() }
    worker.start()
  }

  /// Ends the session (user cancel: 200).
  public func invalidate() {
    invalidate(with: NFCReaderError(.readerSessionInvalidationErrorUserCanceled, "the session was invalidated"))
  }

  /// Ends the session showing an error message (Core NFC shows it on the sheet; the CLI prints it).
  public func invalidate(errorMessage: String) {
    alertMessage = errorMessage
    invalidate(with: NFCReaderError(.readerSessionInvalidationErrorUserCanceled, errorMessage))
  }

  /// Connects to one of the tags given to `didDetect`.
  public func connect(to tag: NFCNDEFTag) throws(NFCReaderError) {
    try lock.withLock { _ throws(NFCReaderError) in
      guard state == .active else { throw NFCReaderError(.readerTransceiveErrorSessionInvalidated, "the session is invalidated") }
      guard tag.generation == generation else {
        throw NFCReaderError(.readerTransceiveErrorSessionInvalidated, "polling restarted: this tag is no longer valid")
      }
      connected = tag
    }
  }

  /// Polls again: the tags found so far become invalid. No effect on an invalidated session.
  public func restartPolling() {
    lock.withLock { _ in
      guard state == .active else { return }
      generation += 1
      connected = nil
      restartRequested = true
    }
    poller.release()
  }

  func invalidate(with error: NFCReaderError) {
    let first: Bool = lock.withLock { _ in
      guard state != .invalidated else { return false }
      state = .invalidated
      connected = nil
      return true
    }
    guard first else { return }
    poller.cancel()
    ActiveSessions.release(poller.readerName, by: self)
    queue.async { [self] in delegate?.readerSession(self, didInvalidateWithError: error) }
  }

  private func poll() {
    let deadline = nowSeconds() + timeout
    var reported = false
    while isActive {
      let remaining = deadline - nowSeconds()
      if remaining <= 0 {
        invalidate(with: NFCReaderError(.readerSessionInvalidationErrorSessionTimeout, "the session timed out"))
        return
      }
      if reported {
        // A tag left in place is reported once: wait for it to go (or for restartPolling).
        let restart = lock.withLock { _ -> Bool in defer { restartRequested = false }; return restartRequested }
        if !restart {
          do { try poller.waitForRemoval(timeoutMilliseconds: Int(min(remaining, 0.2) * 1000)) } catch {
            continue
          }
        }
        poller.release()
        reported = false
      }
      let targets: [DetectedTarget]
      do {
        targets = try poller.waitForTargets(timeoutMilliseconds: Int(min(remaining, 0.5) * 1000))
      } catch {
        if case .timeout = error { continue }
        if case .cancelled = error { return }
        invalidate(with: NFCReaderError(.readerSessionInvalidationErrorSessionTerminatedUnexpectedly, error.description))
        return
      }
      reported = true
      handle(targets)
    }
  }

  private func handle(_ targets: [DetectedTarget]) {
    guard let delegate else { return }
    let generation = lock.withLock { _ in self.generation }
    if delegate.wantsTags {
      var tags: [NFCNDEFTag] = []
      for target in targets {
        if let platform = try? makePlatform(target) {
          tags.append(NFCNDEFTag(target: target, platform: platform, session: self, generation: generation))
        }
      }
      guard !tags.isEmpty else { return }
      let found = tags
      queue.async { [self] in self.delegate?.readerSession(self, didDetect: found) }
      return
    }
    var messages: [NDEFMessage] = []
    for target in targets {
      guard let platform = try? makePlatform(target), let bytes = try? platform.readNDEF() else { continue }
      if bytes.isEmpty {
        if invalidateAfterFirstRead {
          invalidate(with: NFCReaderError(.ndefReaderSessionErrorZeroLengthMessage, "the tag holds no NDEF message"))
          return
        }
        continue
      }
      if let message = try? NDEFMessage(decoding: bytes) { messages.append(message) }
    }
    guard !messages.isEmpty else { return }
    let read = messages
    queue.async { [self] in self.delegate?.readerSession(self, didDetectNDEFs: read) }
    if invalidateAfterFirstRead {
      invalidate(with: NFCReaderError(.readerSessionInvalidationErrorFirstNDEFTagRead, "the session ends after the first NDEF tag read"))
    }
  }
}

/// One active session per reader, process-wide.
enum ActiveSessions {
  nonisolated(unsafe) private static var owners: [String: ObjectIdentifier] = [:]
  private static let lock = Mutex(())

  static func claim(_ reader: String, by session: NFCNDEFReaderSession) -> Bool {
    lock.withLock { _ in
      guard owners[reader] == nil else { return false }
      owners[reader] = ObjectIdentifier(session)
      return true
    }
  }

  static func release(_ reader: String, by session: NFCNDEFReaderSession) {
    lock.withLock { _ in
      if owners[reader] == ObjectIdentifier(session) { owners.removeValue(forKey: reader) }
    }
  }
}

/// A detached pthread running a closure.
final class SessionThread: @unchecked Sendable {
  private let body: () -> Void
  init(_ body: @escaping () -> Void) { self.body = body }
  func start() {
    var thread = pthread_t()
    let box = Unmanaged.passRetained(self).toOpaque()
    pthread_create(&thread, nil, { raw in
      guard let raw else { return nil }
      let me = Unmanaged<SessionThread>.fromOpaque(raw).takeRetainedValue()
      me.body()
      return nil
    }, box)
    pthread_detach(thread)
  }
}

func nowSeconds() -> Double {
  var t = timespec()
  clock_gettime(CLOCK_MONOTONIC, &t)
  return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}
