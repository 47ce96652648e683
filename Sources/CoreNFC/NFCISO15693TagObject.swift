#if os(Linux)
import Foundation
internal import NFCSession
internal import NFCTags

/// ``NFCISO15693Tag`` over one of NFCSession's tags. The frames are NFCTags' (`ISO15693Requests`),
/// sent addressed as Core NFC sends them; each command's async form runs it, and its
/// completion-handler form hands the same call to `deliver`.
final class ISO15693TagObject: TagObject, NFCISO15693Tag, @unchecked Sendable {  // lets only
  var tag: NFCSession.NFCISO15693Tag {
    guard case .iso15693(let tag) = inner else { preconditionFailure("not an ISO 15693 tag") }
    return tag
  }
  var identifier: Data { uid }
  var icManufacturerCode: Int { Int(tag.icManufacturerCode ?? 0) }
  var icSerialNumber: Data { uid.count == 8 ? uid.suffix(6) : Data() }

  typealias Flags = NFCISO15693RequestFlag
  typealias Done = ((any Error)?) -> Void
  typealias Bytes = (Data, (any Error)?) -> Void
  typealias Blocks = ([Data], (any Error)?) -> Void
  typealias Statuses = ([NSNumber], (any Error)?) -> Void

  func stayQuiet(completionHandler: @escaping Done) { deliver(completionHandler) { try quiet() } }
  func stayQuiet() async throws { try quiet() }
  func readSingleBlock(requestFlags flags: Flags, blockNumber: UInt8, completionHandler: @escaping Bytes) {
    deliver(completionHandler, orElse: Data()) { try data(flags) { $0.readSingleBlock(blockNumber) } }
  }
  func readSingleBlock(requestFlags flags: Flags, blockNumber: UInt8) async throws -> Data {
    try data(flags) { $0.readSingleBlock(blockNumber) }
  }
  func writeSingleBlock(requestFlags flags: Flags, blockNumber: UInt8, dataBlock: Data, completionHandler: @escaping Done) {
    deliver(completionHandler) { try none(flags) { $0.writeSingleBlock(blockNumber, Array(dataBlock)) } }
  }
  func writeSingleBlock(requestFlags flags: Flags, blockNumber: UInt8, dataBlock: Data) async throws {
    try none(flags) { $0.writeSingleBlock(blockNumber, Array(dataBlock)) }
  }
  func lockBlock(requestFlags flags: Flags, blockNumber: UInt8, completionHandler: @escaping Done) {
    deliver(completionHandler) { try none(flags) { $0.lockBlock(blockNumber) } }
  }
  func lockBlock(requestFlags flags: Flags, blockNumber: UInt8) async throws { try none(flags) { $0.lockBlock(blockNumber) } }
  func readMultipleBlocks(requestFlags flags: Flags, blockRange: NSRange, completionHandler: @escaping Blocks) {
    deliver(completionHandler, orElse: []) { try readBlocks(flags, blockRange, extended: false) }
  }
  func readMultipleBlocks(requestFlags flags: Flags, blockRange: NSRange) async throws -> [Data] {
    try readBlocks(flags, blockRange, extended: false)
  }
  func writeMultipleBlocks(requestFlags flags: Flags, blockRange: NSRange, dataBlocks: [Data], completionHandler: @escaping Done) {
    deliver(completionHandler) { try writeBlocks(flags, blockRange, dataBlocks, extended: false) }
  }
  func writeMultipleBlocks(requestFlags flags: Flags, blockRange: NSRange, dataBlocks: [Data]) async throws {
    try writeBlocks(flags, blockRange, dataBlocks, extended: false)
  }
  func getSystemInfo(requestFlags flags: Flags, completionHandler: @escaping (Int, Int, Int, Int, Int, (any Error)?) -> Void) {
    deliver({ completionHandler($0.0, $0.1, $0.2, $0.3, $0.4, $1) }, orElse: (-1, -1, -1, -1, -1)) {
      let info = try systemInformation(flags)
      return (info.dataStorageFormatIdentifier, info.applicationFamilyIdentifier, info.blockSize, info.totalBlocks,
              info.icReference)
    }
  }
  func getSystemInfo(requestFlags flags: Flags, resultHandler: @escaping (Result<NFCISO15693SystemInfo, any Error>) -> Void) {
    deliver(resultHandler) { try systemInformation(flags) }
  }
  func systemInfo(requestFlags flags: Flags) async throws -> NFCISO15693SystemInfo { try systemInformation(flags) }

