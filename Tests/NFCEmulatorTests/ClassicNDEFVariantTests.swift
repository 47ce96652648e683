import NFCEmulator
import NFCTags
import NFCTestSupport
import NFCTransport
import Testing

private let uid: [UInt8] = [0xA1, 0xB2, 0xC3, 0xD4]
private func direct(_ pn532: [UInt8]) -> [UInt8] { [0xFF, 0x00, 0x00, 0x00, UInt8(pn532.count + 1), 0xD4] + pn532 }

/// The `-ndef` kinds: formatted as NXP AN1304 defines it, readable with the public keys out of
/// the box through either reader face.
@Suite struct ClassicNDEFVariant {
  @Test(arguments: [(VirtualTagKind.mifareClassic1KNDEF, MIFAREClassicChip.classic1K),
                    (.mifareClassic4KNDEF, .classic4K), (.mifareClassicMiniNDEF, .mini)])
  func madAndEmptyMessageWithThePublicKeys(kind: VirtualTagKind, chip: MIFAREClassicChip) throws {
    let tag = try #require(try kind.makeTag(uid: uid) as? MIFAREClassicVirtualTag)
    #expect(tag.chip == chip)
    let face = ACR122UFace(tag: tag)
    // Sector 0 with the MAD key A: blocks 1 and 2 are the MAD, the trailer's GPB says which.
    #expect(face.transmit(direct(hex("40 01 60 03 A0A1A2A3A4A5 A1B2C3D4"))) == hex("D5 41 00 90 00"))
    var sector0: [UInt8] = []
    for block: UInt8 in [1, 2, 3] {
      let answer = face.transmit(direct([0x40, 0x01, 0x30, block]))
      #expect(answer.count == 21 && answer.prefix(3) == [0xD5, 0x41, 0x00])
      sector0 += answer.dropFirst(3).prefix(16)
    }
    let gpb = sector0[41]
    #expect(Array(sector0[38..<41]) == MIFAREClassicNDEF.madAccessReadWrite)
    var sector16: [UInt8]?
    if chip == .classic4K {
      #expect(face.transmit(direct(hex("40 01 60 40 A0A1A2A3A4A5 A1B2C3D4"))) == hex("D5 41 00 90 00"))
      sector16 = try [UInt8](0x40...0x42).flatMap { block throws -> [UInt8] in
        let answer = face.transmit(direct([0x40, 0x01, 0x30, block]))
        try #require(answer.count == 21)
        return Array(answer.dropFirst(3).prefix(16))
      }
    }
    let mad = try MIFAREApplicationDirectory.decode(generalPurposeByte: gpb, sector0: Array(sector0[0..<32]), sector16: sector16)
    #expect(mad == MIFAREApplicationDirectory.ndef(for: chip))
    // Sector 1 with the NDEF key A: an empty NDEF TLV; the MAD key does not open it (and leaves
    // the card silent until InListPassiveTarget selects it again).
    #expect(face.transmit(direct(hex("40 01 60 04 A0A1A2A3A4A5 A1B2C3D4"))) == hex("D5 41 14 90 00"))
    #expect(Array(face.transmit(direct(hex("4A 01 00"))).prefix(3)) == hex("D5 4B 01"))
    #expect(face.transmit(direct(hex("40 01 60 04 D3F7D3F7D3F7 A1B2C3D4"))) == hex("D5 41 00 90 00"))
    #expect(face.transmit(direct(hex("40 01 30 04"))) == hex("D5 41 00") + MIFAREClassicNDEF.emptyNDEFBlock + hex("90 00"))
    // Key B (FF…FF) may still write the trailer: nothing is locked.
    let trailer = try #require(tag.storedBlock(7))
    #expect(trailer == MIFAREClassicNDEF.ndefTrailer(keyB: MIFAREClassicNDEF.factoryKey))
  }

  @Test func partThreeFaceReadsWithTheNDEFKey() throws {
    let tag = try VirtualTagKind.mifareClassic1KNDEF.makeTag(uid: uid)
    let face = try ReaderFaceKind.part3.makeFace(tag: tag)
    #expect(face.transmit(hex("FF 82 00 00 06 D3F7D3F7D3F7")) == hex("90 00"))
    #expect(face.transmit(hex("FF 86 00 00 05 01 00 04 60 00")) == hex("90 00"))
    #expect(face.transmit(hex("FF B0 00 04 10")) == MIFAREClassicNDEF.emptyNDEFBlock + hex("90 00"))
    #expect(face.transmit(hex("FF 82 00 00 06 FFFFFFFFFFFF")) == hex("90 00"))
    #expect(face.transmit(hex("FF 86 00 00 05 01 00 08 60 00")) == hex("63 00"))  // factory key A no longer opens it
  }

  @Test func imageOfAnNDEFKindIsTheChipsImage() throws {
    let made = try #require(try VirtualTagKind.mifareClassic1KNDEF.makeTag(uid: uid) as? MIFAREClassicVirtualTag)
    let reopened = try #require(try VirtualTagKind.mifareClassic1KNDEF.makeTag(image: made.memoryImage) as? MIFAREClassicVirtualTag)
    #expect(reopened.memoryImage == made.memoryImage)
    #expect(reopened.identifier == uid)
  }
}
