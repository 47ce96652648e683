import NFCTransport

/// A PC/SC Part 3 contactless reader: Part 3 ATRs and pseudo-APDUs, and plain APDUs for ISO-DEP
/// cards, as one reader model (a ``ReaderProfile``) answers them: the ACR1252U, ACR1552U, uTrust
/// 3700 F, OMNIKEY 5022 / 5422 and SCL3711 faces are this class with their profiles. What follows
/// is the ACR1552U's behaviour (the default profile, ``ReaderProfile/acr1552u``, which the `part3`
/// face name stands for); each profile says where its reader differs (READ BINARY lengths, the
/// answer to what it lacks, `FF C2`, direct transmit, key loading, ATRs, escapes).
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
/// - SCM's FeliCa (`FF 40`–`FF 4A`) and Type 1 (`FF 50`–`FF 60`) pseudo-APDUs on the profiles that
///   have them (the SCL3711, the uTrust 3700 F for FeliCa): `PartThreeFace+SCM.swift`.
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
  /// The reader model this face answers as.
  public let profile: ReaderProfile
  /// False to model a Part 3 reader without Manage Session / Transparent Exchange (every
  /// `FF C2` then answers the profile's unsupported status), so only READ/UPDATE BINARY reach an
  /// ISO 15693 tag. Always false when the profile has no `FF C2`.
  public let transparentExchange: Bool
  /// True between a Manage Session start (81) and end (82).
  public internal(set) var sessionActive = false
  /// The protocol chosen by the last Switch Protocol (`[standard, layer]`), nil after power-on and
  /// at the start or end of a session.
  public internal(set) var selectedProtocol: [UInt8]?
  /// Longest answer, status word included (pcsc-lite `MAX_BUFFER_SIZE` for short APDUs).
  public static let maximumAnswer = 258
  /// The reader's MIFARE Classic pseudo-APDUs (READ/UPDATE BINARY, value blocks, authentication).
  var classicAPDUs = MIFAREClassicPseudoAPDUs()
  /// The keys loaded with LOAD KEYS, by key number (``ReaderProfile/Keys``).
  var loadedKeys: [UInt8: [UInt8]] = [:]
  /// The key numbers loaded as persistent keys (kept across ``powerOff()``).
  public internal(set) var persistentKeyNumbers: Set<UInt8> = []
  /// The LED state the ACS escapes and `FF 00 40` last set.
  var ledState: UInt8 = 0x00
  /// The Identiv `B2` setting: 00 LEDs driven by the firmware, 01 by the host.
  var ledControl: UInt8 = 0x00

  /// - Parameters:
  ///   - tag: the tag in the field.
  ///   - profile: the reader model (``ReaderProfile/acr1552u`` by default).
  ///   - transparentExchange: false to take `FF C2` away from a profile that has it.
  /// - Throws: ``EmulatorError`` for a tag family the reader does not read (for the ACR1552U:
  ///   Type 1 (Topaz) and Type 3 (FeliCa)), naming a face that does.
  public init(tag: any VirtualTag, profile: ReaderProfile = .acr1552u, transparentExchange: Bool = true) throws(EmulatorError) {
    let family = tag is MIFAREClassicVirtualTag ? TagPlatform.mifareClassic : tag.platform
    guard profile.families.contains(family) else {
      let what: String
      switch family {
      case .type1: what = "Type 1 (Topaz) tags"
      case .type3: what = "Type 3 (FeliCa) tags"
      case .type5: what = "ISO 15693 (Type 5) tags"
      case .mifareClassic: what = "MIFARE Classic cards"
      case .type2, .type4: what = "\(family.displayName) tags"
      }
      throw EmulatorError("the \(profile.productName) reader face does not handle \(what)", workingFace: profile.workingFace(for: family))
    }
    self.tag = tag
    self.profile = profile
    self.transparentExchange = transparentExchange && profile.transparentExchange
  }

  /// The ATR the reader builds for the tag (PC/SC Part 3 §3.1.3.2.3), as listed above, FeliCa and
  /// Topaz cards as the profile says.
  public var atr: [UInt8] {
    if let classic = tag as? MIFAREClassicVirtualTag {
      // Card names 00 01 (1K), 00 02 (4K), 00 26 (Mini): PC/SC Part 3 Supplemental Document;
      // ACR122U API V2.04 §3.1.1.
      return partThreeStorageATR(standard: 0x03, name: classic.chip.partThreeName)
    }
    switch tag.technology {
    case .typeA(_, _, let ats?): return isoDEPATR(historicalBytes: Self.historicalBytes(ofATS: ats))
    case .typeA: return partThreeStorageATR(standard: 0x03, name: [0x00, 0x03])
    case .iso15693: return partThreeStorageATR(standard: 0x0B, name: profile.iso15693Name)
    case .jewel:
      guard case .partThree(let ss, let name) = profile.topazATR else {
        // SCL3711 Reference Manual §5.3.3.3: card mode 02 (passive 106 kbps), card type 44 (Topaz).
        return Self.withCheckByte([0x3B, 0x82, 0x80, 0x01, 0x02, 0x44])
      }
      return partThreeStorageATR(standard: ss, name: name)
    case .felica:
      guard case .partThree(let ss, let name) = profile.felicaATR else {
        // SCL3711 Reference Manual §5.3.3.4: card mode 04 (passive 212 kbps), type 43 (FeliCa),
        // IFS FD, the IDm and a write timeout byte (ours: 00).
        return Self.withCheckByte([0x3B, 0x8C, 0x80, 0x01, 0x04, 0x43, 0xFD] + tag.identifier.prefix(8) + [0x00])
      }
      return partThreeStorageATR(standard: ss, name: name)
    }
  }

  private static func withCheckByte(_ atr: [UInt8]) -> [UInt8] { atr + [atr.dropFirst().reduce(0, ^)] }

  /// Ends any transparent session and resets the tag.
  public func powerOn() { endSession() }
  /// Ends any transparent session and resets the tag.
  public func powerOff() { endSession() }
  /// Ends any transparent session and resets the tag.
  public func reset() { endSession() }

  func endSession() {
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

  static let ok = StatusWord.success.bytes
  /// The profile's answer to a failed operation.
  var failed: [UInt8] { profile.failed.bytes }
  /// The profile's answer to what the reader does not have.
  var unsupported: [UInt8] { profile.unsupported.bytes }

  /// Answers one APDU: the pseudo-APDUs above (`FF …`), or an ISO 7816 APDU passed to a Type 4
  /// tag (the profile's unsupported status for other tags). Never empty.
  public func transmit(_ apdu: [UInt8]) -> [UInt8] {
    guard apdu.count >= 4 else { return StatusWord.wrongLength.bytes }
    guard apdu[0] == 0xFF else {
      guard tag.platform == .type4 else { return unsupported }
      if case .data(let answer) = tag.respond(to: apdu), answer.count >= 2, answer.count <= Self.maximumAnswer {
        return answer
      }
      return StatusWord.noPreciseDiagnosis.bytes
    }
    if let answer = readerCommand(apdu) { return answer }
    if let answer = scmCommand(apdu) { return answer }
    if let classic = tag as? MIFAREClassicVirtualTag, let answer = classicAnswer(apdu, tag: classic) {
      return answer
    }
    switch apdu[1] {
    case 0xCA: return getData(apdu)
    case 0xB0: return readBinary(apdu)
    case 0xD6: return updateBinary(apdu)
    case 0xC2 where transparentExchange: return manageSession(apdu)
    case 0x00 where apdu[2] == 0x00 && apdu[3] == 0x00 && profile.directTransmit == .felica: return directTransmit(apdu)
    default: return unsupported
    }
  }

  // MARK: - GET DATA, READ BINARY, UPDATE BINARY

  private func getData(_ apdu: [UInt8]) -> [UInt8] {
    guard apdu.count == 5, apdu[3] == 0 else { return unsupported }
    let value: [UInt8]
    switch apdu[2] {
    case 0x00: value = tag.identifier
    case 0x01:
      guard case .typeA(_, _, let ats?) = tag.technology else { return unsupported }
      value = ats
    default: return unsupported
    }
    let le = Int(apdu[4])
    if le == 0 || le == value.count { return value + Self.ok }
    if le < value.count { return [0x6C, UInt8(truncatingIfNeeded: value.count)] }
    return value + StatusWord.endOfFileReached.bytes
  }

  private func readBinary(_ apdu: [UInt8]) -> [UInt8] {
    guard apdu.count == 5 else { return failed }
    let address = Int(apdu[2]) << 8 | Int(apdu[3])
    switch tag.platform {
    case .type2:
      guard address <= 0xFF else { return failed }
      guard case .data(let bytes) = tag.respond(to: [0x30, UInt8(address)]), bytes.count == 16 else { return failed }
      switch profile.type2Read {
      case .asked(let multiple):
        let length = apdu[4] == 0 ? 16 : Int(apdu[4])
        guard length <= 16, length % multiple == 0 else { return failed }
        return Array(bytes.prefix(length)) + Self.ok
      case .page: return Array(bytes.prefix(4)) + Self.ok
      case .fourPages: return bytes + Self.ok
      }
    case .type5:
      let length: Int
      switch profile.type5Access {
      case .blocks: length = apdu[4] == 0 ? 4 : Int(apdu[4])
      case .oneBlock: length = 4
      }
      guard length % 4 == 0, address <= 0xFF else { return failed }
      let count = length / 4
      guard address + count - 1 <= 0xFF else { return failed }
      let frame: [UInt8] = count == 1 ? [0x02, 0x20, UInt8(address)] : [0x02, 0x23, UInt8(address), UInt8(count - 1)]
      guard case .data(let answer) = tag.respond(to: frame), answer.first == 0x00, answer.count == 1 + length else {
        return failed
      }
      return Array(answer.dropFirst()) + Self.ok
    default:
      return unsupported
    }
  }

  private func updateBinary(_ apdu: [UInt8]) -> [UInt8] {
    guard apdu.count >= 5, apdu.count == 5 + Int(apdu[4]) else { return failed }
    let address = Int(apdu[2]) << 8 | Int(apdu[3])
    let data = Array(apdu[5...])
    switch tag.platform {
    case .type2:
      guard address <= 0xFF, data.count == 4 else { return failed }
      guard case .ack = tag.respond(to: [0xA2, UInt8(address)] + data) else { return failed }
      return Self.ok
    case .type5:
      guard !data.isEmpty, data.count % 4 == 0, address + data.count / 4 - 1 <= 0xFF else { return failed }
      if profile.type5Access == .oneBlock, data.count != 4 { return failed }
      for i in 0 ..< data.count / 4 {
        let frame: [UInt8] = [0x02, 0x21, UInt8(address + i)] + data[(i * 4) ..< (i * 4 + 4)]
        guard case .data(let answer) = tag.respond(to: frame), answer == [0x00] else { return failed }
      }
      return Self.ok
    default:
      return unsupported
    }
  }
}
