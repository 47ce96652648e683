#if os(Linux)
import Dispatch
import Foundation
internal import NFCSession

// NFCISO15693Tag's block security status (2Ch), its extended commands for tags of more than 256
// blocks (30h–34h, 3Ch: ISO/IEC 15693-3:2019 §10.4; NXP ICODE SLIX2 SL2S2602 §9.5, where
// they are not offered and answer error 01h), LOCK DSFID by its corrected name and the raw
// request. Extended block numbers go on the air as two bytes, least significant first.
extension ISO15693TagObject {
  func lockDSFID(requestFlags flags: NFCISO15693RequestFlag, completionHandler: @escaping ((any Error)?) -> Void) {
    lockDFSID(requestFlags: flags, completionHandler: completionHandler)
  }
  func lockDSFID(requestFlags flags: NFCISO15693RequestFlag) async throws { try await lockDFSID(requestFlags: flags) }

  func getMultipleBlockSecurityStatus(requestFlags flags: NFCISO15693RequestFlag, blockRange: NSRange,
                                      completionHandler: @escaping ([NSNumber], (any Error)?) -> Void) {
    deliver(completionHandler, orElse: []) { () throws(NFCReaderError) in try securityStatus(flags, blockRange, extended: false) }
  }
  func getMultipleBlockSecurityStatus(requestFlags flags: NFCISO15693RequestFlag, blockRange: NSRange) async throws -> [NSNumber] {
    try securityStatus(flags, blockRange, extended: false)
  }

  func extendedReadSingleBlock(requestFlags flags: NFCISO15693RequestFlag, blockNumber: Int,
                               completionHandler: @escaping (Data, (any Error)?) -> Void) {
    deliver(completionHandler, orElse: Data()) { () throws(NFCReaderError) in try extendedRead(flags, blockNumber) }
  }
  func extendedReadSingleBlock(requestFlags flags: NFCISO15693RequestFlag, blockNumber: Int) async throws -> Data {
    try extendedRead(flags, blockNumber)
  }

  func extendedWriteSingleBlock(requestFlags flags: NFCISO15693RequestFlag, blockNumber: Int, dataBlock: Data,
                                completionHandler: @escaping ((any Error)?) -> Void) {
    deliver(completionHandler) { () throws(NFCReaderError) in try extendedWrite(flags, blockNumber, dataBlock) }
  }
  func extendedWriteSingleBlock(requestFlags flags: NFCISO15693RequestFlag, blockNumber: Int, dataBlock: Data) async throws {
    try extendedWrite(flags, blockNumber, dataBlock)
  }

  func extendedLockBlock(requestFlags flags: NFCISO15693RequestFlag, blockNumber: Int,
                         completionHandler: @escaping ((any Error)?) -> Void) {
    deliver(completionHandler) { () throws(NFCReaderError) in try extendedLock(flags, blockNumber) }
  }
  func extendedLockBlock(requestFlags flags: NFCISO15693RequestFlag, blockNumber: Int) async throws {
    try extendedLock(flags, blockNumber)
  }

  func extendedReadMultipleBlocks(requestFlags flags: NFCISO15693RequestFlag, blockRange: NSRange,
                                  completionHandler: @escaping ([Data], (any Error)?) -> Void) {
    deliver(completionHandler, orElse: []) { () throws(NFCReaderError) in try extendedReadBlocks(flags, blockRange) }
  }
  func extendedReadMultipleBlocks(requestFlags flags: NFCISO15693RequestFlag, blockRange: NSRange) async throws -> [Data] {
    try extendedReadBlocks(flags, blockRange)
  }

  func extendedWriteMultipleBlocks(requestFlags flags: NFCISO15693RequestFlag, blockRange: NSRange, dataBlocks: [Data],
                                   completionHandler: @escaping ((any Error)?) -> Void) {
    deliver(completionHandler) { () throws(NFCReaderError) in try extendedWriteBlocks(flags, blockRange, dataBlocks) }
  }
  func extendedWriteMultipleBlocks(requestFlags flags: NFCISO15693RequestFlag, blockRange: NSRange,
                                   dataBlocks: [Data]) async throws {
    try extendedWriteBlocks(flags, blockRange, dataBlocks)
  }

  func extendedGetMultipleBlockSecurityStatus(requestFlags flags: NFCISO15693RequestFlag, blockRange: NSRange,
                                              completionHandler: @escaping ([NSNumber], (any Error)?) -> Void) {
    deliver(completionHandler, orElse: []) { () throws(NFCReaderError) in try securityStatus(flags, blockRange, extended: true) }
  }
  func extendedGetMultipleBlockSecurityStatus(requestFlags flags: NFCISO15693RequestFlag,
                                              blockRange: NSRange) async throws -> [NSNumber] {
    try securityStatus(flags, blockRange, extended: true)
  }

  func sendRequest(requestFlags flags: Int, commandCode: Int, data: Data?,
                   completionHandler: @escaping (NFCISO15693ResponseFlag, Data?, (any Error)?) -> Void) {
    let result = Result { () throws(NFCReaderError) in try raw(flags, commandCode, data) }
    onQueue(queue) {
      switch result {
      case .success(let (responseFlags, answer)): completionHandler(responseFlags, answer, nil)
      case .failure(let error): completionHandler([], nil, error)
      }
    }
  }
  func sendRequest(requestFlags flags: Int, commandCode: Int, data: Data?) async throws -> (NFCISO15693ResponseFlag, Data?) {
    try raw(flags, commandCode, data)
  }

  // The commands, on the calling thread.

