import Foundation
import NFCTransport
import Testing
@testable import NFCReaders

/// A scripted APDU transport: each step is the APDU expected and the reply.
final class ScriptedAPDU: APDUTransport {
  var script: [(apdu: [UInt8], reply: [UInt8])]
  let readerName = "test reader"
  let atr: [UInt8]
  init(atr: [UInt8], _ script: [(apdu: [UInt8], reply: [UInt8])]) {
    self.atr = atr
    self.script = script
  }
  func transmit(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard !script.isEmpty else { throw .unexpectedCommand(apdu, expected: nil) }
    let step = script.removeFirst()
    guard step.apdu == apdu else { throw .unexpectedCommand(apdu, expected: step.apdu) }
    return step.reply
  }
}

let ultralightATR: [UInt8] = [0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06, 0x03, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x68]

@Suite struct ATRParsing {
  @Test func storageCardsByName() {
    #expect(PartThreeATR(ultralightATR).platform == .type2)
    #expect(PartThreeATR(ultralightATR).checksumValid)
    let felica: [UInt8] = [0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06, 0x03, 0xF0, 0x11, 0x00, 0x00, 0x00, 0x00, 0x8A]
    #expect(PartThreeATR(felica).platform == .type3)
    #expect(PartThreeATR(felica).checksumValid)
    let topaz: [UInt8] = [0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06, 0x03, 0xF0, 0x04, 0x00, 0x00, 0x00, 0x00, 0x9F]
    #expect(PartThreeATR(topaz).platform == .type1)
    let classic: [UInt8] = [0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x6A]
    #expect(PartThreeATR(classic).platform == nil)
    #expect(PartThreeATR(classic).cardName == "MIFARE Classic 1K")
  }

  @Test func isoDEPHistoricalBytes() {
    let desfire: [UInt8] = [0x3B, 0x81, 0x80, 0x01, 0x80, 0x80]
    #expect(PartThreeATR(desfire).kind == .isoDEP(historicalBytes: [0x80]))
    #expect(PartThreeATR(desfire).platform == .type4)
    #expect(PartThreeATR(desfire).checksumValid)
    #expect(PartThreeATR(desfire).historicalBytes == [0x80])
    #expect(PartThreeATR(ultralightATR).historicalBytes.isEmpty)  // a storage card has none
  }

  @Test func badChecksumIsReported() {
    var atr = ultralightATR
    atr[19] = 0x00
    #expect(!PartThreeATR(atr).checksumValid)
  }
}

@Suite struct Detection {
  @Test func acr122uIsRecognisedByItsGetVersionAnswer() throws {
    let transport = ScriptedAPDU(atr: ultralightATR, [
      ([0xFF, 0x00, 0x00, 0x00, 0x03, 0xD4, 0x42, 0x60],   // GET_VERSION by direct transmit
       [0xD5, 0x43, 0x00, 0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03, 0x90, 0x00]),  // NTAG215
      ([0xFF, 0xCA, 0x00, 0x00, 0x00], [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x90, 0x00]),  // UID
    ])
    let target = try detectTarget(on: transport)
    #expect(target.platform == .type2)
    #expect(target.identifier == [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06])
    #expect(target.details.type2Version == [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
    #expect(target.link is ACR122UType2Link)
    #expect(transport.script.isEmpty)
  }

  @Test func aPlainPartThreeReaderGetsTheReadBinaryLink() throws {
    let transport = ScriptedAPDU(atr: ultralightATR, [
      ([0xFF, 0x00, 0x00, 0x00, 0x03, 0xD4, 0x42, 0x60], [0x6A, 0x81]),  // no direct transmit
      ([0xFF, 0xCA, 0x00, 0x00, 0x00], [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x90, 0x00]),
    ])
    let target = try detectTarget(on: transport)
    #expect(target.link is PartThreeType2Link)
    #expect(target.link.capabilities.rawCommands == false)
    #expect(target.details == TargetDetails())  // learnt nothing beyond the UID
  }

  @Test func anISODEPCardOnAnACR122UKeepsItsHistoricalBytesAndTheFirmware() throws {
    let desfire: [UInt8] = [0x3B, 0x81, 0x80, 0x01, 0x80, 0x80]  // historical bytes: 80
    let transport = ScriptedAPDU(atr: desfire, [
      ([0xFF, 0x00, 0x48, 0x00, 0x00], Array("ACR122U207".utf8)),                  // firmware, no SW
      ([0xFF, 0xCA, 0x00, 0x00, 0x00], [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x90, 0x00]),  // UID
    ])
    let target = try detectTarget(on: transport)
    #expect(target.platform == .type4)
    #expect(target.details == TargetDetails(readerFirmware: "ACR122U207", historicalBytes: [0x80]))
    #expect(target.link.capabilities == APDUPassthroughLink.acr122u)
    #expect(transport.script.isEmpty)
  }

