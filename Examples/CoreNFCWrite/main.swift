// CoreNFCWrite: Core NFC's write flow, as Core NFC code (`import CoreNFC`): the delegate takes
// the tag in readerSession(_:didDetect:), connects, checks queryNDEFStatus and writes a Text
// record (or a URI record, for an argument with "://") with writeNDEF, all with completion
// handlers. The reader comes from the environment:
//
//   NFC_READER=sim:ntag215 swift run CoreNFCWrite "Hello"
import CoreNFC
#if canImport(Glibc)
@preconcurrency import Glibc  // stdout, for setvbuf
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif
import Foundation

final class MessageWriter: NSObject, NFCNDEFReaderSessionDelegate {
  var session: NFCNDEFReaderSession?
  let message: NFCNDEFMessage

  init(message: NFCNDEFMessage) { self.message = message }

  func beginWrite() {
    session = NFCNDEFReaderSession(delegate: self, queue: nil, invalidateAfterFirstRead: false)
    session?.alertMessage = "Hold your iPhone near an NDEF tag to write the message."
    session?.begin()
  }

  func readerSessionDidBecomeActive(_ session: NFCNDEFReaderSession) {
    print(session.alertMessage)
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
              session.alertMessage = "Write NDEF message fail: \(error!.localizedDescription)"
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
    if let readerError = error as? NFCReaderError, readerError.code != .readerSessionInvalidationErrorUserCanceled {
      print("Session Invalidated: \(error.localizedDescription)")
      exit(1)
    }
    print(session.alertMessage)
    exit(session.alertMessage == "Write NDEF message successful." ? 0 : 1)
  }
}

setvbuf(stdout, nil, _IOLBF, 0)  // a line at a time, also into a pipe (`| tee log`)
let text = CommandLine.arguments.dropFirst().joined(separator: " ")
let payload = text.contains("://")
  ? NFCNDEFPayload.wellKnownTypeURIPayload(string: text)
  : NFCNDEFPayload.wellKnownTypeTextPayload(string: text.isEmpty ? "Hello from Core NFC on Linux" : text,
                                            locale: Locale(identifier: "en"))
guard let payload else {
  print("usage: CoreNFCWrite [TEXT or URI]")
  exit(64)
}
let writer = MessageWriter(message: NFCNDEFMessage(records: [payload]))
writer.beginWrite()
dispatchMain()
