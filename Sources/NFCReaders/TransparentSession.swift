import NFCTransport

/// A PC/SC Part 3 "Manage Session / Transparent Exchange" session (`FF C2`), shared by the links
/// that send raw frames through a Part 3 reader (``PartThreeType2Link``, ``PartThreeType5Link``).
///
/// Probed once, lazily: `FF C2 00 00 02 81 00 00` starts the transparent session and
/// `FF C2 00 02 04 8F 02 <standard> <layer> 00` switches the field to one protocol; both must answer
/// `C0 03 00 90 00 … 90 00` (verified ACR1552 trace, NXP community thread 2093136). A refusal (`6A 81`,
/// or a `C0` object with another status) means the reader has no transparent exchange and the
/// caller falls back to READ/UPDATE BINARY. Each frame then goes out as
/// `FF C2 00 01 Lc [5F 46 04 timer] 95 len <frame> 00`; the answer's `C0` (generic status),
/// `92` (valid bits in the last byte), `96` (response status) and `97` (the card's answer, CRC
/// removed by the reader) objects are returned to the link, which interprets them for its tag type.
final class TransparentSession {
  let transport: any APDUTransport
  /// Switch Protocol standard (00 ISO 14443A, 02 ISO 15693, 03 FeliCa; PC/SC Part 3).
  let standard: UInt8
  /// Switch Protocol layer (03 = layer 3).
  let layer: UInt8
  /// nil until probed; then true when transparent exchange works.
  private(set) var available: Bool?
  /// APDUs sent (probe included), for round-trip accounting.
  private(set) var apduCount = 0

  init(transport: any APDUTransport, standard: UInt8, layer: UInt8) {
    self.transport = transport
    self.standard = standard
    self.layer = layer
  }

  /// Sends one APDU and counts it.
  func send(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    apduCount += 1
    return try transport.transmit(apdu)
  }

  /// Starts the session and switches protocol, once.
  /// - Returns: true when both answered `C0 03 00 90 00 … 90 00`.
  /// - Throws: only transport failures (tag removed, service gone); a refusal means "not available".
  @discardableResult
  func probe() throws(TransceiveError) -> Bool {
    if let available { return available }
    let start = try send([0xFF, 0xC2, 0x00, 0x00, 0x02, 0x81, 0x00, 0x00])
    guard Self.sessionOK(start) else {
      available = false
      return false
    }
    let ok = try switchProtocol()
    available = ok
    return ok
  }

  /// Longest tag answer a link takes through the session (the answer's data objects and the status
  /// words fit the 258-byte short-APDU answer around it).
  static let responseLimit = 240

  /// What a link over this session carries: raw frames once ``probe()`` succeeds (its first use
  /// sends two APDUs), else `mapped`. When the probe cannot be sent (tag gone) `mapped` is
  /// reported and the probe is retried later.
  func capabilities(orMapped mapped: LinkCapabilities) -> LinkCapabilities {
    guard (try? probe()) == true else { return mapped }
    return LinkCapabilities(maxResponseLength: Self.responseLimit, maxCommandLength: 240, rawCommands: true)
  }

  /// Sends Switch Protocol (`8F 02 <standard> <layer>`) and tells whether the reader accepted it.
  /// At layer 3 the reader activates the card anew (for ISO 14443A: REQA, anticollision, SELECT).
  func switchProtocol() throws(TransceiveError) -> Bool {
    Self.sessionOK(try send([0xFF, 0xC2, 0x00, 0x02, 0x04, 0x8F, 0x02, standard, layer, 0x00]))
  }

  /// Ends the session (`82`), when one was started; the next use probes again.
  func end() throws(TransceiveError) {
    guard available == true else { return }
    _ = try send([0xFF, 0xC2, 0x00, 0x00, 0x02, 0x82, 0x00, 0x00])
    available = nil
  }

  static func sessionOK(_ reply: [UInt8]) -> Bool {
    guard reply.count >= 7, let response = ResponseAPDU(reply), response.statusWord.isSuccess,
          let objects = BERObject.parse(response.data),
          let status = objects.first(where: { $0.tag == 0xC0 }) else { return false }
    return status.value.count == 3 && StatusWord(trailerOf: status.value)?.isSuccess == true
  }

  /// What the reader reported for one transceived frame.
  struct Answer {
    /// The card's answer (`97`), without CRC.
    var data: [UInt8]
    /// Valid bits in the last byte (`92`; 0 = all 8), nil when the object is absent.
    var validBits: UInt8?
    /// The response status (`96`), nil when absent.
    var responseStatus: [UInt8]?
  }

  /// Transceives `frame` (object `95`), with `timer` (little-endian µs, object `5F 46`) when given.
  /// - Throws: ``TransceiveError/status(_:)`` for an outer status word other than `90 00` or a
  ///   `C0` status other than `90 00` / `64 01`; ``TransceiveError/timeout`` for `64 01` (no
  ///   answer before the timer ran out, as the ACR1552 trace shows); `malformedResponse` when the
  ///   objects do not parse or `97` is missing.
  func transceive(_ frame: [UInt8], timer: [UInt8]? = nil) throws(TransceiveError) -> Answer {
    var objects: [UInt8] = []
    if let timer { objects += [0x5F, 0x46, UInt8(truncatingIfNeeded: timer.count)] + timer }
    objects += [0x95] + (frame.count < 0x80 ? [UInt8(frame.count)] : [0x81, UInt8(truncatingIfNeeded: frame.count)]) + frame
    guard objects.count <= 0xFF else { throw .unsupported("a frame of \(frame.count) bytes") }
    let reply = try send([0xFF, 0xC2, 0x00, 0x01, UInt8(objects.count)] + objects + [0x00])
    guard let response = ResponseAPDU(reply) else { throw .malformedResponse(reply) }
    guard response.statusWord.isSuccess else { throw .status(response.statusWord) }
    guard let answer = BERObject.parse(response.data) else { throw .malformedResponse(reply) }
    // C0 03 <index> SW1 SW2: the status of the data object at <index> (0 when all went well).
    guard let status = answer.first(where: { $0.tag == 0xC0 }), status.value.count == 3,
          let state = StatusWord(trailerOf: status.value) else {
      throw .malformedResponse(reply)
    }
    switch state {
    case .success: break
    case .noResponse: throw .timeout
    default: throw .status(state)
    }
    guard let data = answer.first(where: { $0.tag == 0x97 })?.value else { throw .malformedResponse(reply) }
    let bits = answer.first(where: { $0.tag == 0x92 })?.value
    return Answer(data: data, validBits: bits?.count == 1 ? bits?.first : nil,
                  responseStatus: answer.first(where: { $0.tag == 0x96 })?.value)
  }
}
