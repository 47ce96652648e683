import NFCTransport

extension MIFAREClassicTag: MemoryRestoring {
  /// Plans writing a `.mfd` image (a `dump --memory` of the same chip) back: the data blocks by
  /// default, in address order; with `includingSystemAreas`, the sector trailers after them (keys,
  /// access bits, GPB; the MAD sectors' last, sector 0's the very last), a key B the dump could not
  /// read (zeros in the image) kept as the card has it when the card's is known. Block 0 (the manufacturer block, read-only: MF1S50yyX §8.6.1) is never
  /// written; a difference there is noted. A trailer whose access bits no key could change again
  /// is a permanent change (``MIFAREClassicAccessConditions/isPermanent``); one whose access bits
  /// are invalid would block its sector for ever (MF1S50yyX §8.7.1) and is refused.
  /// - Throws: ``TagError/unsupported(_:)`` for an image of another size or invalid access bits;
  ///   ``TagError/authenticationFailed(_:)`` naming the sectors no key opened.
  public func planRestore(image: [UInt8], includingSystemAreas: Bool) throws(TagError) -> MemoryRestorePlan {
    guard image.count == chip.memorySize else {
      throw .unsupported("the image has \(image.count) bytes; a \(chip.productName) dump has \(chip.memorySize)")
    }
    let current = try readMemory()
    func block(_ bytes: [UInt8], _ n: Int) -> [UInt8] { Array(bytes[n * 16 ..< n * 16 + 16]) }
    var writes: [MemoryUnitWrite] = []
    var trailers: [MemoryUnitWrite] = []
    var unchanged = 0
    var notes: [String] = []
    if block(image, 0) != block(current, 0) {
      notes.append("block 0 (the manufacturer block: UID, read-only) differs from the image and is not written")
    }
    // The NDEF area both the card and the image name goes in the tear-safe TLV order (the
    // image's NDEF length 00 first, the other blocks, the length last); the other data blocks
    // before it, in address order.
    let area = Self.sharedNDEFArea(chip: chip, current: current, image: image)
    let areaBlocks = Set(area?.blocks ?? [])
    var order = "data blocks in address order, one authentication per sector, then the trailers"
    for sector in 0..<chip.sectorCount {
      for n in chip.firstBlock(of: sector)..<chip.trailer(of: sector) where n != 0 && !areaBlocks.contains(n) {
        let wanted = block(image, n)
        if wanted == block(current, n) { unchanged += 1 } else { writes.append(MemoryUnitWrite(unit: n, bytes: wanted, region: .user)) }
      }
    }
    if let area {
      let now = area.blocks.flatMap { block(current, $0) }, wanted = area.blocks.flatMap { block(image, $0) }
      let tlvArea = TLVArea(start: 0, end: area.size)
      let tlvOrder = TLVRestoreOrder(unitSize: 16, units: Array(area.blocks.indices),
                                     imageLengthAddress: TLVRestoreOrder.ndefLengthAddress(in: wanted, area: tlvArea),
                                     currentLengthAddress: TLVRestoreOrder.ndefLengthAddress(in: now, area: tlvArea, onlyWithMessage: true))
      let areaWrites = tlvOrder.writes(current: now, image: wanted)
      unchanged += area.blocks.indices.filter { Array(now[$0 * 16 ..< $0 * 16 + 16]) == Array(wanted[$0 * 16 ..< $0 * 16 + 16]) }.count
      writes += areaWrites.map { MemoryUnitWrite(unit: area.blocks[$0.unit], bytes: $0.bytes, region: .user) }
      order = "the other data blocks in address order, then the NDEF sectors' blocks with the NDEF length 00 first "
        + "and the length last, then the trailers"
    }
    // The MAD sectors' trailers last, sector 0's the very last: its GPB is what says the card has
    // a MAD (AN10787 §3), so a restore cut short does not leave a MAD over sectors still as they were.
    let madSectors = chip == .classic4K ? [16, 0] : [0]
    for sector in (0..<chip.sectorCount).filter({ !madSectors.contains($0) }) + madSectors {
      let trailer = chip.trailer(of: sector)
      guard includingSystemAreas else { continue }
      var wanted = block(image, trailer)
      guard let conditions = MIFAREClassicAccessConditions(bytes: Array(wanted[6..<9])) else {
        throw .unsupported("the image's access bits for sector \(sector) (\(hexString(wanted[6..<9]))) are invalid: "
                           + "writing them would block the sector for ever")
      }
      var now = block(current, trailer)
      let note = try keepKeyB(sector: sector, conditions: conditions, in: &wanted, current: &now)
      if wanted == now {
        unchanged += 1
      } else {
        if let note { notes.append(note) }
        trailers.append(MemoryUnitWrite(unit: trailer, bytes: wanted, region: .system, permanent: conditions.isPermanent, secret: true))
      }
    }
    if !includingSystemAreas { notes.append("the sector trailers (keys, access bits) are left as they are; --all writes them") }
    return MemoryRestorePlan(platform: .mifareClassic, chip: chip.productName, unitName: "block", unitSize: 16,
                             scope: includingSystemAreas ? "every block but block 0, trailers last" : "the data blocks but block 0",
                             writes: writes + trailers, unchanged: unchanged,
                             order: order,
                             notes: notes)
  }

