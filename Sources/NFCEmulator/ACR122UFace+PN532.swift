import NFCTransport

/// Whether the PN532 holds the tag in the field as its target 1 (PN532 User Manual §7.3.5
/// InListPassiveTarget, §7.3.10 InDeselect, §7.3.11 InRelease, §7.3.12 InSelect).
enum PN532Target: Equatable {
  /// Never listed, released (InRelease) or gone with the RF field: InDataExchange and InSelect
  /// answer status 27h until InListPassiveTarget or InAutoPoll finds the tag again.
  case released
  /// Listed and active. `baudRate` is the BrTy it was found with, nil when the ACR122U firmware's
  /// own polling activated it (the state when PC/SC shows the card).
  case listed(baudRate: UInt8?)
  /// Deselected (InDeselect): still target 1; InSelect or the next InDataExchange activates it.
  case deselected(baudRate: UInt8?)
}

/// The PN532 behind the ACR122U's direct transmit (`FF 00 00 00 Lc D4 cmd …`), as a PN53x client
/// such as libnfc's `acr122_pcsc` driver or nfcpy's `acr122` driver drives it. Every fact below
/// and its source is in docs/pn532.md.
///
/// - A command the chip does not know, or whose parameters have the wrong length or an
///   out-of-range value, gets the PN532's syntax error frame (`00 00 FF 01 FF 7F 81 00`, PN532
///   User Manual §6.2.1.5), which the ACR122U passes on as the status word `63 7F` with no data.
/// - GetFirmwareVersion (02) answers PN532 v1.6 `32 01 06 07`; Diagnose (00) tests 00–02 pass;
///   GetGeneralStatus (04) reports the last error, the field, the target and the SAM status;
///   SetParameters (12), SAMConfiguration (14) and RFConfiguration (32) check their lengths and
///   answer with no data; RFConfiguration item 01 with the field off releases the target.
/// - ReadRegister (06) / WriteRegister (08) reach the CIU model (``PN532CIU``): TxMode and RxMode
///   (6302h, 6303h) decide who handles the CRC and which framing goes out, for every type.
/// - InListPassiveTarget (4A) for 106 kbps type A (00), FeliCa 212/424 (01, 02), type B (03: no
///   target, the tags here are all type A, FeliCa, Jewel or ISO 15693) and Jewel (04).
/// - InAutoPoll (60) answers `NbTg` then, per target, its type, the length of its data and the
///   data as InListPassiveTarget gives it (§7.3.13).
/// - InDataExchange (40) needs target 1; InCommunicateThru (42) sends the frame as the CIU is set
///   up: a wrong host CRC or a framing the tag does not speak gets no answer (status 01); a Type 4
///   tag gets raw ISO 14443-4 blocks (``ISODEPBlockResponder``).
/// - InDeselect (44), InRelease (52) and InSelect (54) act on the target list; a target number
///   other than 1 (or 0, "all", for the first two) answers status 27h.
extension ACR122UFace {
  /// What the ACR122U returns when the PN532 answers with its syntax error frame.
  static let syntaxError: [UInt8] = [0x63, 0x7F]

  /// PN532 status: the target did not answer in time.
  static let timeoutStatus: UInt8 = 0x01
  /// PN532 status: the command is not acceptable in the current context (unknown target…).
  static let notAcceptable: UInt8 = 0x27

  func directTransmit(_ apdu: [UInt8]) -> [UInt8] {
    guard apdu.count >= 6, Int(apdu[4]) == apdu.count - 5, apdu[5] == 0xD4 else { return Self.failed }
    let frame = apdu.dropFirst(6)
    guard let command = frame.first else { return Self.syntaxError }
    guard let data = pn532(command, Array(frame.dropFirst())) else { return Self.syntaxError }
    return [0xD5, command &+ 1] + data + Self.ok
  }

  /// The data of the PN532's answer to one command; nil for its syntax error frame.
  func pn532(_ command: UInt8, _ p: [UInt8]) -> [UInt8]? {
    switch command {
    case 0x00: return diagnose(p)
    case 0x02: return p.isEmpty ? [0x32, 0x01, 0x06, 0x07] : nil  // PN532, v1.6, ISO 14443A/B and ISO 18092
    case 0x04: return p.isEmpty ? generalStatus() : nil
    case 0x06: return ciu.read(p)
    case 0x08: return ciu.write(p, tag: tag?.platform == .type1 ? tag : nil) ? [] : nil
    case 0x12: return p.count == 1 ? [] : nil  // SetParameters: Flags
    case 0x14: return samConfiguration(p)
    case 0x32: return rfConfiguration(p)
    case 0x40: return dataExchange(p)
    case 0x42: return status(communicateThru(p))
    case 0x44: return targetCommand(p, allowsAll: true) { $0 = .deselected(baudRate: $0.baudRate) }
    case 0x4A: return listPassiveTarget(p)
    case 0x52: return targetCommand(p, allowsAll: true) { $0 = .released }
    case 0x54: return targetCommand(p, allowsAll: false) { $0 = .listed(baudRate: $0.baudRate) }
    case 0x60: return autoPoll(p)
    default: return nil
    }
  }

