import NFCTransport

/// InCommunicateThru (`D4 42 DataOut`, PN532 User Manual §7.3.9): the PN532 sends DataOut as one
/// frame the way its CIU is set up and returns the status and what came back. The CIU registers
/// (``PN532CIU``) decide:
/// - TxMode bit 7 clear (a host handling the CRC, as libnfc does with `NP_HANDLE_CRC` off): the
///   host's frame ends with its own CRC (CRC_A for type A tags, the FeliCa CRC for FeliCa); the
///   tag checks it and ignores a frame whose CRC is wrong (status 01, timeout). Set: the chip adds
///   the CRC.
/// - RxMode bit 7 clear: the tag's answer comes back with its CRC appended, unchecked; set: the
///   chip checks and strips it.
/// - TxMode bits 1–0 (framing): a type A tag hears only ISO/IEC 14443A framing (00), a FeliCa tag
///   only FeliCa framing (10); any other (type B 11, as `63 02 83` sets it) reaches no tag: status 01.
/// - ManualRCV bit 4 (ParityDisable, libnfc `NP_HANDLE_PARITY` off): DataOut carries each byte's
///   parity bit after its 8 data bits, packed least significant bit first (libnfc
///   `pn53x_wrap_frame`); a wrong parity bit gets no answer, and the answer comes back packed the
///   same way (``PN53xCIU/withParityBits(_:)``), with its CRC when RxMode says so.
/// - A Type 4 tag gets raw ISO/IEC 14443-4 blocks (``ISODEPBlockResponder``), not bare APDUs.
/// - A Type 1 tag answers nothing (see `ACR122UFace+Jewel.swift`).
extension ACR122UFace {
  /// Status byte then the tag's answer (with its CRC when the host handles it).
  func communicateThru(_ dataOut: [UInt8]) -> [UInt8] {
    guard let tag else { return [Self.timeoutStatus] }
    if tag.platform == .type1 { return jewelExchange(dataOut, thru: true, tag: tag) }
    guard tag.technology.hears(framing: ciu.framing) else { return [Self.timeoutStatus] }
    let feliCa = tag.platform == .type3
    func crc(_ bytes: [UInt8]) -> [UInt8] { feliCa ? PN53xCIU.crcFeliCa(bytes) : PN53xCIU.crcA(bytes) }
    var frame = dataOut
    let parityOff = ciu.parityDisabled
    if parityOff {
      // The host sent every byte's parity bit itself (libnfc `pn53x_wrap_frame`); a wrong one
      // and the tag ignores the frame.
      frame = PN53xCIU.strippingParityBits(dataOut)
      guard Self.parityBitsMatch(dataOut, frame) else { return [Self.timeoutStatus] }
    }
    if !ciu.appendsCRC {
      guard frame.count > 2, crc(Array(frame.dropLast(2))) == Array(frame.suffix(2)) else { return [Self.timeoutStatus] }
      frame.removeLast(2)
    }
    var response: TagResponse
    if case .typeA(_, _, let ats?) = tag.technology {
      response = isoDEP.respond(to: frame, ats: ats) { apdu in
        if case .data(let answer) = tag.respond(to: apdu) { return answer }
        return nil
      }.map(TagResponse.data) ?? .mute
    } else {
      response = tag.respond(to: frame)
    }
    if case .data(let bytes) = response, !ciu.stripsCRC { response = .data(bytes + crc(bytes)) }
    if case .data(let bytes) = response, parityOff { response = .data(PN53xCIU.withParityBits(bytes)) }
    return chipAnswer(response, thru: true)
  }

  /// Whether the first 9 × `bytes.count` bits of `stream` are `bytes` with odd parity bits.
  static func parityBitsMatch(_ stream: [UInt8], _ bytes: [UInt8]) -> Bool {
    let expected = PN53xCIU.withParityBits(bytes)
    let bitCount = bytes.count * 9
    guard !bytes.isEmpty, stream.count >= expected.count else { return false }
    return (0..<bitCount).allSatisfy { n in
      (stream[n / 8] ^ expected[n / 8]) >> UInt8(n % 8) & 1 == 0
    }
  }
}

extension RFTechnology {
  /// Whether a tag of this technology hears frames sent with TxMode framing `framing`.
  func hears(framing: UInt8) -> Bool {
    switch self {
    case .typeA, .jewel: return framing == 0x00
    case .felica: return framing == 0x02
    case .iso15693: return false
    }
  }
}