  @Test func anotherReadersFirmwareAnswerIsNotKept() throws {
    let desfire: [UInt8] = [0x3B, 0x81, 0x80, 0x01, 0x80, 0x80]
    let transport = ScriptedAPDU(atr: desfire, [
      ([0xFF, 0x00, 0x48, 0x00, 0x00], [0x6A, 0x81]),                               // not an ACR122U
      ([0xFF, 0xCA, 0x00, 0x00, 0x00], [0x6A, 0x81]),                               // no UID either
    ])
    let target = try detectTarget(on: transport)
    #expect(target.details.readerFirmware == nil)
    #expect(target.details.historicalBytes == [0x80])
    #expect(target.identifier.isEmpty)
    #expect(target.link.capabilities == APDUPassthroughLink.shortAPDUs)
  }
}

@Suite struct Links {
  @Test func acr122uType2ReadWriteAndNak() throws {
    let transport = ScriptedAPDU(atr: ultralightATR, [
      ([0xFF, 0x00, 0x00, 0x00, 0x04, 0xD4, 0x42, 0x30, 0x04],          // READ page 4
       [0xD5, 0x43, 0x00] + [UInt8](repeating: 0xAB, count: 16) + [0x90, 0x00]),
      ([0xFF, 0x00, 0x00, 0x00, 0x08, 0xD4, 0x42, 0xA2, 0x05, 1, 2, 3, 4],  // WRITE page 5: ACK
       [0xD5, 0x43, 0x00, 0x90, 0x00]),
      ([0xFF, 0x00, 0x00, 0x00, 0x08, 0xD4, 0x42, 0xA2, 0x02, 1, 2, 3, 4],  // WRITE page 2: NAK 0
       [0xD5, 0x43, 0x00, 0x00, 0x90, 0x00]),
      ([0xFF, 0x00, 0x00, 0x00, 0x03, 0xD4, 0x42, 0x60], [0xD5, 0x43, 0x01, 0x90, 0x00]),  // mute: timeout
    ])
    let link = ACR122UType2Link(transport: transport)
    #expect(try link.transceive([0x30, 0x04]) == [UInt8](repeating: 0xAB, count: 16))
    #expect(try link.transceive([0xA2, 0x05, 1, 2, 3, 4]) == [0x0A])
    #expect(throws: TransceiveError.nak(0)) { try link.transceive([0xA2, 0x02, 1, 2, 3, 4]) }
    #expect(throws: TransceiveError.timeout) { try link.transceive([0x60]) }
  }

  @Test func partThreeMapsReadAndWriteOnly() throws {
    let transport = ScriptedAPDU(atr: ultralightATR, [
      ([0xFF, 0xC2, 0x00, 0x00, 0x02, 0x81, 0x00, 0x00], [0x6A, 0x81]),  // no transparent exchange
      ([0xFF, 0xB0, 0x00, 0x04, 0x10], [UInt8](repeating: 1, count: 16) + [0x90, 0x00]),
      ([0xFF, 0xD6, 0x00, 0x04, 0x04, 9, 9, 9, 9], [0x90, 0x00]),
      ([0xFF, 0xB0, 0x00, 0xF0, 0x10], [0x63, 0x00]),
    ])
    let link = PartThreeType2Link(transport: transport)
    #expect(try link.transceive([0x30, 0x04]) == [UInt8](repeating: 1, count: 16))
    #expect(try link.transceive([0xA2, 0x04, 9, 9, 9, 9]) == [0x0A])
    #expect(throws: TransceiveError.status(.noInformation)) { try link.transceive([0x30, 0xF0]) }
    #expect(throws: TransceiveError.self) { try link.transceive([0x3A, 0x00, 0x10]) }
  }
}

@Suite struct Trace {
  @Test func passwordsAreMasked() {
    let apdu: [UInt8] = [0xFF, 0x00, 0x00, 0x00, 0x07, 0xD4, 0x42, 0x1B, 0x12, 0x34, 0x56, 0x78]
    let line = maskedForTrace(apdu).text
    #expect(line == "ff 00 00 00 07 d4 42 1b ********")
    #expect(!line.contains("12 34"))
    #expect(maskedForTrace([0xFF, 0xCA, 0x00, 0x00, 0x00]).text == "ff ca 00 00 00")
  }
}

