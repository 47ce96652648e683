import NFCTags
import NFCTestSupport
import NFCTransport
import Testing

/// The MAD (NXP AN10787) and NDEF on MIFARE Classic (AN1304) without I/O: CRC, AIDs, GPB,
/// trailers, access bits, the NDEF area and its capacity.
@Suite struct ClassicCodec {
  /// MAD1 of an NFC-formatted 1K as NXP's tools write it: CRC 14, info 01, AID 03E1 × 15.
  static let mad1Blocks = hex("14 01 03E1 03E1 03E1 03E1 03E1 03E1 03E1") + hex("03E1 03E1 03E1 03E1 03E1 03E1 03E1 03E1")

  @Test func crcMatchesTheApplicationNotesExample() {
    // AN10787 §3, Table 11: info 01, AIDs stored low byte first; CRC 89.
    let body = hex("01" + "01 08 01 08 01 08 00 00 00 00 00 00 04 00" + "03 10 03 10 02 10 02 10 00 00 00 00 00 00 11 30")
    #expect(body.count == 31)
    #expect(MIFAREApplicationDirectory.crc8(body) == 0x89)
  }

  @Test func decodesTheMAD1OfAnNDEFCard() throws {
    let mad = try MIFAREApplicationDirectory.decode(generalPurposeByte: 0xC1, sector0: Self.mad1Blocks)
    #expect(mad.version == .mad1)
    #expect(mad.infoByte == 0x01)
    #expect(mad.sectors(holding: .ndef) == Array(1...15))
    #expect(mad.sector0Blocks == Self.mad1Blocks)
    #expect(MIFAREApplicationDirectory.ndef(for: .classic1K) == mad)
  }

  @Test func encodesAndDecodesMAD2() throws {
    let mad = MIFAREApplicationDirectory.ndef(for: .classic4K)
    #expect(mad.generalPurposeByte == 0xC2)
    let sector16 = try #require(mad.sector16Blocks)
    #expect(Array(sector16.prefix(4)) == hex("E8 01 03 E1"))
    let decoded = try MIFAREApplicationDirectory.decode(generalPurposeByte: 0xC2, sector0: mad.sector0Blocks, sector16: sector16)
    #expect(decoded == mad)
    #expect(decoded.sectors(holding: .ndef) == Array(1...15) + Array(17...39))
  }

