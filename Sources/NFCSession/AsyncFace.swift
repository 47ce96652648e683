import Dispatch
import Locking
import NDEF
import NFCTransport

/// The async/await face of a single-read session: begins, waits for the first NDEF message and
/// returns it; the session ends as Core NFC's does (204).
extension NFCNDEFReaderSession {
  /// Reads one NDEF message from the next tag on `poller`.
  /// - Throws: ``NFCReaderError`` (timeout 201, busy reader 203, empty tag 403…).
  public static func readOnce(poller: any TagPoller, timeout: Double = 60) async throws(NFCReaderError) -> NDEFMessage {
    let result: Result<NDEFMessage, NFCReaderError> = await withCheckedContinuation { continuation in
      let delegate = OneShotDelegate(continuation)
      let session = NFCNDEFReaderSession(delegate: delegate, queue: nil, invalidateAfterFirstRead: true,
                                         poller: poller, timeout: timeout)
      delegate.keep(session)
      session.begin()
    }
    return try result.get()
  }
}

/// Keeps itself and its session alive until the session ends, then resumes the continuation once.
final class OneShotDelegate: NFCNDEFReaderSessionDelegate, Sendable {
  private struct State {
    var continuation: CheckedContinuation<Result<NDEFMessage, NFCReaderError>, Never>?
    var message: NDEFMessage?
    var session: NFCNDEFReaderSession?
    var keepAlive: OneShotDelegate?
  }
  private let state: Locked<State>

  init(_ continuation: CheckedContinuation<Result<NDEFMessage, NFCReaderError>, Never>) {
    state = Locked(State(continuation: continuation))
  }

  func keep(_ session: NFCNDEFReaderSession) {
    state.withLock {
      $0.session = session
      $0.keepAlive = self
    }
  }

  func readerSession(_ session: NFCNDEFReaderSession, didDetectNDEFs messages: [NDEFMessage]) {
    state.withLock { if $0.message == nil { $0.message = messages.first } }
  }

  func readerSession(_ session: NFCNDEFReaderSession, didInvalidateWithError error: NFCReaderError) {
    let (continuation, message) = state.withLock { s in
      defer { s = State() }
      return (s.continuation, s.message)
    }
    if let message, error.code == .readerSessionInvalidationErrorFirstNDEFTagRead {
      continuation?.resume(returning: .success(message))
    } else {
      continuation?.resume(returning: .failure(error))
    }
  }
}