  // SELECT is always addressed: the tag to select is named by its UID.
  func select(requestFlags flags: Flags, completionHandler: @escaping Done) {
    deliver(completionHandler) { try none(flags.subtracting(.select)) { $0.select() } }
  }
  func select(requestFlags flags: Flags) async throws { try none(flags.subtracting(.select)) { $0.select() } }
  func resetToReady(requestFlags flags: Flags, completionHandler: @escaping Done) {
    deliver(completionHandler) { try none(flags) { $0.resetToReady() } }
  }
  func resetToReady(requestFlags flags: Flags) async throws { try none(flags) { $0.resetToReady() } }
  func writeAFI(requestFlags flags: Flags, afi: UInt8, completionHandler: @escaping Done) {
    deliver(completionHandler) { try none(flags) { $0.writeAFI(afi) } }
  }
  func writeAFI(requestFlags flags: Flags, afi: UInt8) async throws { try none(flags) { $0.writeAFI(afi) } }
  func lockAFI(requestFlags flags: Flags, completionHandler: @escaping Done) {
    deliver(completionHandler) { try none(flags) { $0.lockAFI() } }
  }
  func lockAFI(requestFlags flags: Flags) async throws { try none(flags) { $0.lockAFI() } }
  func writeDSFID(requestFlags flags: Flags, dsfid: UInt8, completionHandler: @escaping Done) {
    deliver(completionHandler) { try none(flags) { $0.writeDSFID(dsfid) } }
  }
  func writeDSFID(requestFlags flags: Flags, dsfid: UInt8) async throws { try none(flags) { $0.writeDSFID(dsfid) } }
  func lockDFSID(requestFlags flags: Flags, completionHandler: @escaping Done) {
    deliver(completionHandler) { try none(flags) { $0.lockDSFID() } }
  }
  func lockDFSID(requestFlags flags: Flags) async throws { try none(flags) { $0.lockDSFID() } }
  func lockDSFID(requestFlags flags: Flags, completionHandler: @escaping Done) {
    lockDFSID(requestFlags: flags, completionHandler: completionHandler)
  }
  func lockDSFID(requestFlags flags: Flags) async throws { try await lockDFSID(requestFlags: flags) }
  func customCommand(requestFlags flags: Flags, customCommandCode: Int, customRequestParameters: Data,
                     completionHandler: @escaping Bytes) {
    deliver(completionHandler, orElse: Data()) { try custom(flags, customCommandCode, customRequestParameters) }
  }
  func customCommand(requestFlags flags: Flags, customCommandCode: Int, customRequestParameters: Data) async throws -> Data {
    try custom(flags, customCommandCode, customRequestParameters)
  }
  func getMultipleBlockSecurityStatus(requestFlags flags: Flags, blockRange: NSRange,
                                      completionHandler: @escaping Statuses) {
    deliver(completionHandler, orElse: []) { try securityStatus(flags, blockRange, extended: false) }
  }
  func getMultipleBlockSecurityStatus(requestFlags flags: Flags, blockRange: NSRange) async throws -> [NSNumber] {
    try securityStatus(flags, blockRange, extended: false)
  }
  func extendedGetMultipleBlockSecurityStatus(requestFlags flags: Flags, blockRange: NSRange,
                                              completionHandler: @escaping Statuses) {
    deliver(completionHandler, orElse: []) { try securityStatus(flags, blockRange, extended: true) }
  }
  func extendedGetMultipleBlockSecurityStatus(requestFlags flags: Flags, blockRange: NSRange) async throws -> [NSNumber] {
    try securityStatus(flags, blockRange, extended: true)
  }
  func extendedReadSingleBlock(requestFlags flags: Flags, blockNumber: Int, completionHandler: @escaping Bytes) {
    deliver(completionHandler, orElse: Data()) { try data(flags) { $0.extendedReadSingleBlock(try block(blockNumber)) } }
  }
  func extendedReadSingleBlock(requestFlags flags: Flags, blockNumber: Int) async throws -> Data {
    try data(flags) { $0.extendedReadSingleBlock(try block(blockNumber)) }
  }
  func extendedWriteSingleBlock(requestFlags flags: Flags, blockNumber: Int, dataBlock: Data, completionHandler: @escaping Done) {
    deliver(completionHandler) { try none(flags) { $0.extendedWriteSingleBlock(try block(blockNumber), Array(dataBlock)) } }
  }
  func extendedWriteSingleBlock(requestFlags flags: Flags, blockNumber: Int, dataBlock: Data) async throws {
    try none(flags) { $0.extendedWriteSingleBlock(try block(blockNumber), Array(dataBlock)) }
  }
  func extendedLockBlock(requestFlags flags: Flags, blockNumber: Int, completionHandler: @escaping Done) {
    deliver(completionHandler) { try none(flags) { $0.extendedLockBlock(try block(blockNumber)) } }
  }
  func extendedLockBlock(requestFlags flags: Flags, blockNumber: Int) async throws {
    try none(flags) { $0.extendedLockBlock(try block(blockNumber)) }
  }
  func extendedReadMultipleBlocks(requestFlags flags: Flags, blockRange: NSRange,
                                  completionHandler: @escaping Blocks) {
    deliver(completionHandler, orElse: []) { try readBlocks(flags, blockRange, extended: true) }
  }
  func extendedReadMultipleBlocks(requestFlags flags: Flags, blockRange: NSRange) async throws -> [Data] {
    try readBlocks(flags, blockRange, extended: true)
  }
  func extendedWriteMultipleBlocks(requestFlags flags: Flags, blockRange: NSRange, dataBlocks: [Data],
                                   completionHandler: @escaping Done) {
    deliver(completionHandler) { try writeBlocks(flags, blockRange, dataBlocks, extended: true) }
  }
  func extendedWriteMultipleBlocks(requestFlags flags: Flags, blockRange: NSRange, dataBlocks: [Data]) async throws {
    try writeBlocks(flags, blockRange, dataBlocks, extended: true)
  }
  func sendRequest(requestFlags flags: Int, commandCode: Int, data: Data?,
                   completionHandler: @escaping (NFCISO15693ResponseFlag, Data?, (any Error)?) -> Void) {
    deliver({ completionHandler($0.0, $0.1, $1) }, orElse: ([], nil)) { try raw(flags, commandCode, data) }
  }
  func sendRequest(requestFlags flags: Int, commandCode: Int, data: Data?) async throws -> (NFCISO15693ResponseFlag, Data?) {
    try raw(flags, commandCode, data)
  }
}
#endif
