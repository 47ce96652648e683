// CoreNFCRead: Core NFC's sample "Building an NFC Tag-Reader App", as Core NFC code
// (`import CoreNFC`): a single-read NDEF session prints the records of the first tag it reads.
// The reader comes from the environment, as with every CoreNFC program:
//
//   NFC_READER=sim:ntag215 swift run CoreNFCRead      (or a PC/SC reader's name, prefix or index)
import CoreNFC
#if canImport(Glibc)
@preconcurrency import Glibc  // stdout, for setvbuf
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif
import Foundation

final class MessagesReader: NSObject, NFCNDEFReaderSessionDelegate {
  var session: NFCNDEFReaderSession?

  func beginScanning() {
    guard NFCNDEFReaderSession.readingAvailable else {
      print("Scanning Not Supported: this device doesn't support tag scanning (set NFC_READER, or attach a reader).")
      exit(69)
    }
    session = NFCNDEFReaderSession(delegate: self, queue: nil, invalidateAfterFirstRead: true)
    session?.alertMessage = "Hold your iPhone near the item to learn more about it."
    session?.begin()
  }

  func readerSessionDidBecomeActive(_ session: NFCNDEFReaderSession) {
    print(session.alertMessage)
  }

  func readerSession(_ session: NFCNDEFReaderSession, didDetectNDEFs messages: [NFCNDEFMessage]) {
    for message in messages {
      print("Message with \(message.records.count) record(s):")
      for payload in message.records {
        if let url = payload.wellKnownTypeURIPayload() {
          print("  URI \(url.absoluteString)")
        } else if case let (text?, locale) = payload.wellKnownTypeTextPayload() {
          print("  Text (\(locale?.identifier ?? "?")) \(text)")
        } else {
          print("  TNF \(payload.typeNameFormat.rawValue) type \(String(decoding: payload.type, as: UTF8.self)), \(payload.payload.count) bytes")
        }
      }
    }
  }

  func readerSession(_ session: NFCNDEFReaderSession, didInvalidateWithError error: Error) {
    if let readerError = error as? NFCReaderError {
      if (readerError.code != .readerSessionInvalidationErrorFirstNDEFTagRead)
        && (readerError.code != .readerSessionInvalidationErrorUserCanceled) {
        print("Session Invalidated: \(error.localizedDescription)")
        exit(1)
      }
    }
    self.session = nil
    exit(0)
  }
}

setvbuf(stdout, nil, _IOLBF, 0)  // a line at a time, also into a pipe (`| tee log`)
let reader = MessagesReader()
reader.beginScanning()
dispatchMain()
