import CoreNFC
import Foundation
import Testing

// Core NFC's async forms, as Core NFC code uses them from a delegate: a Task that connects,
// then awaits the tag's commands. The outcome travels in the session's alertMessage, which the
// delegate hands to the test when the session ends.

final class AsyncWriter: NSObject, NFCNDEFReaderSessionDelegate {
  var session: NFCNDEFReaderSession?
  var finished: ((_ alert: String, _ error: any Error) -> Void)?

  func begin() {
    session = NFCNDEFReaderSession(delegate: self, queue: nil, invalidateAfterFirstRead: false)
    session?.begin()
  }

  func readerSession(_ session: NFCNDEFReaderSession, didDetectNDEFs messages: [NFCNDEFMessage]) {}

  func readerSession(_ session: NFCNDEFReaderSession, didDetect tags: [NFCNDEFTag]) {
    let tag = tags.first!
    Task {
      do {
        try await session.connect(to: tag)
        let (status, capacity) = try await tag.queryNDEFStatus()
        let message = NFCNDEFMessage(records: [NFCNDEFPayload.wellKnownTypeURIPayload(string: "https://example.org/async")!])
        try await tag.writeNDEF(message)
        let readBack = try await tag.readNDEF()
        session.alertMessage = "\(status) \(capacity) \(readBack.records.first?.wellKnownTypeURIPayload()?.absoluteString ?? "-") \(readBack.length)"
        session.invalidate()
      } catch {
        session.invalidate(errorMessage: "failed: \(error.localizedDescription)")
      }
    }
  }

  func readerSession(_ session: NFCNDEFReaderSession, didInvalidateWithError error: Error) {
    finished?(session.alertMessage, error)
    self.session = nil
  }
}

final class AsyncCommander: NSObject, NFCTagReaderSessionDelegate {
  var session: NFCTagReaderSession?
  var finished: ((_ alert: String, _ error: any Error) -> Void)?

  func begin() {
    session = NFCTagReaderSession(pollingOption: .iso14443, delegate: self)
    session?.begin()
  }

  func tagReaderSession(_ session: NFCTagReaderSession, didInvalidateWithError error: Error) {
    finished?(session.alertMessage, error)
    self.session = nil
  }

  func tagReaderSession(_ session: NFCTagReaderSession, didDetect tags: [NFCTag]) {
    let tag = tags.first!
    Task {
      do {
        try await session.connect(to: tag)
        switch tag {
        case .miFare(let miFareTag):
          let version = try await miFareTag.sendMiFareCommand(commandPacket: Data([0x60]))
          session.alertMessage = "version \(version.count) bytes, vendor \(version.dropFirst().first ?? 0)"
        case .iso7816(let iso7816Tag):
          let select = NFCISO7816APDU(instructionClass: 0, instructionCode: 0xA4, p1Parameter: 4, p2Parameter: 0,
                                      data: Data([0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]), expectedResponseLength: -1)
          let (_, sw1, sw2) = try await iso7816Tag.sendCommand(apdu: select)
          session.alertMessage = String(format: "select %02X%02X", sw1, sw2)
        default:
          session.alertMessage = "other"
        }
        session.invalidate()
      } catch {
        session.invalidate(errorMessage: "failed: \(error.localizedDescription)")
      }
    }
  }
}

@Suite struct CoreNFCAsyncFormTests {
  @Test func asyncConnectQueryWriteAndReadOnAnNTAG() async throws {
    let writer = AsyncWriter()
    let (alert, code) = try await onSimulator("sim:ntag215") {
      await withCheckedContinuation { continuation in
        writer.finished = { alert, error in continuation.resume(returning: (alert, (error as? NFCReaderError)?.code)) }
        writer.begin()
      }
    }
    #expect(code == .readerSessionInvalidationErrorUserCanceled)
    #expect(alert == "readWrite 492 https://example.org/async 22")
  }

  @Test func asyncNativeCommands() async throws {
    for (spec, expected) in [("sim:ntag215", "version 8 bytes, vendor 4"), ("sim:type4", "select 9000")] {
      let commander = AsyncCommander()
      let (alert, code) = try await onSimulator(spec) {
        await withCheckedContinuation { continuation in
          commander.finished = { alert, error in continuation.resume(returning: (alert, (error as? NFCReaderError)?.code)) }
          commander.begin()
        }
      }
      #expect(code == .readerSessionInvalidationErrorUserCanceled)
      #expect(alert == expected, "\(spec)")
    }
  }

  @Test func aTagIsUnavailableOnceItsSessionEnded() async throws {
    // A tag kept after its session ended: isAvailable is false and its commands fail with 103.
    final class Keeper: NSObject, NFCNDEFReaderSessionDelegate {
      var tags: [NFCNDEFTag] = []
      var finished: (() -> Void)?
      func readerSession(_ session: NFCNDEFReaderSession, didDetectNDEFs messages: [NFCNDEFMessage]) {}
      func readerSession(_ session: NFCNDEFReaderSession, didDetect tags: [NFCNDEFTag]) {
        self.tags = tags
        session.invalidate()
      }
      func readerSession(_ session: NFCNDEFReaderSession, didInvalidateWithError error: Error) { finished?() }
    }
    let keeper = Keeper()
    let code: NFCReaderError.Code? = try await onSimulator("sim:ntag215") {
      await withCheckedContinuation { continuation in
        keeper.finished = { continuation.resume() }
        let session = NFCNDEFReaderSession(delegate: keeper, queue: nil, invalidateAfterFirstRead: false)
        session.begin()
      }
      let tag = keeper.tags[0]
      #expect(!tag.isAvailable)
      do {
        _ = try await tag.readNDEF()
        return nil
      } catch {
        return (error as? NFCReaderError)?.code
      }
    }
    #expect(code == .readerTransceiveErrorSessionInvalidated)
  }
}
