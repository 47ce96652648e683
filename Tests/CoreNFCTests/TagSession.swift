import CoreNFC
import Foundation
import Synchronization

// A tag reader session as Core NFC code runs one for a tag's native commands: connect to the
// tag found, run the commands in a Task, invalidate. `withTag` hands the tag to a test's body
// and returns what the body returned, or throws what it threw, once the session has ended.

final class TagSessionRunner<T: Sendable>: NSObject, NFCTagReaderSessionDelegate {
  let option: NFCTagReaderSession.PollingOption
  let body: @Sendable (NFCTag) async throws -> T
  let outcome = Mutex<Result<T, any Error>?>(nil)
  var session: NFCTagReaderSession?
  var finished: ((Result<T, any Error>?, any Error) -> Void)?

  init(option: NFCTagReaderSession.PollingOption, body: @escaping @Sendable (NFCTag) async throws -> T) {
    self.option = option
    self.body = body
  }

  func begin() {
    session = NFCTagReaderSession(pollingOption: option, delegate: self)
    session?.begin()
  }

  func tagReaderSession(_ session: NFCTagReaderSession, didDetect tags: [NFCTag]) {
    guard let tag = tags.first else { return session.invalidate(errorMessage: "no tag") }
    let body = body
    let box = Box(self)
    Task {
      let result: Result<T, any Error>
      do {
        try await session.connect(to: tag)
        result = .success(try await body(tag))
      } catch {
        result = .failure(error)
      }
      box.runner.outcome.withLock { $0 = result }
      session.invalidate()
    }
  }

  func tagReaderSession(_ session: NFCTagReaderSession, didInvalidateWithError error: Error) {
    finished?(outcome.withLock { $0 }, error)
    self.session = nil
  }

  /// The runner, to the Task: only `outcome` (a Mutex) is touched from there.
  private struct Box: @unchecked Sendable {
    let runner: TagSessionRunner
    init(_ runner: TagSessionRunner) { self.runner = runner }
  }
}

struct NoTagFound: Error { let error: any Error }

/// Runs `body` on the first tag an `option` tag reader session finds on a fresh simulated reader
/// of `spec` (or, for "transcript", the reader the caller injected); returns its result once the
/// session has ended.
func withTag<T: Sendable>(_ spec: String, _ option: NFCTagReaderSession.PollingOption,
                          _ body: @escaping @Sendable (NFCTag) async throws -> T) async throws -> T {
  let runner = TagSessionRunner(option: option, body: body)
  let run = {
    await withCheckedContinuation { continuation in
      runner.finished = { result, error in continuation.resume(returning: result ?? .failure(NoTagFound(error: error))) }
      runner.begin()
    }
  }
  // "transcript": the reader `onFeliCaTranscript` already gives the sessions.
  let outcome: Result<T, any Error> = spec == "transcript" ? await run() : try await onSimulator(spec) { await run() }
  return try outcome.get()
}

/// The Core NFC error code and ISO 15693 error code (`NFCISO15693TagResponseErrorKey`) of `body`'s failure.
func failure(_ body: () async throws -> Void) async -> (code: NFCReaderError.Code?, iso15693: Int?) {
  do {
    try await body()
    return (nil, nil)
  } catch {
    return ((error as? NFCReaderError)?.code, (error as NSError).userInfo[NFCISO15693TagResponseErrorKey] as? Int)
  }
}
