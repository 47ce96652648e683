// The fewest round trips a reader face's commands allow for a full read and a full write of an
// NDEF message, computed from the face's documented sizes (not by running the tool's code): the
// per-face rule is `faceRule(_:_:)`, the per-family layouts are in `roundTripBound(...)`.
import NFCEmulator
import NFCTransport

/// What one face's commands carry for one tag family.
struct FaceRule {
  /// Tag bytes one read command brings back.
  var readBytes: Int
  /// Tag bytes one write command carries.
  var writeBytes: Int
  /// APDUs before the first tag frame: a Part 3 transparent session (Manage Session start and
  /// Switch Protocol), and on ISO 15693 the GET SYSTEM INFORMATION that gives the block count.
  var setup: Int = 0
  /// MIFARE Classic: LOAD KEYS is a command of its own (Part 3 readers); a key stays in the
  /// reader's volatile slot, so it is loaded once per key, not once per sector.
  var separateKeyLoad = false
  /// APDUs one tag command takes (Type 1 on the ACR122U: 3).
  var apdusPerCommand = 1
}

/// The per-face rule: what each face's commands carry per family, with the source its profile
/// (Sources/NFCEmulator/ReaderProfiles.swift) cites. Nil: the face does not read the family.
func faceRule(_ face: ReaderFaceKind, _ family: TagPlatform) -> FaceRule? {
  // ISO-DEP: a short APDU answers at most 256 bytes and carries at most 255 (ISO/IEC 7816-4
  // §5.1); the tag's CC may ask for less (MLe, MLc), which `roundTripBound` applies.
  let shortAPDU = FaceRule(readBytes: 256, writeBytes: 255)
  // MIFARE Classic: one 16-byte block per READ and per WRITE (MF1S50yyX §8.2.4; on Part 3 readers
  // READ/UPDATE BINARY of one block).
  let classic = FaceRule(readBytes: 16, writeBytes: 16, separateKeyLoad: face != .acr122u)
  switch (face, family) {
  case (_, .mifareClassic): return classic
  case (.acr122u, .type5): return nil
  // ACR122U: a PN532 frame carries 252 bytes of tag data in InCommunicateThru / InDataExchange
  // (PN532 User Manual §6.2, normal information frame), 250 of an APDU's answer once its status
  // word is counted; Type 2 writes one 4-byte page per WRITE (NTAG213/215/216 datasheet §10.4).
  case (.acr122u, .type2): return FaceRule(readBytes: 252, writeBytes: 4)
  case (.acr122u, .type4): return FaceRule(readBytes: 250, writeBytes: 247)
  // FeliCa Lite-S: Read Without Encryption of up to 4 blocks, Write Without Encryption of one
  // block (FeliCa Lite-S User's Manual, "Read Without Encryption" / "Write Without Encryption").
  // The ACR1252U's direct transmit carries them as they are (ACM1252 p.45, §5.2.6).
  case (.acr122u, .type3), (.acr1252u, .type3): return FaceRule(readBytes: 64, writeBytes: 16)
  // Topaz on the ACR122U: RALL, then READ8/WRITE-E8 of one 8-byte block in 3 APDUs each: the
  // PN532 has neither, its contactless unit is driven register by register (docs/pn532.md).
  case (.acr122u, .type1): return FaceRule(readBytes: 8, writeBytes: 8, apdusPerCommand: 3)
  // Topaz on the SCL3711: RSEG `FF 5A` gives a 128-byte segment, WRITE-E8 `FF 5E` writes one
  // 8-byte block (SCL3711M §6.4.1.6, §6.4.1.8).
  case (.scl3711, .type1): return FaceRule(readBytes: 128, writeBytes: 8)
  // FeliCa through SCM's Read `FF 46` / Write `FF 48`, which carry the card's Read / Write Without
  // Encryption (SCL3711M §6.4.3.4–5; CLOUD37 §6.2.16–6.2.17): 4 blocks / 1 block on a Lite-S.
  case (.utrust3700f, .type3), (.scl3711, .type3): return FaceRule(readBytes: 64, writeBytes: 16)
  // ACR1252U/ACR1552U: Manage Session and Switch Protocol, then FAST_READ / READ MULTIPLE BLOCKS in
  // Transparent Exchange (ACM1252 p.26, p.32): 240 tag bytes per answer, the data objects and
  // status words around them filling pcsc-lite's 258-byte short answer.
  case (.acr1252u, .type2), (.acr1552u, .type2): return FaceRule(readBytes: 240, writeBytes: 4, setup: 2)
  // ISO 15693 writes are one 4-byte block each: the SLIX2 (SL2S2602, as the virtual tag models
  // it) has no WRITE MULTIPLE BLOCKS.
  case (.acr1552u, .type5): return FaceRule(readBytes: 240, writeBytes: 4, setup: 3)
  // uTrust 3700 F: READ BINARY gives one 4-byte page "regardless of the value given in Le"
  // (CLOUD47 p.31, §6.2.1).
  case (.utrust3700f, .type2): return FaceRule(readBytes: 4, writeBytes: 4)
  // OMNIKEY 5022/5422: READ BINARY gives the tag's 16-byte READ (martinpaljak/nfc4pc NDEF.java and
  // issue 14); ISO 15693 one block per READ/UPDATE BINARY (HIDSC ExampleWithIso15693.cs).
  case (.omnikey5022, .type2), (.omnikey5422, .type2): return FaceRule(readBytes: 16, writeBytes: 4)
  case (.omnikey5022, .type5): return FaceRule(readBytes: 4, writeBytes: 4)
  // SCL3711: READ BINARY of up to 16 bytes as the face models it (SCL3711M p.30, §6.2.1).
  case (.scl3711, .type2): return FaceRule(readBytes: 16, writeBytes: 4)
  case (_, .type4): return face.profile?.families.contains(.type4) == true ? shortAPDU : nil
  default: return nil
  }
}

