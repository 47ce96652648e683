import NFCTransport

/// Type 5 (ISO 15693) commands through a PC/SC Part 3 reader.
public final class PartThreeType5Link: Transceiver {
  let transport: any APDUTransport
  public let capabilities = LinkCapabilities(maxResponseLength: 4, maxCommandLength: 4, rawCommands: false)
  public init(transport: any APDUTransport) { self.transport = transport }
  public func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    throw .unsupported("ISO 15693 through a PC/SC Part 3 reader")
  }
}
