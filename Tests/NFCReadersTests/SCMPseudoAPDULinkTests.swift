import NFCTransport
import Testing
@testable import NFCReaders

private let idm: [UInt8] = [0x01, 0x2E, 0x4C, 0xC1, 0x1F, 0x0A, 0x2B, 0x3C]
private let pmm: [UInt8] = [0x00, 0xF1, 0x00, 0x00, 0x00, 0x01, 0x43, 0x00]
private let ok: [UInt8] = [0x90, 0x00]
/// The SCL3711's FeliCa ATR: card mode 04, card type 43, IFS FD, the IDm, a timeout byte, TCK
/// (SCL3711 Reference Manual v1.3 §5.3.3.4).
private let scmFeliCaATR: [UInt8] = {
  let atr: [UInt8] = [0x3B, 0x8C, 0x80, 0x01, 0x04, 0x43, 0xFD] + idm + [0x00]
  return atr + [atr.dropFirst().reduce(0, ^)]
}()
/// The SCL3711's Topaz ATR (§5.3.3.3).
private let scmTopazATR: [UInt8] = [0x3B, 0x82, 0x80, 0x01, 0x02, 0x44, 0x45]
/// The Part 3 FeliCa ATR (standard 11, name 00 3B) the uTrust 3700 F builds (CLOUD 370x F §5.3.3.1).
private let partThreeFeliCaATR: [UInt8] = [0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06,
                                           0x11, 0x00, 0x3B, 0x00, 0x00, 0x00, 0x00, 0x42]

@Suite struct SCMATRs {
  @Test func theSCMFormsNameTheirFamilies() {
    #expect(PartThreeATR(scmTopazATR).platform == .type1)
    #expect(PartThreeATR(scmTopazATR).historicalBytes.isEmpty)
    #expect(PartThreeATR(scmTopazATR).cardName == "Topaz/Jewel")
    #expect(PartThreeATR(scmFeliCaATR).platform == .type3)
    #expect(PartThreeATR(scmFeliCaATR).cardName == "FeliCa")
    #expect(PartThreeATR(scmFeliCaATR).checksumValid)
    // An ISO-DEP ATR of the same length is still ISO-DEP.
    #expect(PartThreeATR([0x3B, 0x82, 0x80, 0x01, 0x80, 0x80, 0x80]).platform == .type4)
  }
}

/// FeliCa through the SCM/Identiv pseudo-APDUs: Polling → REQC `FF 40`, Check → READ `FF 46`,
/// Update → WRITE `FF 48` (SCL3711 Reference Manual §6.4.3; CLOUD 370x F §6.2.13–6.2.17).
@Suite struct SCMFeliCaLinkFraming {
  @Test func anSCL3711FeliCaATRGetsTheSCMLinkWithItsPMm() throws {
    let data = [UInt8](0x10..<0x20)
    let transport = ScriptedAPDU(atr: scmFeliCaATR, [
      ([0xFF, 0x00, 0x48, 0x00, 0x00], [0x6A, 0x81]),                                          // not an ACR122U
      ([0xFF, 0xCA, 0x00, 0x00, 0x00], idm + ok),
      ([0xFF, 0x40, 0x00, 0x00, 0x04, 0xFF, 0xFF, 0x01, 0x00], idm + pmm + [0x12, 0xFC] + ok), // REQC
      ([0xFF, 0x46, 0x01, 0x01, 0x04, 0x0B, 0x00, 0x80, 0x00], idm + [0x00, 0x00, 0x01] + data + ok),
      ([0xFF, 0x48, 0x01, 0x01, 0x14, 0x09, 0x00, 0x80, 0x01] + data, idm + [0x00, 0x00] + ok),
      ([0xFF, 0x46, 0x01, 0x01, 0x04, 0x0B, 0x00, 0x80, 0x40], idm + [0x01, 0xA8] + ok),
      ([0xFF, 0x40, 0x00, 0x00, 0x04, 0x12, 0xFC, 0x00, 0x00], idm + pmm + ok),
      ([0xFF, 0x4A, 0x00, 0x00, 0x00], idm + [0x01, 0x12, 0xFC] + ok),
      ([0xFF, 0x46, 0x01, 0x01, 0x04, 0x0B, 0x00, 0x80, 0x00], [0x6A, 0x82]),
    ])
    let target = try detectTarget(on: transport)
    #expect(target.platform == .type3)
    #expect(target.identifier == idm)
    #expect(target.details.felicaPMm == pmm && target.details.felicaSystemCode == [0x12, 0xFC])
    #expect(target.link.capabilities.rawCommands)
    #expect(target.link.pathDescription.contains("FF 46"))
    let link = target.link
    #expect(try link.transceive([0x10, 0x06] + idm + [0x01, 0x0B, 0x00, 0x01, 0x80, 0x00])
            == [0x1D, 0x07] + idm + [0x00, 0x00, 0x01] + data)
    #expect(try link.transceive([0x20, 0x08] + idm + [0x01, 0x09, 0x00, 0x01, 0x80, 0x01] + data) == [0x0C, 0x09] + idm + [0x00, 0x00])
    #expect(try link.transceive([0x10, 0x06] + idm + [0x01, 0x0B, 0x00, 0x01, 0x80, 0x40]) == [0x0C, 0x07] + idm + [0x01, 0xA8])
    #expect(try link.transceive([0x06, 0x00, 0x12, 0xFC, 0x00, 0x00]) == [0x12, 0x01] + idm + pmm)
    #expect(try link.transceive([0x0A, 0x0C] + idm) == [0x0D, 0x0D] + idm + [0x01, 0x12, 0xFC])
    let failed = Result { () throws(TransceiveError) in try link.transceive([0x10, 0x06] + idm + [0x01, 0x0B, 0x00, 0x01, 0x80, 0x00]) }
    guard case .failure(.status(let sw)) = failed else { Issue.record("\(failed)"); return }
    #expect(sw == StatusWord(0x6A, 0x82))
    #expect(transport.script.isEmpty)
  }

  /// A Part 3 FeliCa ATR on a reader that refuses direct transmit but answers REQC: the uTrust 3700 F.
  @Test func aReaderThatRefusesDirectTransmitButAnswersREQCGetsTheSCMLink() throws {
    let transport = ScriptedAPDU(atr: partThreeFeliCaATR, [
      ([0xFF, 0x00, 0x48, 0x00, 0x00], [0x6A, 0x81]),
      ([0xFF, 0xCA, 0x00, 0x00, 0x00], idm + ok),
      ([0xFF, 0x00, 0x00, 0x00, 0x06, 0x06, 0x00, 0xFF, 0xFF, 0x01, 0x00], [0x6A, 0x81]),   // no direct transmit
      ([0xFF, 0x40, 0x00, 0x00, 0x04, 0xFF, 0xFF, 0x01, 0x00], idm + pmm + [0x12, 0xFC] + ok),
    ])
    let target = try detectTarget(on: transport)
    #expect(target.details.felicaPMm == pmm)
    #expect(target.link is SCMFeliCaLink)
    #expect(transport.script.isEmpty)
  }

  /// Commands the pseudo-APDUs cannot carry are refused, not mangled: a 3-byte block list element,
  /// a FeliCa command SCM defined no pseudo-APDU for (Request Specification Version).
  @Test func whatItCannotCarry() throws {
    let link = SCMFeliCaLink(transport: ScriptedAPDU(atr: scmFeliCaATR, []))
    for command in [[0x11, 0x06] + idm + [0x01, 0x0B, 0x00, 0x01, 0x00, 0x00, 0x01],   // 3-byte element
                    [0x0C, 0x3C] + idm + [0x00, 0x00]] {                                // Request Specification Version
      let result = Result { () throws(TransceiveError) in try link.transceive(command) }
      guard case .failure(.unsupported) = result else { Issue.record("\(result)"); continue }
    }
  }
}

