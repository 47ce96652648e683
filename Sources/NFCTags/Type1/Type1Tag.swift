import NFCTransport

/// Builds the Type 1 platform for a detected target.
func makeType1Platform(for target: DetectedTarget) throws(TagError) -> any NDEFTagPlatform {
  Type1Tag(identifier: target.identifier, link: target.link)
}

/// An NFC Forum Type 1 tag (Broadcom/Innovision Topaz): 8-byte blocks, the CC in bytes 8–11 and
/// TLVs from byte 12.
///
/// Static memory (HR0 `x1`, Topaz 96: blocks 0–E) and dynamic memory (HR0 `x2`, Topaz 512: more
/// blocks from 10h, TMS in CC byte 10) are both handled. Bytes 104–119 (static) or 104–127
/// (dynamic) are never TLV bytes, nor are the bytes named by Lock and Memory Control TLVs.
///
/// Round trips: every operation starts with one RALL (HR0 HR1 and blocks 0–E, which hold the CC
/// and the first 92 data bytes); further blocks are read with READ8, or with RSEG (128 bytes) when
/// the link carries its 129-byte answer and that saves exchanges; no block is read twice in one
/// operation. Writes use WRITE-E8 per changed block on dynamic tags and WRITE-E per changed byte
/// on static ones (nfcpy `tt1.py` `Type1TagMemoryReader._write_to_tag`), in tear-safe order. A
/// block the write covers completely and that was not read is written without reading it first
/// (a read would cost the same exchange as the write it might save).
///
/// Read-only state: ``queryNDEFStatus()`` reports the CC write access (byte 11 low nibble) and
/// the static lock bits of data blocks 1–C; ``writeNDEF(_:verify:)`` also checks the dynamic lock
/// bits (Lock Control TLVs) that cover the blocks it is about to write, before the first write.
///
/// Verification: WRITE-E and WRITE-E8 answer the memory contents after the write (§6.3; nfcpy
/// `tt1.py` `write_block` compares them), so every write is checked against its own answer and
/// ``TagError/verifyFailed(address:)`` is thrown on a difference; `verify: true` adds no second read
/// of the same blocks.
///
/// Source: NFC Forum T1T as nfcpy implements it: `tt1.py`, `tt1_broadcom.py`.
/// - Warning: Not thread-safe: one operation at a time.
public final class Type1Tag: NDEFTagPlatform {
  public var platform: TagPlatform { .type1 }
  /// UID0–UID6 (or the 4-byte UID a reader reported).
  public let identifier: [UInt8]
  /// The link to the tag.
  public let link: any Transceiver
  /// `HR0 HR1` from the last RALL; empty before the first operation.
  public private(set) var headerROM: [UInt8] = []

  /// Creates the platform for a Type 1 target.
  /// - Parameters:
  ///   - identifier: the UID; its first 4 bytes (UID0–UID3) go into the first RALL, after which
  ///     the UID is taken from block 0.
  ///   - link: the link to the tag, carrying the tag's own frames (nfcpy `tt1.py`).
  public init(identifier: [UInt8], link: any Transceiver) {
    self.identifier = identifier
    self.link = link
  }

  // MARK: NDEFTagPlatform

  public func queryNDEFStatus() throws(TagError) -> NDEFStatusReport {
    try analyse(beginOperation()).checkedReport()
  }

  public func readNDEF() throws(TagError) -> [UInt8] {
    let memory = beginOperation()
    return try analyse(memory).readMessage(from: memory)
  }

  public func writeNDEF(_ message: [UInt8], verify: Bool) throws(TagError) {
    let memory = beginOperation()
    let (plan, layout) = try analyse(memory).writePlan(for: message)
    try commit(plan, layout: layout, memory: memory)
  }

