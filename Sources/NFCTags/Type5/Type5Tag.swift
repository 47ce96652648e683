import NFCTransport

/// Builds the Type 5 platform for a detected target.
func makeType5Platform(for target: DetectedTarget) throws(TagError) -> any NDEFTagPlatform {
  Type5Tag(identifier: target.identifier, link: target.link)
}

/// An NFC Forum Type 5 tag (ISO/IEC 15693: ICODE SLIX/SLIX2, ST25DV, Tag-it): a 4- or 8-byte
/// Capability Container in the first bytes of block memory and TLVs after it.
///
/// **Commands** are sent non-addressed with high data rate (flags `02`), the usual mode with one
/// tag in a reader's field (CoreNFC's default, ACR1552 trace): the UID byte order a reader reports
/// does not then matter. With a link that passes raw commands, GET SYSTEM INFORMATION (2Bh) is asked
/// once per tag for the block size and count, DSFID, AFI and IC reference; memory is read with
/// READ MULTIPLE BLOCKS (23h) in chunks as long as the link allows (60 blocks through an ACS
/// transparent exchange) when the CC's feature byte says it is supported (bit 01) or the chip is a
/// known NXP ICODE; else with READ SINGLE BLOCK (20h), the only read a mapped Part 3 reader has.
/// Writes use WRITE SINGLE BLOCK (21h) in tear-safe order (``TLVWritePlan/orderedWrites(blockSize:current:)``),
/// skip unchanged blocks when READ MULTIPLE BLOCKS reads them cheaper than writing them, and read
/// back. Block numbers above FFh (extended commands) are not supported.
///
/// **CC** (neard `nfctype5.c`, ST RFAL): magic E1 or E2; version major 1 (bits 7–6 = 01); read access
/// (bits 3–2) must be 00; write access (bits 1–0) 00 means writable, anything else read-only;
/// byte 2 is MLEN, or 00 for the 8-byte form whose bytes 6–7 hold a 16-bit MLEN.
/// **MLEN DISAGREEMENT:** the NFC Forum convention (TS T5T 4.3.1.17 via ST RFAL `ndef_t5t.c`)
/// makes the data area MLEN × 8 bytes *after* the CC; neard and Android count MLEN × 8 from byte 0,
/// CC included. Both are accepted when reading: when the tag's user memory is known, the area is
/// `CC length + MLEN × 8` if that fits, else `MLEN × 8` (what RFAL does when MLEN × 8 equals the
/// memory size); when it is not known, the smaller `MLEN × 8` is used, so nothing is ever written
/// past the memory. ``format()`` writes the NFC Forum convention: MLEN = (user memory − CC) / 8,
/// which for an ICODE SLIX2 (316 user bytes) is `E1 40 27 01`, the factory value of the emulator.
///
/// **Read-only** (``makeReadOnly()``): as ST RFAL `ndefT5TPollerSetReadOnly` does, the CC write
/// access becomes 11b (never) first, then LOCK BLOCK (22h) locks every block of the CC and the data
/// area from block 0 up. RFAL locks only when the CC's Lock Block bit (08) is set; we also lock
/// known NXP ICODE chips, which support LOCK BLOCK. Through a mapped Part 3 reader, which cannot
/// send LOCK BLOCK, only the CC changes (the tag is then read-only by convention, not physically),
/// and ``info()`` says so.
///
/// Source: ISO/IEC 15693-3; ST RFAL `ndef_t5t.c`; neard `plugins/nfctype5.c`; nfcpy (TLVs).
/// - Warning: Not thread-safe: one operation at a time.
public final class Type5Tag: NDEFTagPlatform, TLVPlatform {
  public var platform: TagPlatform { .type5 }
  /// The UID, most significant byte first (`E0` first, ISO/IEC 15693-3 §4.1), as detection gives
  /// it; one given least significant byte first (`E0` last, as PC/SC readers report it) is taken too.
  public let identifier: [UInt8]
  /// The UID most significant byte first, whichever order ``identifier`` is in.
  var uidMSBFirst: [UInt8] { identifier.last == 0xE0 && identifier.first != 0xE0 ? identifier.reversed() : identifier }
  public let link: any Transceiver
  /// The GET SYSTEM INFORMATION answer, when the link passes it and the tag answered.
  public private(set) var systemInfo: Type5SystemInfo?
  /// The chip, recognised from the UID.
  public let chip: Type5Chip?
  private var identified = false

  /// Every request: high data rate (flags 02h), not addressed.
  static let requests = ISO15693Requests(flags: 0x02)

  public init(identifier: [UInt8], link: any Transceiver) {
    self.identifier = identifier
    self.link = link
    self.chip = Type5Chip(uid: identifier) ?? Type5Chip(uid: identifier.reversed())
  }

