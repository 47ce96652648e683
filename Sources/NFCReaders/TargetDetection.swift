import Logging
import NFCTransport

/// Identifies the reader and the card behind `transport` and builds the link to the tag.
///
/// The path is picked from what the reader answers, not from its name: an answer to
/// `FF 00 48 00 00` that starts with "ACR122" means an ACR122U (a PN532 behind pseudo-APDUs);
/// anything else is treated as a generic PC/SC Part 3 reader (FeliCa through its direct transmit,
/// ``FeliCaDirectTransmitLink``, or, when the ATR is SCM's own or the reader refuses direct transmit
/// but answers SCM's REQC, SCM's pseudo-APDUs, ``SCMFeliCaLink``; Topaz through SCM's pseudo-APDUs,
/// ``SCMType1Link``, when the ATR is SCM's own). What each reader model can do: ``ReaderCapabilities``.
/// - Throws: `PollError.failed(_:)` when the card cannot be identified.
public func detectTarget(on transport: any APDUTransport, logger: Logger? = nil) throws(PollError) -> DetectedTarget {
  let link: any APDUTransport = logger.map { TracingTransport(transport, logger: $0) } ?? transport
  let atr = PartThreeATR(transport.atr)
  var details = TargetDetails(historicalBytes: atr.historicalBytes)
  let isACR122: Bool
  do {
    if atr.platform == .type2 {
      // One APDU tells the reader path and names the chip: GET_VERSION (60) by direct transmit to
      // a PN532 (InCommunicateThru). An ACR122U answers D5 43 …; a plain Part 3 reader refuses.
      let reply = try link.transmit([0xFF, 0x00, 0x00, 0x00, 0x03, 0xD4, 0x42, 0x60])
      isACR122 = reply.count >= 5 && reply[0] == 0xD5 && reply[1] == 0x43 && StatusWord(trailerOf: reply)?.isSuccess == true
      if isACR122, reply[2] == 0x00, reply.count == 13 { details.type2Version = Array(reply[3..<11]) }
    } else {
      let firmware = try link.transmit([0xFF, 0x00, 0x48, 0x00, 0x00])
      isACR122 = firmware.starts(with: Array("ACR122".utf8))
      if isACR122 { details.readerFirmware = String(decoding: firmware, as: UTF8.self) }
    }
  } catch {
    throw failure(error, transport.readerName)
  }
  var identifier: [UInt8] = []
  do {
    let reply = try link.transmit([0xFF, 0xCA, 0x00, 0x00, 0x00])
    if let answer = ResponseAPDU(reply), answer.statusWord.isSuccess { identifier = answer.data }
  } catch {
    throw failure(error, transport.readerName)
  }
  // A MIFARE Classic is no NFC Forum platform, but NDEF on it is defined (NXP AN1304): the Part 3
  // ATR's card name says which chip it is.
  let platform = atr.platform ?? (["MIFARE Classic 1K", "MIFARE Classic 4K", "MIFARE Mini"].contains(atr.cardName) ? .mifareClassic : nil)
  if platform == .type5, identifier.count == 8, identifier.last == 0xE0, identifier.first != 0xE0 {
    // A PC/SC reader reports an ISO/IEC 15693 UID as the tag sends it, least significant byte
    // first; it is written most significant byte first, E0 and the manufacturer code leading
    // (ISO/IEC 15693-3 §4.1), and that is the order every command shows and records.
    identifier.reverse()
  }
  if platform == .type3, isACR122 {
    // FeliCa: one InListPassiveTarget (Polling for system code FFFF, request code 01) gives the
    // IDm, the PMm (its IC code names FeliCa Lite-S) and the system code; PN532 User Manual §7.3.5.
    let felica424 = transport.atr.count > 14 && transport.atr[13] == 0xF0 && transport.atr[14] == 0x12
    let apdu: [UInt8] = [0xFF, 0x00, 0x00, 0x00, 0x09, 0xD4, 0x4A, 0x01, felica424 ? 0x02 : 0x01,
                         0x00, 0xFF, 0xFF, 0x01, 0x00]
    do {
      let reply = try link.transmit(apdu)
      // D5 4B NbTg Tg POL_RES_len 01 IDm(8) PMm(8) [SC(2)] 90 00
      if reply.count >= 24, reply[0] == 0xD5, reply[1] == 0x4B, reply[2] == 0x01, StatusWord(trailerOf: reply)?.isSuccess == true,
         Int(reply[4]) == reply.count - 6, reply[5] == 0x01 {
        identifier = Array(reply[6..<14])
        details.felicaPMm = Array(reply[14..<22])
        if reply.count == 26 { details.felicaSystemCode = Array(reply[22..<24]) }
      }
    } catch {
      if error == .tagRemoved { throw failure(error, transport.readerName) }
    }
  }
  // SCM's own ATR for a FeliCa or Topaz card (the SCL3711: Reference Manual §5.3.3.3–4) says the
  // reader takes SCM's pseudo-APDUs for them (§6.4.1, §6.4.3).
  var scmCommands = false
  if case .scm = atr.kind { scmCommands = true }
  if platform == .type3, !isACR122 {
    // FeliCa on a Part 3 reader: one Polling by direct transmit gives the PMm (its IC code names
    // FeliCa Lite-S) and the system code, as InListPassiveTarget does on the ACR122U (one APDU,
    // FeliCa tags only). A reader that refuses it (the uTrust 3700 F) is asked SCM's REQC
    // (`FF 40`, CLOUD 370x F Reference Manual §6.2.13), which answers IDm, PMm and system code the
    // same way; a reader that refuses both leaves them unknown, and its link then says why.
    var refused = scmCommands
    if !scmCommands, let reply = try? link.transmit([0xFF, 0x00, 0x00, 0x00, 0x06] + FeliCaDirectTransmitLink.polling),
       let answer = ResponseAPDU(reply) {
      refused = refusedCommandStatuses.contains(answer.statusWord)
      if answer.statusWord.isSuccess, answer.data.count >= 18, Int(answer.data[0]) == answer.data.count, answer.data[1] == 0x01 {
        identifier = Array(answer.data[2..<10])
        details.felicaPMm = Array(answer.data[10..<18])
        if answer.data.count == 20 { details.felicaSystemCode = Array(answer.data[18..<20]) }
      }
    }
    if refused, let reply = try? link.transmit(SCMFeliCaLink.reqc), let answer = ResponseAPDU(reply),
       answer.statusWord.isSuccess, answer.data.count == 16 || answer.data.count == 18 {
      scmCommands = true
      identifier = Array(answer.data[0..<8])
      details.felicaPMm = Array(answer.data[8..<16])
      if answer.data.count == 18 { details.felicaSystemCode = Array(answer.data[16..<18]) }
    }
  }
  let tagLink: any Transceiver
  switch (platform, isACR122) {
  case (.type1?, true): tagLink = ACR122UType1Link(transport: link)
  case (.type1?, false) where scmCommands: tagLink = SCMType1Link(transport: link)
  case (.type1?, false):
    tagLink = UnreachableTagLink(reason: "Topaz (Type 1) tags on \(transport.readerName): nfctag reads them through the ACS ACR122U "
                                 + "and the SCM SCL3711 only")
  case (.type2?, true): tagLink = ACR122UType2Link(transport: link)
  case (.type3?, true): tagLink = ACR122UExchangeLink(transport: link)
  case (.type3?, false) where scmCommands: tagLink = SCMFeliCaLink(transport: link)
  case (.type3?, false): tagLink = FeliCaDirectTransmitLink(transport: link)
  case (.type4?, true): tagLink = ACR122UType4Link(transport: link)
  case (.type4?, false): tagLink = APDUPassthroughLink(transport: link, capabilities: APDUPassthroughLink.shortAPDUs)
  case (.type5?, _): tagLink = PartThreeType5Link(transport: link)
  case (.mifareClassic?, true): tagLink = ACR122UClassicLink(transport: link, identifier: identifier.isEmpty ? nil : identifier)
  case (.mifareClassic?, false): tagLink = PartThreeClassicLink(transport: link, identifier: identifier.isEmpty ? nil : identifier)
  default: tagLink = PartThreeType2Link(transport: link)
  }
  return DetectedTarget(readerName: transport.readerName, identifier: identifier, atr: transport.atr,
                        platform: platform, cardName: atr.cardName, details: details, link: tagLink)
}

private func failure(_ error: TransceiveError, _ reader: String) -> PollError {
  switch error {
  case .tagRemoved: return .failed("the tag was removed while it was being identified on \(reader)")
  default: return .failed("cannot identify the card on \(reader): \(error)")
  }
}
