import NFCTransport

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
///   (`FF B0 00 pg 10`, as many as the reader needs for 16 bytes: `mappedRead(page:)`) and WRITE
///   (`A2 pg d0..d3`) becomes UPDATE BINARY (`FF D6 00 pg 04 …`).
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

  /// The bytes the reader's first READ BINARY answered on the mapped path, when fewer than 16
  /// (4 on the uTrust 3700 F); nil before it, or when it answered 16.
  private var readBinaryAnswerLength: Int?

  /// What the link carries. The first access runs `probe()` (two APDUs); when the probe cannot
  /// be sent (tag gone) the mapped capabilities are reported and the probe is retried later.
  /// On the mapped path `maxResponseLength` is what one READ BINARY answers: 16, or 4 once the
  /// reader answered one page, so that a platform knows that a READ (16 bytes) costs 4 round
  /// trips there, as many as writing its 4 pages.
  public var capabilities: LinkCapabilities {
    var mapped = Self.mappedCapabilities
    if let readBinaryAnswerLength { mapped.maxResponseLength = readBinaryAnswerLength }
    return session.capabilities(orMapped: mapped)
  }
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
      return try mappedRead(page: command[1])
    case 0xA2 where command.count == 6:
      let reply = try session.send([0xFF, 0xD6, 0x00, command[1], 0x04] + command[2..<6])
      _ = try Self.data(reply)
      return [0x0A]
    default:
      throw .unsupported("tag command \(hexString(command.prefix(1))) through a PC/SC Part 3 reader "
                         + "without transparent exchange")
    }
  }

  /// READ (`30 pg`, 16 bytes) as READ BINARY `FF B0 00 pg 10`, whatever length the reader
  /// returns: readers differ, and the answer is taken as whole pages from `pg` on.
  /// - the uTrust 3700 F returns one 4-byte page "regardless of the value given in Le" (Identiv
  ///   CLOUD 47x0 F Reference Manual §6.2.1, the same firmware family; nfc4pc `NDEF.java`): the
  ///   next pages are read until there are 16 bytes (4 APDUs instead of 1);
  /// - the OMNIKEY 5022 returns 16 bytes when asked for 4 (nfc4pc `NDEF.java`,
  ///   https://github.com/martinpaljak/nfc4pc/issues/14): more than 16 is cut to 16.
  /// A page past the last one is refused by such a reader where the tag's own READ wraps to page 0
  /// (NXP NTAG213/215/216 data sheet §10.2), so a page after the first that is refused twice in a
  /// row (once could be a passing failure) is taken as past the end, and the read goes on from
  /// page 0; a tag gone silent then fails there too, and the read with it.
  /// - Throws: `TransceiveError.malformedResponse(_:)` for an answer that is not whole pages (none,
  ///   or 1–3 bytes), the status of a refused first page.
  private func mappedRead(page: UInt8) throws(TransceiveError) -> [UInt8] {
    var bytes: [UInt8] = []
    var next = page
    var refused = false
    while bytes.count < 16 {
      let reply = try session.send([0xFF, 0xB0, 0x00, next, 0x10])
      let data: [UInt8]
      do {
        data = try Self.data(reply)
      } catch .status(let sw) {
        guard !bytes.isEmpty, next != 0 else { throw .status(sw) }
        if refused { next = 0 }  // past the last page: wrap as READ does
        refused.toggle()
        continue
      }
      refused = false
      guard !data.isEmpty, data.count % 4 == 0 else { throw .malformedResponse(data) }
      if data.count < 16, readBinaryAnswerLength == nil { readBinaryAnswerLength = data.count }
      bytes += data
      next &+= UInt8(truncatingIfNeeded: data.count / 4)
    }
    return Array(bytes.prefix(16))
  }

  static func data(_ reply: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard let response = ResponseAPDU(reply) else { throw .malformedResponse(reply) }
    guard response.statusWord.isSuccess else { throw .status(response.statusWord) }
    return response.data
  }
}

extension PartThreeType2Link: Type2PageReading {
  /// Reads page `page` with one command: READ (`30 pg`) in a transparent session, its first 4
  /// bytes kept; else one READ BINARY `FF B0 00 pg 04`, the first page of whatever the reader
  /// returns (4 bytes from the uTrust 3700 F, 16 from the OMNIKEY 5022: see `mappedRead(page:)`),
  /// with no further READ BINARY for the pages after it, so a refused page is the last command.
  /// - Throws: the reader's status (mapped) or the tag's NAK (transparent) for a page that is not
  ///   there or not readable; `TransceiveError.malformedResponse(_:)` for an answer that is not
  ///   whole pages.
  public func readPageAlone(_ page: UInt8) throws(TransceiveError) -> [UInt8] {
    let data: [UInt8]
    if try probe() {
      data = try exchange([0x30, page])
    } else {
      data = try Self.data(try session.send([0xFF, 0xB0, 0x00, page, 0x04]))
    }
    guard data.count >= 4, data.count % 4 == 0 else { throw .malformedResponse(data) }
    return Array(data.prefix(4))
  }
}
