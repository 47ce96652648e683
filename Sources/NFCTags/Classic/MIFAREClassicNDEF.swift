import NFCTransport

/// NDEF on a MIFARE Classic, as NXP AN1304 "NFC Type MIFARE Classic Tag Operation" (Rev. 1.3)
/// and AN1305 "MIFARE Classic as NFC Type MIFARE Classic Tag" define it: the MAD (AN10787) in
/// sector 0 (and 16) names the NDEF sectors by AID 03E1; their data blocks, in sector order and
/// with the trailers skipped, hold the TLVs of the NFC Forum Type 2 Tag; the keys and access
/// bits below are AN1304's for the MAD sector and the NFC sectors.
public enum MIFAREClassicNDEF {
  /// The public key A of the NDEF sectors (AN1304, the "NFC public key").
  public static let publicKeyA: [UInt8] = [0xD3, 0xF7, 0xD3, 0xF7, 0xD3, 0xF7]
  /// The factory key, A and B (MF1S50yyX §8.6.3): what ``formatTrailers(for:keyB:)`` keeps as key B.
  public static let factoryKey: [UInt8] = [UInt8](repeating: 0xFF, count: 6)

  // Where the trailer values below come from. AN1304 (the MAD and NFC sector trailers) and
  // AN1305 §6.4.9 ("Transitions from READ/WRITE to MIFARE BLOCKED READ-ONLY") define them, but
  // the notes' pages with the bytes could not be checked here (only their first pages are at
  // hand), so each value is also one that independent implementations agree on:
  // - NXP's own NFC library for Android (libnfc-nxp: `phFriNfc_SmtCrdFmt.h`, the format's
  //   trailers A0…A5 78 77 88 C1 (C2 on a 4K) and D3F7… 7F 07 88 40; `phFriNfc_MifareStdMap.h`,
  //   the read-only NFC sector bytes 07 8F 0F and the GPB's write-access bits, mask 03);
  // - mfterm (`ndef.c`: NDEF sectors 7F 07 88 with GPB 40 read/write, 07 8F 0F with GPB 43
  //   read-only).
  // The access bits decode (MF1S50yyX §8.7, Tables 7 and 8) to what each comment says; the
  // tests check that decoding bit by bit.

  /// MAD sector, read/write: data blocks key A read, key B write (100); the trailer written with
  /// key B only (011). AN1304, MAD sector trailer (see above for the implementations that agree).
  public static let madAccessReadWrite: [UInt8] = [0x78, 0x77, 0x88]
  /// NDEF sector, read/write: data blocks read and written with key A or B (000); the trailer
  /// written with key B only (011). AN1304, NFC sector trailer (see above).
  public static let ndefAccessReadWrite: [UInt8] = [0x7F, 0x07, 0x88]
  /// Read-only, MAD and NDEF sectors alike: data blocks read with key A or B, never written (010);
  /// the trailer never written again (110). AN1305 §6.4.9, "MIFARE BLOCKED READ-ONLY" (see
  /// above). Permanent.
  public static let accessReadOnly: [UInt8] = [0x07, 0x8F, 0x0F]

  /// The GPB of an NDEF sector (AN1304, NFC sector trailer; see above): mapping version 1.0 in
  /// bits 7–4, read access in bits 3–2 and write access in bits 1–0 (00 granted, 11 none).
  public static let gpbReadWrite: UInt8 = 0x40
  /// The GPB of a read-only NDEF sector: write access 11 (none); AN1305 §6.4.9 (see above).
  public static let gpbReadOnly: UInt8 = 0x43

  /// The first data block of a freshly formatted NDEF area: an empty NDEF TLV, then a Terminator
  /// (AN1304).
  public static let emptyNDEFBlock: [UInt8] = [0x03, 0x00, 0xFE] + [UInt8](repeating: 0, count: 13)

  /// The trailer of a MAD sector: public key A, access bits, `gpb`, `keyB`.
  public static func madTrailer(generalPurposeByte gpb: UInt8, keyB: [UInt8], readOnly: Bool = false) -> [UInt8] {
    MIFAREApplicationDirectory.publicKeyA + (readOnly ? accessReadOnly : madAccessReadWrite) + [gpb] + keyB
  }

  /// The trailer of an NDEF sector: public key A, access bits, GPB, `keyB`.
  public static func ndefTrailer(keyB: [UInt8], readOnly: Bool = false) -> [UInt8] {
    publicKeyA + (readOnly ? accessReadOnly : ndefAccessReadWrite) + [readOnly ? gpbReadOnly : gpbReadWrite] + keyB
  }

  /// What an NDEF sector's GPB grants: (read, write), each true when granted (AN1304).
  public static func access(generalPurposeByte gpb: UInt8) -> (read: Bool, write: Bool) {
    (gpb >> 2 & 0x03 == 0, gpb & 0x03 == 0)
  }

