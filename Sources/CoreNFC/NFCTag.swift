#if os(Linux)
import Dispatch
import Foundation
internal import NFCSession

/// Whether a tag holds NDEF and may be written. Core NFC's `NFCNDEFStatus`.
public enum NFCNDEFStatus: UInt, Hashable, Sendable {
  /// Not NDEF formatted, or not an NDEF tag.
  case notSupported = 1
  /// NDEF formatted and writable.
  case readWrite = 2
  /// NDEF formatted, read-only.
  case readOnly = 3
}

/// A tag that speaks NDEF. Core NFC's `NFCNDEFTag`: every tag a session finds conforms.
///
/// Commands work after the session's `connect(to:)`, until it is invalidated or polling
/// restarts. The completion handlers run on the session's queue, as in Core NFC.
public protocol NFCNDEFTag: AnyObject, Sendable {
  /// False once the session is invalidated or polling restarted.
  var isAvailable: Bool { get }
  /// The NDEF status and the capacity in bytes (the largest message that fits).
  func queryNDEFStatus(completionHandler: @escaping (NFCNDEFStatus, Int, (any Error)?) -> Void)
  /// Reads the message (an empty tag: 403).
  func readNDEF(completionHandler: @escaping (NFCNDEFMessage?, (any Error)?) -> Void)
  /// Writes the message tear-safely and reads it back.
  func writeNDEF(_ ndefMessage: NFCNDEFMessage, completionHandler: @escaping ((any Error)?) -> Void)
  /// Makes the tag read-only, permanently.
  func writeLock(completionHandler: @escaping ((any Error)?) -> Void)
  /// ``queryNDEFStatus(completionHandler:)``, async.
  func queryNDEFStatus() async throws -> (NFCNDEFStatus, Int)
  /// ``readNDEF(completionHandler:)``, async.
  func readNDEF() async throws -> NFCNDEFMessage
  /// ``writeNDEF(_:completionHandler:)``, async.
  func writeNDEF(_ ndefMessage: NFCNDEFMessage) async throws
  /// ``writeLock(completionHandler:)``, async.
  func writeLock() async throws
}

/// A tag found by an ``NFCTagReaderSession``, by the protocol it speaks. Core NFC's `NFCTag`.
public enum NFCTag: Sendable {
  /// FeliCa (NFC Forum Type 3).
  case feliCa(any NFCFeliCaTag)
  /// ISO 7816 APDUs over ISO-DEP (NFC Forum Type 4).
  case iso7816(any NFCISO7816Tag)
  /// ISO 15693 (NFC Forum Type 5).
  case iso15693(any NFCISO15693Tag)
  /// MIFARE Ultralight, NTAG (NFC Forum Type 2).
  case miFare(any NFCMiFareTag)

  /// False once the session is invalidated or polling restarted.
  public var isAvailable: Bool { ndefTag.isAvailable }

  var ndefTag: any NFCNDEFTag {
    switch self {
    case .feliCa(let tag): return tag
    case .iso7816(let tag): return tag
    case .iso15693(let tag): return tag
    case .miFare(let tag): return tag
    }
  }
}

/// MIFARE families, as Core NFC names them.
public enum NFCMiFareFamily: UInt, Hashable, Sendable {
  /// Not a MIFARE family the reader knows.
  case unknown = 1
  /// MIFARE Ultralight and NTAG.
  case ultralight = 2
  /// MIFARE Plus.
  case plus = 3
  /// MIFARE DESFire.
  case desfire = 4
}

/// A MIFARE tag (NTAG21x, Ultralight). Core NFC's `NFCMiFareTag`.
public protocol NFCMiFareTag: NFCNDEFTag {
  /// The family: `.ultralight` for NFC Forum Type 2 tags.
  var mifareFamily: NFCMiFareFamily { get }
  /// The UID.
  var identifier: Data { get }
  /// nil: ISO 14443-3 tags send none.
  var historicalBytes: Data? { get }
  /// Sends a native command (`30 04` READ, `60` GET_VERSION, `A2 PAGE b0 b1 b2 b3` WRITE); the
  /// handler gets the tag's answer (an ACK is `0A`). The reader adds the CRC.
  func sendMiFareCommand(commandPacket: Data, completionHandler: @escaping (Data, (any Error)?) -> Void)
  /// ``sendMiFareCommand(commandPacket:completionHandler:)``, async.
  func sendMiFareCommand(commandPacket: Data) async throws -> Data
}

