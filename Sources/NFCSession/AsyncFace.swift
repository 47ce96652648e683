import Dispatch
import NDEF
import NFCTags
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
      delegate.session = session
      session.begin()
    }
    return try result.get()
  }
}

/// Keeps itself (and its session) alive until the session ends, then resumes the continuation once.
final class OneShotDelegate: NFCNDEFReaderSessionDelegate, @unchecked Sendable {
  private var continuation: CheckedContinuation<Result<NDEFMessage, NFCReaderError>, Never>?
  private var message: NDEFMessage?
  var session: NFCNDEFReaderSession?
  private var keepAlive: OneShotDelegate?

  init(_ continuation: CheckedContinuation<Result<NDEFMessage, NFCReaderError>, Never>) {
    self.continuation = continuation
    keepAlive = self
  }

  func readerSession(_ session: NFCNDEFReaderSession, didDetectNDEFs messages: [NDEFMessage]) {
    if message == nil { message = messages.first }
  }

  func readerSession(_ session: NFCNDEFReaderSession, didInvalidateWithError error: NFCReaderError) {
    if let message, error.code == .readerSessionInvalidationErrorFirstNDEFTagRead {
      continuation?.resume(returning: .success(message))
    } else {
      continuation?.resume(returning: .failure(error))
    }
    continuation = nil
    self.session = nil
    keepAlive = nil
  }
}