  /// Formats the tag as nfcpy does: Topaz 96 bytes 8–13 `E1 10 0E 00 03 00`; Topaz 512 bytes 8–23
  /// `E1 10 3F 00 01 03 F2 30 33 02 03 F0 02 03 03 00` (CC, Lock Control TLV for 48 lock bits at
  /// 122, Memory Control TLV for 2 reserved bytes at 120, empty NDEF TLV).
  ///
  /// A tag already formatted this way with an NDEF TLV gets a tear-safe empty message; otherwise
  /// the TLV bytes are written first and the CC last, so a tear never leaves a CC in front of
  /// stale TLVs. Data bytes are left as they are. Source: nfcpy
  /// `tt1_broadcom.py` `_format`.
  /// - Throws: ``TagError/readOnly`` when the CC or the lock bits forbid writing;
  ///   ``TagError/unsupported(_:)`` for a chip whose layout is unknown (not HR `11 48` / `12 4C`).
  public func format() throws(TagError) {
    let memory = beginOperation()
    let snapshot = try analyse(memory)
    guard let factory = Self.factoryNDEF(headerROM: headerROM) else {
      throw .unsupported("\(chipName) has no known factory layout; only Topaz (HR 11 48) and Topaz 512 (HR 12 4C) "
                         + "can be formatted")
    }
    if snapshot.staticLocked || snapshot.cc[3] & 0x0F != 0 && snapshot.cc[0] == 0xE1 { throw .readOnly }
    if case .success(let layout)? = snapshot.layout, layout.ndefTLVAddress != nil,
       Array(try memory.bytes(in: 8 ..< 8 + factory.count - 2)) == Array(factory.dropLast(2)) {
      let plan = try TLVWriter.plan(message: [], layout: layout)
      try commit(plan, layout: layout, memory: memory)
      return
    }
    // TLVs (bytes 12…) first, then the CC (bytes 8–11).
    var wanted: [Int: UInt8] = [:]
    for (i, byte) in factory.enumerated() { wanted[8 + i] = byte }
    if memory.isDynamic {
      let blocks = Set(wanted.keys.map { $0 / 8 }).sorted(by: >)
      for block in blocks {
        var contents = try memory.block(block)
        for i in 0..<8 { if let v = wanted[block * 8 + i] { contents[i] = v } }
        if contents != (try memory.block(block)) { try writeBlock(block, contents, memory: memory) }
      }
    } else {
      let order = wanted.keys.filter { $0 >= 12 }.sorted() + wanted.keys.filter { $0 < 12 }.sorted()
      for address in order {
        guard let value = wanted[address], memory.cached(address) != value else { continue }
        try writeByte(value, at: address, memory: memory)
      }
    }
  }

  public func erase(overwritingOldMessage: Bool) throws(TagError) {
    let memory = beginOperation()
    let (plan, layout) = try analyse(memory).writePlan(for: [], clearingOldMessage: overwritingOldMessage)
    try commit(plan, layout: layout, memory: memory)
  }

  /// Makes the tag read-only: CC byte 11 gets write access 0Fh (WRITE-NE), then every lock bit a
  /// Lock Control TLV names is set, then the static lock bytes LOCK0/LOCK1 (112–113) become FF,
  /// last because they also lock block E. Bytes that already hold the bits are not written.
  ///
  /// DISAGREEMENT (nfcpy `tt1_broadcom.py`): nfcpy's Topaz 512 `protect()` also writes FF to bytes
  /// 120–121, which its own `format` declares reserved with a Memory Control TLV while its Lock
  /// Control TLV puts the 48 dynamic lock bits at 122–127. We follow the TLVs (NFC Forum T1T: lock
  /// bits are where the Lock Control TLV says; reserved bytes are not to be written) and leave
  /// 120–121 alone; nfcpy itself notes the extra lock writes "most likely" have no effect.
  public func makeReadOnly() throws(TagError) {
    let memory = beginOperation()
    let snapshot = try analyse(memory)
    guard let result = snapshot.layout else { throw .notFormatted(snapshot.why) }
    if snapshot.cc[3] & 0x0F != 0x0F {
      try writeByte(0x0F, at: 11, erase: false, memory: memory)
    }
    var masks: [Int: UInt8] = [:]
    // Lock bytes live in the reserved blocks (D-F) or in dynamic memory; a Lock Control TLV that
    // points at the UID, the CC or the static data area is not obeyed.
    for control in lockControls(result, memory: memory) where control.address >= 104 {
      for i in 0..<control.byteCount {
        let bits = min(8, control.lockBitCount - 8 * i)
        masks[control.address + i, default: 0] |= bits >= 8 ? 0xFF : UInt8((1 << bits) - 1)
      }
    }
    try memory.fetch(Set(masks.keys.map { $0 / 8 }))
    for address in masks.keys.sorted() where address < 128 {
      guard let mask = masks[address], let current = memory.cached(address), current | mask != current else { continue }
      try writeByte(mask, at: address, erase: false, memory: memory)
    }
    for block in Set(masks.keys.filter { $0 >= 128 }.map { $0 / 8 }).sorted() {
      var bits = [UInt8](repeating: 0, count: 8)
      for i in 0..<8 { bits[i] = masks[block * 8 + i] ?? 0 }
      let current = try memory.block(block)
      if zip(current, bits).contains(where: { $0 | $1 != $0 }) {
        memory.update(block: block, try memory.commands.writeBlock(block, bits, erase: false))
      }
    }
    for address in [112, 113] where memory.cached(address) != 0xFF {
      try writeByte(0xFF, at: address, erase: false, memory: memory)
    }
  }

