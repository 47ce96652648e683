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

/// Type 2 commands through a PC/SC Part 3 reader.
///
/// Two paths, chosen once with a probe (two APDUs, on first use), sharing `TransparentSession`
/// with ``PartThreeType5Link``:
/// - **Transparent exchange** (ACS ACR1252U/ACR1552U and other readers with PC/SC Part 3 Manage
///   Session): start session `FF C2 00 00 02 81 00 00`, then Switch Protocol
///   `FF C2 00 02 04 8F 02 00 03 00` (standard 00 = ISO 14443A, layer 03 = layer 3; PC/SC Part 3
///   values (contactless-driver `pcsc.h`); the same `8F 02 00 03` is what published ACR1552U and RC-S300
///   client code sends before NTAG commands). Every Type 2 frame (READ `30`, FAST_READ `3A`,
///   WRITE `A2`, GET_VERSION `60`, READ_SIG `3C`, PWD_AUTH `1B`, …) then goes out raw in the `95`
///   object without CRC; the reader adds it and strips it from the answer, as in the ISO 15693
///   trace (NXP community thread 2093136). `LinkCapabilities.rawCommands` is true, so the Type 2 platform
///   identifies the chip with GET_VERSION and reads with FAST_READ.
///   Every frame carries a 100 ms timer (`5F 46 04 A0 86 01 00`, 100 000 µs little-endian): the
///   ACR1552 trace shows the reader's default timeout too short for an EEPROM write and no ACS
///   document we found gives the default; 100 ms covers a 240-byte FAST_READ (about 25 ms at
///   106 kbit/s) and NTAG EEPROM programming, and bounds what a mute tag (GET_VERSION on a MIFARE
///   Ultralight) costs. The value is the one Sony RC-S300 client code uses.
///   One answer carries up to 240 bytes (60 pages): with `C0 03 00 90 00`, `92 01 00`,
///   `96 02 00 00`, `97 81 F0` and `90 00` that is 257 bytes, within pcsc-lite's 258-byte
///   short-APDU limit.
///   A 4-bit ACK/NAK arrives as a one-byte `97` value (≤ 0Fh) with `92 01 04` (4 valid bits; our
///   reading of the PC/SC Part 3 `92` "number of valid bits in the last byte" object, no ACS
///   trace of it found): `0A` is returned as `[0x0A]` and a NAK is thrown as
///   `TransceiveError.nak(_:)`, as ``ACR122UType2Link`` does. No Type 2 command answers a
///   single full byte, so the length alone tells them apart when a reader omits `92`. A `C0`
///   status `64 01` (no answer before the timer ran out) is `TransceiveError.timeout`; a
///   non-zero `96` response status on a longer answer (framing, parity or CRC error) is
///   `TransceiveError.chipError(_:)` with its last byte.
///   After a timeout the next frame is preceded by Switch Protocol again (one APDU): a Type 2 tag
///   that got a command it does not know (GET_VERSION on a MIFARE Ultralight or NTAG203) falls
///   back to IDLE and stays mute until it is selected again (ISO 14443-3 state machine; nfcpy
///   `tt2.py` reselects after a failed GET_VERSION), and a switch to layer 3 makes the reader
///   activate the card anew (our reading of PC/SC Part 3; the ACS manuals we found do not say).
/// - **Mapped** (Part 3 readers without transparent exchange): READ (`30 pg`) becomes READ BINARY
///   (`FF B0 00 pg 10`) and WRITE (`A2 pg d0..d3`) becomes UPDATE BINARY (`FF D6 00 pg 04 …`).
///   Nothing else passes (rawCommands false), so the platform falls back to plain reads.
///
/// The session is left open for the life of the card handle (see ``PartThreeType5Link``).
public final class PartThreeType2Link: PartThreeLink, Transceiver {
  /// True after a timeout: the tag may be back in IDLE and is activated again before the next frame.
  private var needsActivation = false
  /// The capabilities of the mapped READ/UPDATE BINARY path.
  public static let mappedCapabilities = LinkCapabilities(maxResponseLength: 16, maxCommandLength: 6, rawCommands: false)
  /// 100 000 µs, little-endian (`5F 46` timer value).
  static let timer: [UInt8] = [0xA0, 0x86, 0x01, 0x00]

  /// A link over `transport`, a PC/SC connection to a Part 3 reader with a Type 2 tag. Nothing
  /// is sent until the first command or `probe()`.
  public init(transport: any APDUTransport) {
    super.init(transport: transport, standard: 0x00, layer: 0x03)
  }

  /// What the link carries. The first access runs `probe()` (two APDUs); when the probe cannot
  /// be sent (tag gone) the mapped capabilities are reported and the probe is retried later.
  public var capabilities: LinkCapabilities { session.capabilities(orMapped: Self.mappedCapabilities) }
  /// How commands reach the tag, for people: transparent exchange, or READ/UPDATE BINARY.
  public var pathDescription: String { partThreePath(session, frames: "ISO 14443-3A frames") }

  /// Sends one Type 2 command: as a frame in a transparent session, or mapped onto READ BINARY
  /// (READ) and UPDATE BINARY (WRITE) when the reader has none.
  /// - Throws: `TransceiveError.unsupported(_:)` for an empty command, one over 240 bytes or
  ///   one the mapped path cannot carry; a NAK, a timeout, the reader's status or the transport's
  ///   failure.
  public func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard !command.isEmpty else { throw .unsupported("an empty tag command") }
    if try probe() { return try exchange(command) }
    return try mapped(command)
  }

  private func exchange(_ frame: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard frame.count <= 240 else { throw .unsupported("a command of \(frame.count) bytes") }
    if needsActivation {
      guard try session.switchProtocol() else { throw .timeout }
      needsActivation = false
    }
    let answer: TransparentSession.Answer
    do {
      answer = try session.transceive(frame, timer: Self.timer)
    } catch {
      if error == .timeout { needsActivation = true }
      throw error
    }
    let data = answer.data
    // A 4-bit answer: ACK (A) or NAK (0, 1, 4, 5).
    if data.count == 1, let v = data.first, v <= 0x0F, answer.validBits == nil || answer.validBits == 4 {
      if v == 0x0A { return [0x0A] }
      throw .nak(v)
    }
    if let status = answer.responseStatus, let last = status.last, status.contains(where: { $0 != 0 }) {
      throw .chipError(last)
    }
    if data.isEmpty { throw .malformedResponse(data) }
    return data
  }

  private func mapped(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    switch command.first {
    case 0x30 where command.count == 2:
      let reply = try session.send([0xFF, 0xB0, 0x00, command[1], 0x10])
      return try Self.data(reply)
    case 0xA2 where command.count == 6:
      let reply = try session.send([0xFF, 0xD6, 0x00, command[1], 0x04] + command[2..<6])
      _ = try Self.data(reply)
      return [0x0A]
    default:
      throw .unsupported("tag command \(hexString(command.prefix(1))) through a PC/SC Part 3 reader "
                         + "without transparent exchange")
    }
  }

  static func data(_ reply: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard let response = ResponseAPDU(reply) else { throw .malformedResponse(reply) }
    guard response.statusWord.isSuccess else { throw .status(response.statusWord) }
    return response.data
  }
}

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

/// A Part 3 link's path once probed: the transparent exchange session or the mapped commands.
func partThreePath(_ session: TransparentSession, frames: String) -> String {
  switch session.available {
  case true?: return "PC/SC Part 3 transparent exchange (FF C2, \(frames))"
  case false?: return "PC/SC Part 3 READ/UPDATE BINARY (no transparent exchange)"
  case nil: return "PC/SC Part 3 (not probed yet)"
  }
}
