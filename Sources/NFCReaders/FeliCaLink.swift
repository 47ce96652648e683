import NFCTransport

/// FeliCa (NFC Forum Type 3) through a PC/SC Part 3 reader's direct transmit: each FeliCa
/// command, its length byte first, goes as `FF 00 00 00 Lc <command>` and the card's answer comes
/// back with `90 00` (ACS ACM1252U-Y3 Reference Manual V1.03 §5.2.6, the ACR1252U's module
/// version). Readers that refuse it (`6A 81`, `6D 00`, `6E 00`, `68 00`: no direct transmit, or
/// one that does not reach the card) are refused with a line naming the reader and those that read
/// FeliCa through nfctag.
public final class FeliCaDirectTransmitLink: Transceiver {
  let transport: any APDUTransport
  /// A short APDU: at most 255 command bytes; the answer at most 254 before its status word.
  public let capabilities = LinkCapabilities(maxResponseLength: 254, maxCommandLength: 255, rawCommands: true)
  /// How commands reach the tag, for people.
  public var pathDescription: String { "PC/SC direct transmit (FF 00 00 00, FeliCa commands)" }

  /// A link over `transport`, a PC/SC connection to a reader with a FeliCa card.
  public init(transport: any APDUTransport) { self.transport = transport }

  /// FeliCa Polling for every system code (`FFFF`), request code 01 (system code): JIS X 6319-4
  /// §4.4.2.1; the answer is `LEN 01 IDm PMm [SC]`.
  static let polling: [UInt8] = [0x06, 0x00, 0xFF, 0xFF, 0x01, 0x00]

  /// Sends one FeliCa command (length byte first) and returns the card's answer.
  /// - Throws: `TransceiveError.unsupported(_:)` when the reader has no such path; the reader's
  ///   other status (`63 00`: no answer from the card); `malformedResponse` for an answer whose
  ///   length byte does not match; the transport's failure.
  public func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard !command.isEmpty, command.count <= 255 else { throw .unsupported("a FeliCa command of \(command.count) bytes") }
    let data = try pathAnswer(try transport.transmit([0xFF, 0x00, 0x00, 0x00, UInt8(command.count)] + command),
                              from: transport.readerName, family: "FeliCa", path: "direct transmit and SCM's REQC",
                              reading: \.felica)
    guard let length = data.first, Int(length) == data.count else { throw .malformedResponse(data) }
    return data
  }
}

/// A tag nfctag has no path to through this reader: every command is refused with the reason,
/// naming the reader and what works. Used for Topaz (Type 1) on readers other than the ACR122U and
/// the SCL3711 (whose own `FF 50`–`FF 60`, SCL3711 Reference Manual §6.4.1, ``SCMType1Link`` sends),
/// rather than sending the tag Type 2 commands it does not know.
public final class UnreachableTagLink: Transceiver {
  /// Why, for the refusal.
  public let reason: String
  /// Nothing passes.
  public let capabilities = LinkCapabilities(maxResponseLength: 0, maxCommandLength: 0, rawCommands: false)
  /// How commands reach the tag, for people: they do not.
  public var pathDescription: String { "none (\(reason))" }

  /// A link that refuses every command with `reason`.
  public init(reason: String) { self.reason = reason }

  /// Refuses.
  /// - Throws: `TransceiveError.unsupported(_:)` with the reason, always.
  public func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] { throw .unsupported(reason) }
}
