import NFCTransport

/// Builds the Type 3 platform for a detected target: the IDm from `target.identifier`, and the
/// PMm and system code from `target.details` (``TargetDetails/felicaPMm``,
/// ``TargetDetails/felicaSystemCode``) when the reader driver polled for them (ACR122U:
/// InListPassiveTarget).
func makeType3Platform(for target: DetectedTarget) throws(TagError) -> any NDEFTagPlatform {
  guard target.identifier.count == 8 else {
    throw .unsupported("a FeliCa IDm has 8 bytes; the reader reported \(target.identifier.count)")
  }
  let pmm = target.details.felicaPMm.flatMap { $0.count == 8 ? $0 : nil }
  let systemCode = target.details.felicaSystemCode.flatMap { $0.count == 2 ? $0 : nil }
  return Type3Tag(identifier: target.identifier, link: target.link, pmm: pmm, systemCode: systemCode)
}

/// An NFC Forum Type 3 tag (FeliCa; FeliCa Lite and Lite-S known by name): 16-byte blocks, the
/// attribute block in block 0 of service 000Bh, the NDEF message from block 1.
///
/// Reads use Check (06h) with as many blocks per command as Nbr, the chip (FeliCa Lite/Lite-S: 4)
/// and the link's answer size allow; writes use Update (08h) with up to Nbw blocks. Every
/// operation starts with a fresh block cache, so no block is read twice in one operation.
///
/// Writes are tear-safe, as nfcpy `_write_ndef_data`: the attribute block with WriteF = 0Fh
/// first, then the data blocks whose contents change, then the attribute block with WriteF = 00h
/// and the new Ln. When no data block changes, only the last step is made (one block write is
/// atomic).
///
/// **WriteF = 0Fh (decision).** nfcpy refuses to read such a tag. Core NFC reports the tag as
/// NDEF formatted either way, so this platform does too: ``queryNDEFStatus()`` answers the
/// status from RWFlag with a message length of 0, and ``readNDEF()`` answers an empty message —
/// the data blocks may hold half of an interrupted write, which must never be reported as a
/// message. ``info()`` says "WriteF 0F (a write was interrupted)". The next write repairs it.
///
/// **Read-only (decision).** RWFlag 00h, Nbw 0, or (FeliCa Lite/Lite-S, MC known) a cleared
/// MC_SP bit for the attribute block or a message block. ``makeReadOnly()`` writes RWFlag 00h,
/// then clears the MC_SP bits of user blocks 0–13 and sets MC_ALL to 00h, as nfcpy
/// `FelicaLite._protect` does with `protect_from = 0`. nfcpy's `FelicaLiteS._protect` without a
/// password instead sets the write-with-authentication bits (MC bytes 8–11), which anyone holding
/// the card key can still satisfy; the MC_SP bits are one-way (Sony FeliCa Lite-S manual, MC
/// block; onakasuita wiki "FeliCa/ブロック/MC"), so they make the lock permanent as this protocol
/// promises.
///
/// Source: NFC Forum T3T; nfcpy `tt3.py`, `tt3_sony.py`.
/// - Warning: Not thread-safe: one operation at a time.
public final class Type3Tag: NDEFTagPlatform {
  public var platform: TagPlatform { .type3 }
  /// The IDm.
  public let identifier: [UInt8]
  public let link: any Transceiver
  /// The PMm, when the reader polled for it (byte 1 is the IC code).
  public private(set) var pmm: [UInt8]?
  /// The system code the tag answered with, when known (`12 FC` for NDEF).
  public private(set) var systemCode: [UInt8]?
  let commands: Type3Commands

  /// Memory configuration block of FeliCa Lite and Lite-S.
  public static let mcBlock = 0x88
  /// User blocks of FeliCa Lite and Lite-S: S_PAD0–S_PAD13.
  public static let liteUserBlocks = 0..<14
  /// Blocks of a FeliCa Lite-S dump, in address order: S_PAD0–13, REG, ID, D_ID, CKV, MC, WCNT.
  /// The image files of the FeliCa Lite-S emulator have the same layout.
  public static let liteSMemoryBlocks: [Int] = Array(0x00...0x0E) + [0x82, 0x83, 0x86, 0x88, 0x90]

