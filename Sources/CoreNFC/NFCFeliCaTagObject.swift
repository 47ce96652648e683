#if os(Linux)
import Foundation
internal import NFCSession
internal import NFCTags

/// ``NFCFeliCaTag`` over one of NFCSession's tags. The packets are NFCTags' (`FeliCaPackets`);
/// each command's async form runs it, and its completion-handler form hands the same call to
/// `deliver`. Status flags are results here, as in Core NFC, not errors.
final class FeliCaTagObject: TagObject, NFCFeliCaTag, @unchecked Sendable {  // lets only
  private var tag: NFCSession.NFCFeliCaTag {
    guard case .feliCa(let tag) = inner else { preconditionFailure("not a FeliCa tag") }
    return tag
  }
  var currentIDm: Data { Data(tag.currentIDm) }
  var currentSystemCode: Data { Data(tag.currentSystemCode ?? []) }

  typealias Codes = ([Data], (any Error)?) -> Void

  func sendFeliCaCommand(commandPacket: Data, completionHandler: @escaping (Data, (any Error)?) -> Void) {
    deliver(completionHandler, orElse: Data()) { Data(try send(Array(commandPacket))) }
  }
  func sendFeliCaCommand(commandPacket: Data) async throws -> Data { Data(try send(Array(commandPacket))) }
  func polling(systemCode: Data, requestCode: NFCFeliCaPollingRequestCode, timeSlot: NFCFeliCaPollingTimeSlot,
               completionHandler: @escaping (Data, Data, (any Error)?) -> Void) {
    deliver({ completionHandler($0.0, $0.1, $1) }, orElse: (Data(), Data())) { try poll(systemCode, requestCode, timeSlot) }
  }
  func polling(systemCode: Data, requestCode: NFCFeliCaPollingRequestCode,
               timeSlot: NFCFeliCaPollingTimeSlot) async throws -> (Data, Data) {
    try poll(systemCode, requestCode, timeSlot)
  }
  func requestService(nodeCodeList: [Data], completionHandler: @escaping Codes) {
    deliver(completionHandler, orElse: []) { try service(nodeCodeList) }
  }
  func requestService(nodeCodeList: [Data]) async throws -> [Data] { try service(nodeCodeList) }
  func requestResponse(completionHandler: @escaping (Int, (any Error)?) -> Void) { deliver(completionHandler, orElse: 0) { try mode() } }
  func requestResponse() async throws -> Int { try mode() }
  func readWithoutEncryption(serviceCodeList: [Data], blockList: [Data],
                             completionHandler: @escaping (Int, Int, [Data], (any Error)?) -> Void) {
    deliver({ completionHandler($0.0, $0.1, $0.2, $1) }, orElse: (0, 0, [])) { try read(serviceCodeList, blockList) }
  }
  func readWithoutEncryption(serviceCodeList: [Data], blockList: [Data]) async throws -> (Int, Int, [Data]) {
    try read(serviceCodeList, blockList)
  }
  func writeWithoutEncryption(serviceCodeList: [Data], blockList: [Data], blockData: [Data],
                              completionHandler: @escaping (Int, Int, (any Error)?) -> Void) {
    deliver({ completionHandler($0.0, $0.1, $1) }, orElse: (0, 0)) { try write(serviceCodeList, blockList, blockData) }
  }
  func writeWithoutEncryption(serviceCodeList: [Data], blockList: [Data], blockData: [Data]) async throws -> (Int, Int) {
    try write(serviceCodeList, blockList, blockData)
  }
  func requestSystemCode(completionHandler: @escaping Codes) { deliver(completionHandler, orElse: []) { try systemCodes() } }
  func requestSystemCode() async throws -> [Data] { try systemCodes() }
  func requestServiceV2(nodeCodeList: [Data],
                        completionHandler: @escaping (Int, Int, NFCFeliCaEncryptionId, [Data], [Data], (any Error)?) -> Void) {
    deliver({ completionHandler($0.0, $0.1, $0.2, $0.3, $0.4, $1) }, orElse: (0, 0, .AES, [], [])) { try serviceV2(nodeCodeList) }
  }
  func requestServiceV2(nodeCodeList: [Data]) async throws -> (Int, Int, NFCFeliCaEncryptionId, [Data], [Data]) {
    try serviceV2(nodeCodeList)
  }
  func requestSpecificationVersion(completionHandler: @escaping (Int, Int, Data, Data, (any Error)?) -> Void) {
    deliver({ completionHandler($0.0, $0.1, $0.2, $0.3, $1) }, orElse: (0, 0, Data(), Data())) { try specificationVersion() }
  }
  func requestSpecificationVersion() async throws -> (Int, Int, Data, Data) { try specificationVersion() }
  func resetMode(completionHandler: @escaping (Int, Int, (any Error)?) -> Void) {
    deliver({ completionHandler($0.0, $0.1, $1) }, orElse: (0, 0)) { try reset() }
  }
  func resetMode() async throws -> (Int, Int) { try reset() }