  /// Every block a format writes, sector by sector, block 0 excluded: the MAD with every sector
  /// NDEF, an empty NDEF TLV in the first NDEF block, zeros elsewhere, the trailers with the public
  /// keys A and `keyB`.
  ///
  /// Order: the NDEF sectors ascending, then (4K) sector 16's MAD2, then sector 0's MAD blocks and
  /// its trailer last; in each sector the data blocks first, then the trailer, so a sector's keys
  /// change last. Sector 0's GPB with the DA bit set is what says that the card has a MAD (AN10787
  /// §3), so a format cut short anywhere before that last write leaves a card without a MAD, which
  /// reads as not formatted, never one whose MAD names sectors that are still factory-fresh.
  public static func formatWrites(for chip: MIFAREClassicChip, keyB: [UInt8] = factoryKey) -> [(sector: Int, blocks: [(block: Int, bytes: [UInt8])])] {
    let mad = MIFAREApplicationDirectory.ndef(for: chip)
    let zero = [UInt8](repeating: 0, count: 16)
    let madSectorTrailer = madTrailer(generalPurposeByte: mad.generalPurposeByte, keyB: keyB)
    var writes: [(sector: Int, blocks: [(block: Int, bytes: [UInt8])])] = []
    var firstNDEF = true
    for sector in 1..<chip.sectorCount where !(sector == 16 && chip == .classic4K) {
      let first = chip.firstBlock(of: sector), trailer = chip.trailer(of: sector)
      var blocks: [(block: Int, bytes: [UInt8])] = []
      for block in first..<trailer {
        blocks.append((block, firstNDEF ? emptyNDEFBlock : zero))
        firstNDEF = false
      }
      blocks.append((trailer, ndefTrailer(keyB: keyB)))
      writes.append((sector, blocks))
    }
    if let body = mad.sector16Blocks {
      let first = chip.firstBlock(of: 16)
      writes.append((16, [(first, Array(body[0..<16])), (first + 1, Array(body[16..<32])), (first + 2, Array(body[32..<48])),
                          (chip.trailer(of: 16), madSectorTrailer)]))
    }
    let body = mad.sector0Blocks
    writes.append((0, [(1, Array(body[0..<16])), (2, Array(body[16..<32])), (3, madSectorTrailer)]))
    return writes
  }
}

/// The NDEF area of a MIFARE Classic: the data blocks of its NDEF sectors, trailers skipped, as
/// one run of bytes the TLV parser walks (AN1304 §6.4.1, NDEF detection procedure).
public struct MIFAREClassicNDEFArea: Hashable, Sendable {
  /// Mini, 1K or 4K: the sector layout.
  public let chip: MIFAREClassicChip
  /// The NDEF sectors, ascending: the first sector the MAD gives AID 03E1 and those following it
  /// without a gap (the MAD2 sector 16 is stepped over), as AN1304 §6.4.1 reads them.
  public let sectors: [Int]
  /// The data blocks of ``sectors`` in order: the area's 16-byte blocks, area block `i` being
  /// card block `blocks[i]`.
  public let blocks: [Int]

  /// The area `mad` names.
  /// - Throws: ``MIFAREClassicError/noNDEFSector`` when it names none that this card has.
  public init(chip: MIFAREClassicChip, mad: MIFAREApplicationDirectory) throws(MIFAREClassicError) {
    let ndef = Set(mad.sectors(holding: .ndef).filter { $0 < chip.sectorCount })
    guard let first = ndef.min() else { throw .noNDEFSector }
    var run: [Int] = []
    var sector = first
    while sector < chip.sectorCount {
      if ndef.contains(sector) {
        run.append(sector)
      } else if !(sector == 16 && mad.version == .mad2) {
        break
      }
      sector += 1
    }
    self.init(chip: chip, sectors: run)
  }

  /// The area over `sectors` (each below the chip's sector count).
  public init(chip: MIFAREClassicChip, sectors: [Int]) {
    self.chip = chip
    self.sectors = sectors
    blocks = sectors.flatMap { chip.firstBlock(of: $0) ..< chip.trailer(of: $0) }
  }

  /// Bytes in the area: 48 per 4-block sector, 240 per 16-block sector.
  public var size: Int { blocks.count * 16 }

  /// The largest NDEF message: the area less the NDEF TLV's header (4 bytes from 255 bytes on;
  /// AN1304, with the Type 2 Tag's NDEF TLV). 1K: 15 × 48 = 720 − 4 = 716; 4K: 30 × 48 + 8 × 240 =
  /// 3,360 − 4 = 3,356; Mini: 4 × 48 = 192 − 2 = 190.
  public var capacity: Int { TLVLayout.capacity(usableBytes: size) }

  /// The TLV layout of `data` (the area's bytes, ``size`` of them).
  /// - Throws: ``TagError/malformed(_:offset:)`` for TLVs that run past the area.
  public func layout(of data: [UInt8]) throws(TagError) -> TLVLayout {
    guard data.count == size else { throw .malformed("the NDEF area gave \(data.count) bytes, not \(size)", offset: nil) }
    return try TLVLayout.parse(memory: TLVMemoryImage(data), area: TLVArea(start: 0, end: size))
  }

  /// The NDEF message in `data`, empty for an empty one.
  /// - Throws: ``TagError/notFormatted(_:)`` without an NDEF TLV, ``TagError/malformed(_:offset:)``.
  public func message(in data: [UInt8]) throws(TagError) -> [UInt8] {
    try layout(of: data).readMessage(from: TLVMemoryImage(data))
  }
}