  public func info() throws(TagError) -> TagInfo {
    let memory = beginOperation()
    let snapshot = try analyse(memory)
    var report = snapshot.report
    var details: [TagInfoFact] = [.bytes("Header ROM", key: "headerROM", headerROM)]
    let staticBytes = [memory.cached(112) ?? 0, memory.cached(113) ?? 0]
    let allLocked = staticBytes[0] == 0xFF && staticBytes[1] & 0x7F == 0x7F
    let extent = lockExtent(staticBytes, all: allLocked)
    let words = extent == "none" ? "none set" : (extent == "all" ? "blocks 0-E locked" : "some blocks locked")
    var locks = [TagInfoFact("Static lock bytes", key: "staticLock",
                             text: "static lock bytes \(hexString(staticBytes, separator: " ")) (\(words))",
                             value: .members(["bytes": .bytes(staticBytes), "locked": .string(extent)]))]
    if let result = snapshot.layout {
      if case .success(let layout) = result {
        let area = layout.area.start ..< layout.area.end
        details.append(TagInfoFact("Data area", key: "dataArea",
                                   text: "\(byteSpan(area)) (CC), \(layout.area.size) bytes", value: .span(area)))
      } else {
        report = NDEFStatusReport(status: report.status, capacity: 0, messageLength: nil)
      }
      details.append(.tlvs(result))
      let controls = lockControls(result, memory: memory)
      if !controls.isEmpty {
        var dynamic: [UInt8] = []
        for control in controls {
          // Fetched explicitly: block F is skippable (read as zeros) for message reads.
          if let bytes = try unlessRemoved({ () throws(TagError) in
            try memory.fetch(Set(control.range.map { $0 / 8 }))
            return try memory.bytes(in: control.range)
          }) { dynamic += bytes }
        }
        let set = lockExtent(dynamic, all: false)
        locks.append(TagInfoFact("Dynamic lock bytes", key: "dynamicLock",
                                 text: "dynamic lock bytes \(hexString(dynamic, separator: " ")) (\(set) set)",
                                 value: .members(["bytes": .bytes(dynamic), "set": .string(set)])))
      }
    } else {
      details.append(.ndefProblem(snapshot.why))
    }
    let access = snapshot.cc[3] & 0x0F
    let meaning = access == 0 ? "granted" : (access == 0x0F ? "readOnly" : "proprietary")
    locks.append(TagInfoFact("CC write access", key: "ccWriteAccess",
                             text: "CC write access \(hexString([access]).dropFirst()) "
                               + (access == 0 ? "(granted)" : (access == 0x0F ? "(read-only)" : "(proprietary)")),
                             value: accessValue(access, meaning: meaning)))
    return TagInfo(platform: .type1, chip: chipName, identifier: identifier, memorySize: snapshot.memorySize,
                   ndef: report, capabilityContainer: snapshot.cc, version: headerROM,
                   locks: locks, details: details)
  }

  /// The whole memory in address order: 120 bytes (static) or the CC's size (dynamic; 512 for a
  /// Topaz 512 without a CC). One RALL, then READ8 per further block (or RSEG per segment).
  public func readMemory() throws(TagError) -> [UInt8] {
    let memory = beginOperation()
    let snapshot = try analyse(memory)
    memory.skippable = []
    memory.reportProgress(reading: snapshot.memorySize)
    try memory.fetch(0 ..< snapshot.memorySize / 8)
    return try memory.bytes(in: 0 ..< snapshot.memorySize)
  }

  // MARK: Internals

  /// The chip name for people, from the header ROM (nfcpy `tt1_broadcom.py` `activate`).
  public var chipName: String {
    switch headerROM {
    case [0x11, 0x48]: return "Topaz (BCM20203T96)"
    case [0x12, 0x4C]: return "Topaz 512 (BCM20203T512)"
    case []: return "Type 1 tag"
    default: return "Type 1 tag (HR0 \(hexString(headerROM.prefix(1))), HR1 \(hexString(headerROM.dropFirst())))"
    }
  }

  /// nfcpy's factory NDEF bytes from byte 8 for the chips it knows.
  static func factoryNDEF(headerROM: [UInt8]) -> [UInt8]? {
    switch headerROM {
    case [0x11, 0x48]: return [0xE1, 0x10, 0x0E, 0x00, 0x03, 0x00]
    case [0x12, 0x4C]:
      return [0xE1, 0x10, 0x3F, 0x00, 0x01, 0x03, 0xF2, 0x30, 0x33, 0x02, 0x03, 0xF0, 0x02, 0x03, 0x03, 0x00]
    default: return nil
    }
  }

