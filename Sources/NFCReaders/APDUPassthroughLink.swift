import NFCTransport

/// ISO-DEP (Type 4): APDUs pass through; the answer keeps SW1 SW2.
///
/// Capabilities count the R-APDU's data without SW1 SW2 and the whole C-APDU.
public final class APDUPassthroughLink: Transceiver {
  let transport: any APDUTransport
  /// What the reader carries: ``shortAPDUs`` or ``acr122u``.
  public let capabilities: LinkCapabilities

  /// A PC/SC reader that exchanges short APDUs: Le up to 256 data bytes, a C-APDU of at most
  /// 5 + 255 + 1 bytes. Extended-length APDUs are not assumed.
  public static let shortAPDUs = LinkCapabilities(maxResponseLength: 256, maxCommandLength: 261, rawCommands: true)
  /// An ACR122U: the firmware carries each APDU in one PN532 frame (at most 252 bytes after
  /// `D4 40 01` / `D5 41 status`), so an R-APDU holds at most 250 data bytes plus SW1 SW2 and a
  /// C-APDU at most 252 bytes (PN532 normal information frame, LEN ≤ 255; PN532 User Manual §6.2).
  public static let acr122u = LinkCapabilities(maxResponseLength: 250, maxCommandLength: 252, rawCommands: true)

  /// A link over `transport`, whose reader carries `capabilities`.
  public init(transport: any APDUTransport, capabilities: LinkCapabilities = APDUPassthroughLink.shortAPDUs) {
    self.transport = transport
    self.capabilities = capabilities
  }
  /// How commands reach the tag, for people.
  public var pathDescription: String { "ISO-DEP APDUs passed through the reader" }
  /// Sends one C-APDU; the answer is the R-APDU with SW1 SW2.
  /// - Throws: the transport's failure.
  public func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    try transport.transmit(command)
  }
}
