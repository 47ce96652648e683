import CoreNFC
import Dispatch
import Foundation
import Testing

// As with Core NFC, a session keeps itself alive while it polls (a program may begin one
// without holding it), and no longer once it ended, however often begin() was called.

final class Ender: NSObject, NFCNDEFReaderSessionDelegate {
  var finished: ((_ code: NFCReaderError.Code?) -> Void)?
  func readerSession(_ session: NFCNDEFReaderSession, didDetectNDEFs messages: [NFCNDEFMessage]) {}
  func readerSession(_ session: NFCNDEFReaderSession, didDetect tags: [NFCNDEFTag]) { session.invalidate() }
  func readerSession(_ session: NFCNDEFReaderSession, didInvalidateWithError error: Error) {
    finished?((error as? NFCReaderError)?.code)
  }
}

@Suite struct CoreNFCSessionLifetimeTests {
  @Test func aSessionTheProgramDoesNotHoldRunsToItsEndAndIsThenReleased() async throws {
    let ender = Ender()
    weak var released: NFCNDEFReaderSession?
    let code = try await onSimulator("sim:ntag215") {
      await withCheckedContinuation { continuation in
        ender.finished = { continuation.resume(returning: $0) }
        let session = NFCNDEFReaderSession(delegate: ender, queue: nil, invalidateAfterFirstRead: false)
        released = session
        session.begin()
      }
    }
    #expect(code == .readerSessionInvalidationErrorUserCanceled)
    // The session stops keeping itself alive right after its delegate heard the end, on its queue.
    for _ in 0..<100 where released != nil { try await Task.sleep(for: .milliseconds(10)) }
    #expect(released == nil)
  }

  @Test func beginAgainAfterTheEndStartsNothingAndKeepsNothingAlive() async throws {
    let ender = Ender()
    weak var released: NFCNDEFReaderSession?
    let ends = try await onSimulator("sim:ntag215") { () async -> [NFCReaderError.Code?] in
      var ends: [NFCReaderError.Code?] = []
      var session: NFCNDEFReaderSession? = NFCNDEFReaderSession(delegate: ender, queue: nil, invalidateAfterFirstRead: false)
      released = session
      ends.append(await withCheckedContinuation { continuation in
        ender.finished = { continuation.resume(returning: $0) }
        session?.begin()
      })
      ender.finished = { Issue.record("a second end: \(String(describing: $0))") }
      session?.begin()
      session?.sessionQueue.sync {}
      session = nil
      return ends
    }
    #expect(ends == [.readerSessionInvalidationErrorUserCanceled])
    for _ in 0..<100 where released != nil { try await Task.sleep(for: .milliseconds(10)) }
    #expect(released == nil)
  }
}