  @Test func aWrongCRCIsAnErrorOfItsOwn() throws {
    var blocks = Self.mad1Blocks
    blocks[0] = 0x15
    #expect(throws: MIFAREClassicError.madCRCMismatch(sector: 0, stored: 0x15, computed: 0x14)) {
      try MIFAREApplicationDirectory.decode(generalPurposeByte: 0xC1, sector0: blocks)
    }
    // A changed AID with the old CRC is caught the same way.
    blocks = Self.mad1Blocks
    blocks[5] = 0x00
    #expect(throws: MIFAREClassicError.self) { try MIFAREApplicationDirectory.decode(generalPurposeByte: 0xC1, sector0: blocks) }
    var sector16 = try #require(MIFAREApplicationDirectory.ndef(for: .classic4K).sector16Blocks)
    sector16[47] ^= 0x01
    let error = #expect(throws: MIFAREClassicError.self) {
      try MIFAREApplicationDirectory.decode(generalPurposeByte: 0xC2, sector0: MIFAREApplicationDirectory.ndef(for: .classic4K).sector0Blocks,
                                            sector16: sector16)
    }
    guard case .madCRCMismatch(let sector, _, _)? = error else {
      Issue.record("expected a CRC mismatch, got \(String(describing: error))")
      return
    }
    #expect(sector == 16)
  }

  @Test func refusesAGPBWithoutAMAD() {
    #expect(throws: MIFAREClassicError.madAbsent(generalPurposeByte: 0x69)) {
      try MIFAREApplicationDirectory.decode(generalPurposeByte: 0x69, sector0: Self.mad1Blocks)
    }
    #expect(throws: MIFAREClassicError.self) { try MIFAREApplicationDirectory.decode(generalPurposeByte: 0xC3, sector0: Self.mad1Blocks) }
    #expect(throws: MIFAREClassicError.self) { try MIFAREApplicationDirectory.decode(generalPurposeByte: 0xC2, sector0: Self.mad1Blocks) }
    #expect(throws: MIFAREClassicError.self) { try MIFAREApplicationDirectory.decode(generalPurposeByte: 0xC1, sector0: [0x14]) }
  }

  @Test func miniMarksTheSectorsItLacks() {
    let mad = MIFAREApplicationDirectory.ndef(for: .mini)
    #expect(mad.sectors(holding: .ndef) == [1, 2, 3, 4])
    #expect(mad.sectors(holding: .notApplicable) == Array(5...15))
  }

  // MARK: - Access bits (MF1S50yyX §8.7.1)

  @Test func accessBitsRoundTripAndCatchEveryFlippedBit() throws {
    for packed in 0..<4096 {
      let groups = (0..<4).map { MIFAREClassicAccessBits(bits: UInt8(packed >> (3 * $0) & 7)) }
      let conditions = MIFAREClassicAccessConditions(groups: groups)
      let bytes = conditions.bytes
      #expect(MIFAREClassicAccessConditions(bytes: bytes) == conditions)
      if packed % 97 == 0 {
        for bit in 0..<24 {
          var flipped = bytes
          flipped[bit / 8] ^= 1 << UInt8(bit % 8)
          #expect(MIFAREClassicAccessConditions(bytes: flipped) == nil)
          #expect(throws: MIFAREClassicError.accessBitsInvalid(flipped)) { try MIFAREClassicAccessConditions.decode(flipped) }
        }
      }
    }
  }

  @Test func theApplicationNotesAccessBitsMeanWhatTheySay() throws {
    let madRW = try MIFAREClassicAccessConditions.decode(MIFAREClassicNDEF.madAccessReadWrite)
    #expect(madRW.summary == "100 100 100 011")
    #expect(madRW.groups[0].dataRead == .keyAOrB && madRW.groups[0].dataWrite == .keyB)
    let ndefRW = try MIFAREClassicAccessConditions.decode(MIFAREClassicNDEF.ndefAccessReadWrite)
    #expect(ndefRW.summary == "000 000 000 011")
    #expect(!madRW.isPermanent && !ndefRW.isPermanent)
    #expect(ndefRW.groups[3].trailerAccessBitsWrite == .keyB)
    let readOnly = try MIFAREClassicAccessConditions.decode(MIFAREClassicNDEF.accessReadOnly)
    #expect(readOnly.summary == "010 010 010 110")
    #expect(readOnly.isPermanent)
    #expect(readOnly.groups[0].dataWrite == .never && readOnly.groups[0].dataRead == .keyAOrB)
    #expect(!MIFAREClassicAccessConditions.transport.isPermanent)
    #expect(MIFAREClassicAccessConditions.transport.bytes == hex("FF 07 80"))
  }

  // MARK: - NDEF area (AN1304)

  @Test func capacities() {
    #expect(MIFAREClassicNDEFArea(chip: .classic1K, sectors: Array(1...15)).capacity == 716)
    #expect(MIFAREClassicNDEFArea(chip: .classic4K, sectors: Array(1...15) + Array(17...39)).capacity == 3356)
    #expect(MIFAREClassicNDEFArea(chip: .mini, sectors: [1, 2, 3, 4]).capacity == 190)
  }

  @Test func theAreaFollowsTheMADAndSkipsTrailers() throws {
    let area4K = try MIFAREClassicNDEFArea(chip: .classic4K, mad: .ndef(for: .classic4K))
    #expect(area4K.sectors.count == 38)
    #expect(area4K.size == 3360)
    #expect(area4K.blocks.prefix(4) == [4, 5, 6, 8])
    #expect(area4K.blocks.contains(68) && !(64...67).contains { area4K.blocks.contains($0) })  // sector 16 is the MAD2's
    #expect(area4K.blocks.last == 254)
    // A gap ends the area: sectors 1, 2 and then 5 give sectors 1 and 2.
    var mad = MIFAREApplicationDirectory(version: .mad1)
    mad.sectors[1] = .ndef
    mad.sectors[2] = .ndef
    mad.sectors[5] = .ndef
    #expect(try MIFAREClassicNDEFArea(chip: .classic1K, mad: mad).sectors == [1, 2])
    #expect(throws: MIFAREClassicError.noNDEFSector) {
      try MIFAREClassicNDEFArea(chip: .classic1K, mad: MIFAREApplicationDirectory(version: .mad1))
    }
  }

  @Test func readsAMessageAcrossSectors() throws {
    let area = MIFAREClassicNDEFArea(chip: .classic1K, sectors: Array(1...15))
    let message = (0..<300).map { UInt8($0 & 0xFF) }
    var data = [UInt8](repeating: 0, count: area.size)
    data.replaceSubrange(0..<304, with: [0x03, 0xFF, 0x01, 0x2C] + message)
    data[304] = 0xFE
    #expect(try area.message(in: data) == message)
    // A length past the area is malformed, not a trap.
    data.replaceSubrange(0..<4, with: [0x03, 0xFF, 0x02, 0xD1])
    #expect(throws: TagError.self) { try area.message(in: data) }
    #expect(throws: TagError.self) { try area.message(in: [0x03]) }
  }

  @Test func formatWritesTheMADTheKeysAndAnEmptyMessage() throws {
    // The NDEF sectors first, the MAD last: sector 0's trailer (its GPB says "MAD") is the last write.
    let writes = MIFAREClassicNDEF.formatWrites(for: .classic1K)
    #expect(writes.map(\.sector) == Array(1..<16) + [0])
    let sector0 = try #require(writes.last).blocks
    #expect(sector0.map(\.block) == [1, 2, 3])
    #expect(sector0[0].bytes + sector0[1].bytes == Self.mad1Blocks)
    #expect(sector0[2].bytes == hex("A0A1A2A3A4A5 787788 C1 FFFFFFFFFFFF"))
    #expect(writes[0].blocks.map(\.block) == [4, 5, 6, 7])
    #expect(writes[0].blocks[0].bytes == hex("0300FE00 00000000 00000000 00000000"))
    #expect(writes[0].blocks[3].bytes == hex("D3F7D3F7D3F7 7F0788 40 FFFFFFFFFFFF"))
    #expect(writes[1].blocks[0].bytes == [UInt8](repeating: 0, count: 16))
    let writes4K = MIFAREClassicNDEF.formatWrites(for: .classic4K)
    #expect(writes4K.map(\.sector) == Array(1..<16) + Array(17..<40) + [16, 0])
    #expect(writes4K[38].blocks.map(\.block) == [64, 65, 66, 67])
    #expect(writes4K[38].blocks[3].bytes == hex("A0A1A2A3A4A5 787788 C2 FFFFFFFFFFFF"))
    #expect(writes4K[37].sector == 39 && writes4K[37].blocks.count == 16)
    #expect(MIFAREClassicNDEF.formatWrites(for: .mini).map(\.sector) == [1, 2, 3, 4, 0])
    let readWrite = MIFAREClassicNDEF.access(generalPurposeByte: 0x40)
    let readOnly = MIFAREClassicNDEF.access(generalPurposeByte: 0x43)
    #expect(readWrite.read && readWrite.write && readOnly.read && !readOnly.write)
  }
}
