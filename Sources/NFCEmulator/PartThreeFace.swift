import NFCTransport

/// A generic PC/SC Part 3 contactless reader with ISO 15693 support, shaped after the ACS
/// ACR1552U: Part 3 ATRs and pseudo-APDUs, Manage Session / Transparent Exchange for ISO 15693
/// and Type 2 (ISO 14443A layer 3) frames, and plain APDUs for ISO-DEP cards. Types 2, 4 and 5; no Type 1 or Type 3.
///
/// - ATR (PC/SC Part 3 §3.1.3.2.3): Type 2 `SS 03`, name `00 03`; ISO 15693
///   `SS 0B` (part 3), name `00 14` (the only ICODE name in pcsc-tools' Part 3 list; no SLIX2 name
///   exists there); ISO-DEP `3B 8n 80 01` + the ATS historical bytes only (ACR1255U-J1 manual,
///   ifdnfc `atr.c`), not the whole ATS the ACR122U puts there.
/// - `FF CA 00 00 00`: the UID, least significant byte first for ISO 15693 (ACS manuals: "UID (LSB)
///   … UID (MSB)"); `FF CA 01 00 00`: the ATS with TL, as ACS readers answer (ACR1255U-J1 manual), for
///   ISO-DEP only, else `6A 81`. An Le shorter than the UID gets `6C xx`, a longer one `62 82`
///   after the UID (ACS GET DATA status words).
/// - `FF B0 00 p Le` / `FF D6 00 p Lc data`: Type 2 reads of 4 pages (Le ≤ 10h; 00 = 16) and
///   one-page writes (Lc 4); Type 5 reads and writes of whole blocks, Le/Lc a multiple of the
///   4-byte block size (00 = one block), P1 P2 = block number. A failing read or write answers
///   `63 00` (ACS generic failure; liblogicalaccess `acsacrresultchecker.cpp`).
/// - `FF C2 00 00` Manage Session (81 start, 82 end, 83 RF off, 84 RF on, 5F 46 timer),
///   `FF C2 00 02` Switch Protocol (`8F 02 02 03`: ISO 15693 layer 3 for an ISO 15693 tag,
///   `8F 02 00 03`: ISO 14443A layer 3 for a Type 2 tag) and `FF C2 00 01` Transparent Exchange
///   (95 transceive; 90/91/92 framing objects and the timer are accepted and ignored). Type 2
///   frames (READ, FAST_READ, WRITE, GET_VERSION, PWD_AUTH…) go to the tag as they are; its 4-bit
///   ACK/NAK comes back as one byte with `92 01 04`. Answers follow the ACR1552 trace
///   (NXP community thread 2093136): `C0 03 00 90 00`
///   (generic status, no error), then `92 01 00 96 02 00 00 97 len <tag answer>`; a tag that does
///   not answer gives `C0 03 01 64 01` (timeout). The outer status word is `90 00` in every case.
///   An unknown data object stops the list with `C0 03 <1-based index> 6A 81`. A tag answer that
///   would not fit the short-APDU limit gives `C0 03 <index> 67 00` (this choice is ours).
/// - Anything else with CLA FF, including the ACR122U's `FF 00 48 00 00` and direct transmit
///   `FF 00 00 00 …`, answers `6A 81` "function not supported", as ACS's non-PN53x readers list it
///   for unsupported pseudo-APDUs (ACR1255U-J1, ACR1281U-C1 and ACM1281U manuals, GET DATA table),
///   so detection takes the generic Part 3 path.
/// - Other APDUs go to ISO-DEP tags unchanged; for other tags they answer `6A 81`.
/// - A MIFARE Classic (``MIFAREClassicVirtualTag``) gets the storage-card ATR with its card name
///   and the MIFARE pseudo-APDUs (LOAD KEYS, GENERAL AUTHENTICATE, READ/UPDATE BINARY of 16-byte
///   blocks, ACS's value block APDUs), as the ACR122U face answers them (`MIFAREClassicPseudoAPDUs`).
///
/// Every answer, status word included, fits pcsc-lite's short-APDU limit of 258 bytes.
public final class PartThreeFace: VirtualCard {
  /// The tag in the field.
  public let tag: any VirtualTag
  /// False to model a Part 3 reader without Manage Session / Transparent Exchange (every
  /// `FF C2` then answers `6A 81`), so only READ/UPDATE BINARY reach an ISO 15693 tag.
  public let transparentExchange: Bool
  /// True between a Manage Session start (81) and end (82).
  public private(set) var sessionActive = false
  /// The protocol chosen by the last Switch Protocol (`[standard, layer]`), nil after power-on and
  /// at the start or end of a session.
  public private(set) var selectedProtocol: [UInt8]?
  /// Longest answer, status word included (pcsc-lite `MAX_BUFFER_SIZE` for short APDUs).
  public static let maximumAnswer = 258
  /// The reader's MIFARE Classic key slots and pseudo-APDUs.
  private var classicAPDUs = MIFAREClassicPseudoAPDUs()