  // The commands, on the calling thread (as NFCSession's tags run them).

  private var packets: FeliCaPackets { FeliCaPackets(idm: Array(currentIDm)) }

  private func send(_ packet: [UInt8]) throws -> [UInt8] {
    let tag = tag
    return try mapped { () throws(NFCSession.NFCReaderError) in try tag.sendFeliCaCommand(commandPacket: packet) }
  }

  /// Sends `packet` and returns what follows the IDm of an answer `code+1 IDm …` that has at
  /// least `minimum` bytes there (2: the status flags), counted from 0.
  private func command(_ packet: [UInt8], name: String, minimum: Int) throws -> [UInt8] {
    let answer = try send(packet)
    guard let code = packet.first, let rest = packets.answer(answer, to: code, minimum: minimum) else {
      throw NFCReaderError(.readerTransceiveErrorTagResponseError,
                           message: "the card's answer to \(name) (\(answer.count) bytes) is not of its shape")
    }
    return Array(rest)
  }

  private func shapeError(_ name: String) -> NFCReaderError {
    NFCReaderError(.readerTransceiveErrorTagResponseError, message: "the card's answer to \(name) is not of its shape")
  }

  /// A list of codes, checked: 1 to `maximum` codes of two bytes each.
  private func codes(_ codes: [Data], maximum: Int, what: String) throws -> [[UInt8]] {
    guard (1...maximum).contains(codes.count), codes.allSatisfy({ $0.count == 2 }) else {
      throw NFCReaderError(.readerErrorInvalidParameter, message: "\(what): 1 to \(maximum) codes of 2 bytes each")
    }
    return codes.map { Array($0) }
  }

  /// A block list, checked: 1 to 255 elements of 2 or 3 bytes.
  private func elements(_ blocks: [Data]) throws -> [[UInt8]] {
    guard (1...255).contains(blocks.count), blocks.allSatisfy({ $0.count == 2 || $0.count == 3 }) else {
      throw NFCReaderError(.readerErrorInvalidParameter, message: "the block list: 1 to 255 elements of 2 or 3 bytes")
    }
    return blocks.map { Array($0) }
  }

  /// A command whose answer is a count byte and that many two-byte codes, as Core NFC gives them.
  private func counted(_ packet: [UInt8], _ name: String) throws -> [Data] {
    guard let codes = FeliCaPackets.countedCodes(try command(packet, name: name, minimum: 1)[...]) else { throw shapeError(name) }
    return codes.map { Data($0) }
  }

