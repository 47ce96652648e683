import NFCTransport

/// Writing a `dump --memory` image back onto an ISO 15693 tag: the user blocks from block 0 (the
/// CC is ordinary memory on Type 5 tags), with WRITE SINGLE BLOCK in tear-safe order.
///
/// Blocks beyond user memory (an ICODE SLIX2's counter block 79) are not written. A dump holds no
/// block lock states, AFI or DSFID, so the system areas add nothing here.
extension Type5Tag: MemoryRestoring {
  public func planRestore(image: [UInt8], includingSystemAreas all: Bool) throws(TagError) -> MemoryRestorePlan {
    let current = try readMemory()
    try checkImageSize(image, expected: current.count, chip: chip?.name ?? "ISO 15693 tag")
    let size = blockSize
    let blocks = current.count / size
    let userCount = min(userBlocks ?? blocks, blocks)
    guard userCount > 0 else { throw .unsupported("this tag has no user blocks to restore") }
    let units = Array(0 ..< userCount)
    let userEnd = userCount * size
    func area(_ memory: [UInt8]) -> TLVArea? {
      guard memory.count >= 8, memory[0] == 0xE1 || memory[0] == 0xE2 else { return nil }
      return TLVArea(start: memory[2] == 0 ? 8 : 4, end: userEnd)
    }
    let order = TLVRestoreOrder(
      unitSize: size, units: units,
      imageLengthAddress: area(image).flatMap { TLVRestoreOrder.ndefLengthAddress(in: image, area: $0) },
      currentLengthAddress: area(current).flatMap { TLVRestoreOrder.ndefLengthAddress(in: current, area: $0, onlyWithMessage: true) })
    let writes = order.writes(current: current, image: image)
    let unchanged = units.filter { current[$0 * size ..< ($0 + 1) * size] == image[$0 * size ..< ($0 + 1) * size] }.count
    var notes: [String] = []
    if all {
      notes.append("a dump holds no block lock states, AFI or DSFID: the system areas add nothing on a Type 5 tag")
      if userCount < blocks { notes.append("not written: \(unitRange("block", Array(userCount ..< blocks))) (not user memory)") }
    }
    return MemoryRestorePlan(platform: .type5, chip: chip?.name ?? "ISO 15693 tag", unitName: "block", unitSize: size,
                             scope: "\(unitRange("block", units)) (user memory, CC included)", writes: writes,
                             unchanged: unchanged, order: order.description, notes: notes)
  }

  public func restore(_ plan: MemoryRestorePlan, verify: Bool) throws(TagError) {
    let memory = try beginOperation()
    var progress = TransferProgress.Counter(.writing, total: plan.byteCount)
    for write in plan.writes {
      try memory.write(block: write.unit, write.bytes)
      progress.advance(by: write.bytes.count)
    }
    guard verify, !plan.writes.isEmpty else { return }
    try verifyRestore(plan, memory: try readMemory()) { $0 * plan.unitSize }
  }
}
