import NFCEmulator
import NFCTags
import NFCTestSupport
import NFCTransport
import Testing

private let uid: [UInt8] = [0xA1, 0xB2, 0xC3, 0xD4]
private func direct(_ pn532: [UInt8]) -> [UInt8] { [0xFF, 0x00, 0x00, 0x00, UInt8(pn532.count + 1), 0xD4] + pn532 }
/// InListPassiveTarget (PN532 User Manual §7.3.5), one target at 106 kbps type A: the card selected
/// again, with its ATQA 0004, SAK 08 and UID.
private let listPassiveTarget = direct(hex("4A 01 00"))
private let listedTarget = hex("D5 4B 01 01 00 04 08 04 A1 B2 C3 D4 90 00")

/// A MIFARE Classic behind the ACR122U's PN532: InDataExchange with the MIFARE commands (PN532
/// User Manual §7.3.8; the PN532 runs Crypto1), errors as the PN532's status byte.
@Suite struct ClassicPN532Tests {
  @Test func authenticateReadWriteAndValue() throws {
    let tag = try MIFAREClassicVirtualTag(chip: .classic1K, uid: uid)
    let face = ACR122UFace(tag: tag)
    #expect(face.atr == hex("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 01 00 00 00 00 6A"))  // PC/SC Part 3 name 00 01
    #expect(face.transmit(listPassiveTarget) == listedTarget)
    #expect(face.transmit(direct(hex("40 01 30 04"))) == hex("D5 41 14 90 00"))                 // not authenticated
    // The refusal leaves the card silent (NXP AN1304 §6.4.1): a READ times out (01), the right key
    // is refused, until InListPassiveTarget selects the card again.
    #expect(face.transmit(direct(hex("40 01 30 04"))) == hex("D5 41 01 90 00"))
    #expect(face.transmit(direct(hex("40 01 60 04 FFFFFFFFFFFF A1B2C3D4"))) == hex("D5 41 14 90 00"))
    #expect(face.transmit(listPassiveTarget) == listedTarget)
    #expect(face.transmit(direct(hex("40 01 60 04 FFFFFFFFFFFF A1B2C3D4"))) == hex("D5 41 00 90 00"))
    #expect(face.transmit(direct(hex("40 01 30 04"))) == hex("D5 41 00") + [UInt8](repeating: 0, count: 16) + hex("90 00"))
    let data = hex("00112233445566778899AABBCCDDEEFF")
    #expect(face.transmit(direct(hex("40 01 A0 05") + data)) == hex("D5 41 00 90 00"))
    #expect(face.transmit(direct(hex("40 01 30 05"))) == hex("D5 41 00") + data + hex("90 00"))
    #expect(face.transmit(direct(hex("40 01 A0 06") + MIFAREClassicVirtualTag.valueBlock(10, address: 6))) == hex("D5 41 00 90 00"))
    #expect(face.transmit(direct(hex("40 01 C1 06 05000000"))) == hex("D5 41 00 90 00"))   // increment by 5
    #expect(face.transmit(direct(hex("40 01 B0 06"))) == hex("D5 41 00 90 00"))            // transfer
    #expect(tag.storedBlock(6) == MIFAREClassicVirtualTag.valueBlock(15, address: 6))
    #expect(face.transmit(direct(hex("40 01 C0 06 0F000000"))) == hex("D5 41 00 90 00"))   // decrement by 15
    #expect(face.transmit(direct(hex("40 01 B0 06"))) == hex("D5 41 00 90 00"))
    #expect(tag.storedBlock(6) == MIFAREClassicVirtualTag.valueBlock(0, address: 6))
    #expect(face.transmit(direct(hex("40 01 30 08"))) == hex("D5 41 14 90 00"))            // sector 2: not authenticated
    #expect(face.transmit(direct(hex("40 01 30 05"))) == hex("D5 41 01 90 00"))            // silent: timeout
    #expect(face.transmit(listPassiveTarget) == listedTarget)
    #expect(face.transmit(direct(hex("40 01 60 08 FFFFFFFFFFFF A1B2C3D4"))) == hex("D5 41 00 90 00"))
    #expect(face.transmit(direct(hex("40 01 30 08"))) == hex("D5 41 00") + [UInt8](repeating: 0, count: 16) + hex("90 00"))
  }

