import Dispatch
import NFCTags
import NFCTransport

/// A tag found by an ``NFCTagReaderSession``, by the protocol it speaks. Core NFC's `NFCTag`.
public enum NFCTag: Sendable {
  /// ISO 14443-3 tags: NFC Forum Type 2 (NTAG, MIFARE Ultralight); Type 1 (Topaz) only for
  /// sessions that ask for ``NFCTagReaderSession/PollingOption/nfcForumType1``.
  case miFare(NFCMiFareTag)
  /// ISO 14443-4 (ISO-DEP) cards that take ISO 7816 APDUs: NFC Forum Type 4.
  case iso7816(NFCISO7816Tag)
  /// FeliCa (JIS X 6319-4): NFC Forum Type 3.
  case feliCa(NFCFeliCaTag)
  /// ISO 15693 vicinity tags: NFC Forum Type 5.
  case iso15693(NFCISO15693Tag)

  /// The tag as an NDEF tag: every kind also speaks the NDEF tag protocol.
  public var ndefTag: any NFCNDEFTag {
    switch self {
    case .miFare(let tag): return tag
    case .iso7816(let tag): return tag
    case .feliCa(let tag): return tag
    case .iso15693(let tag): return tag
    }
  }

  /// The polling option that finds this kind of tag.
  var pollingOption: NFCTagReaderSession.PollingOption {
    switch self {
    case .miFare(let tag) where tag.connection.platformType == .type1: return .nfcForumType1
    case .miFare, .iso7816: return .iso14443
    case .feliCa: return .iso18092
    case .iso15693: return .iso15693
    }
  }
}

extension TagConnection {
  /// The typed tag for this connection, from its NFC Forum platform.
  var tag: NFCTag {
    switch platformType {
    case .type4?: return .iso7816(NFCISO7816Tag(self))
    case .type3?: return .feliCa(NFCFeliCaTag(self))
    case .type5?: return .iso15693(NFCISO15693Tag(self))
    case .type1?, .type2?, .mifareClassic?, nil: return .miFare(NFCMiFareTag(self))
    }
  }

  /// The tag as an NDEF tag (the typed tag underneath).
  var ndefTag: any NFCNDEFTag { tag.ndefTag }
}

/// MIFARE families, as Core NFC names them.
public enum NFCMiFareFamily: Int, Sendable {
  case unknown = 1, ultralight = 2, plus = 3, desfire = 4
}

/// An ISO 14443-3 tag: NTAG21x and MIFARE Ultralight (family ultralight); Topaz (unknown), whose
/// commands are NFC Forum Type 1's own frames with the UID's first four bytes at their end (RALL
/// `00 00 00 UID0–3`, READ `01 ADD 00 UID0–3`), when a session asks for
/// ``NFCTagReaderSession/PollingOption/nfcForumType1``.
public final class NFCMiFareTag: NFCNDEFTag {
  /// The connection that carries this tag's commands.
  public let connection: TagConnection
  init(_ connection: TagConnection) { self.connection = connection }

  /// The family: Type 2 tags are ultralight; others unknown.
  public var mifareFamily: NFCMiFareFamily { connection.platformType == .type2 ? .ultralight : .unknown }

  /// Sends a native command (for example `60` GET_VERSION, `3C 00` READ_SIG, `30 04` READ) and
  /// returns the tag's answer; an ACK is `[0x0A]`, a NAK its 4-bit value. The reader adds the CRC.
  public func sendMiFareCommand(_ command: [UInt8]) throws(NFCReaderError) -> [UInt8] {
    try connection.transceive(command)
  }

  /// ``sendMiFareCommand(_:)`` with Core NFC's completion handler, run on the session's queue.
  public func sendMiFareCommand(commandPacket: [UInt8], completionHandler: @escaping @Sendable ([UInt8], NFCReaderError?) -> Void) {
    let result = Result { () throws(NFCReaderError) in try sendMiFareCommand(commandPacket) }
    connection.engine.queue.async { completionHandler((try? result.get()) ?? [], result.failureValue) }
  }
}