  /// - Parameters:
  ///   - identifier: the 8-byte IDm.
  ///   - pmm: the PMm from polling; its IC code (byte 1) names FeliCa Lite (F0), Lite-S (F1) and
  ///     FeliCa Link in Lite-S mode (F2), which unlocks their memory map (nfcpy `tt3_sony.py`).
  ///   - systemCode: the system code answered to polling with request code 01, when known.
  public init(identifier: [UInt8], link: any Transceiver, pmm: [UInt8]? = nil, systemCode: [UInt8]? = nil) {
    self.identifier = identifier
    self.link = link
    self.pmm = pmm
    self.systemCode = systemCode
    self.commands = Type3Commands(link: link, idm: identifier)
  }

  // MARK: Chip

  /// The IC code (PMm byte 1), when known.
  public var icCode: UInt8? { pmm.flatMap { $0.count == 8 ? $0[1] : nil } }

  /// True for FeliCa Lite (F0), Lite-S (F1) and FeliCa Link in Lite-S mode (F2).
  public var isLiteFamily: Bool { icCode.map { (0xF0...0xF2).contains($0) } ?? false }

  /// The chip for people. Source: nfcpy `tt3_sony.py` IC_CODE_MAP.
  public var chipName: String {
    switch icCode {
    case 0xF0?: return "FeliCa Lite (RC-S965)"
    case 0xF1?: return "FeliCa Lite-S (RC-S966)"
    case 0xF2?: return "FeliCa Link (RC-S730) in Lite-S mode"
    case let code?: return "FeliCa (IC code \(hexString([code]).uppercased()))"
    case nil: return "Type 3 tag (FeliCa)"
    }
  }

  /// Blocks one Check may name: FeliCa Lite/Lite-S read at most 4 (Sony Lite-S manual; nfcpy
  /// formats them with Nbr 4), the link's answer size, and Nbr once known.
  private func checkLimit(nbr: Int?) -> Int {
    var limit = Type3Commands.maxCheckBlocks(link.capabilities)
    if isLiteFamily { limit = min(limit, 4) }
    if let nbr { limit = min(limit, max(1, nbr)) }
    return limit
  }

  // MARK: Command layer

  /// Check (06h) of `blocks` in service 000Bh, uncached; 16 bytes per block.
  public func check(blocks: [Int]) throws(TagError) -> [UInt8] { try commands.check(blocks) }

  /// Update (08h) of `blocks` in service 0009h, unchecked: this can lock the tag (MC block).
  public func update(blocks: [Int], data: [UInt8]) throws(TagError) { try commands.update(blocks, data: data) }

  /// Polling (00h) for `systemCode` with request code 01; remembers the PMm and system code.
  public func poll(systemCode: UInt16 = 0x12FC) throws(TagError) -> (idm: [UInt8], pmm: [UInt8], systemCode: [UInt8]?) {
    let answer = try commands.polling(systemCode: systemCode, requestCode: 0x01)
    pmm = answer.pmm
    if let sc = answer.systemCode { self.systemCode = sc }
    return answer
  }

  // MARK: NDEFTagPlatform

  public func queryNDEFStatus() throws(TagError) -> NDEFStatusReport {
    let memory = beginOperation()
    let state = try analyse(memory, prefetch: [])
    return state.report
  }

  public func readNDEF() throws(TagError) -> [UInt8] {
    let memory = beginOperation()
    let state = try analyse(memory, prefetch: isLiteFamily ? [1, 2, 3] : [], withMC: false)
    guard let attributes = state.attributes else { throw .notFormatted(state.why) }
    guard attributes.writeFlag == 0, attributes.length > 0 else { return [] }
    let count = (attributes.length + 15) / 16
    let blocks = Array(1...count)
    try memory.fetch(blocks)
    var out: [UInt8] = []
    out.reserveCapacity(count * 16)
    for block in blocks { out += try memory.block(block) }
    return Array(out.prefix(attributes.length))
  }

