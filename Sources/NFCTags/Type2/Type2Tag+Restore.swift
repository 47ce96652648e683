import NFCTransport

/// Writing a `dump --memory` image back: the user pages, and with the system areas the
/// configuration, password, CC and lock pages as far as the chip lets them change.
///
/// Pages 0–1 (UID) and the first two bytes of page 2 are never written (the chip fixes them). The
/// CC (page 3), the lock bytes (page 2 bytes 2–3, the dynamic lock page) are one-time
/// programmable: a write ORs bits in, so a bit the tag has and the image has not cannot go, and a
/// CC that cannot become the image's is refused. PWD and PACK read as zeros (the chip hides them),
/// so a dump holds zeros there: they are written only when the image holds something else.
/// Source: NXP NTAG213/215/216 data sheet via nfcpy `tt2.py`/`tt2_nxp.py` and Flipper.
extension Type2Tag: MemoryRestoring {
  public func planRestore(image: [UInt8], includingSystemAreas all: Bool) throws(TagError) -> MemoryRestorePlan {
    let current = try readMemory()
    try checkImageSize(image, expected: current.count, chip: chipName)
    let pageCount = current.count / 4
    let lastUser = min(product?.userPages.upperBound ?? pageCount - 1, pageCount - 1)
    guard lastUser >= 4 else { throw .unsupported("\(chipName) has no user pages to restore") }
    let units = Array(4...lastUser)
    let area = TLVArea(start: 16, end: (lastUser + 1) * 4)
    let order = TLVRestoreOrder(unitSize: 4, units: units,
                                imageLengthAddress: TLVRestoreOrder.ndefLengthAddress(in: image, area: area),
                                currentLengthAddress: TLVRestoreOrder.ndefLengthAddress(in: current, area: area,
                                                                                        onlyWithMessage: true))
    var writes = order.writes(current: current, image: image)
    let locked = Self.staticallyLockedPages(current)
    if let page = writes.first(where: { locked.contains($0.unit) })?.unit {
      throw .unsupported("page \(page) is locked by the static lock bits (\(hexString(current[10..<12], separator: " "))): "
                         + "the tag cannot take this image")
    }
    var unchanged = units.filter { current[$0 * 4 ..< $0 * 4 + 4] == image[$0 * 4 ..< $0 * 4 + 4] }.count
    var notes: [String] = []
    var scope = "\(unitRange("page", units)) (user memory)"
    if all {
      let system = try systemWrites(current: current, image: image, notes: &notes)
      writes += system.writes
      unchanged += system.unchanged
      scope += ", then \(system.scope)"
    } else {
      if current[12..<16] != image[12..<16] {
        notes.append("the CC (page 3) differs: the tag has \(hexString(current[12..<16], separator: " ")), the image "
                     + "\(hexString(image[12..<16], separator: " ")); it is one-time programmable and written only with the system areas")
      }
      if let cfg0 = product?.cfg0Page, let cfg1 = product?.cfg1Page,
         current[cfg0 * 4 ..< (cfg1 + 1) * 4] != image[cfg0 * 4 ..< (cfg1 + 1) * 4] {
        notes.append("the configuration pages (CFG0, CFG1) differ and are written only with the system areas")
      }
    }
    return MemoryRestorePlan(platform: .type2, chip: chipName, unitName: "page", unitSize: 4, scope: scope,
                             writes: writes, unchanged: unchanged, order: order.description, notes: notes)
  }

  public func restore(_ plan: MemoryRestorePlan, verify: Bool) throws(TagError) {
    _ = try beginOperation()
    var progress = TransferProgress.Counter(.writing, total: plan.byteCount)
    for write in plan.writes {
      if write.secret {
        try SecretExchange.run { () throws(TagError) in try commands.write(page: write.unit, write.bytes) }
      } else {
        try commands.write(page: write.unit, write.bytes)
      }
      progress.advance(by: write.bytes.count)
    }
    guard verify, !plan.writes.isEmpty else { return }
    try verifyRestore(plan, memory: try readMemory()) { $0 * 4 }
  }