/// A card that takes ISO 7816 APDUs (NFC Forum Type 4). Core NFC's `NFCISO7816Tag`.
public protocol NFCISO7816Tag: NFCNDEFTag {
  /// The UID.
  var identifier: Data { get }
  /// The historical bytes of the card's answer (nil when it sent none).
  var historicalBytes: Data? { get }
  /// Sends an APDU; the handler gets the response data, SW1 and SW2.
  func sendCommand(apdu: NFCISO7816APDU, completionHandler: @escaping (Data, UInt8, UInt8, (any Error)?) -> Void)
  /// ``sendCommand(apdu:completionHandler:)``, async.
  func sendCommand(apdu: NFCISO7816APDU) async throws -> (Data, UInt8, UInt8)
}

// MARK: - The tags, over NFCSession's

/// Core NFC's face of one of NFCSession's tags; the subclass gives the typed protocol.
class TagObject: NFCNDEFTag, @unchecked Sendable {  // only `let`s, of Sendable values
  let inner: NFCSession.NFCTag
  let queue: DispatchQueue
  init(_ inner: NFCSession.NFCTag, queue: DispatchQueue) {
    self.inner = inner
    self.queue = queue
  }

  /// The Core NFC tag for an NFCSession tag.
  static func tag(for inner: NFCSession.NFCTag, queue: DispatchQueue) -> NFCTag {
    switch inner {
    case .miFare: return .miFare(MiFareTagObject(inner, queue: queue))
    case .iso7816: return .iso7816(ISO7816TagObject(inner, queue: queue))
    case .feliCa: return .feliCa(FeliCaTagObject(inner, queue: queue))
    case .iso15693: return .iso15693(ISO15693TagObject(inner, queue: queue))
    }
  }

  /// The Core NFC tag for one an NFCSession NDEF reader session found (each is of a typed kind).
  static func ndefTag(for inner: any NFCSession.NFCNDEFTag, queue: DispatchQueue) -> any NFCNDEFTag {
    let typed: NFCSession.NFCTag
    if let tag = inner as? NFCSession.NFCISO7816Tag { typed = .iso7816(tag) }
    else if let tag = inner as? NFCSession.NFCFeliCaTag { typed = .feliCa(tag) }
    else if let tag = inner as? NFCSession.NFCISO15693Tag { typed = .iso15693(tag) }
    else if let tag = inner as? NFCSession.NFCMiFareTag { typed = .miFare(tag) }
    else { preconditionFailure("NFCSession found a tag of no kind: \(type(of: inner))") }
    return tag(for: typed, queue: queue).ndefTag
  }

  var ndef: any NFCSession.NFCNDEFTag { inner.ndefTag }
  var uid: Data { Data(ndef.identifier) }

  var isAvailable: Bool { ndef.isAvailable }

  func queryNDEFStatus(completionHandler: @escaping (NFCNDEFStatus, Int, (any Error)?) -> Void) {
    deliver({ completionHandler($0.0, $0.1, $1) }, orElse: (.notSupported, 0)) { try queryStatus() }
  }
  func readNDEF(completionHandler: @escaping (NFCNDEFMessage?, (any Error)?) -> Void) {
    deliver(completionHandler, orElse: nil) { try readMessage() }
  }
  func writeNDEF(_ ndefMessage: NFCNDEFMessage, completionHandler: @escaping ((any Error)?) -> Void) {
    deliver(completionHandler) { try writeMessage(ndefMessage) }
  }
  func writeLock(completionHandler: @escaping ((any Error)?) -> Void) { deliver(completionHandler) { try lock() } }

  func queryNDEFStatus() async throws -> (NFCNDEFStatus, Int) { try queryStatus() }
  func readNDEF() async throws -> NFCNDEFMessage { try readMessage() }
  func writeNDEF(_ ndefMessage: NFCNDEFMessage) async throws { try writeMessage(ndefMessage) }
  func writeLock() async throws { try lock() }

  // The commands, on the calling thread (as NFCSession's tags run them).

  private func queryStatus() throws(NFCReaderError) -> (NFCNDEFStatus, Int) {
    let (status, capacity) = try mapped { () throws(NFCSession.NFCReaderError) in try ndef.queryNDEFStatus() }
    return (NFCNDEFStatus(rawValue: UInt(status.rawValue)) ?? .notSupported, capacity)
  }
  private func readMessage() throws(NFCReaderError) -> NFCNDEFMessage {
    NFCNDEFMessage(try mapped { () throws(NFCSession.NFCReaderError) in try ndef.readNDEF() })
  }
  private func writeMessage(_ message: NFCNDEFMessage) throws(NFCReaderError) {
    let encoded = message.ndefMessage
    try mapped { () throws(NFCSession.NFCReaderError) in try ndef.writeNDEF(encoded) }
  }
  private func lock() throws(NFCReaderError) {
    try mapped { () throws(NFCSession.NFCReaderError) in try ndef.writeLock() }
  }
}

