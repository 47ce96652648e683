#if os(Linux)
import Dispatch
import Foundation
internal import NFCSession

/// A FeliCa card (NFC Forum Type 3). Core NFC's `NFCFeliCaTag`.
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

  private func send(_ packet: Data) throws(NFCReaderError) -> Data {
    let tag = tag
    return Data(try mapped { () throws(NFCSession.NFCReaderError) in try tag.sendFeliCaCommand(commandPacket: Array(packet)) })
  }
}

#endif