  /// Runs `body` now and hands its value, or `empty` and its failure, to `handler` on the session's queue.
  private func deliver<T>(_ handler: @escaping (T, (any Error)?) -> Void, orElse empty: T,
                          _ body: () throws(NFCReaderError) -> T) {
    let result = Result { () throws(NFCReaderError) in try body() }
    onQueue(queue) {
      switch result {
      case .success(let value): handler(value, nil)
      case .failure(let error): handler(empty, error)
      }
    }
  }

  /// Runs `body` now and hands its failure to `handler` on the session's queue.
  private func deliver(_ handler: @escaping ((any Error)?) -> Void, _ body: () throws(NFCReaderError) -> Void) {
    let result = Result { () throws(NFCReaderError) in try body() }
    onQueue(queue) { handler(result.error) }
  }

  /// `number` as the two bytes of an extended block number, least significant first.
  private func extendedBlock(_ number: Int) throws(NFCReaderError) -> [UInt8] {
    guard let block = UInt16(exactly: number) else {
      throw NFCReaderError(.readerErrorInvalidParameter, message: "the block number \(number) is not within blocks 0 to 65535")
    }
    return [UInt8(block & 0xFF), UInt8(block >> 8)]
  }

  /// The first block and the count of `range`, checked against the block numbers a command can
  /// name (256 or 65536 of them), as the bytes the command takes: first block, then count − 1.
  private func rangeParameters(_ range: NSRange, extended: Bool) throws(NFCReaderError) -> (bytes: [UInt8], count: Int) {
    let limit = extended ? 65536 : 256
    guard range.length >= 1, range.location >= 0, range.location <= limit - range.length else {
      throw NFCReaderError(.readerErrorInvalidParameter,
                           message: "the block range \(range.location)+\(range.length) is not within blocks 0 to \(limit - 1)")
    }
    guard extended else { return ([UInt8(range.location), UInt8(range.length - 1)], range.length) }
    return (try extendedBlock(range.location) + (try extendedBlock(range.length - 1)), range.length)
  }

  private func extendedRead(_ flags: NFCISO15693RequestFlag, _ block: Int) throws(NFCReaderError) -> Data {
    Data(try request(flags, 0x30, try extendedBlock(block)))
  }

  private func extendedWrite(_ flags: NFCISO15693RequestFlag, _ block: Int, _ data: Data) throws(NFCReaderError) {
    _ = try request(flags, 0x31, try extendedBlock(block) + Array(data))
  }

  private func extendedLock(_ flags: NFCISO15693RequestFlag, _ block: Int) throws(NFCReaderError) {
    _ = try request(flags, 0x32, try extendedBlock(block))
  }

  private func extendedReadBlocks(_ flags: NFCISO15693RequestFlag, _ range: NSRange) throws(NFCReaderError) -> [Data] {
    let (parameters, count) = try rangeParameters(range, extended: true)
    let data = try request(flags, 0x33, parameters)
    guard !data.isEmpty, data.count % count == 0 else {
      throw NFCReaderError(.readerTransceiveErrorTagResponseError,
                           message: "EXTENDED READ MULTIPLE BLOCKS of \(count) blocks answered \(data.count) bytes")
    }
    let size = data.count / count
    return stride(from: 0, to: data.count, by: size).map { Data(data[$0 ..< $0 + size]) }
  }

  private func extendedWriteBlocks(_ flags: NFCISO15693RequestFlag, _ range: NSRange, _ blocks: [Data]) throws(NFCReaderError) {
    let (parameters, count) = try rangeParameters(range, extended: true)
    guard blocks.count == count, let size = blocks.first?.count, size > 0, blocks.allSatisfy({ $0.count == size }) else {
      throw NFCReaderError(.readerErrorInvalidParameter,
                           message: "EXTENDED WRITE MULTIPLE BLOCKS takes one block of data per block of the range, all of one size")
    }
    _ = try request(flags, 0x34, parameters + blocks.flatMap { Array($0) })
  }

  /// GET MULTIPLE BLOCK SECURITY STATUS (2Ch) or its extended form (3Ch): one byte per block.
  private func securityStatus(_ flags: NFCISO15693RequestFlag, _ range: NSRange, extended: Bool) throws(NFCReaderError) -> [NSNumber] {
    let (parameters, count) = try rangeParameters(range, extended: extended)
    let status = try request(flags, extended ? 0x3C : 0x2C, parameters)
    guard status.count == count else {
      throw NFCReaderError(.readerTransceiveErrorTagResponseError,
                           message: "the block security status of \(count) blocks came as \(status.count) bytes")
    }
    return status.map { NSNumber(value: Int($0)) }
  }

  /// `flags command data` as given; the answer's flags and the rest, a refusal included.
  private func raw(_ flags: Int, _ command: Int, _ data: Data?) throws(NFCReaderError) -> (NFCISO15693ResponseFlag, Data?) {
    guard let flagsByte = UInt8(exactly: flags), let commandByte = UInt8(exactly: command) else {
      throw NFCReaderError(.readerErrorInvalidParameter, message: "request flags and command code are bytes (\(flags), \(command))")
    }
    let tag = tag
    let answer = try mapped { () throws(NFCSession.NFCReaderError) in
      try tag.sendRawRequest([flagsByte, commandByte] + Array(data ?? Data()))
    }
    guard let responseFlags = answer.first else {
      throw NFCReaderError(.readerTransceiveErrorTagResponseError, message: "the tag answered nothing")
    }
    return (NFCISO15693ResponseFlag(rawValue: responseFlags), Data(answer.dropFirst()))
  }
}
#endif
