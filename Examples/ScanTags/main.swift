// ScanTags: Core NFC's sample "Building an NFC Tag-Reader App" on a PC/SC reader.
// A multi-read NDEF session prints the records of every tag it reads.
//
//   swift run ScanTags [--reader NAME] [--timeout SECONDS]
import Dispatch
import NFCSession
#if canImport(Glibc)
@preconcurrency import Glibc  // stdout, for setvbuf
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

final class MessagesReader: NFCNDEFReaderSessionDelegate, Sendable {
  func readerSessionDidBecomeActive(_ session: NFCNDEFReaderSession) {
    print(session.alertMessage)
  }

  func readerSession(_ session: NFCNDEFReaderSession, didDetectNDEFs messages: [NDEFMessage]) {
    for message in messages {
      print("Message with \(message.records.count) record(s):")
      for record in message.records { print("  " + describe(record)) }
    }
  }

  func readerSession(_ session: NFCNDEFReaderSession, didInvalidateWithError error: NFCReaderError) {
    // As in the sample: no alert when the session ended because it was done.
    let done: [NFCReaderError.Code] = [.readerSessionInvalidationErrorFirstNDEFTagRead,
                                       .readerSessionInvalidationErrorUserCanceled,
                                       .readerSessionInvalidationErrorSessionTimeout]
    if !done.contains(error.code) { print("Session invalidated: \(error.message)") }
    exit(done.contains(error.code) ? 0 : 1)
  }

  func describe(_ record: NDEFRecord) -> String {
    if let text = TextRecord(record) { return "Text (\(text.language)): \(text.text)" }
    if let uri = URIRecord(record) { return "URI: \(uri.uri)" }
    return "\(record.tnf) \(String(decoding: record.type, as: UTF8.self)): \(hexString(record.payload))"
  }
}

setvbuf(stdout, nil, _IOLBF, 0)  // a line at a time, also into a pipe (`| tee log`)
let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
  arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
}

let reader = MessagesReader()
let session = NFCNDEFReaderSession(delegate: reader, queue: nil, invalidateAfterFirstRead: false,
                                   readerName: option("--reader"), timeout: option("--timeout").flatMap(Double.init) ?? 60)
session.alertMessage = "Hold your tag near the reader."
session.begin()
dispatchMain()
