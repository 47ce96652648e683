#if os(Linux)
import Dispatch
import Foundation

// NFCFeliCaTag's Request Service V2 (32h), Request Specification Version (3Ch) and Reset Mode
// (3Eh), frames as in the FeliCa Card User's Manual, Excerpted Edition: each answer is the
// command code plus one, the IDm, then SF1 SF2; what follows is there only when SF1 is 00h.
extension FeliCaTagObject {
  func requestServiceV2(nodeCodeList: [Data],
                        completionHandler: @escaping (Int, Int, NFCFeliCaEncryptionId, [Data], [Data], (any Error)?) -> Void) {
    let result = Result { () throws(NFCReaderError) in try serviceV2(nodeCodeList) }
    onQueue(queue) {
      switch result {
      case .success(let (sf1, sf2, encryption, aes, des)): completionHandler(sf1, sf2, encryption, aes, des, nil)
      case .failure(let error): completionHandler(0, 0, .AES, [], [], error)
      }
    }
  }
  func requestServiceV2(nodeCodeList: [Data]) async throws -> (Int, Int, NFCFeliCaEncryptionId, [Data], [Data]) {
    try serviceV2(nodeCodeList)
  }

  func requestSpecificationVersion(completionHandler: @escaping (Int, Int, Data, Data, (any Error)?) -> Void) {
    let result = Result { () throws(NFCReaderError) in try specificationVersion() }
    onQueue(queue) {
      switch result {
      case .success(let (sf1, sf2, basic, option)): completionHandler(sf1, sf2, basic, option, nil)
      case .failure(let error): completionHandler(0, 0, Data(), Data(), error)
      }
    }
  }
  func requestSpecificationVersion() async throws -> (Int, Int, Data, Data) { try specificationVersion() }

  func resetMode(completionHandler: @escaping (Int, Int, (any Error)?) -> Void) {
    let result = Result { () throws(NFCReaderError) in try reset() }
    onQueue(queue) {
      switch result {
      case .success(let (sf1, sf2)): completionHandler(sf1, sf2, nil)
      case .failure(let error): completionHandler(0, 0, error)
      }
    }
  }
  func resetMode() async throws -> (Int, Int) { try reset() }

  // The commands, on the calling thread.

  /// `32 IDm n nodes…` → `33 IDm SF1 SF2 [encryption n AES-versions [DES-versions]]`.
  private func serviceV2(_ nodes: [Data]) throws(NFCReaderError) -> (Int, Int, NFCFeliCaEncryptionId, [Data], [Data]) {
    let name = "Request Service V2"
    let rest = try command(0x32, try codeList(nodes, maximum: 32, what: "the node code list"), name: name, minimum: 2)
    let sf1 = Int(rest[0]), sf2 = Int(rest[1])
    guard sf1 == 0 else { return (sf1, sf2, .AES, [], []) }
    guard rest.count >= 4, let encryption = NFCFeliCaEncryptionId(rawValue: Int(rest[2])), Int(rest[3]) == nodes.count else {
      throw shapeError(name)
    }
    let lists = rest[4...]
    let listSize = 2 * nodes.count
    switch encryption {
    case .AES:
      return (sf1, sf2, encryption, try twoByteCodes(lists, count: nodes.count, name: name), [])
    case .AES_DES:
      guard lists.count == 2 * listSize else { throw shapeError(name) }
      let aes = lists.prefix(listSize), des = lists.dropFirst(listSize)
      return (sf1, sf2, encryption, try twoByteCodes(aes, count: nodes.count, name: name),
              try twoByteCodes(des, count: nodes.count, name: name))
    }
  }

  /// `3C IDm 00 00` → `3D IDm SF1 SF2 [format basic(2) n options(2n)]`.
  private func specificationVersion() throws(NFCReaderError) -> (Int, Int, Data, Data) {
    let name = "Request Specification Version"
    let rest = try command(0x3C, [0x00, 0x00], name: name, minimum: 2)
    let sf1 = Int(rest[0]), sf2 = Int(rest[1])
    guard sf1 == 0 else { return (sf1, sf2, Data(), Data()) }
    // rest[2] is the format version (00h); the basic version follows, then the option count.
    guard rest.count >= 6, rest.count == 6 + 2 * Int(rest[5]) else { throw shapeError(name) }
    return (sf1, sf2, Data(rest[3..<5]), Data(rest[6...]))
  }

  /// `3E IDm 00 00` → `3F IDm SF1 SF2`.
  private func reset() throws(NFCReaderError) -> (Int, Int) {
    let rest = try command(0x3E, [0x00, 0x00], name: "Reset Mode", minimum: 2)
    guard rest.count == 2 else { throw shapeError("Reset Mode") }
    return (Int(rest[0]), Int(rest[1]))
  }
}
#endif
