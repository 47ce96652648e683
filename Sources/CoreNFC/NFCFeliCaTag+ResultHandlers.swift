#if os(Linux)
import Foundation

// Core NFC's `resultHandler:` forms of NFCFeliCaTag's commands: each runs the completion-handler
// form and hands its outcome over as a `Result`, on the session's queue.
extension NFCFeliCaTag {
  /// ``polling(systemCode:requestCode:timeSlot:completionHandler:)`` with Core NFC's result handler.
  public func polling(systemCode: Data, requestCode: NFCFeliCaPollingRequestCode, timeSlot: NFCFeliCaPollingTimeSlot,
                      resultHandler: @escaping (Result<NFCFeliCaPollingResponse, any Error>) -> Void) {
    polling(systemCode: systemCode, requestCode: requestCode, timeSlot: timeSlot) {
      resultHandler(outcome(NFCFeliCaPollingResponse(manufactureParameter: $0, requestData: $1.isEmpty ? nil : $1), $2))
    }
  }
  /// ``readWithoutEncryption(serviceCodeList:blockList:completionHandler:)`` with Core NFC's result handler.
  public func readWithoutEncryption(serviceCodeList: [Data], blockList: [Data],
                                    resultHandler: @escaping (Result<(NFCFeliCaStatusFlag, [Data]), any Error>) -> Void) {
    readWithoutEncryption(serviceCodeList: serviceCodeList, blockList: blockList) {
      resultHandler(outcome((NFCFeliCaStatusFlag(statusFlag1: $0, statusFlag2: $1), $2), $3))
    }
  }
  /// ``writeWithoutEncryption(serviceCodeList:blockList:blockData:completionHandler:)`` with Core NFC's result handler.
  public func writeWithoutEncryption(serviceCodeList: [Data], blockList: [Data], blockData: [Data],
                                     resultHandler: @escaping (Result<NFCFeliCaStatusFlag, any Error>) -> Void) {
    writeWithoutEncryption(serviceCodeList: serviceCodeList, blockList: blockList, blockData: blockData) {
      resultHandler(outcome(NFCFeliCaStatusFlag(statusFlag1: $0, statusFlag2: $1), $2))
    }
  }
  /// ``sendFeliCaCommand(commandPacket:completionHandler:)`` with Core NFC's result handler.
  public func sendFeliCaCommand(commandPacket: Data, resultHandler: @escaping (Result<Data, any Error>) -> Void) {
    sendFeliCaCommand(commandPacket: commandPacket) { resultHandler(outcome($0, $1)) }
  }
  /// ``requestService(nodeCodeList:completionHandler:)`` with Core NFC's result handler.
  public func requestService(nodeCodeList: [Data], resultHandler: @escaping (Result<[Data], any Error>) -> Void) {
    requestService(nodeCodeList: nodeCodeList) { resultHandler(outcome($0, $1)) }
  }
  /// ``requestResponse(completionHandler:)`` with Core NFC's result handler.
  public func requestResponse(resultHandler: @escaping (Result<Int, any Error>) -> Void) {
    requestResponse { resultHandler(outcome($0, $1)) }
  }
  /// ``requestSystemCode(completionHandler:)`` with Core NFC's result handler.
  public func requestSystemCode(resultHandler: @escaping (Result<[Data], any Error>) -> Void) {
    requestSystemCode { resultHandler(outcome($0, $1)) }
  }
  /// ``requestServiceV2(nodeCodeList:completionHandler:)`` with Core NFC's result handler: a list
  /// the card did not send is nil.
  public func requestServiceV2(nodeCodeList: [Data],
                               resultHandler: @escaping (Result<NFCFeliCaRequsetServiceV2Response, any Error>) -> Void) {
    requestServiceV2(nodeCodeList: nodeCodeList) { sf1, sf2, encryption, aes, des, error in
      let response = NFCFeliCaRequsetServiceV2Response(statusFlag1: sf1, statusFlag2: sf2, encryptionIdentifier: encryption,
                                                       nodeKeyVersionListAES: aes.isEmpty ? nil : aes,
                                                       nodeKeyVersionListDES: des.isEmpty ? nil : des)
      resultHandler(outcome(response, error))
    }
  }
  /// ``requestSpecificationVersion(completionHandler:)`` with Core NFC's result handler: a
  /// version the card did not send is nil.
  public func requestSpecificationVersion(
    resultHandler: @escaping (Result<NFCFeliCaRequestSpecificationVersionResponse, any Error>) -> Void
  ) {
    requestSpecificationVersion { sf1, sf2, basic, option, error in
      let response = NFCFeliCaRequestSpecificationVersionResponse(statusFlag1: sf1, statusFlag2: sf2,
                                                                  basicVersion: basic.isEmpty ? nil : basic,
                                                                  optionVersion: option.isEmpty ? nil : option)
      resultHandler(outcome(response, error))
    }
  }
  /// ``resetMode(completionHandler:)`` with Core NFC's result handler.
  public func resetMode(resultHandler: @escaping (Result<NFCFeliCaStatusFlag, any Error>) -> Void) {
    resetMode { sf1, sf2, error in resultHandler(outcome(NFCFeliCaStatusFlag(statusFlag1: sf1, statusFlag2: sf2), error)) }
  }
}
#endif
