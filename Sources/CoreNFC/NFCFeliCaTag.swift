#if os(Linux)
import Dispatch
import Foundation
internal import NFCSession

/// What a Polling command asks the card to add to its answer. Core NFC's
/// `NFCFeliCaPollingRequestCode` (JIS X 6319-4 Polling, request code).
public enum NFCFeliCaPollingRequestCode: Int, Hashable, Sendable {
  /// 00h: nothing.
  case noRequest = 0
  /// 01h: the system code.
  case systemCode = 1
  /// 02h: the communication performance.
  case communicationPerformance = 2
}

/// How many time slots the cards may answer a Polling command in. Core NFC's
/// `NFCFeliCaPollingTimeSlot` (the value is the TSN byte).
public enum NFCFeliCaPollingTimeSlot: Int, Hashable, Sendable {
  /// One slot.
  case max1 = 0
  /// Two slots.
  case max2 = 1
  /// Four slots.
  case max4 = 3
  /// Eight slots.
  case max8 = 7
  /// Sixteen slots.
  case max16 = 15
}

/// Core NFC's other name for ``NFCFeliCaPollingRequestCode``.
public typealias PollingRequestCode = NFCFeliCaPollingRequestCode
/// Core NFC's other name for ``NFCFeliCaPollingTimeSlot``.
public typealias PollingTimeSlot = NFCFeliCaPollingTimeSlot

/// A Polling answer. Core NFC's `NFCFeliCaPollingResponse`.
public struct NFCFeliCaPollingResponse: Hashable, Sendable {
  /// The PMm (8 bytes).
  public var manufactureParameter: Data
  /// What the request code asked for (the system code, 2 bytes), or nil when nothing was asked.
  public var requestData: Data?
  /// An answer from its fields.
  public init(manufactureParameter: Data, requestData: Data?) {
    self.manufactureParameter = manufactureParameter
    self.requestData = requestData
  }
}

/// The two status flags of a FeliCa answer: 00h 00h is success; otherwise SF1 says where (FFh:
/// not tied to a block; else the block list position's bit) and SF2 what. Core NFC's
/// `NFCFeliCaStatusFlag`.
public struct NFCFeliCaStatusFlag: Hashable, Sendable {
  /// SF1.
  public var statusFlag1: Int
  /// SF2.
  public var statusFlag2: Int
  /// Flags from their values.
  public init(statusFlag1: Int, statusFlag2: Int) {
    self.statusFlag1 = statusFlag1
    self.statusFlag2 = statusFlag2
  }
}

