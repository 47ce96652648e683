import NFCTransport

/// Type 1 (Topaz) commands through an ACR122U's PN532.
public final class ACR122UType1Link: Transceiver {
  let transport: any APDUTransport
  public let capabilities = LinkCapabilities(maxResponseLength: 252, maxCommandLength: 250, rawCommands: true)
  public init(transport: any APDUTransport) { self.transport = transport }
  public func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    let reply = try transport.transmit([0xFF, 0x00, 0x00, 0x00, UInt8(command.count + 3), 0xD4, 0x40, 0x01] + command)
    return try pn532Answer(reply, command: 0x40)
  }
}
