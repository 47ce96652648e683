import CoreNFC
import Dispatch
import Foundation
import Testing

// Apple's NFCTagReaderSession flow, written as Core NFC code: connect to the tag found, then
// its native commands with completion handlers: ISO 7816 APDUs to a Type 4 card (select the
// NDEF application and file, write and read back), MIFARE commands to an NTAG (write a page,
// read it back). `finished` is the test's only addition.

final class TagCommander: NSObject, NFCTagReaderSessionDelegate {
  var session: NFCTagReaderSession?
  var log: [String] = []
  var finished: ((_ log: [String], _ error: any Error) -> Void)?

  func beginScanning() {
    guard NFCTagReaderSession.readingAvailable else { return }
    session = NFCTagReaderSession(pollingOption: [.iso14443], delegate: self, queue: nil)
    session?.alertMessage = "Hold your iPhone near an ISO7816 or MIFARE tag."
    session?.begin()
  }

  func tagReaderSessionDidBecomeActive(_ session: NFCTagReaderSession) {
    log.append("active")
  }

  func tagReaderSession(_ session: NFCTagReaderSession, didInvalidateWithError error: Error) {
    log.append("invalidated: \(error.localizedDescription)")
    finished?(log, error)
    self.session = nil
  }

  func tagReaderSession(_ session: NFCTagReaderSession, didDetect tags: [NFCTag]) {
    if tags.count > 1 {
      session.alertMessage = "More than 1 tag is detected. Please remove all tags and try again."
      session.restartPolling()
      return
    }
    let tag = tags.first!
    session.connect(to: tag) { (error: Error?) in
      if nil != error {
        session.invalidate(errorMessage: "Connection error. Please try again.")
        return
      }
      switch tag {
      case .iso7816(let iso7816Tag):
        self.log.append("iso7816 \(iso7816Tag.identifier.hex)")
        self.exchangeNDEFFile(with: iso7816Tag, session: session)
      case .miFare(let miFareTag):
        self.log.append("miFare family \(miFareTag.mifareFamily.rawValue) \(miFareTag.identifier.hex)")
        self.writeAndReadPage(of: miFareTag, session: session)
      default:
        session.invalidate(errorMessage: "This tag is not supported.")
      }
    }
  }

  /// SELECT the NDEF application, SELECT the NDEF file, UPDATE BINARY its NLEN to 0, READ BINARY it back.
  func exchangeNDEFFile(with tag: NFCISO7816Tag, session: NFCTagReaderSession) {
    let selectApplication = NFCISO7816APDU(instructionClass: 0x00, instructionCode: 0xA4, p1Parameter: 0x04, p2Parameter: 0x00,
                                           data: Data([0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]), expectedResponseLength: 256)
    let selectFile = NFCISO7816APDU(instructionClass: 0x00, instructionCode: 0xA4, p1Parameter: 0x00, p2Parameter: 0x0C,
                                    data: Data([0xE1, 0x04]), expectedResponseLength: -1)
    let writeLength = NFCISO7816APDU(instructionClass: 0x00, instructionCode: 0xD6, p1Parameter: 0x00, p2Parameter: 0x00,
                                     data: Data([0x00, 0x00]), expectedResponseLength: -1)
    let readLength = NFCISO7816APDU(instructionClass: 0x00, instructionCode: 0xB0, p1Parameter: 0x00, p2Parameter: 0x00,
                                    data: Data(), expectedResponseLength: 2)
    tag.sendCommand(apdu: selectApplication) { (response: Data, sw1: UInt8, sw2: UInt8, error: Error?) in
      self.log.append("select application \(String(format: "%02X%02X", sw1, sw2))")
      tag.sendCommand(apdu: selectFile) { (_: Data, sw1: UInt8, sw2: UInt8, error: Error?) in
        self.log.append("select file \(String(format: "%02X%02X", sw1, sw2))")
        tag.sendCommand(apdu: writeLength) { (_: Data, sw1: UInt8, sw2: UInt8, error: Error?) in
          self.log.append("update binary \(String(format: "%02X%02X", sw1, sw2))")
          tag.sendCommand(apdu: readLength) { (response: Data, sw1: UInt8, sw2: UInt8, error: Error?) in
            if let error {
              session.invalidate(errorMessage: "Read failed: \(error.localizedDescription)")
              return
            }
            self.log.append("read binary \(response.hex) \(String(format: "%02X%02X", sw1, sw2))")
            session.alertMessage = "Done."
            session.invalidate()
          }
        }
      }
    }
  }