/// A FeliCa card (NFC Forum Type 3). Core NFC's `NFCFeliCaTag`: NDEF, the raw command and the
/// commands below, with completion handlers (run on the session's queue) and async forms.
///
/// Packets are as Core NFC takes them: service and node codes little-endian as the card takes
/// them (000Bh is `0B 00`), block list elements `80 nn` (2 bytes) or `00 lo hi` (3 bytes). A
/// card's refusal of a read or write is its status flags, not an error; an error is a card that
/// does not answer (100) or answers out of shape (102).
public protocol NFCFeliCaTag: NFCNDEFTag {
  /// The IDm.
  var currentIDm: Data { get }
  /// The system code the card was found with (empty when unknown).
  var currentSystemCode: Data { get }
  /// Sends a FeliCa command packet (command code and parameters, without the length byte);
  /// the handler gets the answer, likewise.
  func sendFeliCaCommand(commandPacket: Data, completionHandler: @escaping (Data, (any Error)?) -> Void)
  /// ``sendFeliCaCommand(commandPacket:completionHandler:)``, async.
  func sendFeliCaCommand(commandPacket: Data) async throws -> Data
  /// Polling (00h) for `systemCode` (2 bytes; FFh is a wildcard): the handler gets the PMm and
  /// what `requestCode` asked for (empty when nothing).
  func polling(systemCode: Data, requestCode: NFCFeliCaPollingRequestCode, timeSlot: NFCFeliCaPollingTimeSlot,
               completionHandler: @escaping (Data, Data, (any Error)?) -> Void)
  /// ``polling(systemCode:requestCode:timeSlot:completionHandler:)``, async.
  func polling(systemCode: Data, requestCode: NFCFeliCaPollingRequestCode,
               timeSlot: NFCFeliCaPollingTimeSlot) async throws -> (Data, Data)
  /// Request Service (02h): the key version of each node (FFFFh when the node does not exist).
  func requestService(nodeCodeList: [Data], completionHandler: @escaping ([Data], (any Error)?) -> Void)
  /// ``requestService(nodeCodeList:completionHandler:)``, async.
  func requestService(nodeCodeList: [Data]) async throws -> [Data]
  /// Request Response (04h): the card's mode.
  func requestResponse(completionHandler: @escaping (Int, (any Error)?) -> Void)
  /// ``requestResponse(completionHandler:)``, async.
  func requestResponse() async throws -> Int
  /// Read Without Encryption (06h): the status flags and, when they are 00h 00h, one 16-byte
  /// `Data` per element of `blockList`.
  func readWithoutEncryption(serviceCodeList: [Data], blockList: [Data],
                             completionHandler: @escaping (Int, Int, [Data], (any Error)?) -> Void)
  /// ``readWithoutEncryption(serviceCodeList:blockList:completionHandler:)``, async.
  func readWithoutEncryption(serviceCodeList: [Data], blockList: [Data]) async throws -> (Int, Int, [Data])
  /// Write Without Encryption (08h) of one 16-byte `Data` per element of `blockList`: the status flags.
  func writeWithoutEncryption(serviceCodeList: [Data], blockList: [Data], blockData: [Data],
                              completionHandler: @escaping (Int, Int, (any Error)?) -> Void)
  /// ``writeWithoutEncryption(serviceCodeList:blockList:blockData:completionHandler:)``, async.
  func writeWithoutEncryption(serviceCodeList: [Data], blockList: [Data], blockData: [Data]) async throws -> (Int, Int)
  /// Request System Code (0Ch): the card's system codes.
  func requestSystemCode(completionHandler: @escaping ([Data], (any Error)?) -> Void)
  /// ``requestSystemCode(completionHandler:)``, async.
  func requestSystemCode() async throws -> [Data]
  /// Request Service V2 (32h): the status flags, the encryption the card uses, and the AES key
  /// version of each node (and, for ``NFCFeliCaEncryptionId/AES_DES``, its DES key version);
  /// FFFFh for a node that does not exist. The lists are empty when the status flags are not 00h 00h.
  func requestServiceV2(nodeCodeList: [Data],
                        completionHandler: @escaping (Int, Int, NFCFeliCaEncryptionId, [Data], [Data], (any Error)?) -> Void)
  /// ``requestServiceV2(nodeCodeList:completionHandler:)``, async.
  func requestServiceV2(nodeCodeList: [Data]) async throws -> (Int, Int, NFCFeliCaEncryptionId, [Data], [Data])
  /// Request Specification Version (3Ch): the status flags, the basic version (2 bytes) and the
  /// option versions (2 bytes each, one after the other); empty when the status flags are not 00h 00h.
  func requestSpecificationVersion(completionHandler: @escaping (Int, Int, Data, Data, (any Error)?) -> Void)
  /// ``requestSpecificationVersion(completionHandler:)``, async.
  func requestSpecificationVersion() async throws -> (Int, Int, Data, Data)
  /// Reset Mode (3Eh): the card returns to mode 0; the handler gets the status flags.
  func resetMode(completionHandler: @escaping (Int, Int, (any Error)?) -> Void)
  /// ``resetMode(completionHandler:)``, async.
  func resetMode() async throws -> (Int, Int)
}

final class FeliCaTagObject: TagObject, NFCFeliCaTag, @unchecked Sendable {  // lets only
  private var tag: NFCSession.NFCFeliCaTag {
    guard case .feliCa(let tag) = inner else { preconditionFailure("not a FeliCa tag") }
    return tag
  }
  var currentIDm: Data { Data(tag.currentIDm) }
  var currentSystemCode: Data { Data(tag.currentSystemCode ?? []) }

  func sendFeliCaCommand(commandPacket: Data, completionHandler: @escaping (Data, (any Error)?) -> Void) {
    let result = Result { () throws(NFCReaderError) in try send(commandPacket) }
    onQueue(queue) { completionHandler((try? result.get()) ?? Data(), result.error) }
  }
  func sendFeliCaCommand(commandPacket: Data) async throws -> Data { try send(commandPacket) }