  /// - Throws: ``EmulatorError`` for Type 1 (Topaz) and Type 3 (FeliCa) tags, which this reader
  ///   does not handle here.
  public init(tag: any VirtualTag, transparentExchange: Bool = true) throws(EmulatorError) {
    switch tag.technology {
    case .jewel:
      throw EmulatorError("the Part 3 reader face does not handle Type 1 (Topaz) tags", workingFace: .acr122u)
    case .felica:
      throw EmulatorError("the Part 3 reader face does not handle Type 3 (FeliCa) tags", workingFace: .acr122u)
    case .typeA, .iso15693:
      break
    }
    self.tag = tag
    self.transparentExchange = transparentExchange
  }

  /// The ATR the reader builds for the tag (PC/SC Part 3 §3.1.3.2.3), as listed above.
  public var atr: [UInt8] {
    if let classic = tag as? MIFAREClassicVirtualTag {
      // Card names 00 01 (1K), 00 02 (4K), 00 26 (Mini): PC/SC Part 3 Supplemental Document;
      // ACR122U API V2.04 §3.1.1.
      return partThreeStorageATR(standard: 0x03, name: classic.chip.partThreeName)
    }
    switch tag.technology {
    case .typeA(_, _, let ats?): return isoDEPATR(historicalBytes: Self.historicalBytes(ofATS: ats))
    case .typeA: return partThreeStorageATR(standard: 0x03, name: [0x00, 0x03])
    case .iso15693: return partThreeStorageATR(standard: 0x0B, name: [0x00, 0x14])
    case .jewel: return partThreeStorageATR(standard: 0x03, name: [0x00, 0x30])
    case .felica: return partThreeStorageATR(standard: 0x11, name: [0x00, 0x3B])
    }
  }

  /// Ends any transparent session and resets the tag.
  public func powerOn() { endSession() }
  /// Ends any transparent session and resets the tag.
  public func powerOff() { endSession() }
  /// Ends any transparent session and resets the tag.
  public func reset() { endSession() }

  private func endSession() {
    sessionActive = false
    selectedProtocol = nil
    tag.reset()
  }

  /// The historical bytes of an ATS (TL T0 [TA] [TB] [TC] T1…Tk), for the ISO-DEP ATR.
  /// Source: ifdnfc `atr.c`.
  static func historicalBytes(ofATS ats: [UInt8]) -> [UInt8] {
    guard ats.count >= 2 else { return [] }
    let t0 = ats[1]
    var start = 2
    for bit in [UInt8(0x10), 0x20, 0x40] where t0 & bit != 0 { start += 1 }
    let end = min(ats.count, max(Int(ats[0]), 0))
    guard start < end else { return [] }
    return Array(ats[start..<end])
  }

  private static let ok = StatusWord.success.bytes
  private static let failed = StatusWord.noInformation.bytes
  private static let notSupported = StatusWord.functionNotSupported.bytes

  /// Answers one APDU: the pseudo-APDUs above (`FF …`), or an ISO 7816 APDU passed to a Type 4
  /// tag (`6A 81` for other tags). Never empty.
  public func transmit(_ apdu: [UInt8]) -> [UInt8] {
    guard apdu.count >= 4 else { return StatusWord.wrongLength.bytes }
    guard apdu[0] == 0xFF else {
      guard tag.platform == .type4 else { return Self.notSupported }
      if case .data(let answer) = tag.respond(to: apdu), answer.count >= 2, answer.count <= Self.maximumAnswer {
        return answer
      }
      return StatusWord.noPreciseDiagnosis.bytes
    }
    if let classic = tag as? MIFAREClassicVirtualTag, let answer = classicAPDUs.answer(apdu, tag: classic) {
      return answer
    }
    switch apdu[1] {
    case 0xCA: return getData(apdu)
    case 0xB0: return readBinary(apdu)
    case 0xD6: return updateBinary(apdu)
    case 0xC2 where transparentExchange: return manageSession(apdu)
    default: return Self.notSupported
    }
  }

