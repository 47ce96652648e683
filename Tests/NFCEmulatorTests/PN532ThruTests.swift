import NFCEmulator
import NFCTestSupport
import NFCTransport
import Testing

/// InCommunicateThru (PN532 User Manual §7.3.9) as the CIU registers set it up (§8.6.23: TxMode
/// 6302h, RxMode 6303h; bit 7 CRC, bits 1–0 framing). docs/pn532.md has the sources.
private func direct(_ pn532: [UInt8]) -> [UInt8] { [0xFF, 0x00, 0x00, 0x00, UInt8(pn532.count + 1), 0xD4] + pn532 }
private func answer(_ command: UInt8, _ data: [UInt8] = []) -> [UInt8] { [0xD5, command + 1] + data + [0x90, 0x00] }
private func thru(_ frame: [UInt8]) -> [UInt8] { direct([0x42] + frame) }

@Suite struct PN532CRCTests {
  @Test func crcAExamples() {
    #expect(PN53xCIU.crcA(hex("00 00")) == hex("A0 1E"))   // ISO/IEC 14443-3 Annex B
    #expect(PN53xCIU.crcA(hex("12 34")) == hex("26 CF"))
    #expect(PN53xCIU.crcA(hex("60")) == hex("F8 32"))      // GET_VERSION as libnfc sends it
  }

  /// libnfc with NP_HANDLE_CRC off (§8.6.23 TxMode/RxMode bit 7 clear): GET_VERSION `60 F8 32`
  /// reaches the tag, whose answer comes back with its CRC_A; that is how libnfc tells an NTAG215
  /// from a plain Ultralight.
  @Test func hostHandledCRCForType2() throws {
    let tag = try Type2VirtualTag(chip: .ntag215)
    let face = ACR122UFace(tag: tag)
    #expect(face.transmit(direct(hex("06 6302 6303"))) == answer(0x06, hex("80 80")))     // CRC on at first
    #expect(face.transmit(direct(hex("08 6302 00 6303 00"))) == answer(0x08))             // CRC off
    let version = hex("00 04 04 02 01 00 11 03")
    #expect(face.transmit(thru(hex("60 F8 32"))) == answer(0x42, [0x00] + version + PN53xCIU.crcA(version)))
    #expect(face.transmit(thru(hex("60 F8 33"))) == answer(0x42, hex("01")))              // bad CRC: the tag stays mute
    #expect(face.transmit(thru(hex("60"))) == answer(0x42, hex("01")))                    // no CRC at all
    let read = hex("30 04")
    let pages = Array(tag.memoryImage[16..<32])                                           // READ 04: pages 4-7
    #expect(face.transmit(thru(read + PN53xCIU.crcA(read))) == answer(0x42, [0x00] + pages + PN53xCIU.crcA(pages)))
    #expect(face.transmit(direct(hex("08 6302 80 6303 80"))) == answer(0x08))             // CRC on again
    #expect(face.transmit(thru(hex("60"))) == answer(0x42, [0x00] + version))
  }

  /// Only TxMode clear: the chip sends the host's CRC as is and strips the tag's.
  @Test func crcOffOnlyForTransmit() throws {
    let face = ACR122UFace(tag: try Type2VirtualTag(chip: .ntag215))
    #expect(face.transmit(direct(hex("08 6302 00"))) == answer(0x08))
    #expect(face.transmit(thru(hex("60 F8 32"))) == answer(0x42, hex("00 00 04 04 02 01 00 11 03")))
  }

  /// TxMode framing 11 (ISO/IEC 14443B, `63 02 83`) reaches no type A tag: status 01 (timeout).
  @Test func typeBFramingGetsNoAnswerFromATypeATag() throws {
    let face = ACR122UFace(tag: try Type2VirtualTag(chip: .ntag215))
    #expect(face.transmit(direct(hex("08 6302 83 6303 83"))) == answer(0x08))
    #expect(face.transmit(thru(hex("60"))) == answer(0x42, hex("01")))
    #expect(face.transmit(direct(hex("08 6302 80 6303 80"))) == answer(0x08))
    #expect(face.transmit(thru(hex("60"))).count == 13)
  }