  /// A wrong key is the PN532's error 14h (§7.1, "Mifare: Authentication error"), and ends the
  /// authentication; the silent card then times out (01) until InListPassiveTarget selects it
  /// again. A trailer reads with key A as zeros.
  @Test func wrongKeyIsError14() throws {
    let face = ACR122UFace(tag: try MIFAREClassicVirtualTag(chip: .classic4K, uid: uid))
    #expect(face.atr == hex("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 02 00 00 00 00 69"))
    #expect(face.transmit(direct(hex("40 01 60 07 FFFFFFFFFFFF A1B2C3D4"))) == hex("D5 41 00 90 00"))
    #expect(face.transmit(direct(hex("40 01 30 07"))) == hex("D5 41 00 000000000000 FF078069 FFFFFFFFFFFF 90 00"))
    #expect(face.transmit(direct(hex("40 01 61 07 D3F7D3F7D3F7 A1B2C3D4"))) == hex("D5 41 14 90 00"))
    #expect(face.transmit(direct(hex("40 01 30 07"))) == hex("D5 41 01 90 00"))  // silent: timeout
    #expect(face.transmit(direct(hex("4A 01 00"))) == hex("D5 4B 01 01 00 02 18 04 A1 B2 C3 D4 90 00"))
    #expect(face.transmit(direct(hex("40 01 30 07"))) == hex("D5 41 14 90 00"))  // selected: a NAK again
    #expect(face.transmit(direct(hex("40 01 30 07"))) == hex("D5 41 01 90 00"))  // and silent after it
    #expect(face.transmit(direct(hex("4A 01 00"))) == hex("D5 4B 01 01 00 02 18 04 A1 B2 C3 D4 90 00"))
    #expect(face.transmit(direct(hex("40 01 61 07 FFFFFFFFFFFF 01020304"))) == hex("D5 41 14 90 00"))  // another UID
    #expect(face.transmit(direct(hex("4A 01 00"))) == hex("D5 4B 01 01 00 02 18 04 A1 B2 C3 D4 90 00"))
    #expect(face.transmit(direct(hex("40 01 61 07 FFFFFFFFFFFF A1B2C3D4"))) == hex("D5 41 00 90 00"))  // the right UID
  }

  @Test func miniATR() throws {
    let face = ACR122UFace(tag: try MIFAREClassicVirtualTag(chip: .mini, uid: uid))
    #expect(face.atr == hex("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 26 00 00 00 00 4D"))
  }
}

/// The PC/SC pseudo-APDUs for MIFARE Classic on both faces: LOAD KEYS, GENERAL AUTHENTICATE, the
/// older AUTHENTICATE, READ BINARY, UPDATE BINARY (PC/SC Part 3 §3.2.2.1; ACS ACR122U API §5).
@Suite struct ClassicPseudoAPDUTests {
  static func faces() throws -> [(String, any VirtualCard, MIFAREClassicVirtualTag)] {
    let a = try MIFAREClassicVirtualTag(chip: .classic1K, uid: uid)
    let b = try MIFAREClassicVirtualTag(chip: .classic1K, uid: uid)
    return [("acr122u", ACR122UFace(tag: a), a), ("part3", try PartThreeFace(tag: b), b)]
  }

  /// The card refused the last command, so it is silent until it is selected again (NXP AN1304
  /// §6.4.1): `authentication`, with a good key, answers `63 00` until `face.reset()`, then `90 00`.
  static func reselectAndAuthenticate(_ face: any VirtualCard, _ authentication: [UInt8], _ name: String,
                                      sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(face.transmit(authentication) == hex("63 00"), "\(name): silent until selected again", sourceLocation: sourceLocation)
    face.reset()
    #expect(face.transmit(authentication) == hex("90 00"), "\(name): selected again", sourceLocation: sourceLocation)
  }