  // MARK: - GET DATA, READ BINARY, UPDATE BINARY

  private func getData(_ apdu: [UInt8]) -> [UInt8] {
    guard apdu.count == 5, apdu[3] == 0 else { return Self.notSupported }
    let value: [UInt8]
    switch apdu[2] {
    case 0x00: value = tag.identifier
    case 0x01:
      guard case .typeA(_, _, let ats?) = tag.technology else { return Self.notSupported }
      value = ats
    default: return Self.notSupported
    }
    let le = Int(apdu[4])
    if le == 0 || le == value.count { return value + Self.ok }
    if le < value.count { return [0x6C, UInt8(truncatingIfNeeded: value.count)] }
    return value + StatusWord.endOfFileReached.bytes
  }

  private func readBinary(_ apdu: [UInt8]) -> [UInt8] {
    guard apdu.count == 5 else { return Self.failed }
    let address = Int(apdu[2]) << 8 | Int(apdu[3])
    switch tag.platform {
    case .type2:
      let length = apdu[4] == 0 ? 16 : Int(apdu[4])
      guard address <= 0xFF, length <= 16 else { return Self.failed }
      guard case .data(let bytes) = tag.respond(to: [0x30, UInt8(address)]), bytes.count == 16 else { return Self.failed }
      return Array(bytes.prefix(length)) + Self.ok
    case .type5:
      let length = apdu[4] == 0 ? 4 : Int(apdu[4])
      guard length % 4 == 0, address <= 0xFF else { return Self.failed }
      let count = length / 4
      guard address + count - 1 <= 0xFF else { return Self.failed }
      let frame: [UInt8] = count == 1 ? [0x02, 0x20, UInt8(address)] : [0x02, 0x23, UInt8(address), UInt8(count - 1)]
      guard case .data(let answer) = tag.respond(to: frame), answer.first == 0x00, answer.count == 1 + length else {
        return Self.failed
      }
      return Array(answer.dropFirst()) + Self.ok
    default:
      return Self.notSupported
    }
  }

  private func updateBinary(_ apdu: [UInt8]) -> [UInt8] {
    guard apdu.count >= 5, apdu.count == 5 + Int(apdu[4]) else { return Self.failed }
    let address = Int(apdu[2]) << 8 | Int(apdu[3])
    let data = Array(apdu[5...])
    switch tag.platform {
    case .type2:
      guard address <= 0xFF, data.count == 4 else { return Self.failed }
      guard case .ack = tag.respond(to: [0xA2, UInt8(address)] + data) else { return Self.failed }
      return Self.ok
    case .type5:
      guard !data.isEmpty, data.count % 4 == 0, address + data.count / 4 - 1 <= 0xFF else { return Self.failed }
      for i in 0 ..< data.count / 4 {
        let frame: [UInt8] = [0x02, 0x21, UInt8(address + i)] + data[(i * 4) ..< (i * 4 + 4)]
        guard case .data(let answer) = tag.respond(to: frame), answer == [0x00] else { return Self.failed }
      }
      return Self.ok
    default:
      return Self.notSupported
    }
  }

  // MARK: - Manage Session, Transparent Exchange, Switch Protocol

  private func manageSession(_ apdu: [UInt8]) -> [UInt8] {
    guard apdu.count >= 5, apdu[2] == 0x00 else { return Self.notSupported }
    let lc = Int(apdu[4])
    guard apdu.count == 5 + lc || apdu.count == 6 + lc else { return StatusWord.wrongLength.bytes }
    guard let objects = BERObject.parse(Array(apdu[5 ..< 5 + lc])) else {
      return Self.status(index: 1, .wrongLength) + Self.ok
    }
    switch apdu[3] {
    case 0x00: return session(objects)
    case 0x01: return exchange(objects)
    case 0x02: return switchProtocol(objects)
    default: return Self.notSupported
    }
  }

  /// The `C0 03 <index> SW1 SW2` status object of a Manage Session or transparent exchange answer.
  private static func status(index: Int, _ sw: StatusWord) -> [UInt8] {
    [0xC0, 0x03, UInt8(truncatingIfNeeded: index), sw.sw1, sw.sw2]
  }