  /// Bytes per block: from GET SYSTEM INFORMATION, else 4.
  public var blockSize: Int { systemInfo?.blockSize ?? 4 }
  /// Blocks in the whole memory, when known.
  public var totalBlocks: Int? { systemInfo?.blockCount ?? chip?.totalBlocks }
  /// Blocks of user memory, when known (ICODE SLIX2: 79 of 80; the last holds a counter).
  public var userBlocks: Int? {
    if let user = chip?.userBlocks, let total = totalBlocks { return min(user, total) }
    return chip?.userBlocks ?? totalBlocks
  }

  /// Sends GET SYSTEM INFORMATION once, when the link passes raw commands.
  private func identify() throws(TagError) {
    guard !identified else { return }
    guard link.capabilities.rawCommands else {
      identified = true
      return
    }
    do {
      let answer = try exchange(Self.requests.getSystemInformation(), name: "GET SYSTEM INFORMATION", block: nil)
      systemInfo = try Type5SystemInfo(parsing: answer)
      if let size = systemInfo?.blockSize, size < 1 || size > 32 { systemInfo?.blockSize = nil }
      identified = true
    } catch {
      if error.isTagLost { throw error }
      identified = true  // not supported or odd: keep the defaults
    }
  }

  func beginOperation() throws(TagError) -> Type5BlockCache {
    try identify()
    let raw = link.capabilities.rawCommands
    let chunk = max(1, link.capabilities.maxResponseLength / blockSize)
    let cache = Type5BlockCache(tag: self, blockLimit: totalBlocks, chunkBlocks: chunk)
    cache.useMultiple = raw && (chip?.knownCommandSet ?? false)
    cache.readAheadLimit = cache.useMultiple ? (userBlocks ?? 1) - 1 : 0
    return cache
  }

  // MARK: NDEFTagPlatform

  // Type 5 reads and writes through the same cache.
  func beginReadOperation() throws(TagError) -> Type5BlockCache { try beginOperation() }
  func beginWriteOperation() throws(TagError) -> Type5BlockCache { try beginOperation() }

  // Public witnesses of NDEFTagPlatform; the steps are TLVPlatform's.
  public func queryNDEFStatus() throws(TagError) -> NDEFStatusReport { try tlvNDEFStatus() }
  public func readNDEF() throws(TagError) -> [UInt8] { try tlvReadNDEF() }
  public func writeNDEF(_ message: [UInt8], verify: Bool) throws(TagError) { try tlvWriteNDEF(message, verify: verify) }

  /// Formats the tag: a CC in the NFC Forum MLEN convention and an empty NDEF TLV.
  ///
  /// A tag with a valid, writable CC and readable TLVs gets an empty message (tear-safe). Any other
  /// tag gets `03 00 FE` after the CC first and the CC last: `E1 40 MLEN features` with
  /// MLEN = (user memory − 4) / 8, or for areas over 2040 bytes the 8-byte form `E2 40 00 features
  /// 00 00 MLEN(2)`, E2 when the memory has more than 256 blocks. Features: 01 (READ MULTIPLE
  /// BLOCKS) for known NXP ICODE chips, else 00. The CC is ordinary memory on Type 5 tags, so it
  /// may be rewritten.
  /// - Throws: ``TagError/unsupported(_:)`` when the memory size is unknown (no GET SYSTEM
  ///   INFORMATION through this reader and a chip not known from its UID);
  ///   ``TagError/readOnly`` when the CC says read-only.
  public func format() throws(TagError) {
    let memory = try beginOperation()
    guard let userBlocks else {
      throw .unsupported("the memory size of this ISO 15693 tag is unknown: the reader does not pass GET SYSTEM "
                         + "INFORMATION and the chip is not recognised from its UID")
    }
    let snapshot = try analyse(memory)
    if snapshot.layout != nil {
      guard snapshot.report.status == .readWrite else { throw .readOnly }
      if case .success(let layout)? = snapshot.layout, layout.ndefTLVAddress != nil {
        let plan = try TLVWriter.plan(message: [], layout: layout)
        try commit(plan, area: layout.area, memory: memory, verify: true)
        return
      }
    }
    let userBytes = userBlocks * blockSize
    guard userBytes >= 16 else {
      throw .insufficientCapacity(needed: 3, capacity: max(0, userBytes - 4))
    }
    let features: UInt8 = (chip?.knownCommandSet ?? false) ? 0x01 : 0x00
    var cc: [UInt8]
    if userBytes - 4 <= 255 * 8 && (totalBlocks ?? userBlocks) <= 256 {
      cc = [0xE1, 0x40, UInt8((userBytes - 4) / 8), features]
    } else {
      let mlen = min(0xFFFF, (userBytes - 8) / 8)
      cc = [(totalBlocks ?? userBlocks) > 256 ? 0xE2 : 0xE1, 0x40, 0x00, features, 0x00, 0x00,
            UInt8(mlen >> 8), UInt8(mlen & 0xFF)]
    }
    guard cc[2] != 0 || cc.count == 8, userBytes >= cc.count + 3 else {
      throw .insufficientCapacity(needed: 3, capacity: max(0, userBytes - cc.count))
    }
    let image = cc + [0x03, 0x00, 0xFE]
    let blocks = (image.count + blockSize - 1) / blockSize
    let old = try memory.bytes(in: 0 ..< blocks * blockSize)
    var new = old
    for (i, byte) in image.enumerated() { new[i] = byte }
    let ccBlocks = (cc.count + blockSize - 1) / blockSize
    // TLV blocks first (those beyond the CC), then the CC blocks, highest first.
    for block in (ccBlocks ..< blocks).reversed() + (0 ..< ccBlocks).reversed() {
      let slice = Array(new[(block * blockSize) ..< ((block + 1) * blockSize)])
      if slice != Array(old[(block * blockSize) ..< ((block + 1) * blockSize)]) { try memory.write(block: block, slice) }
    }
  }