  func polling(systemCode: Data, requestCode: NFCFeliCaPollingRequestCode, timeSlot: NFCFeliCaPollingTimeSlot,
               completionHandler: @escaping (Data, Data, (any Error)?) -> Void) {
    let result = Result { () throws(NFCReaderError) in try poll(systemCode, requestCode, timeSlot) }
    onQueue(queue) {
      switch result {
      case .success(let (pmm, requestData)): completionHandler(pmm, requestData, nil)
      case .failure(let error): completionHandler(Data(), Data(), error)
      }
    }
  }
  func polling(systemCode: Data, requestCode: NFCFeliCaPollingRequestCode,
               timeSlot: NFCFeliCaPollingTimeSlot) async throws -> (Data, Data) {
    try poll(systemCode, requestCode, timeSlot)
  }

  func requestService(nodeCodeList: [Data], completionHandler: @escaping ([Data], (any Error)?) -> Void) {
    let result = Result { () throws(NFCReaderError) in try service(nodeCodeList) }
    onQueue(queue) { completionHandler((try? result.get()) ?? [], result.error) }
  }
  func requestService(nodeCodeList: [Data]) async throws -> [Data] { try service(nodeCodeList) }

  func requestResponse(completionHandler: @escaping (Int, (any Error)?) -> Void) {
    let result = Result { () throws(NFCReaderError) in try mode() }
    onQueue(queue) { completionHandler((try? result.get()) ?? 0, result.error) }
  }
  func requestResponse() async throws -> Int { try mode() }

  func readWithoutEncryption(serviceCodeList: [Data], blockList: [Data],
                             completionHandler: @escaping (Int, Int, [Data], (any Error)?) -> Void) {
    let result = Result { () throws(NFCReaderError) in try read(serviceCodeList, blockList) }
    onQueue(queue) {
      switch result {
      case .success(let (sf1, sf2, blocks)): completionHandler(sf1, sf2, blocks, nil)
      case .failure(let error): completionHandler(0, 0, [], error)
      }
    }
  }
  func readWithoutEncryption(serviceCodeList: [Data], blockList: [Data]) async throws -> (Int, Int, [Data]) {
    try read(serviceCodeList, blockList)
  }

  func writeWithoutEncryption(serviceCodeList: [Data], blockList: [Data], blockData: [Data],
                              completionHandler: @escaping (Int, Int, (any Error)?) -> Void) {
    let result = Result { () throws(NFCReaderError) in try write(serviceCodeList, blockList, blockData) }
    onQueue(queue) {
      switch result {
      case .success(let (sf1, sf2)): completionHandler(sf1, sf2, nil)
      case .failure(let error): completionHandler(0, 0, error)
      }
    }
  }
  func writeWithoutEncryption(serviceCodeList: [Data], blockList: [Data], blockData: [Data]) async throws -> (Int, Int) {
    try write(serviceCodeList, blockList, blockData)
  }

  func requestSystemCode(completionHandler: @escaping ([Data], (any Error)?) -> Void) {
    let result = Result { () throws(NFCReaderError) in try systemCodes() }
    onQueue(queue) { completionHandler((try? result.get()) ?? [], result.error) }
  }
  func requestSystemCode() async throws -> [Data] { try systemCodes() }

  // The commands, on the calling thread (as NFCSession's tags run them). Frames: JIS X 6319-4
  // and the FeliCa Card User's Manual; answers carry the command code plus one and the IDm.

  private func send(_ packet: Data) throws(NFCReaderError) -> Data {
    let tag = tag
    return Data(try mapped { () throws(NFCSession.NFCReaderError) in try tag.sendFeliCaCommand(commandPacket: Array(packet)) })
  }

  /// Sends `code IDm body` and returns what follows the IDm of an answer `code+1 IDm …` that has
  /// at least `minimum` bytes there.
  func command(_ code: UInt8, _ body: [UInt8], name: String, minimum: Int) throws(NFCReaderError) -> [UInt8] {
    let idm = Array(currentIDm)
    let answer = Array(try send(Data([code] + idm + body)))
    guard answer.count >= 1 + idm.count + minimum, answer[0] == code &+ 1,
          Array(answer.dropFirst().prefix(idm.count)) == idm else {
      throw NFCReaderError(.readerTransceiveErrorTagResponseError,
                           message: "the card's answer to \(name) (\(answer.count) bytes) is not of its shape")
    }
    return Array(answer[(1 + idm.count)...])
  }

  func shapeError(_ name: String) -> NFCReaderError {
    NFCReaderError(.readerTransceiveErrorTagResponseError, message: "the card's answer to \(name) is not of its shape")
  }