  /// WRITE page 4 (`A2 04 …`), then READ from page 4 (`30 04`).
  func writeAndReadPage(of tag: NFCMiFareTag, session: NFCTagReaderSession) {
    tag.sendMiFareCommand(commandPacket: Data([0xA2, 0x04, 0x03, 0x00, 0xFE, 0x00])) { (response: Data, error: Error?) in
      if let error {
        session.invalidate(errorMessage: "Write failed: \(error.localizedDescription)")
        return
      }
      self.log.append("write \(response.hex)")
      tag.sendMiFareCommand(commandPacket: Data([0x30, 0x04])) { (response: Data, error: Error?) in
        if let error {
          session.invalidate(errorMessage: "Read failed: \(error.localizedDescription)")
          return
        }
        self.log.append("read \(response.hex)")
        session.invalidate()
      }
    }
  }
}

extension Data {
  var hex: String { map { String(format: "%02X", $0) }.joined() }
}

func runTagCommands() async -> (log: [String], code: NFCReaderError.Code?) {
  let commander = TagCommander()
  return await withCheckedContinuation { continuation in
    commander.finished = { log, error in continuation.resume(returning: (log, (error as? NFCReaderError)?.code)) }
    commander.beginScanning()
  }
}

@Suite struct CoreNFCTagReaderFlowTests {
  @Test func iso7816CommandsReachTheType4Card() async throws {
    // A message first; the APDUs then set the NDEF file's length to 0, which an NDEF read sees.
    let uri = try #require(NFCNDEFPayload.wellKnownTypeURIPayload(string: "https://example.org/type4"))
    let (written, commands, read) = try await onSimulator("sim:type4") {
      (await write(NFCNDEFMessage(records: [uri])), await runTagCommands(), await readMessages())
    }
    #expect(written.alert == "Write NDEF message successful.")
    #expect(read.code == .ndefReaderSessionErrorZeroLengthMessage)
    let (log, code) = commands
    #expect(code == .readerSessionInvalidationErrorUserCanceled)
    #expect(log.first == "active")
    #expect(log.dropFirst().first?.hasPrefix("iso7816 ") == true)
    #expect(Array(log.dropFirst(2).dropLast()) == [
      "select application 9000", "select file 9000", "update binary 9000", "read binary 0000 9000"])
  }

  @Test func miFareCommandsWriteAPageTheTagThenHolds() async throws {
    // A message first; WRITE then puts an empty NDEF TLV in page 4, which an NDEF read sees.
    let uri = try #require(NFCNDEFPayload.wellKnownTypeURIPayload(string: "https://example.org/ntag"))
    let (written, commands, read) = try await onSimulator("sim:ntag215") {
      (await write(NFCNDEFMessage(records: [uri])), await runTagCommands(), await readMessages())
    }
    #expect(written.alert == "Write NDEF message successful.")
    #expect(read.code == .ndefReaderSessionErrorZeroLengthMessage)
    let (log, code) = commands
    #expect(code == .readerSessionInvalidationErrorUserCanceled)
    #expect(log.dropFirst().first?.hasPrefix("miFare family 2 04") == true)
    #expect(log.dropFirst(2).first == "write 0A")
    #expect(log.dropFirst(3).first?.hasPrefix("read 0300FE00") == true)
    #expect(log.dropFirst(3).first?.count == "read ".count + 32)
  }

  @Test func theLocalizedDescriptionIsTheMessage() {
    let error: any Error = NFCReaderError(.readerSessionInvalidationErrorSessionTimeout, message: "no tag was presented within 60 s")
    #expect(error.localizedDescription == "no tag was presented within 60 s")
    #expect((error as NSError).domain == "NFCErrorDomain")
    #expect((error as NSError).code == 201)
  }

  @Test func apdusAreEncodedAsShortAPDUs() throws {
    let apdu = NFCISO7816APDU(instructionClass: 0x00, instructionCode: 0xB0, p1Parameter: 0x00, p2Parameter: 0x02,
                              data: Data(), expectedResponseLength: 256)
    let parsed = try #require(NFCISO7816APDU(data: Data([0x00, 0xA4, 0x04, 0x00, 0x02, 0xE1, 0x04, 0x00])))
    #expect(apdu.data == nil && apdu.expectedResponseLength == 256)
    #expect(parsed.data == Data([0xE1, 0x04]) && parsed.expectedResponseLength == 256 && parsed.p1Parameter == 0x04)
    #expect(NFCISO7816APDU(data: Data([0x00, 0xA4, 0x04, 0x00, 0x05, 0xE1])) == nil)
  }
}

@Suite struct CoreNFCErrorTests {
  @Test func codesMatchAsInCoreNFC() {
    let error: any Error = NFCReaderError(.readerTransceiveErrorTagConnectionLost)
    var matched = false
    do { throw error } catch NFCReaderError.readerTransceiveErrorTagConnectionLost { matched = true } catch {}
    #expect(matched)
    #expect((error as? NFCReaderError)?.code == NFCReaderError.readerTransceiveErrorTagConnectionLost)
    #expect(!(NFCReaderError.readerSessionInvalidationErrorUserCanceled ~= error))
  }
}
