#if os(Linux)
import Foundation

/// A completion handler's value and error as a `Result`.
private func outcome<T>(_ value: T, _ error: (any Error)?) -> Result<T, any Error> {
  error.map { .failure($0) } ?? .success(value)
}

// Core NFC's `resultHandler:` forms of NFCFeliCaTag's commands: each runs the completion-handler
// form and hands its outcome over as a `Result`, on the session's queue.
extension NFCFeliCaTag {
  /// ``polling(systemCode:requestCode:timeSlot:completionHandler:)`` with Core NFC's result handler.
  public func polling(systemCode: Data, requestCode: NFCFeliCaPollingRequestCode, timeSlot: NFCFeliCaPollingTimeSlot,
                      resultHandler: @escaping (Result<NFCFeliCaPollingResponse, any Error>) -> Void) {
    polling(systemCode: systemCode, requestCode: requestCode, timeSlot: timeSlot) { pmm, requestData, error in
      if let error { return resultHandler(.failure(error)) }
      resultHandler(.success(NFCFeliCaPollingResponse(manufactureParameter: pmm,
                                                      requestData: requestData.isEmpty ? nil : requestData)))
    }
  }

  /// ``readWithoutEncryption(serviceCodeList:blockList:completionHandler:)`` with Core NFC's result handler.
  public func readWithoutEncryption(serviceCodeList: [Data], blockList: [Data],
                                    resultHandler: @escaping (Result<(NFCFeliCaStatusFlag, [Data]), any Error>) -> Void) {
    readWithoutEncryption(serviceCodeList: serviceCodeList, blockList: blockList) { sf1, sf2, blocks, error in
      if let error { return resultHandler(.failure(error)) }
      resultHandler(.success((NFCFeliCaStatusFlag(statusFlag1: sf1, statusFlag2: sf2), blocks)))
    }
  }

  /// ``writeWithoutEncryption(serviceCodeList:blockList:blockData:completionHandler:)`` with Core NFC's result handler.
  public func writeWithoutEncryption(serviceCodeList: [Data], blockList: [Data], blockData: [Data],
                                     resultHandler: @escaping (Result<NFCFeliCaStatusFlag, any Error>) -> Void) {
    writeWithoutEncryption(serviceCodeList: serviceCodeList, blockList: blockList, blockData: blockData) { sf1, sf2, error in
      if let error { return resultHandler(.failure(error)) }
      resultHandler(.success(NFCFeliCaStatusFlag(statusFlag1: sf1, statusFlag2: sf2)))
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