  /// A key B the image shows as zeros while its own access bits do not let key B be read was not
  /// read when the image was dumped (``readMemory()`` writes zeros there: MF1S50yyX §8.7.2, Table 7):
  /// `wanted` gets the card's key B instead when the card's is known (read, its access bits letting
  /// it be read, the key that opened the sector, or a key B that authenticates there), and
  /// `current` shows it too, so a trailer that differs only by the key B nobody could read is not
  /// written. Returns a note when the key is not known and zeros would be written: the caller
  /// shows it only for a trailer it writes.
  func keepKeyB(sector: Int, conditions: MIFAREClassicAccessConditions, in wanted: inout [UInt8],
                current: inout [UInt8]) throws(TagError) -> String? {
    guard wanted[10..<16].allSatisfy({ $0 == 0 }), !conditions.groups[3].keyBIsData else { return nil }
    let currentReadable = MIFAREClassicAccessConditions(bytes: Array(current[6..<9]))?.groups[3].keyBIsData == true
    if currentReadable || openedWith[sector]?.type == .b {
      wanted.replaceSubrange(10..<16, with: current[10..<16])
      return nil
    }
    // Nothing but key B differs: the trailer stays as it is, and no key need be found.
    guard wanted[0..<10] != current[0..<10] else {
      wanted = current
      return nil
    }
    let opened = openedWith[sector]
    if let keyB = try openWith([.b], sector: sector)?.key {
      // The sector's data was read with the key that opened it first; key B is only learnt here.
      if let opened { openedWith[sector] = opened }
      authenticated = nil
      wanted.replaceSubrange(10..<16, with: keyB)
      current.replaceSubrange(10..<16, with: keyB)
      return nil
    }
    return "sector \(sector): key B is zeros in the image (not readable when it was dumped) and is not known for the card: "
      + "written as 000000000000"
  }

  /// The NDEF area the MADs of `current` and `image` both name, nil when either has none or
  /// they differ.
  static func sharedNDEFArea(chip: MIFAREClassicChip, current: [UInt8], image: [UInt8]) -> MIFAREClassicNDEFArea? {
    func area(_ memory: [UInt8]) -> MIFAREClassicNDEFArea? {
      let sector16 = chip == .classic4K ? Array(memory[64 * 16 ..< 67 * 16]) : nil
      guard let mad = try? MIFAREApplicationDirectory.decode(generalPurposeByte: memory[57], sector0: Array(memory[16..<48]),
                                                            sector16: sector16) else { return nil }
      return try? MIFAREClassicNDEFArea(chip: chip, mad: mad)
    }
    guard let mine = area(current), let theirs = area(image), mine == theirs else { return nil }
    return mine
  }

  /// Writes the plan's blocks (trailers with the key that may write them) and, with `verify`,
  /// reads the data blocks back and the trailers' access bits and GPB.
  /// Every sector the plan writes is opened for its writes before the first one
  /// (``openForWriting(_:keyType:)``); a trailer written with new keys leaves them to open its
  /// sector for the rest of the connection (the read-back among them).
  public func restore(_ plan: MemoryRestorePlan, verify: Bool) throws(TagError) {
    forgetReads()
    var blocks: [Int: [Int]] = [:]
    for write in plan.writes { blocks[chip.sector(of: write.unit), default: []].append(write.unit) }
    try openForWriting(blocks)
    for write in plan.writes {
      try self.write(block: write.unit, write.bytes, purpose: write.region == .system ? .trailer : .data)
      guard write.region == .system, write.bytes.count == 16 else { continue }
      let sector = chip.sector(of: write.unit)
      writtenKeys[sector] = [Array(write.bytes[0..<6]), Array(write.bytes[10..<16])]
      openedWith[sector] = (.a, Array(write.bytes[0..<6]))
      writers[sector] = nil
      authenticated = nil
    }
    guard verify else { return }
    forgetReads()
    let written = try read(blocks: plan.writes.map(\.unit))
    var last: [Int: MemoryUnitWrite] = [:]
    for write in plan.writes { last[write.unit] = write }  // a block written twice ends as its last write
    for write in last.values.sorted(by: { $0.unit < $1.unit }) {
      let got = written[write.unit] ?? []
      let same = write.region == .system ? got.count == 16 && Array(got[6..<10]) == Array(write.bytes[6..<10]) : got == write.bytes
      guard same else { throw .verifyFailed(address: write.unit * 16) }
    }
  }
}
