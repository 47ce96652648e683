import NFCTransport

/// The ATR a PC/SC Part 3 reader builds for a storage card: standard byte `ss`, card name `name`
/// (PC/SC Part 3 §3.1.3.2.3), with its check byte.
public func partThreeStorageATR(standard ss: UInt8, name: [UInt8]) -> [UInt8] {
  var atr: [UInt8] = [0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06, ss]
  atr += name.prefix(2)
  atr += [0x00, 0x00, 0x00, 0x00]
  atr.append(atr.dropFirst().reduce(0, ^))
  return atr
}

/// The ATR for an ISO-DEP card: `3B 8n 80 01 <historical bytes> TCK`.
public func isoDEPATR(historicalBytes: [UInt8]) -> [UInt8] {
  let h = Array(historicalBytes.prefix(15))
  var atr: [UInt8] = [0x3B, 0x80 | UInt8(h.count), 0x80, 0x01] + h
  atr.append(atr.dropFirst().reduce(0, ^))
  return atr
}

/// An ACS ACR122U with one tag slot, as PC/SC applications see it: its ATRs, its pseudo-APDUs
/// (`FF CA`, `FF B0`, `FF D6`, `FF 00 48`, `FF 00 40`, `FF 00 50/51/52`) and direct transmit
/// (`FF 00 00 00 Lc D4 …`) to the PN532 inside (the commands are listed in
/// `ACR122UFace+PN532.swift` and docs/pn532.md). ACS API V2.04.
///
/// Device limits are kept: a PN532 normal information frame carries at most 255 bytes (TFI,
/// command, status and data), so no direct-transmit answer holds more than 252 data bytes; a
/// longer tag answer is reported as PN532 error 09 (buffer overflow), as the chip would.
///
/// A MIFARE Classic (``MIFAREClassicVirtualTag``) is reached through the MIFARE pseudo-APDUs
/// (`MIFAREClassicPseudoAPDUs`) and through InDataExchange's MIFARE commands.
public final class ACR122UFace: VirtualCard {
  /// The tag in the field, or nil.
  public var tag: (any VirtualTag)?
  /// The string the firmware command (`FF 00 48 00 00`) answers, for example "ACR122U207"
  /// (ACS ACR122U API V2.04 §6.3).
  public let firmware: String
  private var pollingParameter: UInt8 = 0xFF
  private var ledState: UInt8 = 0x00
  /// The PN532's CIU registers and FIFO, for ReadRegister / WriteRegister (see ``PN532CIU``).
  let ciu = PN532CIU()
  /// The PN532's target list (see `ACR122UFace+PN532.swift`): the firmware's own polling has
  /// activated the tag as target 1 by the time PC/SC shows a card.
  var target = PN532Target.listed(baudRate: nil)
  /// The last PN532 status, for GetGeneralStatus.
  var lastError: UInt8 = 0x00
  /// The ISO 14443-4 block layer a Type 4 tag runs for InCommunicateThru.
  var isoDEP = ISODEPBlockResponder()
  /// The reader's MIFARE Classic key slots and pseudo-APDUs (`FF 82`, `FF 86`, `FF 88`, and
  /// `FF B0`/`FF D6` of 16 bytes).
  var classicAPDUs = MIFAREClassicPseudoAPDUs()

  /// Longest tag answer one PN532 frame carries through direct transmit.
  public static let maximumChipAnswer = 252

  /// An ACR122U with `tag` in its field (nil: none) and `firmware` as its version string.
  public init(tag: (any VirtualTag)?, firmware: String = "ACR122U207") {
    self.tag = tag
    self.firmware = firmware
  }

  /// The ATR the ACR122U builds for the tag (PC/SC Part 3 §3.1.3.2.3): the ISO-DEP form with the
  /// ATS's historical bytes, else the storage-card form with the card's standard and name; `3B 00`
  /// with no tag.
  public var atr: [UInt8] {
    guard let tag else { return [0x3B, 0x00] }
    if let classic = tag as? MIFAREClassicVirtualTag {
      // Card names 00 01 (1K), 00 02 (4K), 00 26 (Mini): PC/SC Part 3 Supplemental Document;
      // ACR122U API V2.04 §3.1.1.
      return partThreeStorageATR(standard: 0x03, name: classic.chip.partThreeName)
    }
    switch tag.technology {
    case .typeA(_, _, let ats?): return isoDEPATR(historicalBytes: ats)  // the ACR122U puts the whole ATS here
    case .typeA: return partThreeStorageATR(standard: 0x03, name: [0x00, 0x03])
    case .jewel: return partThreeStorageATR(standard: 0x03, name: [0xF0, 0x04])
    case .felica: return partThreeStorageATR(standard: 0x03, name: [0xF0, 0x11])
    case .iso15693: return partThreeStorageATR(standard: 0x0B, name: [0x00, 0x14])
    }
  }