/// The bounds of one cell: identification as the tool does it (a fixed cost, the `ident` column),
/// then the fewest commands `faceRule` allows for the message's bytes.
struct CellBound {
  var read: Int
  var write: Int
}

/// The bound for `cell` on `face`. The layout of each family:
/// - Type 2: the CC (page 3) and the NDEF TLV from page 4 are read together; the write reads the
///   CC once and writes each 4-byte page of the TLV once.
/// - Type 1: the blocks that hold the message; on the ACR122U RALL gives bytes 0–119 (the CC
///   with them) and each further block takes a READ8, on the SCL3711 each 128-byte segment
///   (bytes 0–127 with the CC) an RSEG; the write reads the CC once and writes each block once.
/// - Type 3: the attribute block and the data blocks, 4 per Check; the write reads the attribute
///   block, writes each data block once and the attribute block once (the new length).
/// - Type 4: SELECT application, SELECT CC, READ CC, SELECT NDEF file, then NLEN and the message
///   in as few READ/UPDATE BINARY as MLe/MLc and the face allow.
/// - Type 5: the CC (block 0) and the TLV from block 1 read together; the write reads the CC and
///   writes each 4-byte block of the TLV once.
/// - MIFARE Classic (NXP AN1304): the MAD sectors (sector 0: blocks 1–2 and the trailer's GPB;
///   sector 16 on a 4K: blocks 64–66), the first NDEF sector's trailer (its GPB), then one
///   authentication per NDEF sector and its blocks that hold the TLV; on Part 3 readers each of
///   the two keys (MAD, NDEF) loaded once.
func roundTripBound(face: ReaderFaceKind, kind: VirtualTagKind, cell: FaceCell) -> CellBound? {
  guard let rule = faceRule(face, cell.family) else { return nil }
  func chunks(_ bytes: Int, _ size: Int) -> Int { size > 0 ? (max(0, bytes) + size - 1) / size : 0 }
  let ident = cell.identification + rule.setup
  let tlv = cell.bytes + (cell.bytes < 255 ? 2 : 4)
  switch cell.family {
  case .type2:
    return CellBound(read: ident + chunks(4 + tlv, rule.readBytes), write: ident + 1 + chunks(tlv, rule.writeBytes))
  case .type5:
    return CellBound(read: ident + chunks(4 + tlv, rule.readBytes), write: ident + 1 + chunks(tlv, rule.writeBytes))
  case .type3:
    let blocks = chunks(cell.bytes, 16)
    return CellBound(read: ident + chunks(1 + blocks, rule.readBytes / 16), write: ident + 1 + blocks + 1)
  case .type4:
    // The CC file's MLe and MLc (NFC Forum Type 4 Tag CC: CCLEN, version, MLe, MLc).
    guard cell.image.count >= 7 else { return nil }
    let mle = Int(cell.image[3]) << 8 | Int(cell.image[4]), mlc = Int(cell.image[5]) << 8 | Int(cell.image[6])
    let file = 2 + cell.bytes
    return CellBound(read: ident + 4 + chunks(file, min(mle, rule.readBytes)),
                     write: ident + 4 + chunks(file, min(mlc, rule.writeBytes)))
  case .type1:
    let blocks = type1MessageBlocks(cell), per = rule.apdusPerCommand
    let read = rule.readBytes >= 128 ? Set(blocks.map { $0 / 16 } + [0]).count : 1 + per * blocks.filter { $0 >= 15 }.count
    return CellBound(read: ident + read, write: ident + 1 + per * blocks.count)
  case .mifareClassic:
    return classicBound(cell: cell, ident: ident, loads: rule.separateKeyLoad ? 2 : 0, fourK: kind == .mifareClassic4KNDEF)
  }
}

/// The 8-byte blocks of a Type 1 tag that hold the message's TLV: from the TLV's first byte (the
/// record's header and the TLV's before the filler 61h) to the last filler byte, skipping the
/// reserved and lock blocks between them (those hold no 61h).
func type1MessageBlocks(_ cell: FaceCell) -> Set<Int> {
  guard let first = cell.image.firstIndex(of: 0x61), let last = cell.image.lastIndex(of: 0x61),
        first >= cell.headerBytes else { return [] }
  let start = first - cell.headerBytes
  return Set((start...last).filter { $0 < first || cell.image[$0] == 0x61 }.map { $0 / 8 })
}

/// MIFARE Classic bounds (see ``roundTripBound(face:kind:cell:)``).
func classicBound(cell: FaceCell, ident: Int, loads: Int, fourK: Bool) -> CellBound {
  // Data blocks per NDEF sector in order: 1K sectors 1–15 (3 each); 4K also 17–31 (3 each) and
  // 32–39 (15 each) (MF1S70yyX §8.6).
  let sectors = fourK ? Array(repeating: 3, count: 30) + Array(repeating: 15, count: 8) : Array(repeating: 3, count: 15)
  var blocks = (cell.bytes + (cell.bytes < 255 ? 2 : 4) + 15) / 16
  var perSector = 0
  for size in sectors where blocks > 0 {
    perSector += 1 + min(size, blocks)
    blocks -= min(size, blocks)
  }
  let mad = fourK ? 8 : 4
  let fixed = ident + loads + mad + 1
  return CellBound(read: fixed + perSector, write: fixed + perSector)
}