  @Test func loadKeysAuthenticateReadUpdate() throws {
    for (name, face, tag) in try Self.faces() {
      let sector1KeyA = hex("FF 86 00 00 05 01 00 04 60 00"), sector2KeyA = hex("FF 88 00 08 60 00")
      #expect(face.atr == hex("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 01 00 00 00 00 6A"), "\(name)")
      #expect(face.transmit(hex("FF B0 00 04 10")) == hex("63 00"), "\(name): not authenticated")
      #expect(tag.isHalted, "\(name): the refused READ leaves the card silent")
      #expect(face.transmit(hex("FF 82 00 00 06 FFFFFFFFFFFF")) == hex("90 00"), "\(name)")
      #expect(face.transmit(hex("FF 82 00 01 06 A0A1A2A3A4A5")) == hex("90 00"), "\(name)")
      #expect(face.transmit(hex("FF 82 00 02 06 FFFFFFFFFFFF")) == hex("63 00"), "\(name): no slot 02")
      #expect(face.transmit(hex("FF 82 00 00 05 FFFFFFFFFF")) == hex("63 00"), "\(name): a key has 6 bytes")
      Self.reselectAndAuthenticate(face, sector1KeyA, name)
      #expect(face.transmit(hex("FF B0 00 04 10")) == [UInt8](repeating: 0, count: 16) + hex("90 00"), "\(name)")
      let data = hex("0102030405060708090A0B0C0D0E0F10")
      #expect(face.transmit(hex("FF D6 00 05 10") + data) == hex("90 00"), "\(name)")
      #expect(tag.storedBlock(5) == data, "\(name)")
      #expect(face.transmit(hex("FF D6 00 05 04 01020304")) == hex("63 00"), "\(name): a block has 16 bytes")
      #expect(!tag.isHalted, "\(name): the reader refused it without sending it to the card")
      #expect(face.transmit(sector1KeyA) == hex("90 00"), "\(name)")
      #expect(face.transmit(hex("FF B0 00 08 10")) == hex("63 00"), "\(name): sector 2")
      Self.reselectAndAuthenticate(face, sector1KeyA, name)
      #expect(face.transmit(hex("FF 86 00 00 05 01 00 08 61 01")) == hex("63 00"), "\(name): wrong key")
      #expect(face.transmit(hex("FF 88 00 08 61 00")) == hex("63 00"), "\(name): the card is silent until selected again")
      face.reset()
      #expect(face.transmit(hex("FF 88 00 08 61 00")) == hex("90 00"), "\(name): obsolete form, key B")
      #expect(face.transmit(hex("FF B0 00 08 10")) == hex("63 00"), "\(name): key B is readable (FF 07 80), so it opens nothing")
      Self.reselectAndAuthenticate(face, sector2KeyA, name)  // obsolete form, key A
      #expect(face.transmit(hex("FF B0 00 08 10")) == [UInt8](repeating: 0, count: 16) + hex("90 00"), "\(name)")
      #expect(face.transmit(hex("FF 88 00 08 62 00")) == hex("63 00"), "\(name): key type 62")
      #expect(face.transmit(hex("FF D6 00 00 10") + data) == hex("63 00"), "\(name): block 0")
      Self.reselectAndAuthenticate(face, sector2KeyA, name)
      #expect(face.transmit(hex("FF B0 00 08 10")) == [UInt8](repeating: 0, count: 16) + hex("90 00"), "\(name): answers again")
    }
  }

