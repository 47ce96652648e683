import NFCTransport

/// Type 2 commands through an ACR122U: direct transmit (`FF 00 00 00 Lc`) of a PN532
/// InCommunicateThru (`D4 42`), which carries any tag command (READ, WRITE, FAST_READ,
/// GET_VERSION, READ_SIG, PWD_AUTH) and returns the tag's answer as is.
public final class ACR122UType2Link: Transceiver {
  let transport: any APDUTransport
  public let capabilities = LinkCapabilities(maxResponseLength: 252, maxCommandLength: 250, rawCommands: true)

  public init(transport: any APDUTransport) { self.transport = transport }

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
  guard reply.count >= 2 else { throw .malformedResponse(reply) }
  let sw = UInt16(reply[reply.count - 2]) << 8 | UInt16(reply[reply.count - 1])
  guard sw == 0x9000 else { throw .status(sw) }
  let body = reply.dropLast(2)
  guard body.count >= 3, body[body.startIndex] == 0xD5, body[body.startIndex + 1] == command &+ 1 else {
    throw .malformedResponse(reply)
  }
  let status = body[body.startIndex + 2] & 0x3F
  switch status {
  case 0x00: return Array(body.dropFirst(3))
  case 0x01: throw .timeout
  default: throw .chipError(status)
  }
}

/// Type 2 commands through any PC/SC Part 3 reader: READ (`30 pg`) becomes READ BINARY
/// (`FF B0 00 pg 10`) and WRITE (`A2 pg d0..d3`) becomes UPDATE BINARY (`FF D6 00 pg 04 …`).
/// Nothing else passes, so the platform falls back to plain reads.
public final class PartThreeType2Link: Transceiver {
  let transport: any APDUTransport
  public let capabilities = LinkCapabilities(maxResponseLength: 16, maxCommandLength: 6, rawCommands: false)

  public init(transport: any APDUTransport) { self.transport = transport }

  public func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    switch command.first {
    case 0x30 where command.count == 2:
      let reply = try transport.transmit([0xFF, 0xB0, 0x00, command[1], 0x10])
      return try Self.data(reply)
    case 0xA2 where command.count == 6:
      let reply = try transport.transmit([0xFF, 0xD6, 0x00, command[1], 0x04] + command[2..<6])
      _ = try Self.data(reply)
      return [0x0A]
    default:
      throw .unsupported("tag command \(hexString(command.prefix(1))) through a PC/SC Part 3 reader")
    }
  }

  static func data(_ reply: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard reply.count >= 2 else { throw .malformedResponse(reply) }
    let sw = UInt16(reply[reply.count - 2]) << 8 | UInt16(reply[reply.count - 1])
    guard sw == 0x9000 else { throw .status(sw) }
    return Array(reply.dropLast(2))
  }
}

/// ISO-DEP (Type 4): APDUs pass through; the answer keeps SW1 SW2.
///
/// Capabilities count the R-APDU's data without SW1 SW2 and the whole C-APDU.
public final class APDUPassthroughLink: Transceiver {
  let transport: any APDUTransport
  public let capabilities: LinkCapabilities

  /// A PC/SC reader that exchanges short APDUs: Le up to 256 data bytes, a C-APDU of at most
  /// 5 + 255 + 1 bytes. Extended-length APDUs are not assumed.
  public static let shortAPDUs = LinkCapabilities(maxResponseLength: 256, maxCommandLength: 261, rawCommands: true)
  /// An ACR122U: the firmware carries each APDU in one PN532 frame (at most 252 bytes after
  /// `D4 40 01` / `D5 41 status`), so an R-APDU holds at most 250 data bytes plus SW1 SW2 and a
  /// C-APDU at most 252 bytes (PN532 normal information frame, LEN ≤ 255; reference §5.2–§5.3).
  public static let acr122u = LinkCapabilities(maxResponseLength: 250, maxCommandLength: 252, rawCommands: true)

  public init(transport: any APDUTransport, capabilities: LinkCapabilities = APDUPassthroughLink.shortAPDUs) {
    self.transport = transport
    self.capabilities = capabilities
  }
  public func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    try transport.transmit(command)
  }
}

/// Type 1 and Type 3 frames through an ACR122U: InDataExchange with target 1 (`D4 40 01 …`).
public final class ACR122UExchangeLink: Transceiver {
  let transport: any APDUTransport
  public let capabilities = LinkCapabilities(maxResponseLength: 252, maxCommandLength: 250, rawCommands: true)
  public init(transport: any APDUTransport) { self.transport = transport }
  public func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    let reply = try transport.transmit([0xFF, 0x00, 0x00, 0x00, UInt8(command.count + 3), 0xD4, 0x40, 0x01] + command)
    return try pn532Answer(reply, command: 0x40)
  }
}