/// An ISO 7816 command APDU. Core NFC's `NFCISO7816APDU`.
public struct NFCISO7816APDU: Hashable, Sendable {
  /// The whole APDU as sent: CLA INS P1 P2 [Lc data] [Le].
  public let bytes: [UInt8]
  /// CLA, byte 0 (ISO/IEC 7816-4 §5.1).
  public var instructionClass: UInt8 { bytes[0] }
  /// INS, byte 1 (ISO/IEC 7816-4 §5.1).
  public var instructionCode: UInt8 { bytes[1] }
  /// P1, byte 2 (ISO/IEC 7816-4 §5.1).
  public var p1Parameter: UInt8 { bytes[2] }
  /// P2, byte 3 (ISO/IEC 7816-4 §5.1).
  public var p2Parameter: UInt8 { bytes[3] }

  /// Parses an APDU; nil when it is shorter than a header or its Lc does not match its length
  /// (short APDUs, ISO 7816-4 cases 1–4).
  public init?(data: [UInt8]) {
    guard data.count >= 4 else { return nil }
    if data.count > 5 {
      let lc = Int(data[4])
      guard lc > 0, data.count == 5 + lc || data.count == 6 + lc else { return nil }
    }
    bytes = data
  }
}

/// A card that takes ISO 7816 APDUs (NFC Forum Type 4).
public final class NFCISO7816Tag: NFCNDEFTag {
  /// The connection that carries this tag's commands.
  public let connection: TagConnection
  init(_ connection: TagConnection) { self.connection = connection }

  /// The historical bytes the card sent (from the reader's ATR; empty when none).
  public var historicalBytes: [UInt8] { connection.details.historicalBytes }

  /// Sends an APDU; returns the response data and SW1 SW2.
  public func sendCommand(apdu: NFCISO7816APDU) throws(NFCReaderError) -> (data: [UInt8], sw1: UInt8, sw2: UInt8) {
    let reply = try connection.transceive(apdu.bytes)
    guard reply.count >= 2 else {
      throw NFCReaderError(.readerTransceiveErrorTagResponseError, "the card answered \(reply.count) bytes, without a status word")
    }
    return (Array(reply.dropLast(2)), reply[reply.count - 2], reply[reply.count - 1])
  }
}

/// A FeliCa card (NFC Forum Type 3).
public final class NFCFeliCaTag: NFCNDEFTag {
  /// The connection that carries this tag's commands.
  public let connection: TagConnection
  init(_ connection: TagConnection) { self.connection = connection }

  /// The IDm of the current system.
  public var currentIDm: [UInt8] { connection.identifier }
  /// The system code the reader polled (`12 FC` for NDEF, `88 B4` for Lite-S), when it learnt it.
  public var currentSystemCode: [UInt8]? { connection.details.felicaSystemCode }

  /// Sends a command packet that starts with the command code (the length byte is added) and
  /// returns the response packet without its length byte.
  public func sendFeliCaCommand(commandPacket: [UInt8]) throws(NFCReaderError) -> [UInt8] {
    guard commandPacket.count < 255 else {
      throw NFCReaderError(.readerTransceiveErrorPacketTooLong, "a FeliCa packet holds at most 254 bytes")
    }
    let reply = try connection.transceive([UInt8(commandPacket.count + 1)] + commandPacket)
    guard let length = reply.first, Int(length) == reply.count else {
      throw NFCReaderError(.readerTransceiveErrorTagResponseError, "the FeliCa answer's length byte does not match its \(reply.count) bytes")
    }
    return Array(reply.dropFirst())
  }
}

/// What GET SYSTEM INFORMATION tells of an ISO 15693 tag.
public typealias NFCISO15693SystemInfo = Type5SystemInfo

/// An ISO 15693 tag (NFC Forum Type 5). Requests go non-addressed at high data rate unless the
/// flags say otherwise.
public final class NFCISO15693Tag: NFCNDEFTag {
  /// The connection that carries this tag's commands.
  public let connection: TagConnection
  init(_ connection: TagConnection) { self.connection = connection }