  /// Keeps the status byte (the first) for GetGeneralStatus.
  private func status(_ answer: [UInt8]) -> [UInt8] {
    lastError = (answer.first ?? 0) & 0x3F
    return answer
  }

  // MARK: - Miscellaneous commands (§7.2)

  /// Diagnose (§7.2.1): 00 communication line test (echoes its data), 01 ROM and 02 RAM tests
  /// (pass: 00).
  private func diagnose(_ p: [UInt8]) -> [UInt8]? {
    guard let test = p.first else { return nil }
    switch test {
    case 0x00: return p
    case 0x01, 0x02: return p.count == 1 ? [0x00] : nil
    default: return nil
    }
  }

  /// GetGeneralStatus (§7.2.3): `Err Field NbTg [Tg BrRx BrTx Type] SAMstatus`.
  private func generalStatus() -> [UInt8] {
    var out: [UInt8] = [lastError, 0x00]  // no external field: the PN532 is the initiator
    if let tag, target != .released {
      let baudRate = target.baudRate ?? tag.technology.defaultBaudRate
      out += [0x01, 0x01, baudRate, baudRate, tag.technology.generalStatusType]
    } else {
      out.append(0x00)
    }
    return out + [0x00]
  }

  /// SAMConfiguration (§7.2.10): `Mode [Timeout [IRQ]]`, Mode 01–04.
  private func samConfiguration(_ p: [UInt8]) -> [UInt8]? {
    guard let mode = p.first, (1...3).contains(p.count), (0x01...0x04).contains(mode) else { return nil }
    return []
  }

  /// RFConfiguration (§7.3.1): `CfgItem ConfigurationData`, each item with its own length. Item 01
  /// bit 0 off switches the field off: the tag loses power and the target is released.
  private func rfConfiguration(_ p: [UInt8]) -> [UInt8]? {
    guard let item = p.first else { return nil }
    let lengths: [UInt8: Int] = [0x01: 1, 0x02: 3, 0x04: 1, 0x05: 3, 0x0A: 11, 0x0B: 8, 0x0C: 3, 0x0D: 9]
    guard let length = lengths[item], p.count == 1 + length else { return nil }
    if item == 0x01, p[1] & 0x01 == 0 {
      tag?.reset()
      isoDEP = ISODEPBlockResponder()
      target = .released
    }
    return []
  }

  /// InDeselect, InRelease, InSelect: `Tg`, 01 (or 00 for all where `allowsAll`); status only.
  private func targetCommand(_ p: [UInt8], allowsAll: Bool, _ change: (inout PN532Target) -> Void) -> [UInt8]? {
    guard p.count == 1, let tg = p.first else { return nil }
    guard tg == 0x01 || (allowsAll && tg == 0x00), tag != nil, target != .released else {
      return status([Self.notAcceptable])
    }
    tag?.reset()  // deselect, release or reselect: the tag's session state ends
    isoDEP = ISODEPBlockResponder()
    change(&target)
    return status([0x00])
  }

  // MARK: - Initiator commands (§7.3)

  /// InListPassiveTarget (§7.3.5): `MaxTg BrTy [InitiatorData]`.
  private func listPassiveTarget(_ p: [UInt8]) -> [UInt8]? {
    guard p.count >= 2, (1...2).contains(p[0]), p[1] <= 0x04 else { return nil }
    guard let data = targetData(baudRate: p[1], initiatorData: Array(p.dropFirst(2))) else { return [0x00] }
    return [0x01] + data
  }

  /// The tag's TargetData (`Tg` first) when it answers a poll at `baudRate`, and then target 1.
  func targetData(baudRate: UInt8, initiatorData: [UInt8]) -> [UInt8]? {
    guard let tag else { return nil }
    let data: [UInt8]
    switch (tag.technology, baudRate) {
    case (.typeA(let sensRes, let selRes, let ats), 0x00):
      // InitiatorData, when given, is the UID to select (§7.3.5), with the cascade tag 88h before
      // each cascade level but the last, as libnfc `iso14443_cascade_uid` builds it; the bare UID
      // is taken too. Another UID finds nothing.
      guard initiatorData.isEmpty || initiatorData == tag.identifier || initiatorData == cascaded(tag.identifier) else {
        return nil
      }
      data = [0x01] + sensRes + [selRes, UInt8(tag.identifier.count)] + tag.identifier + (ats ?? [])
    case (.felica, 0x01), (.felica, 0x02):
      // InitiatorData is the Polling request without its length byte (`00 SC SC RC TSN`); the
      // PN532 sends it and returns the answer (POL_RES with its length byte) as TargetData, or no
      // target when the tag stays mute (wrong system code). NXP PN532 User Manual UM0701-02 §7.3.5
      // (InListPassiveTarget, 212/424 kbps FeliCa); libnfc and nfcpy (pn53x.py) send it the same way.
      let request = initiatorData.count == 5 ? initiatorData : [0x00, 0xFF, 0xFF, 0x01, 0x00]
      guard case .data(let answer) = tag.respond(to: [UInt8(request.count + 1)] + request) else { return nil }
      data = [0x01] + answer
    case (.jewel(let sensRes, _), 0x04):
      data = [0x01] + sensRes + Array(tag.identifier.prefix(4))
    default:
      return nil
    }
    tag.reset()
    isoDEP = ISODEPBlockResponder()
    target = .listed(baudRate: baudRate)
    return data
  }

