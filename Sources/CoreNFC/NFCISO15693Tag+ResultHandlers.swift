#if os(Linux)
import Foundation

// Core NFC's `resultHandler:` forms of NFCISO15693Tag's commands: each runs the completion-handler
// form and hands its outcome over as a `Result`, on the session's queue.
extension NFCISO15693Tag {
  /// ``stayQuiet(completionHandler:)`` with a result handler.
  public func stayQuiet(resultHandler: @escaping (Result<Void, any Error>) -> Void) { stayQuiet { resultHandler(outcome($0)) } }
  /// ``readSingleBlock(requestFlags:blockNumber:completionHandler:)`` with a result handler.
  public func readSingleBlock(requestFlags flags: NFCISO15693RequestFlag, blockNumber: UInt8,
                              resultHandler: @escaping (Result<Data, any Error>) -> Void) {
    readSingleBlock(requestFlags: flags, blockNumber: blockNumber) { resultHandler(outcome($0, $1)) }
  }
  /// ``writeSingleBlock(requestFlags:blockNumber:dataBlock:completionHandler:)`` with a result handler.
  public func writeSingleBlock(requestFlags flags: NFCISO15693RequestFlag, blockNumber: UInt8, dataBlock: Data,
                               resultHandler: @escaping (Result<Void, any Error>) -> Void) {
    writeSingleBlock(requestFlags: flags, blockNumber: blockNumber, dataBlock: dataBlock) { resultHandler(outcome($0)) }
  }
  /// ``lockBlock(requestFlags:blockNumber:completionHandler:)`` with a result handler.
  public func lockBlock(requestFlags flags: NFCISO15693RequestFlag, blockNumber: UInt8,
                        resultHandler: @escaping (Result<Void, any Error>) -> Void) {
    lockBlock(requestFlags: flags, blockNumber: blockNumber) { resultHandler(outcome($0)) }
  }
  /// ``readMultipleBlocks(requestFlags:blockRange:completionHandler:)`` with a result handler.
  public func readMultipleBlocks(requestFlags flags: NFCISO15693RequestFlag, blockRange: NSRange,
                                 resultHandler: @escaping (Result<[Data], any Error>) -> Void) {
    readMultipleBlocks(requestFlags: flags, blockRange: blockRange) { resultHandler(outcome($0, $1)) }
  }
  /// ``writeMultipleBlocks(requestFlags:blockRange:dataBlocks:completionHandler:)`` with a result handler.
  public func writeMultipleBlocks(requestFlags flags: NFCISO15693RequestFlag, blockRange: NSRange, dataBlocks: [Data],
                                  resultHandler: @escaping (Result<Void, any Error>) -> Void) {
    writeMultipleBlocks(requestFlags: flags, blockRange: blockRange, dataBlocks: dataBlocks) { resultHandler(outcome($0)) }
  }
  /// ``select(requestFlags:completionHandler:)`` with a result handler.
  public func select(requestFlags flags: NFCISO15693RequestFlag, resultHandler: @escaping (Result<Void, any Error>) -> Void) {
    select(requestFlags: flags) { resultHandler(outcome($0)) }
  }
  /// ``resetToReady(requestFlags:completionHandler:)`` with a result handler.
  public func resetToReady(requestFlags flags: NFCISO15693RequestFlag, resultHandler: @escaping (Result<Void, any Error>) -> Void) {
    resetToReady(requestFlags: flags) { resultHandler(outcome($0)) }
  }
  /// ``writeAFI(requestFlags:afi:completionHandler:)`` with a result handler.
  public func writeAFI(requestFlags flags: NFCISO15693RequestFlag, afi: UInt8,
                       resultHandler: @escaping (Result<Void, any Error>) -> Void) {
    writeAFI(requestFlags: flags, afi: afi) { resultHandler(outcome($0)) }
  }
  /// ``lockAFI(requestFlags:completionHandler:)`` with a result handler.
  public func lockAFI(requestFlags flags: NFCISO15693RequestFlag, resultHandler: @escaping (Result<Void, any Error>) -> Void) {
    lockAFI(requestFlags: flags) { resultHandler(outcome($0)) }
  }
  /// ``writeDSFID(requestFlags:dsfid:completionHandler:)`` with a result handler.
  public func writeDSFID(requestFlags flags: NFCISO15693RequestFlag, dsfid: UInt8,
                         resultHandler: @escaping (Result<Void, any Error>) -> Void) {
    writeDSFID(requestFlags: flags, dsfid: dsfid) { resultHandler(outcome($0)) }
  }
  /// ``lockDSFID(requestFlags:completionHandler:)`` with a result handler.
  public func lockDSFID(requestFlags flags: NFCISO15693RequestFlag, resultHandler: @escaping (Result<Void, any Error>) -> Void) {
    lockDSFID(requestFlags: flags) { resultHandler(outcome($0)) }
  }
  /// ``customCommand(requestFlags:customCommandCode:customRequestParameters:completionHandler:)`` with a result handler.
  public func customCommand(requestFlags flags: NFCISO15693RequestFlag, customCommandCode: Int, customRequestParameters: Data,
                            resultHandler: @escaping (Result<Data, any Error>) -> Void) {
    customCommand(requestFlags: flags, customCommandCode: customCommandCode, customRequestParameters: customRequestParameters) {
      resultHandler(outcome($0, $1))
    }
  }
  /// ``getMultipleBlockSecurityStatus(requestFlags:blockRange:completionHandler:)`` with a result
  /// handler: one status per block, as `Int`.
  public func getMultipleBlockSecurityStatus(requestFlags flags: NFCISO15693RequestFlag, blockRange: NSRange,
                                             resultHandler: @escaping (Result<[Int], any Error>) -> Void) {
    getMultipleBlockSecurityStatus(requestFlags: flags, blockRange: blockRange) { resultHandler(outcome($0.map(\.intValue), $1)) }
  }
  /// ``extendedReadSingleBlock(requestFlags:blockNumber:completionHandler:)`` with a result handler.
  public func extendedReadSingleBlock(requestFlags flags: NFCISO15693RequestFlag, blockNumber: Int,
                                      resultHandler: @escaping (Result<Data, any Error>) -> Void) {
    extendedReadSingleBlock(requestFlags: flags, blockNumber: blockNumber) { resultHandler(outcome($0, $1)) }
  }
  /// ``extendedWriteSingleBlock(requestFlags:blockNumber:dataBlock:completionHandler:)`` with a result handler.
  public func extendedWriteSingleBlock(requestFlags flags: NFCISO15693RequestFlag, blockNumber: Int, dataBlock: Data,
                                       resultHandler: @escaping (Result<Void, any Error>) -> Void) {
    extendedWriteSingleBlock(requestFlags: flags, blockNumber: blockNumber, dataBlock: dataBlock) { resultHandler(outcome($0)) }
  }
  /// ``extendedLockBlock(requestFlags:blockNumber:completionHandler:)`` with a result handler.
  public func extendedLockBlock(requestFlags flags: NFCISO15693RequestFlag, blockNumber: Int,
                                resultHandler: @escaping (Result<Void, any Error>) -> Void) {
    extendedLockBlock(requestFlags: flags, blockNumber: blockNumber) { resultHandler(outcome($0)) }
  }
  /// ``extendedReadMultipleBlocks(requestFlags:blockRange:completionHandler:)`` with a result handler.
  public func extendedReadMultipleBlocks(requestFlags flags: NFCISO15693RequestFlag, blockRange: NSRange,
                                         resultHandler: @escaping (Result<[Data], any Error>) -> Void) {
    extendedReadMultipleBlocks(requestFlags: flags, blockRange: blockRange) { resultHandler(outcome($0, $1)) }
  }
  /// ``extendedWriteMultipleBlocks(requestFlags:blockRange:dataBlocks:completionHandler:)`` with a result handler.
  public func extendedWriteMultipleBlocks(requestFlags flags: NFCISO15693RequestFlag, blockRange: NSRange, dataBlocks: [Data],
                                          resultHandler: @escaping (Result<Void, any Error>) -> Void) {
    extendedWriteMultipleBlocks(requestFlags: flags, blockRange: blockRange, dataBlocks: dataBlocks) { resultHandler(outcome($0)) }
  }
  /// ``extendedGetMultipleBlockSecurityStatus(requestFlags:blockRange:completionHandler:)`` with a
  /// result handler: one status per block, as `Int`.
  public func extendedGetMultipleBlockSecurityStatus(requestFlags flags: NFCISO15693RequestFlag, blockRange: NSRange,
                                                     resultHandler: @escaping (Result<[Int], any Error>) -> Void) {
    extendedGetMultipleBlockSecurityStatus(requestFlags: flags, blockRange: blockRange) {
      resultHandler(outcome($0.map(\.intValue), $1))
    }
  }
  /// ``sendRequest(requestFlags:commandCode:data:completionHandler:)`` with a result handler.
  public func sendRequest(requestFlags flags: Int, commandCode: Int, data: Data?,
                          resultHandler: @escaping (Result<(NFCISO15693ResponseFlag, Data?), any Error>) -> Void) {
    sendRequest(requestFlags: flags, commandCode: commandCode, data: data) { resultHandler(outcome(($0, $1), $2)) }
  }
}
#endif
