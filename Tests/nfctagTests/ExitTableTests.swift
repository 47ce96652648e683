import Foundation
import Testing
@testable import nfctag
@testable import NFCTagCLI
import NFCSession
import NFCTags

/// docs/exit-codes.md is the contract: its "Core NFC codes" column and the tool's one table agree,
/// and every Core NFC code has a documented exit status.
@Suite struct ExitTable {
  static let allCodes: [NFCReaderError.Code] = [
    .readerErrorUnsupportedFeature, .readerErrorSecurityViolation, .readerErrorInvalidParameter,
    .readerErrorInvalidParameterLength, .readerErrorParameterOutOfBound, .readerErrorRadioDisabled,
    .readerTransceiveErrorTagConnectionLost, .readerTransceiveErrorRetryExceeded, .readerTransceiveErrorTagResponseError,
    .readerTransceiveErrorSessionInvalidated, .readerTransceiveErrorTagNotConnected, .readerTransceiveErrorPacketTooLong,
    .readerSessionInvalidationErrorUserCanceled, .readerSessionInvalidationErrorSessionTimeout,
    .readerSessionInvalidationErrorSessionTerminatedUnexpectedly, .readerSessionInvalidationErrorSystemIsBusy,
    .readerSessionInvalidationErrorFirstNDEFTagRead, .tagCommandConfigurationErrorInvalidParameters,
    .ndefReaderSessionErrorTagNotWritable, .ndefReaderSessionErrorTagUpdateFailure,
    .ndefReaderSessionErrorTagSizeTooSmall, .ndefReaderSessionErrorZeroLengthMessage,
  ]

  /// Exit status → the Core NFC codes the docs list for it ("3–5" is 3, 4 and 5).
  func documented() throws -> [Int: Int32] {
    let text = try String(contentsOf: packageRoot.appendingPathComponent("docs/exit-codes.md"), encoding: .utf8)
    var table: [Int: Int32] = [:]
    for line in text.split(separator: "\n") where line.hasPrefix("| ") {
      let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
      guard cells.count >= 3, let status = Int32(cells[0]) else { continue }
      for item in cells[2].split(separator: ",") {
        let number = item.trimmingCharacters(in: .whitespaces).prefix { $0.isNumber || $0 == "–" }
        let bounds = number.split(separator: "–").compactMap { Int($0) }
        guard let low = bounds.first else { continue }
        for code in low...(bounds.last ?? low) { table[code] = status }
      }
    }
    return table
  }

  @Test func everyCodeHasTheDocumentedExitStatus() throws {
    let docs = try documented()
    for code in Self.allCodes {
      #expect(docs[code.rawValue] == exitStatus(for: code), "Core NFC code \(code.rawValue)")
    }
    #expect(docs.count == Self.allCodes.count)
  }

  @Test func adviceNamesTheToolOnlyInTheTool() {
    let readOnly = cliFailure(for: TagError.readOnly)
    #expect(readOnly.code == 77)
    #expect(readOnly.message == "the tag is read-only; nothing was written")
    let refused = cliFailure(for: TagError.writeRefused(.nak(0), command: "WRITE", address: 4))
    #expect(refused.code == 77)
    #expect(refused.message.contains("--tag-password-file"))
    let lost = cliFailure(for: TagError.transceive(.tagRemoved, command: "READ", address: 4))
    #expect(lost.code == 74)
    #expect(lost.message.contains("tap again"))
    // The library's own message states the fact and nothing about this tool.
    #expect(!NFCReaderError(TagError.notFormatted("no CC")).message.contains("nfctag"))
    #expect(cliFailure(for: TagError.notFormatted("no CC")).message.hasSuffix("run `nfctag format` first"))
  }
}