  public func erase(overwritingOldMessage: Bool) throws(TagError) {
    try tlvErase(overwritingOldMessage: overwritingOldMessage)
  }

  public func makeReadOnly() throws(TagError) {
    let memory = try beginOperation()
    let snapshot = try analyse(memory)
    guard snapshot.layout != nil else { throw .notFormatted(snapshot.why) }
    let head = Array(snapshot.cc.prefix(4))
    let ccNew = [head[0], head[1] | 0x03, head[2], head[3]]
    if blockSize == 4 {
      if ccNew != head { try memory.write(block: 0, ccNew) }
    } else {
      var first = try memory.bytes(in: 0 ..< blockSize)
      first[1] |= 0x03
      if first != (try memory.bytes(in: 0 ..< blockSize)) { try memory.write(block: 0, first) }
    }
    guard link.capabilities.rawCommands,
          snapshot.cc[3] & 0x08 != 0 || (chip?.knownCommandSet ?? false) else { return }
    let lastBlock = (snapshot.areaEnd - 1) / blockSize
    var progress = TransferProgress.Counter(.writing, total: (lastBlock + 1) * blockSize)
    for block in 0 ... lastBlock {
      try lockBlock(block)
      progress.advance(by: blockSize)
    }
  }

  /// The whole block memory, block 0 first: every block GET SYSTEM INFORMATION (or the chip table)
  /// reports, else the blocks the CC's data area covers.
  public func readMemory() throws(TagError) -> [UInt8] {
    let memory = try beginOperation()
    let blocks: Int
    if let totalBlocks {
      blocks = totalBlocks
    } else {
      let snapshot = try analyse(memory)
      blocks = max(1, (max(snapshot.areaEnd, 4) + blockSize - 1) / blockSize)
    }
    memory.readAheadLimit = memory.useMultiple ? blocks - 1 : 0
    memory.reportProgress(reading: blocks)
    return try memory.bytes(in: 0 ..< blocks * blockSize)
  }

  // MARK: Writing

  /// Writes `plan` block by block in tear-safe order, skipping unchanged blocks, then verifies.
  ///
  /// The blocks the plan fills are read first (to skip those that do not change) only with READ
  /// MULTIPLE BLOCKS, which brings several per round trip; with one block per READ SINGLE BLOCK
  /// (a reader's READ BINARY: the OMNIKEY 5022) reading a block costs what writing it costs, so
  /// only the blocks the plan does not fill are read, and the blocks already read are compared.
  func commit(_ plan: TLVWritePlan, area: TLVArea, memory: Type5BlockCache, verify: Bool) throws(TagError) {
    let blocks = plan.touchedBlocks(blockSize: blockSize)
    guard let low = blocks.first, let high = blocks.last else { return }
    guard low * blockSize >= area.start - area.start % blockSize, high * blockSize < area.end else {
      throw .malformed("a write outside the data area was planned (blocks \(low)…\(high))", offset: nil)
    }
    let comparing = memory.useMultiple && memory.chunkBlocks > 1
    if comparing { _ = try memory.bytes(in: low * blockSize ..< (high + 1) * blockSize) }
    var current: [Int: [UInt8]] = [:]
    for block in plan.blocksToRead(blockSize: blockSize, comparing: comparing) { current[block] = try memory.block(block) }
    for block in blocks where current[block] == nil { current[block] = memory.cachedBlock(block) }
    let writes = try plan.orderedWrites(blockSize: blockSize, current: current)
    var progress = TransferProgress.Counter(.writing, total: writes.count * blockSize)
    for write in writes {
      try memory.write(block: write.block, write.bytes)
      progress.advance(by: blockSize)
    }
    if verify { try memory.verify(blocks: writes.map(\.block)) }
  }
}