/// Type 1 through the SCL3711's pseudo-APDUs (SCL3711 Reference Manual §6.4.1): the tag's frames
/// lose the UID (the reader adds it) and the answers get their echoed address back.
@Suite struct SCMType1LinkFraming {
  @Test func anSCL3711TopazATRGetsTheSCMType1Link() throws {
    let uid: [UInt8] = [0x01, 0x02, 0x03, 0x04]
    let block: [UInt8] = [0x01, 0x03, 0x03, 0x04, 0x05, 0x06, 0x07, 0x88]
    let all = [0x12, 0x4C] + uid + [UInt8](repeating: 0xAB, count: 116)
    let segment = [UInt8](repeating: 0xCD, count: 128)
    let transport = ScriptedAPDU(atr: scmTopazATR, [
      ([0xFF, 0x00, 0x48, 0x00, 0x00], [0x6A, 0x81]),
      ([0xFF, 0xCA, 0x00, 0x00, 0x00], uid + [0x05, 0x06, 0x07] + ok),
      ([0xFF, 0x52, 0x00, 0x00, 0x00], all + ok),
      ([0xFF, 0x54, 0x00, 0x08, 0x00], [0x18] + ok),
      ([0xFF, 0x56, 0x00, 0x08, 0x01, 0x39], [0x39] + ok),
      ([0xFF, 0x58, 0x00, 0x08, 0x01, 0xA8], [0xB9] + ok),
      ([0xFF, 0x5A, 0x00, 0x10, 0x00], segment + ok),
      ([0xFF, 0x5C, 0x00, 0x10, 0x00], block + ok),
      ([0xFF, 0x5E, 0x00, 0x10, 0x08] + block, block + ok),
      ([0xFF, 0x60, 0x00, 0x10, 0x08] + block, block + ok),
      ([0xFF, 0x50, 0x00, 0x00, 0x00], [0x12, 0x4C] + uid + ok),
      ([0xFF, 0x56, 0x00, 0x68, 0x01, 0x00], [0x6A, 0x82]),
    ])
    let target = try detectTarget(on: transport)
    #expect(target.platform == .type1)
    let link = target.link
    #expect(link.capabilities.maxResponseLength >= 129)  // RSEG's answer: the platform reads segments
    let zeros = [UInt8](repeating: 0, count: 8)
    #expect(try link.transceive([0x00, 0x00, 0x00] + uid) == all)
    #expect(try link.transceive([0x01, 0x08, 0x00] + uid) == [0x08, 0x18])
    #expect(try link.transceive([0x53, 0x08, 0x39] + uid) == [0x08, 0x39])
    #expect(try link.transceive([0x1A, 0x08, 0xA8] + uid) == [0x08, 0xB9])
    #expect(try link.transceive([0x10, 0x10] + zeros + uid) == [0x10] + segment)
    #expect(try link.transceive([0x02, 0x10] + zeros + uid) == [0x10] + block)
    #expect(try link.transceive([0x54, 0x10] + block + uid) == [0x10] + block)
    #expect(try link.transceive([0x1B, 0x10] + block + uid) == [0x10] + block)
    #expect(try link.transceive([0x78, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]) == [0x12, 0x4C] + uid)
    let refused = Result { () throws(TransceiveError) in try link.transceive([0x53, 0x68, 0x00] + uid) }
    guard case .failure(.status(let sw)) = refused else { Issue.record("\(refused)"); return }
    #expect(sw == StatusWord(0x6A, 0x82))
    #expect(transport.script.isEmpty)
  }
}
