import NFCTransport

/// Type 5 (ISO 15693) commands through a PC/SC Part 3 reader.
///
/// Two paths, chosen once with a probe (two APDUs, on first use):
/// - **Transparent exchange** (ACS ACR1252U/ACR1552U and other readers with PC/SC Part 3
///   Manage Session): `FF C2 00 00 02 81 00 00` starts a transparent session and
///   `FF C2 00 02 04 8F 02 02 03 00` switches to ISO 15693 layer 3, as in the verified ACR1552
///   trace (NXP community thread 2093136). Each frame then goes out as
///   `FF C2 00 01 Lc [5F 46 04 timer] 95 len <frame> 00`, and the tag's answer comes back in the
///   `97` data object. Writes and locks carry a 1-second timer (`5F 46 04 40 42 0F 00`), because the
///   trace shows a WRITE SINGLE BLOCK timing out (`C0 03 01 64 01`) without it. Raw commands pass
///   (`LinkCapabilities.rawCommands` true) and one answer carries up to 240 bytes after the
///   flags byte, so a tag answer plus the `C0`, `92`, `96`, `97` objects and `90 00` stays within
///   pcsc-lite's 258-byte short-APDU limit (60 blocks of 4 bytes per READ MULTIPLE BLOCKS).
/// - **Mapped** (any other Part 3 reader with ISO 15693): READ SINGLE BLOCK `flags 20 [UID] blk`
///   becomes `FF B0 00 blk Le` and WRITE SINGLE BLOCK `flags 21 [UID] blk data` becomes
///   `FF D6 00 blk Lc data` (liblogicalaccess `iso15693pcsccommands.cpp`); Le is
///   ``blockSize``. Nothing else passes (rawCommands false), one block per exchange.
///
/// The session is left open: an ACS reader ends it when the card leaves or the handle is
/// disconnected with a reset, and the trace shows further transparent exchanges working inside one
/// session, so closing it after every command would only double the round trips. Call
/// `endSession()` to close it explicitly (`FF C2 00 00 02 82 00 00`), for example before
/// sending other pseudo-APDUs on the same handle.
///
/// Answers are `flags data` (the flags byte kept, so callers see the tag's own frame). An answer
/// with the error flag (01) is thrown as `TransceiveError.nak(_:)` carrying the ISO 15693 error
/// code (10 block not available, 12 locked…): like a Type 2 NAK it is the tag refusing the
/// command, and it keeps tag codes apart from reader status words (`TransceiveError.status(_:)`),
/// which this link uses for `FF B0`/`FF D6` failures and non-`90 00` Manage Session states. A
/// `64 01` state (no answer before the timer ran out) is thrown as `TransceiveError.timeout`.
/// An empty answer, or one with the error flag but no code byte, is a
/// `TransceiveError.malformedResponse(_:)` (`ISO15693Response` reads every answer).
public final class PartThreeType5Link: PartThreeLink, Transceiver {
  /// The block size used for Le in the mapped path (4 unless the platform learnt otherwise).
  public var blockSize = 4

  /// A link over `transport`, a PC/SC connection to a Part 3 reader with a Type 5 tag. Nothing
  /// is sent until the first command or `probe()`.
  public init(transport: any APDUTransport) {
    // ISO 15693 layer 3: `8F 02 02 03`.
    super.init(transport: transport, standard: 0x02, layer: 0x03)
  }

  /// How requests reach the tag, for people: transparent exchange, or READ/UPDATE BINARY.
  public var pathDescription: String { partThreePath(session, frames: "ISO 15693 frames") }

  /// What the link carries: the transparent exchange's limits once `probe()` found it (the first
  /// access runs it: two APDUs; when it cannot be sent, tag gone, it is retried later), else one
  /// block (``blockSize`` bytes) through READ BINARY and UPDATE BINARY.
  public var capabilities: LinkCapabilities {
    session.capabilities(orMapped: LinkCapabilities(maxResponseLength: blockSize, maxCommandLength: 3 + 8 + blockSize,
                                                    rawCommands: false))
  }

  private func send(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    try session.send(apdu)
  }

  /// Sends one ISO 15693 request (flags, command code, parameters; ISO/IEC 15693-3:2009 §7.3): as a
  /// frame in a transparent session, or mapped onto READ BINARY and UPDATE BINARY when the reader
  /// has none.
  /// - Throws: `TransceiveError.unsupported(_:)` for a request shorter than 2 bytes or one the
  ///   mapped path cannot carry; the tag's error, a timeout, the reader's status or the transport's
  ///   failure.
  public func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard command.count >= 2 else { throw .unsupported("an ISO 15693 frame of \(command.count) bytes") }
    if try probe() { return try exchange(command) }
    return try mapped(command)
  }

  // MARK: Transparent exchange

  private func exchange(_ frame: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard frame.count <= 240 else { throw .unsupported("an ISO 15693 frame of \(frame.count) bytes") }
    let command = frame[1]
    let timed = [0x21, 0x22, 0x24, 0x27, 0x28, 0x29, 0x2A].contains(command)
    // 1 000 000 µs, little-endian
    let answer = try session.transceive(frame, timer: timed ? [0x40, 0x42, 0x0F, 0x00] : nil)
    let data = answer.data
    guard let response = ISO15693Response(data) else { throw .malformedResponse(data) }
    if let code = response.errorCode { throw .nak(code.rawValue) }
    return data
  }

  // MARK: Mapped READ/UPDATE BINARY

  private func mapped(_ frame: [UInt8]) throws(TransceiveError) -> [UInt8] {
    let flags = frame[0], command = frame[1]
    var params = frame[2...]
    if flags & 0x04 == 0, flags & 0x20 != 0 {
      guard params.count >= 8 else { throw .unsupported("an addressed ISO 15693 frame without its UID") }
      params = params.dropFirst(8)
    }
    switch command {
    case 0x20 where params.count == 1 && flags & 0x40 == 0:
      let reply = try send([0xFF, 0xB0, 0x00, params[params.startIndex], UInt8(truncatingIfNeeded: blockSize)])
      let data = try PartThreeType2Link.data(reply)
      guard data.count == blockSize else { throw .malformedResponse(reply) }
      return [0x00] + data
    case 0x21 where params.count == 1 + blockSize:
      let block = params[params.startIndex]
      let reply = try send([0xFF, 0xD6, 0x00, block, UInt8(truncatingIfNeeded: blockSize)] + params.dropFirst())
      _ = try PartThreeType2Link.data(reply)
      return [0x00]
    default:
      throw .unsupported("ISO 15693 command \(hexString([command])) through a PC/SC Part 3 reader without "
                         + "transparent exchange")
    }
  }
}
