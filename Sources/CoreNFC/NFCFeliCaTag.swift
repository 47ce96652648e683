#if os(Linux)
import Foundation

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
#endif