  public func writeNDEF(_ message: [UInt8], verify: Bool) throws(TagError) {
    try write(message, verify: verify, clearingOldMessage: false)
  }

  /// Writes `message`; with `clearingOldMessage`, the blocks of the old message beyond the new one
  /// are zeroed in the same WriteF-guarded pass.
  private func write(_ message: [UInt8], verify: Bool, clearingOldMessage: Bool) throws(TagError) {
    let memory = beginOperation()
    var blockCount = (message.count + 15) / 16
    if clearingOldMessage, let old = try analyse(memory, prefetch: []).attributes?.length {
      blockCount = max(blockCount, (min(old, 0xFFFF) + 15) / 16)
    }
    let dataBlocks = blockCount > 0 ? Array(1...blockCount) : []
    // The message blocks are read with the attribute block (and the MC) so unchanged ones are skipped.
    let state = try analyse(memory, prefetch: isLiteFamily ? Array(dataBlocks.prefix(14)) : [])
    guard let attributes = state.attributes else { throw .notFormatted(state.why) }
    guard state.report.status == .readWrite else { throw .readOnly }
    guard message.count <= state.report.capacity else {
      throw .insufficientCapacity(needed: message.count, capacity: state.report.capacity)
    }
    if isLiteFamily, let mc = state.mc {
      for block in dataBlocks where !Self.isWritable(block, mc: mc) { throw .readOnly }
    }
    try memory.fetch(dataBlocks)
    var writes: [(Int, [UInt8])] = []
    for (i, block) in dataBlocks.enumerated() {
      var contents = i * 16 < message.count ? Array(message[(i * 16)..<min(message.count, i * 16 + 16)]) : []
      contents += [UInt8](repeating: 0, count: 16 - contents.count)
      if try memory.block(block) != contents { writes.append((block, contents)) }
    }
    var final = attributes
    final.writeFlag = 0
    final.length = message.count
    if !writes.isEmpty {
      var busy = attributes
      busy.writeFlag = 0x0F
      try memory.write([(0, busy.encoded)])
      let perUpdate = max(1, min(attributes.nbw, Type3Commands.maxUpdateBlocks(link.capabilities), isLiteFamily ? 1 : .max))
      var group: [(Int, [UInt8])] = []
      var progress = TransferProgress.Counter(.writing, total: writes.count * 16)
      for write in writes {
        if let last = group.last, last.0 + 1 != write.0 || group.count == perUpdate {
          try memory.write(group)
          progress.advance(by: group.count * 16)
          group = []
        }
        group.append(write)
      }
      if !group.isEmpty { try memory.write(group) }
      progress.advance(by: group.count * 16)
    }
    if final.encoded != (try memory.block(0)) { try memory.write([(0, final.encoded)]) }
    if verify {
      let written = [0] + writes.map(\.0)
      let check = Type3BlockCache(commands: commands, limit: memory.limit)
      try check.fetch(written)
      for block in written where try check.block(block) != (try memory.block(block)) {
        throw .verifyFailed(address: block * 16)
      }
    }
  }

