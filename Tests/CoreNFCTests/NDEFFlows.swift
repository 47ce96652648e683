import CoreNFC
import Dispatch
import Foundation
import Testing

// Apple's NDEF flows, written as Core NFC code: the sample's reader ("Building an NFC
// Tag-Reader App": a delegate with didDetectNDEFs) and the usual write (didDetect tags, then
// connect, queryNDEFStatus and writeNDEF with completion handlers). `finished` is the test's
// only addition: it hears the end with what the flow saw.

/// Reads messages, as the sample's `MessagesTableViewController` does.
final class MessagesReader: NSObject, NFCNDEFReaderSessionDelegate {
  var session: NFCNDEFReaderSession?
  var detectedMessages = [NFCNDEFMessage]()
  var alert: String?
  var finished: ((_ messages: [NFCNDEFMessage], _ alert: String?, _ error: any Error) -> Void)?

  func beginScanning() {
    guard NFCNDEFReaderSession.readingAvailable else {
      alert = "This device doesn't support tag scanning."
      return
    }
    session = NFCNDEFReaderSession(delegate: self, queue: nil, invalidateAfterFirstRead: true)
    session?.alertMessage = "Hold your iPhone near the item to learn more about it."
    session?.begin()
  }

  func readerSession(_ session: NFCNDEFReaderSession, didDetectNDEFs messages: [NFCNDEFMessage]) {
    detectedMessages.append(contentsOf: messages)
  }

  func readerSession(_ session: NFCNDEFReaderSession, didInvalidateWithError error: Error) {
    if let readerError = error as? NFCReaderError {
      if (readerError.code != .readerSessionInvalidationErrorFirstNDEFTagRead)
        && (readerError.code != .readerSessionInvalidationErrorUserCanceled) {
        alert = "Session Invalidated: \(error.localizedDescription)"
      }
    }
    self.session = nil
    finished?(detectedMessages, alert, error)
  }
}

/// Writes a message, as the usual Core NFC write sample does.
final class MessageWriter: NSObject, NFCNDEFReaderSessionDelegate {
  var session: NFCNDEFReaderSession?
  let message: NFCNDEFMessage
  var finished: ((_ alert: String, _ error: any Error) -> Void)?

  init(message: NFCNDEFMessage) { self.message = message }

  func beginWrite() {
    session = NFCNDEFReaderSession(delegate: self, queue: nil, invalidateAfterFirstRead: false)
    session?.alertMessage = "Hold your iPhone near an NDEF tag to write the message."
    session?.begin()
  }

  func readerSession(_ session: NFCNDEFReaderSession, didDetectNDEFs messages: [NFCNDEFMessage]) {
    // Not called: this delegate takes the tags.
  }

  func readerSession(_ session: NFCNDEFReaderSession, didDetect tags: [NFCNDEFTag]) {
    if tags.count > 1 {
      let retryInterval = DispatchTimeInterval.milliseconds(500)
      session.alertMessage = "More than 1 tag is detected, please remove all tags and try again."
      DispatchQueue.global().asyncAfter(deadline: .now() + retryInterval, execute: {
        session.restartPolling()
      })
      return
    }
    let tag = tags.first!
    session.connect(to: tag, completionHandler: { (error: Error?) in
      if nil != error {
        session.alertMessage = "Unable to connect to tag."
        session.invalidate()
        return
      }
      tag.queryNDEFStatus(completionHandler: { (ndefStatus: NFCNDEFStatus, capacity: Int, error: Error?) in
        guard error == nil else {
          session.alertMessage = "Unable to query the NDEF status of tag."
          session.invalidate()
          return
        }
        switch ndefStatus {
        case .notSupported:
          session.alertMessage = "Tag is not NDEF compliant."
          session.invalidate()
        case .readOnly:
          session.alertMessage = "Tag is read only."
          session.invalidate()
        case .readWrite:
          tag.writeNDEF(self.message, completionHandler: { (error: Error?) in
            if nil != error {
              session.alertMessage = "Write NDEF message fail: \(error!)"
            } else {
              session.alertMessage = "Write NDEF message successful."
            }
            session.invalidate()
          })
        }
      })
    })
  }

  func readerSession(_ session: NFCNDEFReaderSession, didInvalidateWithError error: Error) {
    finished?(session.alertMessage, error)
    self.session = nil
  }
}

/// What a flow ended with, for the test.
struct WriteOutcome: Sendable { let alert: String; let code: NFCReaderError.Code? }
struct ReadOutcome: Sendable {
  let texts: [String?]
  let languages: [String?]
  let urls: [URL?]
  let formats: [NFCTypeNameFormat]
  let alert: String?
  let code: NFCReaderError.Code?
}

