import NFCTransport

/// Writing a `dump --memory` image back onto a FeliCa tag: the user blocks (FeliCa Lite/Lite-S:
/// S_PAD0–13, the attribute block included; other tags: blocks 0…Nmaxb of service 000Bh) and, with
/// the system areas, a FeliCa Lite/Lite-S memory configuration block (MC, 88h), whose MC_SP and
/// MC_ALL bits are one-way.
///
/// REG, ID, D_ID, CKV and WCNT are never written: D_ID and WCNT are read-only, CKV and the MAC
/// protected fields need the card key, and REG is a counter area rather than memory.
/// Tear-safe like an NDEF write: the attribute block with WriteF = 0Fh first (the tag then reads
/// as empty), the changed data blocks, then the image's attribute block.
/// Source: nfcpy `tt3.py`, `tt3_sony.py`; Sony FeliCa Lite-S manual (MC).
extension Type3Tag: MemoryRestoring {
  public func planRestore(image: [UInt8], includingSystemAreas all: Bool) throws(TagError) -> MemoryRestorePlan {
    let current = try readMemory()
    try checkImageSize(image, expected: current.count, chip: chipName)
    let blocks = try memoryBlocks(beginOperation())
    func contents(_ memory: [UInt8], _ block: Int) -> [UInt8] {
      guard let i = blocks.firstIndex(of: block), (i + 1) * 16 <= memory.count else { return [] }
      return Array(memory[i * 16 ..< (i + 1) * 16])
    }
    let user = isLiteFamily ? Array(Self.liteUserBlocks) : blocks
    let mc = isLiteFamily ? contents(current, Self.mcBlock) : []
    let changedData = user.filter { $0 != 0 && contents(current, $0) != contents(image, $0) }

    var writes: [MemoryUnitWrite] = []
    var state: [Int: [UInt8]] = [:]
    for block in user { state[block] = contents(current, block) }
    func emit(_ block: Int, _ bytes: [UInt8], region: MemoryRegion = .user, permanent: Bool = false) {
      guard state[block] != bytes, bytes.count == 16 else { return }
      writes.append(MemoryUnitWrite(unit: block, bytes: bytes, region: region, permanent: permanent))
      state[block] = bytes
    }
    if !changedData.isEmpty {
      let base = (try? Type3Attributes(block: contents(image, 0))) ?? (try? Type3Attributes(block: contents(current, 0)))
      if var busy = base {
        busy.writeFlag = 0x0F
        emit(0, busy.encoded)
      }
      for block in changedData { emit(block, contents(image, block)) }
    }
    emit(0, contents(image, 0))
    if mc.count == 16, let write = writes.first(where: { !Self.isWritable($0.unit, mc: mc) }) {
      throw .unsupported("block \(write.unit) is read-only (MC_SP \(hexString(mc[0..<2]).uppercased())): "
                         + "the tag cannot take this image")
    }
    var unchanged = user.filter { contents(current, $0) == contents(image, $0) }.count
    var scope = "\(unitRange("block", user)) (user memory)"
    var notes: [String] = []
    if isLiteFamily {
      let wanted = contents(image, Self.mcBlock)
      if all {
        scope += ", then the MC (block 136)"
        if wanted == mc {
          unchanged += 1
        } else {
          try Self.checkOneWay(from: mc, to: wanted)
          writes.append(MemoryUnitWrite(unit: Self.mcBlock, bytes: wanted, region: .system, permanent: true))
        }
        notes.append("REG, ID, D_ID, CKV and WCNT are not written (counters, read-only or keyed blocks)")
      } else if wanted != mc {
        notes.append("the memory configuration block (MC) differs and is written only with the system areas")
      }
    }
    let order = Type3Attributes.isValid(contents(image, 0))
      ? "attribute block with WriteF 0F first, the data blocks, then the image's attribute block"
      : "block order (the image holds no attribute block)"
    return MemoryRestorePlan(platform: .type3, chip: chipName, unitName: "block", unitSize: 16, scope: scope,
                             writes: writes, unchanged: unchanged, order: order, notes: notes)
  }

  public func restore(_ plan: MemoryRestorePlan, verify: Bool) throws(TagError) {
    let memory = beginOperation()
    var progress = TransferProgress.Counter(.writing, total: plan.byteCount)
    for write in plan.writes {
      try memory.write([(write.unit, write.bytes)])
      progress.advance(by: write.bytes.count)
    }
    guard verify, !plan.writes.isEmpty else { return }
    let blocks = try memoryBlocks(beginOperation())
    try verifyRestore(plan, memory: try readMemory()) { block in (blocks.firstIndex(of: block) ?? -1) * 16 }
  }

  /// Refuses an MC change the chip cannot make: an MC_SP bit (bytes 0–1) set back to 1, or MC_ALL
  /// (byte 2) back to FFh once it is 00h.
  static func checkOneWay(from mc: [UInt8], to wanted: [UInt8]) throws(TagError) {
    guard mc.count == 16, wanted.count == 16 else { return }
    let back = (0..<2).contains { wanted[$0] & ~mc[$0] != 0 } || (mc[2] != 0xFF && wanted[2] != mc[2])
    if back {
      throw .unsupported("the memory configuration block holds \(hexString(mc[0..<3], separator: " ")), which "
                         + "cannot become \(hexString(wanted[0..<3], separator: " ")) (its bits are one-way)")
    }
  }
}

extension Type3Attributes {
  /// True when `block` parses as an attribute block.
  static func isValid(_ block: [UInt8]) -> Bool { (try? Type3Attributes(block: block)) != nil }
}
