// CoreNFCTagCommands: an NFCTagReaderSession, as Core NFC code (`import CoreNFC`): connects to
// the tag found and sends it native commands with completion handlers: to an ISO 7816 card
// (NFC Forum Type 4), SELECT the NDEF application and its capability container and READ BINARY
// it; to a MIFARE tag (NTAG, Ultralight), GET_VERSION and READ from page 4. The reader comes
// from the environment:
//
//   NFC_READER=sim:type4 swift run CoreNFCTagCommands
//   NFC_READER=sim:ntag215 swift run CoreNFCTagCommands
import CoreNFC
#if canImport(Glibc)
@preconcurrency import Glibc  // stdout, for setvbuf
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif
import Foundation

final class TagCommander: NSObject, NFCTagReaderSessionDelegate {
  var session: NFCTagReaderSession?

  func beginScanning() {
    guard NFCTagReaderSession.readingAvailable else {
      print("Scanning Not Supported: set NFC_READER, or attach a reader.")
      exit(69)
    }
    session = NFCTagReaderSession(pollingOption: [.iso14443], delegate: self, queue: nil)
    session?.alertMessage = "Hold your iPhone near an ISO7816 or MIFARE tag."
    session?.begin()
  }

  func tagReaderSessionDidBecomeActive(_ session: NFCTagReaderSession) {
    print(session.alertMessage)
  }

  func tagReaderSession(_ session: NFCTagReaderSession, didInvalidateWithError error: Error) {
    if let readerError = error as? NFCReaderError, readerError.code != .readerSessionInvalidationErrorUserCanceled {
      print("Session Invalidated: \(error.localizedDescription)")
      exit(1)
    }
    exit(0)
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
        print("ISO 7816 tag \(hex(iso7816Tag.identifier))")
        self.readCapabilityContainer(of: iso7816Tag, session: session)
      case .miFare(let miFareTag):
        print("MIFARE tag \(hex(miFareTag.identifier)), family \(miFareTag.mifareFamily)")
        self.readVersionAndPage(of: miFareTag, session: session)
      default:
        session.invalidate(errorMessage: "This tag is not supported.")
      }
    }
  }

  func readCapabilityContainer(of tag: NFCISO7816Tag, session: NFCTagReaderSession) {
    let selectApplication = NFCISO7816APDU(instructionClass: 0x00, instructionCode: 0xA4, p1Parameter: 0x04, p2Parameter: 0x00,
                                           data: Data([0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]), expectedResponseLength: 256)
    let selectCC = NFCISO7816APDU(instructionClass: 0x00, instructionCode: 0xA4, p1Parameter: 0x00, p2Parameter: 0x0C,
                                  data: Data([0xE1, 0x03]), expectedResponseLength: -1)
    let readCC = NFCISO7816APDU(instructionClass: 0x00, instructionCode: 0xB0, p1Parameter: 0x00, p2Parameter: 0x00,
                                data: Data(), expectedResponseLength: 15)
    tag.sendCommand(apdu: selectApplication) { (_: Data, sw1: UInt8, sw2: UInt8, error: Error?) in
      guard error == nil, sw1 == 0x90 else { return session.invalidate(errorMessage: "SELECT failed: \(status(sw1, sw2, error))") }
      tag.sendCommand(apdu: selectCC) { (_: Data, sw1: UInt8, sw2: UInt8, error: Error?) in
        guard error == nil, sw1 == 0x90 else { return session.invalidate(errorMessage: "SELECT CC failed: \(status(sw1, sw2, error))") }
        tag.sendCommand(apdu: readCC) { (response: Data, sw1: UInt8, sw2: UInt8, error: Error?) in
          guard error == nil, sw1 == 0x90 else { return session.invalidate(errorMessage: "READ BINARY failed: \(status(sw1, sw2, error))") }
          print("Capability container: \(hex(response))")
          session.invalidate()
        }
      }
    }
  }

  func readVersionAndPage(of tag: NFCMiFareTag, session: NFCTagReaderSession) {
    tag.sendMiFareCommand(commandPacket: Data([0x60])) { (version: Data, error: Error?) in
      if let error { return session.invalidate(errorMessage: "GET_VERSION failed: \(error.localizedDescription)") }
      print("GET_VERSION: \(hex(version))")
      tag.sendMiFareCommand(commandPacket: Data([0x30, 0x04])) { (pages: Data, error: Error?) in
        if let error { return session.invalidate(errorMessage: "READ failed: \(error.localizedDescription)") }
        print("Pages 4-7: \(hex(pages))")
        session.invalidate()
      }
    }
  }
}

func hex(_ data: Data) -> String { data.map { String(format: "%02X", $0) }.joined(separator: " ") }
func status(_ sw1: UInt8, _ sw2: UInt8, _ error: Error?) -> String {
  error?.localizedDescription ?? String(format: "%02X %02X", sw1, sw2)
}

setvbuf(stdout, nil, _IOLBF, 0)  // a line at a time, also into a pipe (`| tee log`)
let commander = TagCommander()
commander.beginScanning()
dispatchMain()
