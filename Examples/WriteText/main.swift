// WriteText: Core NFC's tutorial for writing a tag, on a PC/SC reader. Connects to the tag,
// checks that it is NDEF and writable, and writes one Text record.
//
//   swift run WriteText [--reader NAME] TEXT
import Dispatch
import NFCSession
#if canImport(Glibc)
@preconcurrency import Glibc  // stdout, for setvbuf
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

final class TextWriter: NFCNDEFReaderSessionDelegate, Sendable {
  let text: String
  init(text: String) { self.text = text }

  func readerSession(_ session: NFCNDEFReaderSession, didDetect tags: [any NFCNDEFTag]) {
    guard tags.count == 1, let tag = tags.first else {
      session.alertMessage = "More than 1 tag is detected. Please remove all tags and try again."
      session.restartPolling()
      return
    }
    do {
      try session.connect(to: tag)
      let (status, capacity) = try tag.queryNDEFStatus()
      guard status == .readWrite else {
        session.invalidate(errorMessage: status == .readOnly ? "Tag is read-only." : "Tag is not NDEF compliant.")
        return
      }
      try tag.writeNDEF(NDEFMessage(records: [TextRecord(text: text).record]))
      session.alertMessage = "Wrote \"\(text)\" (capacity \(capacity) bytes)."
      session.invalidate()
    } catch {
      session.invalidate(errorMessage: "Write failed: \(error.message)")
    }
  }

  func readerSession(_ session: NFCNDEFReaderSession, didInvalidateWithError error: NFCReaderError) {
    print(session.alertMessage.isEmpty ? error.message : session.alertMessage)
    exit(session.alertMessage.hasPrefix("Wrote") ? 0 : 1)
  }
}

setvbuf(stdout, nil, _IOLBF, 0)  // a line at a time, also into a pipe (`| tee log`)
var arguments = Array(CommandLine.arguments.dropFirst())
var readerName: String?
if let at = arguments.firstIndex(of: "--reader"), arguments.indices.contains(at + 1) {
  readerName = arguments[at + 1]
  arguments.removeSubrange(at...(at + 1))
}
guard let text = arguments.first else {
  print("usage: WriteText [--reader NAME] TEXT")
  exit(64)
}
let writer = TextWriter(text: text)
let session = NFCNDEFReaderSession(delegate: writer, queue: nil, invalidateAfterFirstRead: true, readerName: readerName)
session.begin()
dispatchMain()
