import NFCEmulator
import NFCTestSupport
import NFCTransport
import Testing

/// Transcripts of a PN53x client (libnfc's `acr122_pcsc`, nfcpy's `acr122`) talking to the PN532
/// behind the emulated ACR122U through direct transmit (`FF 00 00 00 Lc D4 …`). Each test names
/// the PN532 User Manual (NXP UM0701-02) section it follows; docs/pn532.md has the sources.
private func direct(_ pn532: [UInt8]) -> [UInt8] { [0xFF, 0x00, 0x00, 0x00, UInt8(pn532.count + 1), 0xD4] + pn532 }
/// The ACR122U's answer carrying a PN532 answer: `D5 cmd+1 data 90 00`.
private func answer(_ command: UInt8, _ data: [UInt8] = []) -> [UInt8] { [0xD5, command + 1] + data + [0x90, 0x00] }

@Suite struct PN532StartUpTests {
  /// §6.2.1.5 error frame (`00 00 FF 01 FF 7F 81 00`): unknown commands and bad lengths; the
  /// ACR122U passes it on as `63 7F` (docs/pn532.md).
  @Test func syntaxErrorsAnswer637F() throws {
    let face = ACR122UFace(tag: try Type2VirtualTag(chip: .ntag215))
    #expect(face.transmit(direct(hex("FE"))) == hex("63 7F"))            // no such command
    #expect(face.transmit(direct(hex("02 00"))) == hex("63 7F"))         // GetFirmwareVersion takes nothing
    #expect(face.transmit(direct(hex("4A 03 00"))) == hex("63 7F"))      // InListPassiveTarget: MaxTg 1 or 2
    #expect(face.transmit(direct(hex("4A 01 05"))) == hex("63 7F"))      // BrTy 05 is not the chip's
    #expect(face.transmit(direct(hex("14 05"))) == hex("63 7F"))         // SAMConfiguration: mode 1-4
    #expect(face.transmit(direct(hex("32 01"))) == hex("63 7F"))         // RFConfiguration item 01 needs 1 byte
    #expect(face.transmit(direct(hex("8C 00"))) == hex("63 7F"))         // target mode is not modelled
    #expect(face.transmit(direct([])) == hex("63 7F"))                   // TFI D4 and no command code
    #expect(face.transmit(hex("FF 00 00 00 02 D5 02")) == hex("63 00"))  // no host-to-PN532 frame (TFI D4): the reader fails
  }

  /// §7.2.1 Diagnose, §7.2.2 GetFirmwareVersion, §7.2.9 SetParameters, §7.2.10 SAMConfiguration,
  /// §7.3.1 RFConfiguration: what libnfc's `pn53x_init` and nfcpy's `Chipset.__init__` send.
  @Test func startUpCommands() throws {
    let face = ACR122UFace(tag: try Type2VirtualTag(chip: .ntag215))
    #expect(face.transmit(direct(hex("02"))) == answer(0x02, hex("32 01 06 07")))          // PN532 v1.6
    #expect(face.transmit(direct(hex("00 00 AA 55"))) == answer(0x00, hex("00 AA 55")))    // line test echoes
    #expect(face.transmit(direct(hex("12 14"))) == answer(0x12))                           // fAutomaticRATS, fAutomaticATR_RES
    #expect(face.transmit(direct(hex("14 01 14 01"))) == answer(0x14))                     // normal mode, 1 s, IRQ
    #expect(face.transmit(direct(hex("32 05 FF 01 02"))) == answer(0x32))                  // MaxRetries
    #expect(face.transmit(direct(hex("32 02 00 0B 0A"))) == answer(0x32))                  // timings
    #expect(face.transmit(direct(hex("32 01 01"))) == answer(0x32))                        // RF field on
  }

  /// §7.2.3 GetGeneralStatus: `Err Field NbTg [Tg BrRx BrTx Type] SAMstatus`; the last error is
  /// the status of the last initiator command.
  @Test func generalStatusFollowsTheTargetAndTheLastError() throws {
    let face = ACR122UFace(tag: try Type2VirtualTag(chip: .ntag215))
    #expect(face.transmit(direct(hex("04"))) == answer(0x04, hex("00 00 01 01 00 00 00 00")))  // firmware-polled tag
    #expect(face.transmit(direct(hex("32 01 00"))) == answer(0x32))                            // field off
    #expect(face.transmit(direct(hex("40 01 30 04"))) == answer(0x40, hex("27")))              // no target any more
    #expect(face.transmit(direct(hex("04"))) == answer(0x04, hex("27 00 00 00")))
  }
}