  /// `count` codes of two bytes each from `bytes`, which must hold exactly them.
  func twoByteCodes(_ bytes: ArraySlice<UInt8>, count: Int, name: String) throws(NFCReaderError) -> [Data] {
    guard bytes.count == 2 * count else { throw shapeError(name) }
    return stride(from: bytes.startIndex, to: bytes.endIndex, by: 2).map { Data(bytes[$0..<($0 + 2)]) }
  }

  /// A count byte and a list of codes, checked: 1 to `maximum` codes of two bytes each.
  func codeList(_ codes: [Data], maximum: Int, what: String) throws(NFCReaderError) -> [UInt8] {
    guard (1...maximum).contains(codes.count), codes.allSatisfy({ $0.count == 2 }) else {
      throw NFCReaderError(.readerErrorInvalidParameter, message: "\(what): 1 to \(maximum) codes of 2 bytes each")
    }
    return [UInt8(codes.count)] + codes.flatMap { Array($0) }
  }

  func blockListBytes(_ blocks: [Data]) throws(NFCReaderError) -> [UInt8] {
    guard (1...255).contains(blocks.count), blocks.allSatisfy({ $0.count == 2 || $0.count == 3 }) else {
      throw NFCReaderError(.readerErrorInvalidParameter, message: "the block list: 1 to 255 elements of 2 or 3 bytes")
    }
    return [UInt8(blocks.count)] + blocks.flatMap { Array($0) }
  }

  private func poll(_ systemCode: Data, _ requestCode: NFCFeliCaPollingRequestCode,
                    _ timeSlot: NFCFeliCaPollingTimeSlot) throws(NFCReaderError) -> (Data, Data) {
    guard systemCode.count == 2 else {
      throw NFCReaderError(.readerErrorInvalidParameterLength, message: "a system code has 2 bytes, not \(systemCode.count)")
    }
    let answer = Array(try send(Data([0x00] + Array(systemCode) + [UInt8(requestCode.rawValue), UInt8(timeSlot.rawValue)])))
    // `01 IDm PMm [request data]`.
    guard answer.count >= 17, answer[0] == 0x01 else { throw shapeError("Polling") }
    return (Data(answer[9..<17]), Data(answer[17...]))
  }

  private func service(_ nodes: [Data]) throws(NFCReaderError) -> [Data] {
    let rest = try command(0x02, try codeList(nodes, maximum: 32, what: "the node code list"), name: "Request Service", minimum: 1)
    return try twoByteCodes(rest[1...], count: Int(rest[0]), name: "Request Service")
  }

  private func mode() throws(NFCReaderError) -> Int {
    let rest = try command(0x04, [], name: "Request Response", minimum: 1)
    return Int(rest[0])
  }

  private func read(_ services: [Data], _ blocks: [Data]) throws(NFCReaderError) -> (Int, Int, [Data]) {
    let body = try codeList(services, maximum: 16, what: "the service code list") + (try blockListBytes(blocks))
    let rest = try command(0x06, body, name: "Read Without Encryption", minimum: 2)
    let sf1 = Int(rest[0]), sf2 = Int(rest[1])
    guard sf1 == 0 else { return (sf1, sf2, []) }
    guard rest.count >= 3, Int(rest[2]) == blocks.count, rest.count == 3 + 16 * blocks.count else {
      throw shapeError("Read Without Encryption")
    }
    return (sf1, sf2, (0..<blocks.count).map { Data(rest[(3 + 16 * $0)..<(3 + 16 * ($0 + 1))]) })
  }

  private func write(_ services: [Data], _ blocks: [Data], _ data: [Data]) throws(NFCReaderError) -> (Int, Int) {
    guard data.count == blocks.count, data.allSatisfy({ $0.count == 16 }) else {
      throw NFCReaderError(.readerErrorInvalidParameter, message: "Write Without Encryption takes 16 bytes per block of the list")
    }
    let body = try codeList(services, maximum: 16, what: "the service code list") + (try blockListBytes(blocks))
      + data.flatMap { Array($0) }
    let rest = try command(0x08, body, name: "Write Without Encryption", minimum: 2)
    return (Int(rest[0]), Int(rest[1]))
  }

  private func systemCodes() throws(NFCReaderError) -> [Data] {
    let rest = try command(0x0C, [], name: "Request System Code", minimum: 1)
    return try twoByteCodes(rest[1...], count: Int(rest[0]), name: "Request System Code")
  }
}
#endif