  private func poll(_ systemCode: Data, _ requestCode: NFCFeliCaPollingRequestCode,
                    _ timeSlot: NFCFeliCaPollingTimeSlot) throws -> (Data, Data) {
    guard systemCode.count == 2 else {
      throw NFCReaderError(.readerErrorInvalidParameterLength, message: "a system code has 2 bytes, not \(systemCode.count)")
    }
    let answer = try send(FeliCaPackets.polling(systemCode: Array(systemCode), requestCode: UInt8(requestCode.rawValue),
                                                timeSlot: UInt8(timeSlot.rawValue)))
    // `01 IDm PMm [request data]`.
    guard answer.count >= 17, answer[0] == 0x01 else { throw shapeError("Polling") }
    return (Data(answer[9..<17]), Data(answer[17...]))
  }

  private func service(_ nodes: [Data]) throws -> [Data] {
    try counted(packets.requestService(nodes: try codes(nodes, maximum: 32, what: "the node code list")), "Request Service")
  }

  private func mode() throws -> Int { Int(try command(packets.requestResponse(), name: "Request Response", minimum: 1)[0]) }

  private func read(_ services: [Data], _ blocks: [Data]) throws -> (Int, Int, [Data]) {
    let packet = packets.readWithoutEncryption(services: try codes(services, maximum: 16, what: "the service code list"),
                                               blocks: try elements(blocks))
    let rest = try command(packet, name: "Read Without Encryption", minimum: 2)
    let sf1 = Int(rest[0]), sf2 = Int(rest[1])
    guard sf1 == 0 else { return (sf1, sf2, []) }
    guard let data = FeliCaPackets.blockData(rest[2...], count: blocks.count) else { throw shapeError("Read Without Encryption") }
    return (sf1, sf2, data.map { Data($0) })
  }

  private func write(_ services: [Data], _ blocks: [Data], _ data: [Data]) throws -> (Int, Int) {
    guard data.count == blocks.count, data.allSatisfy({ $0.count == 16 }) else {
      throw NFCReaderError(.readerErrorInvalidParameter, message: "Write Without Encryption takes 16 bytes per block of the list")
    }
    let packet = packets.writeWithoutEncryption(services: try codes(services, maximum: 16, what: "the service code list"),
                                                blocks: try elements(blocks), data: data.flatMap { Array($0) })
    let rest = try command(packet, name: "Write Without Encryption", minimum: 2)
    return (Int(rest[0]), Int(rest[1]))
  }

  private func systemCodes() throws -> [Data] { try counted(packets.requestSystemCode(), "Request System Code") }

  private func serviceV2(_ nodes: [Data]) throws -> (Int, Int, NFCFeliCaEncryptionId, [Data], [Data]) {
    let packet = packets.requestServiceV2(nodes: try codes(nodes, maximum: 32, what: "the node code list"))
    let rest = try command(packet, name: "Request Service V2", minimum: 2)
    let sf1 = Int(rest[0]), sf2 = Int(rest[1])
    guard sf1 == 0 else { return (sf1, sf2, .AES, [], []) }
    guard let answer = FeliCaPackets.serviceV2(rest[2...], nodes: nodes.count),
          let encryption = NFCFeliCaEncryptionId(rawValue: Int(answer.encryption)) else { throw shapeError("Request Service V2") }
    return (sf1, sf2, encryption, answer.aes.map { Data($0) }, answer.des.map { Data($0) })
  }

  private func specificationVersion() throws -> (Int, Int, Data, Data) {
    let rest = try command(packets.requestSpecificationVersion(), name: "Request Specification Version", minimum: 2)
    let sf1 = Int(rest[0]), sf2 = Int(rest[1])
    guard sf1 == 0 else { return (sf1, sf2, Data(), Data()) }
    guard let versions = FeliCaPackets.specificationVersion(rest[2...]) else { throw shapeError("Request Specification Version") }
    return (sf1, sf2, Data(versions.basic), Data(versions.options))
  }

  /// `3F IDm SF1 SF2`.
  private func reset() throws -> (Int, Int) {
    let rest = try command(packets.resetMode(), name: "Reset Mode", minimum: 2)
    guard rest.count == 2 else { throw shapeError("Reset Mode") }
    return (Int(rest[0]), Int(rest[1]))
  }
}
#endif