@Suite struct PN532TargetTests {
  /// §7.3.5 InListPassiveTarget for each BrTy: 106 kbps type A, FeliCa 212/424, type B, Jewel.
  @Test func listPassiveTargetPerBaudRate() throws {
    let ntag = try Type2VirtualTag(chip: .ntag215)
    let a = ACR122UFace(tag: ntag)
    #expect(a.transmit(direct(hex("4A 01 00")))
            == answer(0x4A, hex("01 01 0044 00 07") + ntag.identifier))    // NbTg Tg SENS_RES SEL_RES len UID
    #expect(a.transmit(direct(hex("4A 01 00") + ntag.identifier)) == answer(0x4A, hex("01 01 0044 00 07") + ntag.identifier))
    let cascadedUID = [0x88] + ntag.identifier.prefix(3) + ntag.identifier.suffix(4)       // as libnfc sends a 7-byte UID
    #expect(a.transmit(direct(hex("4A 01 00") + cascadedUID)) == answer(0x4A, hex("01 01 0044 00 07") + ntag.identifier))
    #expect(a.transmit(direct(hex("4A 01 00 04 11 22 33"))) == answer(0x4A, hex("00")))  // another UID: none
    #expect(a.transmit(direct(hex("4A 01 03 00"))) == answer(0x4A, hex("00")))           // type B: none here
    #expect(a.transmit(direct(hex("4A 01 01 00 FF FF 01 00"))) == answer(0x4A, hex("00")))

    let felica = try FeliCaLiteSVirtualTag()
    let f = ACR122UFace(tag: felica)
    let polRes = hex("12 01") + felica.identifier + felica.pmm
    #expect(f.transmit(direct(hex("4A 01 01 00 FF FF 00 00"))) == answer(0x4A, hex("01 01") + polRes))
    #expect(f.transmit(direct(hex("4A 01 02 00 FF FF 01 00"))) == answer(0x4A, hex("01 01 14") + polRes.dropFirst() + hex("12 FC")))
    #expect(f.transmit(direct(hex("4A 01 00"))) == answer(0x4A, hex("00")))

    let topaz = try Type1VirtualTag(chip: .topaz512)
    let j = ACR122UFace(tag: topaz)
    #expect(j.transmit(direct(hex("4A 01 04"))) == answer(0x4A, hex("01 01 0C 00") + topaz.identifier.prefix(4)))
  }

  /// §7.3.13 InAutoPoll: `NbTg`, then `Type NbData AutoPollTargetData` (InListPassiveTarget's
  /// TargetData, Tg first) for the first listed type that fits.
  @Test func autoPollAnswersTypeLengthAndTargetData() throws {
    let ntag = try Type2VirtualTag(chip: .ntag215)
    let a = ACR122UFace(tag: ntag)
    let target = hex("01 0044 00 07") + ntag.identifier
    #expect(a.transmit(direct(hex("60 01 01 20 10"))) == answer(0x60, [0x01, 0x10, UInt8(target.count)] + target))
    #expect(a.transmit(direct(hex("60 FF 02 00"))) == answer(0x60, [0x01, 0x00, UInt8(target.count)] + target))
    #expect(a.transmit(direct(hex("60 01 01 11 04 23"))) == answer(0x60, hex("00")))    // FeliCa, Jewel, 4B: none
    #expect(a.transmit(direct(hex("60 01 10 10"))) == hex("63 7F"))                     // Period 01-0F

    let type4 = try Type4VirtualTag()
    let d = ACR122UFace(tag: type4)
    let dep = hex("01 0344 20 07") + type4.identifier + Type4VirtualTag.ats
    #expect(d.transmit(direct(hex("60 01 01 10 20"))) == answer(0x60, [0x01, 0x20, UInt8(dep.count)] + dep))

    let felica = try FeliCaLiteSVirtualTag()
    let f = ACR122UFace(tag: felica)
    let pol = hex("01 14 01") + felica.identifier + felica.pmm + hex("12 FC")
    #expect(f.transmit(direct(hex("60 01 01 00 12"))) == answer(0x60, [0x01, 0x12, UInt8(pol.count)] + pol))
  }

  /// §7.3.10 InDeselect, §7.3.11 InRelease, §7.3.12 InSelect and §7.3.8 InDataExchange's target.
  @Test func releaseDeselectAndSelect() throws {
    let ntag = try Type2VirtualTag(chip: .ntag215)
    let face = ACR122UFace(tag: ntag)
    let page4 = Array(ntag.memoryImage[16..<32])
    #expect(face.transmit(direct(hex("40 01 30 04"))) == answer(0x40, [0x00] + page4))   // the firmware's target 1
    #expect(face.transmit(direct(hex("40 02 30 04"))) == answer(0x40, hex("27")))        // no target 2
    #expect(face.transmit(direct(hex("44 01"))) == answer(0x44, hex("00")))              // deselected
    #expect(face.transmit(direct(hex("40 01 30 04"))) == answer(0x40, [0x00] + page4))   // reactivated
    #expect(face.transmit(direct(hex("54 02"))) == answer(0x54, hex("27")))
    #expect(face.transmit(direct(hex("54 01"))) == answer(0x54, hex("00")))
    #expect(face.transmit(direct(hex("52 00"))) == answer(0x52, hex("00")))              // release all
    #expect(face.transmit(direct(hex("40 01 30 04"))) == answer(0x40, hex("27")))
    #expect(face.transmit(direct(hex("54 01"))) == answer(0x54, hex("27")))
    #expect(face.transmit(direct(hex("4A 01 00"))).count == 17)                          // listed again
    #expect(face.transmit(direct(hex("40 01 30 04"))) == answer(0x40, [0x00] + page4))
  }
}