  /// Formats the tag for NDEF.
  ///
  /// FeliCa Lite/Lite-S, as nfcpy `FelicaLite._format`: the MC block's NDEF bit (byte 3 bit 0,
  /// system code 12FCh) is set when the MC is still writable; Nmaxb is the run of writable user
  /// blocks after block 0 (MC_SP bits); the attribute block becomes Ver 10h, Nbr 4, Nbw 1, Nmaxb,
  /// RWFlag 01h, Ln 0. Other Type 3 tags with a valid attribute block get an empty message.
  /// - Throws: ``TagError/readOnly`` when block 0 is read-only; ``TagError/unsupported(_:)`` when
  ///   the MC can no longer be changed to NDEF, or the chip is not a FeliCa Lite/Lite-S and has no
  ///   attribute block.
  public func format() throws(TagError) {
    guard isLiteFamily else {
      let state = try analyse(beginOperation(), prefetch: [])
      guard state.attributes != nil else {
        throw .unsupported("only FeliCa Lite and Lite-S tags can be formatted (\(chipName): \(state.why))")
      }
      return try erase()
    }
    let memory = beginOperation()
    try memory.fetch([0, Self.mcBlock])
    var mc = try memory.block(Self.mcBlock)
    guard mc[0] & 0x01 != 0 else { throw .readOnly }
    if mc[3] & 0x01 == 0 {
      guard mc[2] == 0xFF else {
        throw .unsupported("the memory configuration block is read-only and not NDEF enabled: this \(chipName) "
                           + "can no longer be made an NDEF tag")
      }
      mc[3] |= 0x01
      try memory.write([(Self.mcBlock, mc)])
    }
    systemCode = [0x12, 0xFC]
    var nmaxb = 0
    while nmaxb < 13, Self.isWritable(nmaxb + 1, mc: mc) { nmaxb += 1 }
    let attributes = Type3Attributes(nbr: 4, nbw: 1, nmaxb: nmaxb, rwFlag: 0x01)
    if try memory.block(0) != attributes.encoded { try memory.write([(0, attributes.encoded)]) }
  }

  /// Writes an empty message (Ln 0): a single attribute-block write unless a data block changes.
  public func erase(overwritingOldMessage: Bool) throws(TagError) {
    try write([], verify: true, clearingOldMessage: overwritingOldMessage)
  }

  /// Makes the tag read-only: RWFlag 00h in the attribute block, then (FeliCa Lite/Lite-S) the
  /// MC: MC_SP bits of user blocks 0–13 cleared (REG keeps its bit) and MC_ALL 00h, as nfcpy
  /// `FelicaLite._protect`. Fields the MC no longer lets change are left as they are.
  /// Blocks that already hold the values are not written.
  public func makeReadOnly() throws(TagError) {
    let memory = beginOperation()
    let state = try analyse(memory, prefetch: [])
    guard var attributes = state.attributes else { throw .notFormatted(state.why) }
    if attributes.rwFlag != 0 {
      if isLiteFamily, let mc = state.mc, !Self.isWritable(0, mc: mc) {
        // The attribute block is locked already; the MC below still applies.
      } else {
        attributes.rwFlag = 0
        try memory.write([(0, attributes.encoded)])
      }
    }
    guard isLiteFamily, let mc = state.mc else { return }
    var new = mc
    if mc[1] & 0x80 != 0 {  // MC_SP bit 15 set: MC bytes 0–1 may still change
      new[0] = 0x00           // S_PAD0–7 read-only
      new[1] = mc[1] & 0x40   // S_PAD8–13 read-only, REG keeps its bit, bit 15 (MC_SP itself) read-only
    }
    if mc[2] == 0xFF { new[2] = 0x00 }
    if new != mc { try memory.write([(Self.mcBlock, new)]) }
  }

  /// The readable memory in address order. FeliCa Lite/Lite-S: ``liteSMemoryBlocks`` (the
  /// emulator's image layout; FeliCa Lite has no WCNT block, so it ends with the MC); other tags:
  /// blocks 0…Nmaxb of service 000Bh.
  public func readMemory() throws(TagError) -> [UInt8] {
    let memory = beginOperation()
    let blocks = try memoryBlocks(memory)
    memory.reportProgress(reading: blocks)
    try memory.fetch(blocks)
    var out: [UInt8] = []
    for block in blocks { out += try memory.block(block) }
    return out
  }

  // MARK: Internals