  func beginOperation() -> Type1Memory {
    var uid = Array(identifier.prefix(4))
    while uid.count < 4 { uid.append(0) }
    return Type1Memory(commands: Type1Commands(link: link, uid: uid))
  }

  /// What the header ROM, blocks 0–E and the TLVs say.
  private struct Snapshot: TLVAreaSnapshot {
    var cc: [UInt8]
    /// nil when the CC is not an NDEF CC (`why` says what it is).
    var layout: Result<TLVLayout, TagError>?
    var report: NDEFStatusReport
    var memorySize: Int
    /// A static lock bit covers a data block (1–C).
    var staticLocked: Bool
    var why: String
  }

  private func analyse(_ memory: Type1Memory) throws(TagError) -> Snapshot {
    try memory.loadStatic()
    headerROM = memory.headerROM
    let header = try memory.bytes(in: 0..<120)
    let cc = Array(header[8..<12])
    let lockBits = Int(header[112]) | Int(header[113]) << 8
    let staticLocked = lockBits & 0x1FFE != 0
    let hr0 = headerROM.first ?? 0
    let dynamic = hr0 & 0x0F != 1
    var memorySize = dynamic ? (headerROM == [0x12, 0x4C] ? 512 : 128) : 120
    guard hr0 >> 4 == 1 else {
      return Snapshot(cc: cc, layout: nil, report: NDEFStatusReport(status: .notSupported, capacity: 0),
                      memorySize: memorySize, staticLocked: staticLocked,
                      why: "HR0 \(hexString([hr0])) says the memory is not laid out for NDEF (proprietary Type 1 tag)")
    }
    guard cc[0] == 0xE1, cc[1] >> 4 == 1 else {
      let why = cc == [0, 0, 0, 0]
        ? "the CC (bytes 8-11) is empty"
        : "the CC (bytes 8-11) holds \(hexString(cc, separator: " ")), not E1 1x"
      return Snapshot(cc: cc, layout: nil, report: NDEFStatusReport(status: .notSupported, capacity: 0),
                      memorySize: memorySize, staticLocked: staticLocked, why: why)
    }
    // TMS: memory size = (TMS + 1) × 8 (nfcpy `tt1.py`); static memory is 120 bytes at most,
    // dynamic memory ends where ADD8 does (256 blocks).
    let ccSize = (Int(cc[2]) + 1) * 8
    if dynamic {
      // The CC's TMS is a claim: a Topaz 512 (HR0 HR1 12 4C) has 512 bytes whatever its CC says.
      let chipSize = headerROM == [0x12, 0x4C] ? 512 : 2048
      memorySize = min(max(ccSize, 128), chipSize)
      memory.limit = memorySize
      memory.skippable = [13, 15]
    } else {
      memorySize = 120
      memory.limit = 120
      memory.skippable = [13]
    }
    let areaEnd = dynamic ? memorySize : min(ccSize, 120)
    let area = TLVArea(start: 12, end: max(12, areaEnd), reserved: [104 ..< (dynamic ? 128 : 120)])
    let readOnly = cc[3] & 0x0F != 0 || staticLocked
    let status: NDEFStatus = readOnly ? .readOnly : .readWrite
    do {
      let layout = try TLVLayout.parse(memory: memory, area: area)
      let report = NDEFStatusReport(status: status, capacity: layout.capacity,
                                    messageLength: layout.ndefTLVAddress == nil ? nil : layout.ndefLength)
      return Snapshot(cc: cc, layout: .success(layout), report: report, memorySize: memorySize,
                      staticLocked: staticLocked, why: "")
    } catch {
      if error.isTagLost { throw error }
      return Snapshot(cc: cc, layout: .failure(error), report: NDEFStatusReport(status: status, capacity: 0),
                      memorySize: memorySize, staticLocked: staticLocked, why: "\(error)")
    }
  }

  /// The Lock Control TLVs of the layout; for a Topaz 512 without any, the factory one
  /// (48 bits at 122, one per 8-byte block from 128).
  private func lockControls(_ result: Result<TLVLayout, TagError>, memory: Type1Memory) -> [TLVControl] {
    if case .success(let layout) = result {
      let controls = layout.controls.filter { $0.kind == .lock }
      if !controls.isEmpty { return controls }
    }
    if headerROM == [0x12, 0x4C] {
      return [TLVControl(kind: .lock, tlvAddress: 12, position: 0xF2, size: 0x30, pageControl: 0x33)]
    }
    return []
  }