  /// The IC manufacturer code (UID byte 6, ISO/IEC 7816-6), when the UID has 8 bytes.
  public var icManufacturerCode: UInt8? { connection.identifier.count == 8 ? connection.identifier[1] : nil }

  /// Sends `flags command data` and returns the answer's flags and data. An answer with the error
  /// flag (01) is a tag response error (102) naming the ISO 15693 error code and its meaning; one
  /// that sets the flag without the code byte is a malformed response (102 too): see
  /// `ISO15693Response`.
  public func sendRequest(requestFlags: UInt8 = 0x02, commandCode: UInt8, data: [UInt8] = []) throws(NFCReaderError) -> (flags: UInt8, data: [UInt8]) {
    try send(ISO15693Requests(flags: requestFlags).frame(commandCode, data))
  }

  /// Sends a request frame (NFCTags' `ISO15693Requests` builds them) and returns the answer's
  /// flags and data, as ``sendRequest(requestFlags:commandCode:data:)`` does.
  package func send(_ frame: [UInt8]) throws(NFCReaderError) -> (flags: UInt8, data: [UInt8]) {
    let reply = try connection.transceive(frame)
    guard !reply.isEmpty else {
      throw NFCReaderError(.readerTransceiveErrorTagResponseError, "the tag answered nothing")
    }
    guard let response = ISO15693Response(reply) else { throw NFCReaderError(TransceiveError.malformedResponse(reply)) }
    if let code = response.errorCode {
      throw NFCReaderError(.readerTransceiveErrorTagResponseError,
                           "the tag refused the command (error \(code): \(code.meaning))",
                           underlying: TransceiveError.nak(code.rawValue))
    }
    return (response.flags, response.payload)
  }

  /// Sends a whole request (`flags command [UID] parameters`) and returns the answer as the tag
  /// sent it, flags first, an error answer (`01 code`) included.
  public func sendRawRequest(_ request: [UInt8]) throws(NFCReaderError) -> [UInt8] {
    try connection.transceive(request)
  }

  /// READ SINGLE BLOCK (20h).
  public func readSingleBlock(requestFlags: UInt8 = 0x02, blockNumber: UInt8) throws(NFCReaderError) -> [UInt8] {
    try send(ISO15693Requests(flags: requestFlags).readSingleBlock(blockNumber)).data
  }

  /// WRITE SINGLE BLOCK (21h).
  public func writeSingleBlock(requestFlags: UInt8 = 0x02, blockNumber: UInt8, dataBlock: [UInt8]) throws(NFCReaderError) {
    _ = try send(ISO15693Requests(flags: requestFlags).writeSingleBlock(blockNumber, dataBlock))
  }

  /// GET SYSTEM INFORMATION (2Bh).
  public func getSystemInfo(requestFlags: UInt8 = 0x02) throws(NFCReaderError) -> NFCISO15693SystemInfo {
    let answer = try send(ISO15693Requests(flags: requestFlags).getSystemInformation()).data
    do { return try Type5SystemInfo(parsing: answer) } catch { throw NFCReaderError(error) }
  }

  /// A custom command (A0h–DFh) of the tag's manufacturer: the manufacturer code is inserted.
  public func customCommand(requestFlags: UInt8 = 0x02, customCommandCode: UInt8, customRequestParameters: [UInt8] = []) throws(NFCReaderError) -> [UInt8] {
    guard let manufacturer = icManufacturerCode else {
      throw NFCReaderError(.readerErrorInvalidParameter, "the UID does not name a manufacturer")
    }
    guard let frame = ISO15693Requests(flags: requestFlags).custom(customCommandCode, manufacturer: manufacturer,
                                                                   customRequestParameters) else {
      throw NFCReaderError(.readerErrorInvalidParameter, "custom commands are A0h to DFh")
    }
    return try send(frame).data
  }
}