  /// InAutoPoll (§7.3.13): `PollNr Period Type1 … TypeN` (N 1–15). The answer is `NbTg`, then per
  /// target `Type NbData TargetData` where TargetData is InListPassiveTarget's (with `Tg`). The
  /// tag answers the first listed type that fits it. One poll is made whatever PollNr says
  /// (FFh, "endless", would block a real chip until a tag comes).
  private func autoPoll(_ p: [UInt8]) -> [UInt8]? {
    guard p.count >= 3, p.count <= 17, p[0] >= 0x01, (0x01...0x0F).contains(p[1]) else { return nil }
    for type in p.dropFirst(2) {
      guard let baudRate = tag?.technology.autoPollBaudRate(for: type) else { continue }
      guard let data = targetData(baudRate: baudRate, initiatorData: []) else { continue }
      return [0x01, type, UInt8(data.count)] + data
    }
    return [0x00]
  }

  /// InDataExchange (§7.3.8): `Tg DataOut`; the status, then the tag's answer. Target 1 only; a
  /// deselected target is activated again first.
  private func dataExchange(_ p: [UInt8]) -> [UInt8]? {
    guard let tg = p.first else { return nil }
    guard let tag else { return status([Self.timeoutStatus]) }
    guard tg & 0x3F == 0x01, target != .released else { return status([Self.notAcceptable]) }
    if case .deselected(let baudRate) = target {
      tag.reset()
      target = .listed(baudRate: baudRate)
    }
    let command = Array(p.dropFirst())
    if tag.platform == .type1 { return status(jewelExchange(command, thru: false, tag: tag)) }
    if tag is MIFAREClassicVirtualTag, command.first == 0x60 || command.first == 0x61 {
      // A failed MIFARE authentication is the PN532's error 14h (PN532 User Manual §7.1, Table
      // "Error code list": "Mifare: Authentication error").
      guard case .ack = tag.respond(to: command) else { return status([0x14]) }
      return status([0x00])
    }
    return status(chipAnswer(tag.respond(to: command), thru: false))
  }
}

/// A UID as the select commands carry it: 4 bytes as they are; 7 as `88 uid0-2 uid3-6`; 10 as
/// `88 uid0-2 88 uid3-5 uid6-9` (ISO/IEC 14443-3 §6.5.4).
func cascaded(_ uid: [UInt8]) -> [UInt8] {
  switch uid.count {
  case 7: return [0x88] + uid.prefix(3) + uid.suffix(4)
  case 10: return [0x88] + uid.prefix(3) + [0x88] + uid[3..<6] + uid.suffix(4)
  default: return uid
  }
}

extension PN532Target {
  var baudRate: UInt8? {
    switch self {
    case .released: return nil
    case .listed(let baudRate), .deselected(let baudRate): return baudRate
    }
  }
}

extension RFTechnology {
  /// The BrTy a tag of this technology is found with when no other was asked for.
  var defaultBaudRate: UInt8 {
    switch self {
    case .typeA, .iso15693: return 0x00
    case .felica: return 0x01
    case .jewel: return 0x04
    }
  }

  /// GetGeneralStatus's modulation type (§7.2.3): 00 ISO/IEC 14443A at 106 kbps, 10 FeliCa,
  /// 02 Innovision Jewel.
  var generalStatusType: UInt8 {
    switch self {
    case .typeA, .iso15693: return 0x00
    case .felica: return 0x10
    case .jewel: return 0x02
    }
  }

  /// The BrTy an InAutoPoll target type (§7.3.13) finds a tag of this technology with, or nil when
  /// the type does not fit it: 00 generic 106 kbps (any type A), 10 MIFARE (type A without
  /// ISO-DEP), 20 ISO/IEC 14443-4A (type A with ISO-DEP), 01/11 and 02/12 FeliCa 212/424, 04 Jewel.
  /// Types 03, 23 (type B) and the DEP types find none of the tags here.
  func autoPollBaudRate(for type: UInt8) -> UInt8? {
    switch (self, type) {
    case (.typeA, 0x00): return 0x00
    case (.typeA(_, _, nil), 0x10): return 0x00
    case (.typeA(_, _, _?), 0x20): return 0x00
    case (.felica, 0x01), (.felica, 0x11): return 0x01
    case (.felica, 0x02), (.felica, 0x12): return 0x02
    case (.jewel, 0x04): return 0x04
    default: return nil
    }
  }
}