final class MiFareTagObject: TagObject, NFCMiFareTag, @unchecked Sendable {  // lets only
  private var tag: NFCSession.NFCMiFareTag {
    guard case .miFare(let tag) = inner else { preconditionFailure("not a MIFARE tag") }
    return tag
  }
  var mifareFamily: NFCMiFareFamily { NFCMiFareFamily(rawValue: UInt(tag.mifareFamily.rawValue)) ?? .unknown }
  var identifier: Data { uid }
  var historicalBytes: Data? { nil }

  func sendMiFareCommand(commandPacket: Data, completionHandler: @escaping (Data, (any Error)?) -> Void) {
    deliver(completionHandler, orElse: Data()) { try send(commandPacket) }
  }
  func sendMiFareCommand(commandPacket: Data) async throws -> Data { try send(commandPacket) }

  private func send(_ packet: Data) throws(NFCReaderError) -> Data {
    let tag = tag
    return Data(try mapped { () throws(NFCSession.NFCReaderError) in try tag.sendMiFareCommand(Array(packet)) })
  }
}

final class ISO7816TagObject: TagObject, NFCISO7816Tag, @unchecked Sendable {  // lets only
  private var tag: NFCSession.NFCISO7816Tag {
    guard case .iso7816(let tag) = inner else { preconditionFailure("not an ISO 7816 tag") }
    return tag
  }
  var identifier: Data { uid }
  var historicalBytes: Data? { tag.historicalBytes.isEmpty ? nil : Data(tag.historicalBytes) }

  func sendCommand(apdu: NFCISO7816APDU, completionHandler: @escaping (Data, UInt8, UInt8, (any Error)?) -> Void) {
    deliver({ completionHandler($0.0, $0.1, $0.2, $1) }, orElse: (Data(), 0, 0)) { try send(apdu) }
  }
  func sendCommand(apdu: NFCISO7816APDU) async throws -> (Data, UInt8, UInt8) { try send(apdu) }

  private func send(_ apdu: NFCISO7816APDU) throws(NFCReaderError) -> (Data, UInt8, UInt8) {
    guard let bytes = apdu.shortBytes, let command = NFCSession.NFCISO7816APDU(data: bytes) else {
      throw NFCReaderError(.readerErrorInvalidParameterLength,
                           message: "the APDU needs extended lengths, which the session does not send")
    }
    let tag = tag
    let reply = try mapped { () throws(NFCSession.NFCReaderError) in try tag.sendCommand(apdu: command) }
    return (Data(reply.data), reply.sw1, reply.sw2)
  }
}

// MARK: - Helpers

/// Runs an NFCSession call, its failure as Core NFC's error.
func mapped<T>(_ body: () throws(NFCSession.NFCReaderError) -> T) throws(NFCReaderError) -> T {
  do { return try body() } catch { throw NFCReaderError(error) }
}

/// Runs `body` on `queue`. Core NFC calls completion handlers and delegates on the session's
/// queue, and they need not be `Sendable`: what they capture is the program's, touched from that
/// queue, as in Core NFC. The box states that contract to the compiler; it is the only place
/// CoreNFC moves a program's closure to another thread.
func onQueue(_ queue: DispatchQueue, _ body: @escaping () -> Void) {
  let box = UncheckedClosure(body)
  queue.async { box.body() }
}

private struct UncheckedClosure: @unchecked Sendable {
  let body: () -> Void
  init(_ body: @escaping () -> Void) { self.body = body }
}

extension TagObject {
  /// A completion-handler form: runs `command` now, on the calling thread (as NFCSession's tags
  /// run commands, one at a time in the order they are called; the async form runs the same
  /// call), and hands its value, or `empty` and its error, to `handler` on the session's queue.
  func deliver<T>(_ handler: @escaping (T, (any Error)?) -> Void, orElse empty: T, _ command: () throws -> T) {
    deliver({ (result: Result<T, any Error>) in
      switch result {
      case .success(let value): handler(value, nil)
      case .failure(let error): handler(empty, error)
      }
    }, command)
  }

  /// ``deliver(_:orElse:_:)`` for a command that answers nothing: the handler gets its error.
  func deliver(_ handler: @escaping ((any Error)?) -> Void, _ command: () throws -> Void) {
    deliver({ handler($1) }, orElse: (), command)
  }

  /// ``deliver(_:orElse:_:)`` for a result handler.
  func deliver<T>(_ handler: @escaping (Result<T, any Error>) -> Void, _ command: () throws -> T) {
    let result = Result { try command() }
    onQueue(queue) { handler(result) }
  }
}

/// A completion handler's value and error as a `Result`: the result-handler forms are the
/// completion-handler forms through this.
func outcome<T>(_ value: T, _ error: (any Error)?) -> Result<T, any Error> {
  error.map { .failure($0) } ?? .success(value)
}

/// ``outcome(_:_:)`` for a handler that gets an error only.
func outcome(_ error: (any Error)?) -> Result<Void, any Error> { outcome((), error) }

extension Result {
  var error: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}
#endif