  /// The blocks of a memory dump, in image order: ``liteSMemoryBlocks`` on FeliCa Lite-S
  /// (without WCNT on FeliCa Lite), else blocks 0…Nmaxb of service 000Bh.
  func memoryBlocks(_ memory: Type3BlockCache) throws(TagError) -> [Int] {
    if isLiteFamily {
      return icCode == 0xF0 ? Self.liteSMemoryBlocks.filter { $0 != 0x90 } : Self.liteSMemoryBlocks
    }
    let state = try analyse(memory, prefetch: [])
    return Array(0...min(state.attributes?.nmaxb ?? 0, 0xFFFF))
  }

  /// True when MC_SP (MC bytes 0–1, little-endian) lets `block` be written.
  static func isWritable(_ block: Int, mc: [UInt8]) -> Bool {
    guard mc.count == 16, (0..<15).contains(block) else { return false }
    let sp = Int(mc[0]) | Int(mc[1]) << 8
    return sp >> block & 1 == 1
  }

  func beginOperation() -> Type3BlockCache {
    Type3BlockCache(commands: commands, limit: checkLimit(nbr: nil))
  }

  /// What the attribute block and, on FeliCa Lite/Lite-S, the MC say.
  struct State {
    var block0: [UInt8]
    var attributes: Type3Attributes?
    var mc: [UInt8]?
    var report: NDEFStatusReport
    var why: String
  }

  /// Reads the attribute block (with the MC on FeliCa Lite/Lite-S when `withMC`, and `prefetch`
  /// blocks in the same Check) and works out status and capacity.
  func analyse(_ memory: Type3BlockCache, prefetch: [Int], withMC: Bool = true) throws(TagError) -> State {
    let mcWanted = isLiteFamily && withMC
    try memory.fetch([0] + (mcWanted ? [Self.mcBlock] : []), prefetching: prefetch)
    let block0 = try memory.block(0)
    let mc = mcWanted ? try memory.block(Self.mcBlock) : nil
    let notNDEF = NDEFStatusReport(status: .notSupported, capacity: 0)
    if let mc, mc[3] & 0x01 == 0 {
      return State(block0: block0, attributes: nil, mc: mc, report: notNDEF,
                   why: "the NDEF system code 12FC is off (MC_SYS_OP 00); format the tag first")
    }
    // What the tag answered to polling decides for every operation, whether the MC was read or not:
    // a Lite-S whose MC says NDEF but which answers another system code is not read as NDEF, so it
    // is not written as NDEF either.
    if let systemCode, systemCode != [0x12, 0xFC] {
      return State(block0: block0, attributes: nil, mc: mc, report: notNDEF,
                   why: "the tag answers system code \(hexString(systemCode).uppercased()), not 12FC (NDEF)")
    }
    let attributes: Type3Attributes
    do {
      attributes = try Type3Attributes(block: block0)
    } catch {
      // The reason alone: it is wrapped in "not NDEF formatted" once, where it is thrown.
      let why: String
      if case .notFormatted(let reason) = error { why = reason } else { why = error.description }
      return State(block0: block0, attributes: nil, mc: mc, report: notNDEF, why: why)
    }
    memory.limit = checkLimit(nbr: attributes.nbr)
    var blocks = attributes.nmaxb
    if isLiteFamily { blocks = min(blocks, 13) }
    let capacity = min(blocks * 16, 0xFFFFFF)
    guard attributes.length <= capacity else {
      throw .malformed("Ln is \(attributes.length) bytes but Nmaxb allows \(capacity)", offset: nil)
    }
    var readOnly = attributes.rwFlag == 0 || attributes.nbw == 0
    if let mc, !Self.isWritable(0, mc: mc) { readOnly = true }
    let report = NDEFStatusReport(status: readOnly ? .readOnly : .readWrite, capacity: capacity,
                                  messageLength: attributes.writeFlag == 0 ? attributes.length : 0)
    return State(block0: block0, attributes: attributes, mc: mc, report: report, why: "")
  }
}
