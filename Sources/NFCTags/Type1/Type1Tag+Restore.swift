import NFCTransport

/// Writing a `dump --memory` image back onto a Topaz: data blocks 1–C (the CC and the static data
/// area) and, on a Topaz 512, the dynamic blocks from 10h; with the system areas, the lock and OTP
/// bytes too (block E; on a Topaz 512 the dynamic lock bytes 122–127).
///
/// Block 0 (UID) and block D are read-only on the chip and never written; bytes 120–121 of a Topaz
/// 512 are reserved (its factory Memory Control TLV). Lock and OTP bytes are one-time
/// programmable: they are written with WRITE-NE (bits ORed in), the static lock bytes last.
/// Static tags are written a byte at a time (WRITE-E), dynamic ones a block at a time (WRITE-E8).
/// Source: nfcpy `tt1.py`, `tt1_broadcom.py`; libnfc `jewel.h`.
extension Type1Tag: MemoryRestoring {
  public func planRestore(image: [UInt8], includingSystemAreas all: Bool) throws(TagError) -> MemoryRestorePlan {
    let current = try readMemory()
    try checkImageSize(image, expected: current.count, chip: chipName)
    let dynamic = current.count > 120
    let unitSize = dynamic ? 8 : 1
    let units: [Int] = dynamic ? Array(1...0x0C) + Array(0x10 ..< current.count / 8) : Array(8 ..< 104)
    let area = TLVArea(start: 12, end: current.count, reserved: [104 ..< (dynamic ? 128 : 120)])
    let order = TLVRestoreOrder(unitSize: unitSize, units: units,
                                imageLengthAddress: TLVRestoreOrder.ndefLengthAddress(in: image, area: area),
                                currentLengthAddress: TLVRestoreOrder.ndefLengthAddress(in: current, area: area,
                                                                                        onlyWithMessage: true))
    var writes = order.writes(current: current, image: image)
    let locked = lockedBlocks(current)
    if let write = writes.first(where: { locked.contains(dynamic ? $0.unit : $0.unit / 8) }) {
      throw .unsupported("block \(dynamic ? write.unit : write.unit / 8) is locked: the tag cannot take this image")
    }
    func equal(_ unit: Int) -> Bool {
      current[unit * unitSize ..< (unit + 1) * unitSize] == image[unit * unitSize ..< (unit + 1) * unitSize]
    }
    var unchanged = units.filter(equal).count
    var scope = dynamic ? "blocks 1–12 and \(unitRange("block", Array(0x10 ..< current.count / 8))) (user memory)"
                        : "bytes 8–103 (user memory, blocks 1–12)"
    var notes: [String] = []
    if all {
      // OTP bytes, then the dynamic lock bytes, then the static lock bytes (112–113) last: as bytes
      // on a static tag, as blocks F and E on a dynamic one (bytes 120–121 kept as they are).
      let groups: [(unit: Int, bytes: [Int])] = dynamic
        ? [(0x0F, Array(122 ..< 128)), (0x0E, Array(112 ..< 120))]
        : (114 ..< 120).map { ($0, [$0]) } + [(112, [112]), (113, [113])]
      for (unit, addresses) in groups {
        var new = Array(current[unit * unitSize ..< (unit + 1) * unitSize])
        for address in addresses {
          let i = address - unit * unitSize
          new[i] = current[address] | image[address]
          if new[i] != image[address] {
            notes.append("byte \(address) holds bits the image has not; lock and OTP bits cannot be cleared")
          }
        }
        if new == Array(current[unit * unitSize ..< (unit + 1) * unitSize]) { unchanged += 1; continue }
        writes.append(MemoryUnitWrite(unit: unit, bytes: new, region: .system, permanent: true))
      }
      scope += dynamic ? ", then blocks 15 and 14 (lock and OTP bytes)" : ", then bytes 112–119 (lock and OTP bytes)"
    }
    return MemoryRestorePlan(platform: .type1, chip: chipName, unitName: dynamic ? "block" : "byte", unitSize: unitSize,
                             scope: scope, writes: writes, unchanged: unchanged, order: order.description, notes: notes)
  }

  public func restore(_ plan: MemoryRestorePlan, verify: Bool) throws(TagError) {
    let memory = beginOperation()
    try memory.loadStatic()
    var progress = TransferProgress.Counter(.writing, total: plan.byteCount)
    for write in plan.writes {
      // WRITE-E(8) erases first; lock and OTP bytes take WRITE-NE(8), which ORs the bits in.
      let erase = write.region == .user
      let after: [UInt8]
      if plan.unitSize == 8 {
        after = try memory.commands.writeBlock(write.unit, write.bytes, erase: erase)
      } else {
        guard let value = write.bytes.first else { continue }
        after = [try memory.commands.writeByte(value, at: write.unit, erase: erase)]
      }
      guard after == write.bytes else { throw .verifyFailed(address: write.unit * plan.unitSize) }
      progress.advance(by: write.bytes.count)
    }
    guard verify, !plan.writes.isEmpty else { return }
    try verifyRestore(plan, memory: try readMemory()) { $0 * plan.unitSize }
  }

  /// Blocks whose lock bit is set: static lock bits (bytes 112–113, bit n for block n, 0–E) and,
  /// on a Topaz 512 with its factory layout, the dynamic lock bits (bytes 122–127, bit n for block
  /// 10h + n).
  private func lockedBlocks(_ memory: [UInt8]) -> Set<Int> {
    guard memory.count >= 120 else { return [] }
    var blocks: Set<Int> = []
    let bits = Int(memory[112]) | Int(memory[113]) << 8
    for block in 0 ..< 15 where bits >> block & 1 != 0 { blocks.insert(block) }
    if headerROM == [0x12, 0x4C], memory.count >= 128 {
      for bit in 0 ..< 48 where memory[122 + bit / 8] >> UInt8(bit % 8) & 1 != 0 { blocks.insert(0x10 + bit) }
    }
    return blocks
  }
}