  /// A key in a slot that was never loaded, and a read-only block as the access bits make it.
  @Test func emptySlotAndRefusedWrite() throws {
    for (name, face, tag) in try Self.faces() {
      #expect(face.transmit(hex("FF 86 00 00 05 01 00 04 60 01")) == hex("63 00"), "\(name): empty slot")
      #expect(face.transmit(hex("FF 82 00 00 06 FFFFFFFFFFFF")) == hex("90 00"))
      #expect(face.transmit(hex("FF 86 00 00 05 01 00 07 60 00")) == hex("90 00"))
      // Data blocks 010 (read only), trailer 001.
      let readOnly = MIFAREClassicAccessConditions(groups: [.init(bits: 0b010), .init(bits: 0b010), .init(bits: 0b010), .init(bits: 0b001)])
      #expect(face.transmit(hex("FF D6 00 07 10 FFFFFFFFFFFF") + readOnly.bytes + hex("69 FFFFFFFFFFFF")) == hex("90 00"), "\(name)")
      #expect(tag.accessConditions(sector: 1) == readOnly)
      #expect(face.transmit(hex("FF 86 00 00 05 01 00 04 60 00")) == hex("90 00"))
      #expect(face.transmit(hex("FF D6 00 04 10") + [UInt8](repeating: 0x55, count: 16)) == hex("63 00"), "\(name)")
      #expect(tag.storedBlock(4) == [UInt8](repeating: 0, count: 16))
    }
  }

  @Test func partThreeNamesTheChips() throws {
    #expect(try PartThreeFace(tag: try MIFAREClassicVirtualTag(chip: .classic4K, uid: uid)).atr
      == hex("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 02 00 00 00 00 69"))
    #expect(try PartThreeFace(tag: try MIFAREClassicVirtualTag(chip: .mini, uid: uid)).atr
      == hex("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 26 00 00 00 00 4D"))
  }
}

/// ACS's value block APDUs (ACR122U API §5, "Value Block Related Commands"): store, increment,
/// decrement, restore (copy) and read, values most significant byte first.
@Suite struct ClassicValueAPDUTests {
  @Test func storeIncrementDecrementRestoreRead() throws {
    for (name, face, tag) in try ClassicPseudoAPDUTests.faces() {
      #expect(face.transmit(hex("FF 82 00 00 06 FFFFFFFFFFFF")) == hex("90 00"))
      #expect(face.transmit(hex("FF 86 00 00 05 01 00 04 60 00")) == hex("90 00"))
      #expect(face.transmit(hex("FF B1 00 04 04")) == hex("63 00"), "\(name): block 4 is no value block yet")
      #expect(face.transmit(hex("FF 86 00 00 05 01 00 04 60 00")) == hex("90 00"))
      #expect(face.transmit(hex("FF D7 00 05 05 00 00000064")) == hex("90 00"), "\(name): store 100")
      #expect(tag.storedBlock(5) == hex("64000000 9BFFFFFF 64000000 05FA05FA"), "\(name)")  // ACR122S manual's example
      #expect(face.transmit(hex("FF D7 00 05 05 01 00000001")) == hex("90 00"), "\(name): + 1")
      #expect(face.transmit(hex("FF B1 00 05 04")) == hex("00000065 90 00"), "\(name)")
      #expect(face.transmit(hex("FF D7 00 05 05 02 00000066")) == hex("90 00"), "\(name): - 102")
      #expect(face.transmit(hex("FF B1 00 05 04")) == hex("FFFFFFFF 90 00"), "\(name): -1")
      #expect(face.transmit(hex("FF D7 00 05 02 03 06")) == hex("90 00"), "\(name): copy 5 to 6")
      #expect(tag.storedBlock(6) == MIFAREClassicVirtualTag.valueBlock(-1, address: 5), "\(name)")
      #expect(face.transmit(hex("FF D7 00 05 05 03 00000001")) == hex("63 00"), "\(name): no operation 03 with a value")
      #expect(face.transmit(hex("FF 86 00 00 05 01 00 04 60 00")) == hex("90 00"))
      #expect(face.transmit(hex("FF D7 00 04 05 01 00000001")) == hex("63 00"), "\(name): block 4 holds zeros")
    }
  }
}