  /// A FeliCa tag with the host handling the CRC: framing 10 (FeliCa), the FeliCa CRC both ways.
  @Test func hostHandledCRCForFeliCa() throws {
    let tag = try FeliCaLiteSVirtualTag()
    let face = ACR122UFace(tag: tag)
    let polling = hex("06 00 FF FF 01 00")
    #expect(face.transmit(thru(polling)) == answer(0x42, hex("01")))                      // type A framing: no answer
    #expect(face.transmit(direct(hex("08 6302 12 6303 12"))) == answer(0x08))             // FeliCa 212, CRC off
    let polRes = hex("14 01") + tag.identifier + tag.pmm + hex("12 FC")
    #expect(face.transmit(thru(polling + PN53xCIU.crcFeliCa(polling)))
            == answer(0x42, [0x00] + polRes + PN53xCIU.crcFeliCa(polRes)))
  }
}

/// ISO/IEC 14443-4 blocks through InCommunicateThru to a Type 4 tag (§7.3.9: the chip adds nothing
/// but the CRC; ISO/IEC 14443-4 §7.1 block format, §7.5 rules).
@Suite struct PN532ISODEPBlockTests {
  let select = hex("00 A4 04 00 07 D2760000850101 00")   // NDEF Tag Application

  @Test func iBlocksCarryAPDUs() throws {
    let face = ACR122UFace(tag: try Type4VirtualTag())
    #expect(face.transmit(thru([0x02] + select)) == answer(0x42, hex("00 02 90 00")))       // I(0), same block number back
    #expect(face.transmit(thru([0x03] + select)) == answer(0x42, hex("00 03 90 00")))       // I(1)
    #expect(face.transmit(thru([0x0A, 0x00] + select)) == answer(0x42, hex("00 0A 00 90 00")))  // with CID 0
    #expect(face.transmit(thru(select)) == answer(0x42, hex("01")))                          // a bare APDU is no block
  }

  @Test func chainingNakAndDeselect() throws {
    let face = ACR122UFace(tag: try Type4VirtualTag())
    #expect(face.transmit(thru([0x12] + select.prefix(5))) == answer(0x42, hex("00 A2")))    // chained: R(ACK 0)
    #expect(face.transmit(thru([0x03] + select.dropFirst(5))) == answer(0x42, hex("00 03 90 00")))
    #expect(face.transmit(thru(hex("B2"))) == answer(0x42, hex("00 03 90 00")))              // R(NAK): the last block again
    #expect(face.transmit(thru(hex("C2"))) == answer(0x42, hex("00 C2")))                    // S(DESELECT)
    #expect(face.transmit(thru([0x02] + select)) == answer(0x42, hex("01")))                 // deselected: mute
    #expect(face.transmit(thru(hex("E0 80"))) == answer(0x42, [0x00] + Type4VirtualTag.ats))  // RATS
    #expect(face.transmit(thru([0x02] + select)) == answer(0x42, hex("00 02 90 00")))
  }

  @Test func blocksWithTheHostsCRC() throws {
    let face = ACR122UFace(tag: try Type4VirtualTag())
    #expect(face.transmit(direct(hex("08 6302 00 6303 00"))) == answer(0x08))
    let block = [0x02] + select
    let reply = hex("02 90 00")
    #expect(face.transmit(thru(block + PN53xCIU.crcA(block))) == answer(0x42, [0x00] + reply + PN53xCIU.crcA(reply)))
  }

  /// InDataExchange still carries bare APDUs: the PN532 firmware runs the block protocol (§7.3.8).
  @Test func dataExchangeCarriesBareAPDUs() throws {
    let face = ACR122UFace(tag: try Type4VirtualTag())
    #expect(face.transmit(direct([0x40, 0x01] + select)) == answer(0x40, hex("00 90 00")))
  }
}

/// ManualRCV 630Dh bit 4 (ParityDisable, PN532 UM §8.6.23): the host sends and receives the
/// parity bits itself, as libnfc does with NP_HANDLE_PARITY off (`pn53x_wrap_frame`).
@Suite struct PN532ParityTests {
  @Test func hostHandledParityAndCRC() throws {
    let face = ACR122UFace(tag: try Type2VirtualTag(chip: .ntag215))
    #expect(face.transmit(direct(hex("08 630D 10 6302 00 6303 00"))) == answer(0x08))
    let command = hex("60 F8 32")
    let version = hex("00 04 04 02 01 00 11 03")
    #expect(face.transmit(thru(PN53xCIU.withParityBits(command)))
            == answer(0x42, [0x00] + PN53xCIU.withParityBits(version + PN53xCIU.crcA(version))))
    var badParity = PN53xCIU.withParityBits(command)
    badParity[1] ^= 0x01                                                                    // byte 0's parity bit (bit 8)
    #expect(face.transmit(thru(badParity)) == answer(0x42, hex("01")))
    #expect(face.transmit(thru(command)) == answer(0x42, hex("01")))                         // parity bits missing
  }
}