  /// The firmware polls the tag again: target 1, the tag's volatile state dropped.
  public func powerOn() { activateAgain() }
  /// The firmware polls the tag again: target 1, the tag's volatile state dropped.
  public func powerOff() { activateAgain() }
  /// The firmware polls the tag again: target 1, the tag's volatile state dropped.
  public func reset() { activateAgain() }

  /// The firmware's polling found the tag again: target 1, fresh tag state.
  func activateAgain() {
    tag?.reset()
    isoDEP = ISODEPBlockResponder()
    target = .listed(baudRate: nil)
  }

  static let ok = StatusWord.success.bytes
  static let failed = StatusWord.noInformation.bytes

  /// Answers one APDU as the ACR122U does: its pseudo-APDUs (`FF …`: direct transmit to the
  /// PN532, GET DATA, firmware, LEDs and buzzer, PICC parameters; ACS ACR122U API V2.04 §4–6),
  /// or an ISO 7816 APDU passed to a Type 4 tag. Never empty.
  public func transmit(_ apdu: [UInt8]) -> [UInt8] {
    guard apdu.count >= 4 else { return StatusWord.wrongLength.bytes }
    if apdu[0] != 0xFF { return tagAPDU(apdu) }
    if let classic = tag as? MIFAREClassicVirtualTag, let answer = classicAPDUs.answer(apdu, tag: classic) {
      return answer
    }
    let ins = apdu[1], p1 = apdu[2], p2 = apdu[3]
    switch (ins, p1) {
    case (0xCA, _): return getData(p1)
    case (0xB0, _): return readBinary(apdu)
    case (0xD6, _): return updateBinary(apdu)
    case (0x00, 0x48): return Array(firmware.utf8)
    case (0x00, 0x40):
      ledState = p2 & 0x03
      return [0x90, ledState]
    case (0x00, 0x50): return [0x90, pollingParameter]
    case (0x00, 0x51):
      pollingParameter = p2
      return [0x90, pollingParameter]
    case (0x00, 0x52): return Self.ok
    case (0x00, 0x00): return directTransmit(apdu)
    default: return Self.failed
    }
  }

  // MARK: - Part 3 pseudo-APDUs

  private func getData(_ p1: UInt8) -> [UInt8] {
    guard let tag else { return Self.failed }
    switch p1 {
    case 0x00: return tag.identifier + Self.ok
    case 0x01:
      if case .typeA(_, _, let ats?) = tag.technology { return ats + Self.ok }
      return StatusWord.functionNotSupported.bytes
    default: return StatusWord.functionNotSupported.bytes
    }
  }

  private func readBinary(_ apdu: [UInt8]) -> [UInt8] {
    guard let tag, tag.platform == .type2, apdu.count == 5 else { return Self.failed }
    let length = apdu[4] == 0 ? 16 : Int(apdu[4])
    guard apdu[2] == 0, length <= 16 else { return Self.failed }
    guard case .data(let bytes) = tag.respond(to: [0x30, apdu[3]]), bytes.count == 16 else { return Self.failed }
    return Array(bytes.prefix(length)) + Self.ok
  }

  private func updateBinary(_ apdu: [UInt8]) -> [UInt8] {
    guard let tag, tag.platform == .type2, apdu.count == 9, apdu[2] == 0, apdu[4] == 4 else { return Self.failed }
    guard case .ack = tag.respond(to: [0xA2, apdu[3]] + Array(apdu[5..<9])) else { return Self.failed }
    return Self.ok
  }

  /// APDUs for the card itself: ISO-DEP tags take them as they are; FeliCa tags take a raw frame.
  private func tagAPDU(_ apdu: [UInt8]) -> [UInt8] {
    guard let tag else { return Self.failed }
    switch tag.platform {
    case .type4:
      // The firmware carries the APDU in one PN532 InDataExchange frame (D4 40 01 + APDU, at most
      // 255 bytes after the length byte) and gets the R-APDU back in one (D5 41 status + R-APDU):
      // at most 252 bytes each way. A longer answer is a PN532 buffer overflow, which the reader
      // reports as its generic failure 63 00 (ACS API V2.04 §5.3 and App. D).
      guard apdu.count <= Self.maximumChipAnswer else { return Self.failed }
      if case .data(let answer) = tag.respond(to: apdu), answer.count >= 2 {
        guard answer.count <= Self.maximumChipAnswer else { return Self.failed }
        return answer
      }
      return StatusWord.noPreciseDiagnosis.bytes
    case .type3:
      if case .data(let answer) = tag.respond(to: apdu) { return answer + Self.ok }
      return Self.failed
    default:
      return Self.failed
    }
  }

  /// The PN532 status byte and data for a tag's response.
  func chipAnswer(_ response: TagResponse, thru: Bool) -> [UInt8] {
    switch response {
    case .data(let bytes):
      guard bytes.count <= Self.maximumChipAnswer else { return [0x09] }
      return [0x00] + bytes
    case .ack: return [0x00]
    case .nak(let code): return thru ? [0x00, code] : [0x14]
    case .mute: return [0x01]
    }
  }
}