@Suite struct ACR122UPseudoAPDUs {
  @Test func firmwareLEDAndPollingParameter() throws {
    let transport = ScriptedAPDU(atr: ultralightATR, [
      ([0xFF, 0x00, 0x48, 0x00, 0x00], Array("ACR122U207".utf8)),                          // no status word
      ([0xFF, 0x00, 0x40, 0x0E, 0x04, 0x03, 0x00, 0x01, 0x01], [0x90, 0x02]),             // green, buzz in T1
      ([0xFF, 0x00, 0x50, 0x00, 0x00], [0x90, 0xFF]),
      ([0xFF, 0x00, 0x40, 0x0D, 0x04, 0x00, 0x00, 0x00, 0x00], [0x63, 0x00]),             // refused
    ])
    let acr = ACR122UControl(transport: transport)
    #expect(try acr.firmware() == "ACR122U207")
    #expect(try acr.signal(red: false, green: true, t1: 3, repetitions: 1, buzzer: .duringT1) == 0x02)
    #expect(try acr.pollingParameter() == 0xFF)
    #expect(throws: TransceiveError.status(.noInformation)) { try acr.signal(red: true, green: false) }
  }
}

/// Commands that carry a password by their own form are masked whoever sends
/// them (`nfctag send` too), and so are their answers' data.
@Suite struct TraceMasksPasswordCommands {
  /// A Part 3 transparent exchange carrying `frame`.
  func transparent(_ frame: [UInt8]) -> [UInt8] { [0xFF, 0xC2, 0x00, 0x01, UInt8(frame.count + 2), 0x95, UInt8(frame.count)] + frame + [0x00] }

  @Test func iso15693SetAndWritePasswordWithNXPsCode() {
    let set = maskedForTrace(transparent([0x02, 0xB3, 0x04, 0x04, 0x11, 0x22, 0x33, 0x44]))
    #expect(set.text == "ff c2 00 01 0a 95 08 02 b3 04 04 ********")
    #expect(set.carriesSecret)
    let uid: [UInt8] = [0xD4, 0xC3, 0xB2, 0xA1, 0x08, 0x01, 0x04, 0xE0]
    let write = maskedForTrace(transparent([0x22, 0xB4, 0x04] + uid + [0x10, 0xAA, 0xBB, 0xCC, 0xDD]))
    #expect(write.text == "ff c2 00 01 12 95 10 22 b4 04 d4 c3 b2 a1 08 01 04 e0 10 ********")
    #expect(!write.text.contains("aa bb"))
    // Another manufacturer's B3 is not known to carry a password; WRITE MULTIPLE BLOCKS (24h) is data.
    #expect(!maskedForTrace(transparent([0x02, 0xB3, 0x07, 0x04, 0x11, 0x22, 0x33, 0x44])).carriesSecret)
    #expect(!maskedForTrace(transparent([0x02, 0x24, 0x00, 0x01, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88])).carriesSecret)
  }

  @Test func iso7816VerifyAndChangeReferenceData() {
    #expect(maskedForTrace([0x00, 0x20, 0x00, 0x01, 0x04, 0x31, 0x32, 0x33, 0x34]).text == "00 20 00 01 04 ********")
    #expect(maskedForTrace([0x00, 0x24, 0x00, 0x01, 0x08, 1, 2, 3, 4, 5, 6, 7, 8]).text == "00 24 00 01 08 ********")
    // Through the PN532's InDataExchange too.
    let wrapped: [UInt8] = [0xFF, 0x00, 0x00, 0x00, 0x0C, 0xD4, 0x40, 0x01, 0x00, 0x20, 0x00, 0x01, 0x04, 0x31, 0x32, 0x33, 0x34]
    #expect(maskedForTrace(wrapped).text == "ff 00 00 00 0c d4 40 01 00 20 00 01 04 ********")
    // VERIFY without data asks for the retry counter: nothing to hide. A proprietary CLA is not ISO's.
    #expect(!maskedForTrace([0x00, 0x20, 0x00, 0x01]).carriesSecret)
    #expect(!maskedForTrace([0x90, 0x20, 0x00, 0x01, 0x04, 0x31, 0x32, 0x33, 0x34]).carriesSecret)
  }

  @Test func pwdAuthThroughInDataExchange() {
    let apdu: [UInt8] = [0xFF, 0x00, 0x00, 0x00, 0x08, 0xD4, 0x40, 0x01, 0x1B, 0x12, 0x34, 0x56, 0x78]
    #expect(maskedForTrace(apdu).text == "ff 00 00 00 08 d4 40 01 1b ********")
  }
}
