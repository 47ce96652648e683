import NFCTransport
import Testing
@testable import NFCReaders

/// The ACR1252U's FeliCa ATR (ACM1252U-Y3 Reference Manual p.45: SS 11, card name 00 3B).
private let felicaATR: [UInt8] = [0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06,
                                  0x11, 0x00, 0x3B, 0x00, 0x00, 0x00, 0x00, 0x42]
private let idm: [UInt8] = [0x01, 0x2E, 0x4C, 0xC1, 0x1F, 0x0A, 0x2B, 0x3C]
private let pmm: [UInt8] = [0x00, 0xF1, 0x00, 0x00, 0x00, 0x01, 0x43, 0x00]

/// FeliCa through a PC/SC Part 3 reader's direct transmit: `FF 00 00 00 Lc <FeliCa command,
/// length byte first>` → the FeliCa answer and `90 00` (ACM1252U-Y3 §5.2.6).
@Suite struct FeliCaDirectTransmit {
  @Test func aFeliCaTagOnAnACR1252UGetsADirectTransmitLinkWithItsPMm() throws {
    let transport = ScriptedAPDU(atr: felicaATR, [
      ([0xFF, 0x00, 0x48, 0x00, 0x00], [0x6A, 0x81]),                                   // not an ACR122U
      ([0xFF, 0xCA, 0x00, 0x00, 0x00], idm + [0x90, 0x00]),                              // IDm
      ([0xFF, 0x00, 0x00, 0x00, 0x06, 0x06, 0x00, 0xFF, 0xFF, 0x01, 0x00],               // Polling, system code
       [0x14, 0x01] + idm + pmm + [0x88, 0xB4, 0x90, 0x00]),                             //   IDm PMm SC
      ([0xFF, 0x00, 0x00, 0x00, 0x10, 0x10, 0x06] + idm + [0x01, 0x0B, 0x00, 0x01, 0x80, 0x00],  // Check block 0
       [0x1D, 0x07] + idm + [0x00, 0x00, 0x01] + [UInt8](repeating: 0x10, count: 16) + [0x90, 0x00]),
    ])
    let target = try detectTarget(on: transport)
    #expect(target.platform == .type3)
    #expect(target.details.felicaPMm == pmm)
    #expect(target.details.felicaSystemCode == [0x88, 0xB4])
    #expect(target.link.capabilities.rawCommands)
    let check: [UInt8] = [0x10, 0x06] + idm + [0x01, 0x0B, 0x00, 0x01, 0x80, 0x00]
    let answer = try target.link.transceive(check)
    #expect(answer.count == 0x1D && answer[1] == 0x07)
    #expect(transport.script.isEmpty)
  }

  @Test func aReaderWithoutFeliCaDirectTransmitRefusesNamingWhatWorks() throws {
    let transport = ScriptedAPDU(atr: felicaATR, [
      ([0xFF, 0x00, 0x48, 0x00, 0x00], [0x6A, 0x81]),
      ([0xFF, 0xCA, 0x00, 0x00, 0x00], idm + [0x90, 0x00]),
      ([0xFF, 0x00, 0x00, 0x00, 0x06, 0x06, 0x00, 0xFF, 0xFF, 0x01, 0x00], [0x6A, 0x81]),  // no direct transmit
      ([0xFF, 0x40, 0x00, 0x00, 0x04, 0xFF, 0xFF, 0x01, 0x00], [0x6A, 0x81]),              // nor SCM's REQC
      ([0xFF, 0x00, 0x00, 0x00, 0x06, 0x06, 0x00, 0xFF, 0xFF, 0x01, 0x00], [0x6A, 0x81]),
    ])
    let target = try detectTarget(on: transport)
    #expect(target.details.felicaPMm == nil)
    let result = Result { () throws(TransceiveError) in try target.link.transceive([0x06, 0x00, 0xFF, 0xFF, 0x01, 0x00]) }
    guard case .failure(.unsupported(let why)) = result else { Issue.record("\(result)"); return }
    #expect(why.contains("test reader") && why.contains("ACR1252U") && why.contains("ACR122U"), "\(why)")
  }
}

/// A Topaz (Type 1) tag behind a Part 3 ATR on a reader other than the ACR122U: nfctag has no path
/// to it there (the SCL3711's `FF 50`–`FF 60` go with its own Topaz ATR: SCMPseudoAPDULinkTests),
/// and says so naming the reader and the readers that work, instead of sending it Type 2 commands.
@Suite struct TopazOnAPartThreeReader {
  @Test func isRefusedNamingTheACR122U() throws {
    // Part 3 storage-card ATR, card name 00 30 (Topaz/Jewel).
    let topaz: [UInt8] = [0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06,
                          0x03, 0x00, 0x30, 0x00, 0x00, 0x00, 0x00, 0x5B]
    let transport = ScriptedAPDU(atr: topaz, [
      ([0xFF, 0x00, 0x48, 0x00, 0x00], [0x6A, 0x81]),
      ([0xFF, 0xCA, 0x00, 0x00, 0x00], [0x01, 0x02, 0x03, 0x04, 0x90, 0x00]),
    ])
    let target = try detectTarget(on: transport)
    #expect(target.platform == .type1)
    let result = Result { () throws(TransceiveError) in try target.link.transceive([0x78, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]) }
    guard case .failure(.unsupported(let why)) = result else { Issue.record("\(result)"); return }
    #expect(why.contains("test reader") && why.contains("ACR122U"), "\(why)")
  }
}