  /// True when a dynamic lock bit covers one of `blocks` (blocks from 10h; bit n of the lock
  /// bytes covers the n-th group of 2^(PageControl high nibble) bytes from byte 128, NFC Forum
  /// T1T dynamic lock bits as nfcpy `get_lock_byte_range` reads them).
  private func dynamicallyLocked(_ blocks: [Int], layout: TLVLayout, memory: Type1Memory) throws(TagError) -> Bool {
    let dynamicBlocks = blocks.filter { $0 >= 16 }
    guard !dynamicBlocks.isEmpty else { return false }
    for control in lockControls(.success(layout), memory: memory) {
      try memory.fetch(Set(control.range.map { $0 / 8 }))
      let lockBytes = try memory.bytes(in: control.range)
      for bit in 0..<control.lockBitCount {
        guard bit / 8 < lockBytes.count, lockBytes[bit / 8] & (1 << UInt8(bit % 8)) != 0 else { continue }
        let covered = (128 + bit * control.bytesLockedPerBit) ..< (128 + (bit + 1) * control.bytesLockedPerBit)
        if dynamicBlocks.contains(where: { covered.overlaps($0 * 8 ..< $0 * 8 + 8) }) { return true }
      }
    }
    return false
  }

  /// Writes `plan` in tear-safe order: blocks with WRITE-E8 (dynamic) or bytes with WRITE-E (static).
  private func commit(_ plan: TLVWritePlan, layout: TLVLayout, memory: Type1Memory) throws(TagError) {
    let blocks = plan.touchedBlocks(blockSize: 8)
    guard let low = blocks.first, let high = blocks.last else { return }
    guard low >= 1, (high + 1) * 8 <= layout.area.end else {
      throw .malformed("a write outside the data area was planned (blocks \(low)…\(high))", offset: nil)
    }
    if blocks.contains(where: { $0 >= 16 }), try dynamicallyLocked(blocks, layout: layout, memory: memory) {
      throw .readOnly
    }
    if memory.isDynamic {
      // Blocks the plan covers completely need not be read; the others must be.
      let partial = blocks.filter { b in (0..<8).contains { plan.bytes[b * 8 + $0] == nil } }
      try memory.fetch(partial)
      var current: [Int: [UInt8]] = [:]
      for block in blocks {
        if let known = memory.blocks[block] {
          current[block] = known
        } else {
          // Unknown and fully covered: a stand-in that differs from the new contents, so it is written.
          var stand = (0..<8).map { plan.bytes[block * 8 + $0] ?? 0 }
          stand[0] ^= 0xFF
          current[block] = stand
        }
      }
      let writes = try plan.orderedWrites(blockSize: 8, current: current)
      var progress = TransferProgress.Counter(.writing, total: writes.count * 8)
      for write in writes {
        try writeBlock(write.block, write.bytes, memory: memory)
        progress.advance(by: 8)
      }
    } else {
      // One byte per exchange: the first length byte goes to 00 before any other byte changes and
      // gets its real value last.
      let lengthAddress = plan.firstLengthAddress
      let changed = plan.bytes.keys.filter { memory.cached($0) != plan.bytes[$0] }.sorted()
      let others = changed.filter { $0 != lengthAddress }
      var progress = TransferProgress.Counter(.writing, total: changed.count)
      if !others.isEmpty, let current = memory.cached(lengthAddress), current != 0 {
        try writeByte(0, at: lengthAddress, memory: memory)
      }
      for address in others {
        if let value = plan.bytes[address] { try writeByte(value, at: address, memory: memory) }
        progress.advance(by: 1)
      }
      if let value = plan.bytes[lengthAddress], memory.cached(lengthAddress) != value {
        try writeByte(value, at: lengthAddress, memory: memory)
      }
      progress.advance(by: progress.total - progress.done)
    }
  }

  /// WRITE-E8 of `block`, checked against the tag's answer.
  private func writeBlock(_ block: Int, _ data: [UInt8], memory: Type1Memory) throws(TagError) {
    let after = try memory.commands.writeBlock(block, data, erase: true)
    memory.update(block: block, after)
    guard after == data else { throw .verifyFailed(address: block * 8) }
  }

  /// WRITE-E (or WRITE-NE) of one byte, checked against the tag's answer.
  private func writeByte(_ value: UInt8, at address: Int, erase: Bool = true, memory: Type1Memory) throws(TagError) {
    let after = try memory.commands.writeByte(value, at: address, erase: erase)
    memory.update(address: address, after)
    guard erase ? after == value : after & value == value else { throw .verifyFailed(address: address) }
  }
}