  /// Pages 3–15 whose static lock bit is set (page 2 bytes 2–3: bit 3 of the first locks the CC,
  /// bits 4–7 pages 4–7, the second byte pages 8–15).
  static func staticallyLockedPages(_ memory: [UInt8]) -> Set<Int> {
    guard memory.count >= 12 else { return [] }
    let lock0 = memory[10], lock1 = memory[11]
    var pages: Set<Int> = []
    for page in 3...7 where lock0 & (1 << UInt8(page)) != 0 { pages.insert(page) }
    for page in 8...15 where lock1 & (1 << UInt8(page - 8)) != 0 { pages.insert(page) }
    return pages
  }

  /// The system-area writes, in order: PWD, PACK (when the image holds them), CFG0, CFG1, the CC,
  /// the dynamic lock bytes and the static lock bytes last.
  private func systemWrites(current: [UInt8], image: [UInt8], notes: inout [String])
    throws(TagError) -> (writes: [MemoryUnitWrite], unchanged: Int, scope: String) {
    func page(_ memory: [UInt8], _ p: Int) -> [UInt8] { Array(memory[p * 4 ..< p * 4 + 4]) }
    var writes: [MemoryUnitWrite] = []
    var unchanged = 0
    var names: [String] = []

    if let pwd = product?.passwordPage, let pack = product?.packPage {
      names.append("PWD, PACK")
      if page(image, pwd) == [0, 0, 0, 0] && page(image, pack) == [0, 0, 0, 0] {
        notes.append("PWD and PACK are zeros in the image (a dump cannot read them): the tag keeps its own")
      } else {
        writes.append(MemoryUnitWrite(unit: pwd, bytes: page(image, pwd), region: .system, secret: true))
        writes.append(MemoryUnitWrite(unit: pack, bytes: page(image, pack), region: .system, secret: true))
      }
    }
    if let cfg0 = product?.cfg0Page, let cfg1 = product?.cfg1Page {
      names.append("CFG0, CFG1")
      let cfgLocked = page(current, cfg1)[0] & 0x40 != 0
      for p in [cfg0, cfg1] {
        let wanted = page(image, p)
        guard wanted != page(current, p) else { unchanged += 1; continue }
        if cfgLocked {
          throw .unsupported("the configuration pages are locked (CFGLCK): page \(p) cannot become "
                             + hexString(wanted, separator: " "))
        }
        let locksConfiguration = p == cfg1 && wanted[0] & 0x40 != 0
        writes.append(MemoryUnitWrite(unit: p, bytes: wanted, region: .system, permanent: locksConfiguration))
      }
    }
    // One-time programmable pages: a write ORs its bits in.
    var otp: [(page: Int, bytes: Range<Int>, name: String)] = [(3, 0..<4, "the CC")]
    if let dynamic = product?.dynamicLockPage { otp.append((dynamic, 0..<3, "the dynamic lock bytes")) }
    otp.append((2, 2..<4, "the static lock bytes"))
    for (p, bytes, name) in otp {
      names.append("page \(p)")
      let now = page(current, p), wanted = page(image, p)
      var new = now
      for i in bytes { new[i] = now[i] | wanted[i] }
      if bytes.contains(where: { new[$0] != wanted[$0] }) {
        if p == 3 {
          throw .unsupported("the CC (page 3) is one-time programmable: it holds \(hexString(now, separator: " ")), "
                             + "which cannot become \(hexString(wanted, separator: " "))")
        }
        notes.append("\(name) (page \(p)) hold bits the image has not; they cannot be cleared")
      }
      if new == now { unchanged += 1; continue }
      writes.append(MemoryUnitWrite(unit: p, bytes: new, region: .system, permanent: true))
    }
    return (writes, unchanged, names.joined(separator: ", "))
  }
}
