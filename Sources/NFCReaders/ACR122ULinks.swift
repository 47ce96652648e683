import NFCTransport

/// Type 2 commands through an ACR122U: direct transmit (`FF 00 00 00 Lc`) of a PN532
/// InCommunicateThru (`D4 42`), which carries any tag command (READ, WRITE, FAST_READ,
/// GET_VERSION, READ_SIG, PWD_AUTH) and returns the tag's answer as is.
public final class ACR122UType2Link: Transceiver {
  let transport: any APDUTransport
  /// At most 250 command bytes and 252 answer bytes, raw frames: what one PN532 frame carries
  /// after its command codes (PN532 User Manual §6.2).
  public let capabilities = LinkCapabilities(maxResponseLength: 252, maxCommandLength: 250, rawCommands: true)
  /// How commands reach the tag, for people.
  public var pathDescription: String { "ACR122U direct transmit (PN532 InCommunicateThru)" }

  /// A link over `transport`, a PC/SC connection to an ACR122U with a Type 2 tag.
  public init(transport: any APDUTransport) { self.transport = transport }

  /// Sends one Type 2 command and returns the tag's answer (an ACK as `[0x0A]`).
  /// - Throws: `TransceiveError.unsupported(_:)` for a command longer than 250 bytes, a NAK,
  ///   the PN532's error status (timeout: the tag is gone) or the transport's failure.
  public func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard command.count <= capabilities.maxCommandLength else { throw .unsupported("a command of \(command.count) bytes") }
    let reply = try transport.transmit([0xFF, 0x00, 0x00, 0x00, UInt8(command.count + 2), 0xD4, 0x42] + command)
    let data = try pn532Answer(reply, command: 0x42)
    let isWrite = command.first == 0xA2 || command.first == 0xA0
    if data.isEmpty { return isWrite ? [0x0A] : [] }
    // A 4-bit answer: ACK (A) or NAK (0, 1, 4, 5).
    if data.count == 1, let v = data.first, v <= 0x0F {
      if v == 0x0A { return [0x0A] }
      throw .nak(v)
    }
    return data
  }
}

/// Checks a direct-transmit answer `D5 <cmd+1> <status> <data> 90 00` and returns the data.
func pn532Answer(_ reply: [UInt8], command: UInt8) throws(TransceiveError) -> [UInt8] {
  guard let response = ResponseAPDU(reply), response.statusWord.isWellFormed else { throw .malformedResponse(reply) }
  guard response.statusWord.isSuccess else { throw .status(response.statusWord) }
  let body = response.data
  guard body.count >= 3, body[0] == 0xD5, body[1] == command &+ 1 else {
    throw .malformedResponse(reply)
  }
  let status = body[2] & 0x3F
  switch status {
  case 0x00: return Array(body.dropFirst(3))
  case 0x01: throw .timeout
  default: throw .chipError(status)
  }
}

/// Type 1 and Type 3 frames through an ACR122U: InDataExchange with target 1 (`D4 40 01 …`).
public final class ACR122UExchangeLink: Transceiver {
  let transport: any APDUTransport
  /// At most 250 command bytes and 252 answer bytes, raw frames: what one PN532 frame carries
  /// after its command codes (PN532 User Manual §6.2).
  public let capabilities = LinkCapabilities(maxResponseLength: 252, maxCommandLength: 250, rawCommands: true)
  /// A link over `transport`, a PC/SC connection to an ACR122U with a Type 1 or Type 3 tag.
  public init(transport: any APDUTransport) { self.transport = transport }
  /// How commands reach the tag, for people.
  public var pathDescription: String { "ACR122U direct transmit (PN532 InDataExchange)" }
  /// Sends one tag frame with InDataExchange (`D4 40 01`) and returns the tag's answer.
  /// - Throws: the PN532's error status (timeout: the tag is gone) or the transport's failure.
  public func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    let reply = try transport.transmit([0xFF, 0x00, 0x00, 0x00, UInt8(command.count + 3), 0xD4, 0x40, 0x01] + command)
    return try pn532Answer(reply, command: 0x40)
  }
}

/// ISO-DEP (Type 4: an NTAG 424 DNA, a Type 4 tag) through an ACR122U: APDUs pass through as on
/// any PC/SC reader (``APDUPassthroughLink``, with the ACR122U's frame sizes,
/// ``APDUPassthroughLink/acr122u``), and the reader's LEDs and buzzer answer the `FF 00 40`
/// pseudo-APDU between them (ACR122U API V2.04 §6.2: the class FF commands are the reader's,
/// whatever card is in its field; its `ReaderSignalling` is in `ACR122UControl.swift`).
public final class ACR122UType4Link: Transceiver {
  let transport: any APDUTransport
  /// An ACR122U's: ``APDUPassthroughLink/acr122u``.
  public let capabilities = APDUPassthroughLink.acr122u
  /// How commands reach the tag, for people.
  public var pathDescription: String { "ISO-DEP APDUs passed through the reader" }

  /// A link over `transport`, a PC/SC connection to an ACR122U with an ISO-DEP tag.
  public init(transport: any APDUTransport) { self.transport = transport }

  /// Sends one C-APDU; the answer is the R-APDU with SW1 SW2.
  /// - Throws: the transport's failure.
  public func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] { try transport.transmit(command) }
}