  private func session(_ objects: [BERObject]) -> [UInt8] {
    for (i, object) in objects.enumerated() {
      switch object.tag {
      case 0x81:
        sessionActive = true
        selectedProtocol = nil
      case 0x82: endSession()
      case 0x83: tag.reset()
      case 0x84: break
      case 0x5F46: break
      default: return Self.status(index: i + 1, .functionNotSupported) + Self.ok
      }
    }
    return Self.status(index: 0, .success) + Self.ok
  }

  /// Switch Protocol (`8F 02 <standard> <layer>`; PC/SC Part 3 values as in
  /// wsrf2009/contactless-driver `pcsc.h`).
  ///
  /// - `02 02` / `02 03` (ISO 15693) with an ISO 15693 tag, and `00 03` (ISO 14443A layer 3) with a
  ///   Type 2 tag: `C0 03 00 90 00 8F 01 00`, as in the ACR1552 trace. The 14443A switch activates
  ///   the tag anew (ISO 14443-3 REQA/anticollision/SELECT), so its volatile state (PWD_AUTH) is
  ///   dropped.
  /// - A standard this reader handles (00 ISO 14443A, 02 ISO 15693) that the tag in the field does
  ///   not speak: `C0 03 01 64 01`, the "no answer" state the trace shows for a mute tag, because
  ///   the reader switches its field and then no card answers the activation. This is our choice:
  ///   the ACS manuals we found do not show this case.
  /// - Anything else (other standards, layers 2 and 4, a malformed object): `C0 03 01 6A 81`.
  private func switchProtocol(_ objects: [BERObject]) -> [UInt8] {
    guard objects.count == 1, let object = objects.first, object.tag == 0x8F, object.value.count == 2 else {
      return Self.status(index: 1, .functionNotSupported) + Self.ok
    }
    let standard = object.value[0], layer = object.value[1]
    switch (standard, layer) {
    case (0x02, 0x02), (0x02, 0x03):
      guard tag.platform == .type5 else { return Self.status(index: 1, .noResponse) + Self.ok }
    case (0x00, 0x03):
      guard tag.platform == .type2 else { return Self.status(index: 1, .noResponse) + Self.ok }
      tag.reset()
    default:
      return Self.status(index: 1, .functionNotSupported) + Self.ok
    }
    selectedProtocol = [standard, layer]
    return Self.status(index: 0, .success) + [0x8F, 0x01, 0x00] + Self.ok
  }

  /// Transparent Exchange. ISO 15693 tags answer without a prior Switch Protocol (as before);
  /// Type 2 tags only after a switch to ISO 14443A layer 3 (else `C0 03 01 6A 81`). A Type 2
  /// ACK or NAK comes back as a one-byte `97` with `92 01 04` (4 valid bits in the last byte).
  private func exchange(_ objects: [BERObject]) -> [UInt8] {
    switch tag.platform {
    case .type5: break
    case .type2 where selectedProtocol == [0x00, 0x03] && !(tag is MIFAREClassicVirtualTag): break
    default: return Self.status(index: 1, .functionNotSupported) + Self.ok
    }
    var out: [UInt8] = []
    for (i, object) in objects.enumerated() {
      switch object.tag {
      case 0x90, 0x91, 0x92, 0x5F46: continue
      case 0x93:
        _ = tag.respond(to: object.value)
      case 0x95:
        let answer: [UInt8], validBits: UInt8
        switch tag.respond(to: object.value) {
        case .data(let bytes): (answer, validBits) = (bytes, 0)
        case .ack: (answer, validBits) = ([0x0A], 4)
        case .nak(let code): (answer, validBits) = ([code & 0x0F], 4)
        case .mute: return Self.status(index: i + 1, .noResponse) + Self.ok
        }
        let length: [UInt8] = answer.count < 0x80 ? [UInt8(answer.count)] : [0x81, UInt8(truncatingIfNeeded: answer.count)]
        out = [0x92, 0x01, validBits, 0x96, 0x02, 0x00, 0x00, 0x97] + length + answer
        guard answer.count <= 0xFF, 5 + out.count + 2 <= Self.maximumAnswer else {
          return Self.status(index: i + 1, .wrongLength) + Self.ok
        }
      default:
        return Self.status(index: i + 1, .functionNotSupported) + Self.ok
      }
    }
    return Self.status(index: 0, .success) + out + Self.ok
  }
}
