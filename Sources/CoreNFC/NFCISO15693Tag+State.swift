#if os(Linux)
import Dispatch
import Foundation

// NFCISO15693Tag's state and identification commands: SELECT, RESET TO READY, WRITE/LOCK AFI,
// WRITE/LOCK DSFID (ISO/IEC 15693-3 §10.4) and the manufacturer's custom commands (§10.5).
extension ISO15693TagObject {
  func select(requestFlags flags: NFCISO15693RequestFlag, completionHandler: @escaping ((any Error)?) -> Void) {
    run(completionHandler) { () throws(NFCReaderError) in _ = try request(flags.subtracting(.select), 0x25, []) }
  }
  func select(requestFlags flags: NFCISO15693RequestFlag) async throws {
    // SELECT is always addressed: the tag to select is named by its UID.
    _ = try request(flags.subtracting(.select), 0x25, [])
  }

  func resetToReady(requestFlags flags: NFCISO15693RequestFlag, completionHandler: @escaping ((any Error)?) -> Void) {
    run(completionHandler) { () throws(NFCReaderError) in _ = try request(flags, 0x26, []) }
  }
  func resetToReady(requestFlags flags: NFCISO15693RequestFlag) async throws { _ = try request(flags, 0x26, []) }

  func writeAFI(requestFlags flags: NFCISO15693RequestFlag, afi: UInt8, completionHandler: @escaping ((any Error)?) -> Void) {
    run(completionHandler) { () throws(NFCReaderError) in _ = try request(flags, 0x27, [afi]) }
  }
  func writeAFI(requestFlags flags: NFCISO15693RequestFlag, afi: UInt8) async throws { _ = try request(flags, 0x27, [afi]) }

  func lockAFI(requestFlags flags: NFCISO15693RequestFlag, completionHandler: @escaping ((any Error)?) -> Void) {
    run(completionHandler) { () throws(NFCReaderError) in _ = try request(flags, 0x28, []) }
  }
  func lockAFI(requestFlags flags: NFCISO15693RequestFlag) async throws { _ = try request(flags, 0x28, []) }

  func writeDSFID(requestFlags flags: NFCISO15693RequestFlag, dsfid: UInt8, completionHandler: @escaping ((any Error)?) -> Void) {
    run(completionHandler) { () throws(NFCReaderError) in _ = try request(flags, 0x29, [dsfid]) }
  }
  func writeDSFID(requestFlags flags: NFCISO15693RequestFlag, dsfid: UInt8) async throws { _ = try request(flags, 0x29, [dsfid]) }

  func lockDFSID(requestFlags flags: NFCISO15693RequestFlag, completionHandler: @escaping ((any Error)?) -> Void) {
    run(completionHandler) { () throws(NFCReaderError) in _ = try request(flags, 0x2A, []) }
  }
  func lockDFSID(requestFlags flags: NFCISO15693RequestFlag) async throws { _ = try request(flags, 0x2A, []) }

  func customCommand(requestFlags flags: NFCISO15693RequestFlag, customCommandCode: Int, customRequestParameters: Data,
                     completionHandler: @escaping (Data, (any Error)?) -> Void) {
    let result = Result { () throws(NFCReaderError) in try custom(flags, customCommandCode, customRequestParameters) }
    onQueue(queue) { completionHandler((try? result.get()) ?? Data(), result.error) }
  }
  func customCommand(requestFlags flags: NFCISO15693RequestFlag, customCommandCode: Int,
                     customRequestParameters: Data) async throws -> Data {
    try custom(flags, customCommandCode, customRequestParameters)
  }

  /// Runs `body` now, on the calling thread, and hands its failure to `handler` on the session's queue.
  private func run(_ handler: @escaping ((any Error)?) -> Void, _ body: () throws(NFCReaderError) -> Void) {
    let result = Result { () throws(NFCReaderError) in try body() }
    onQueue(queue) { handler(result.error) }
  }

  private func custom(_ flags: NFCISO15693RequestFlag, _ code: Int, _ parameters: Data) throws(NFCReaderError) -> Data {
    guard let command = UInt8(exactly: code), (0xA0...0xDF).contains(command) else {
      throw NFCReaderError(.readerErrorInvalidParameter, message: "custom commands are A0h to DFh, not \(code)")
    }
    guard let manufacturer = UInt8(exactly: icManufacturerCode), uid.count == 8 else {
      throw NFCReaderError(.readerErrorInvalidParameter, message: "the tag's UID names no manufacturer")
    }
    return Data(try request(flags, command, Array(parameters), prefix: [manufacturer]))
  }
}
#endif