func write(_ message: NFCNDEFMessage) async -> WriteOutcome {
  let writer = MessageWriter(message: message)
  return await withCheckedContinuation { continuation in
    writer.finished = { alert, error in
      continuation.resume(returning: WriteOutcome(alert: alert, code: (error as? NFCReaderError)?.code))
    }
    writer.beginWrite()
  }
}

func readMessages() async -> ReadOutcome {
  let reader = MessagesReader()
  return await withCheckedContinuation { continuation in
    reader.finished = { messages, alert, error in
      let records = messages.flatMap(\.records)
      continuation.resume(returning: ReadOutcome(
        texts: records.map { $0.wellKnownTypeTextPayload().0 },
        languages: records.map { $0.wellKnownTypeTextPayload().1?.identifier },
        urls: records.map { $0.wellKnownTypeURIPayload() },
        formats: records.map(\.typeNameFormat), alert: alert, code: (error as? NFCReaderError)?.code))
    }
    reader.beginScanning()
  }
}

@Suite struct CoreNFCNDEFFlowTests {
  @Test func theWriteFlowWritesAndTheReadFlowReadsItBack() async throws {
    let text = try #require(NFCNDEFPayload.wellKnownTypeTextPayload(string: "Hello from Linux", locale: Locale(identifier: "en")))
    let uri = try #require(NFCNDEFPayload.wellKnownTypeURIPayload(url: URL(string: "https://example.org/tag")!))
    let (written, read) = try await onSimulator("sim:ntag215") {
      (await write(NFCNDEFMessage(records: [text, uri])), await readMessages())
    }
    #expect(written.alert == "Write NDEF message successful.")
    #expect(written.code == .readerSessionInvalidationErrorUserCanceled)
    #expect(read.code == .readerSessionInvalidationErrorFirstNDEFTagRead)
    #expect(read.alert == nil)
    #expect(read.formats == [.nfcWellKnown, .nfcWellKnown])
    #expect(read.texts == ["Hello from Linux", nil])
    #expect(read.languages == ["en", nil])
    #expect(read.urls == [nil, URL(string: "https://example.org/tag")])
  }

  @Test func aMessageThatDoesNotFitIsRefusedAndTheTagKeepsItsMessage() async throws {
    let first = try #require(NFCNDEFPayload.wellKnownTypeURIPayload(string: "https://example.org/first"))
    let huge = NFCNDEFPayload(format: .media, type: Data("application/octet-stream".utf8), identifier: Data(),
                              payload: Data(repeating: 0x55, count: 2000))
    let (_, refused, read) = try await onSimulator("sim:ntag215") {
      (await write(NFCNDEFMessage(records: [first])), await write(NFCNDEFMessage(records: [huge])), await readMessages())
    }
    #expect(refused.alert.hasPrefix("Write NDEF message fail: "))
    #expect(refused.alert.contains("NFCReaderError 402"))
    #expect(read.urls == [URL(string: "https://example.org/first")])
  }

  @Test func anEmptyTagEndsTheReadFlowWithAMessageForPeople() async throws {
    let read = try await onSimulator("sim:ntag215") { await readMessages() }
    #expect(read.texts.isEmpty)
    #expect(read.code == .ndefReaderSessionErrorZeroLengthMessage)
    let alert = try #require(read.alert)
    #expect(alert.hasPrefix("Session Invalidated: "))
    #expect(!alert.contains("The operation could not be completed"))
  }
}

/// A multi-read session that stops after the first message, as a delegate may.
final class FirstMessageReader: NSObject, NFCNDEFReaderSessionDelegate {
  var session: NFCNDEFReaderSession?
  var count = 0
  var finished: ((_ count: Int, _ error: any Error) -> Void)?
  func begin() {
    session = NFCNDEFReaderSession(delegate: self, queue: nil, invalidateAfterFirstRead: false)
    session?.begin()
  }
  func readerSession(_ session: NFCNDEFReaderSession, didDetectNDEFs messages: [NFCNDEFMessage]) {
    count += messages.count
    session.invalidate()
  }
  func readerSession(_ session: NFCNDEFReaderSession, didInvalidateWithError error: Error) {
    finished?(count, error)
  }
}

@Suite struct CoreNFCMultiReadTests {
  @Test func aMultiReadSessionHandsEachMessageToDidDetectNDEFs() async throws {
    let uri = try #require(NFCNDEFPayload.wellKnownTypeURIPayload(string: "https://example.org/multi"))
    let reader = FirstMessageReader()
    let (count, code) = try await onSimulator("sim:ntag215") {
      _ = await write(NFCNDEFMessage(records: [uri]))
      return await withCheckedContinuation { continuation in
        reader.finished = { count, error in continuation.resume(returning: (count, (error as? NFCReaderError)?.code)) }
        reader.begin()
      }
    }
    #expect(count == 1)
    #expect(code == .readerSessionInvalidationErrorUserCanceled)
  }
}
