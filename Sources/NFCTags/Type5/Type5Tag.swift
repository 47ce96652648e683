import NFCTransport

/// Builds the Type 5 platform for a detected target.
func makeType5Platform(for target: DetectedTarget) throws(TagError) -> any NDEFTagPlatform {
  Type5Tag(identifier: target.identifier, link: target.link)
}

/// What GET SYSTEM INFORMATION (2Bh) answered. Source: ISO/IEC 15693-3 §10.4.12; neard
/// `plugins/nfctype5.c`; the ACR1552 trace in NXP community thread 2093136.
public struct Type5SystemInfo: Hashable, Sendable {
  /// The info flags: 01 DSFID, 02 AFI, 04 memory size, 08 IC reference.
  public var infoFlags: UInt8
  /// The UID as the tag sent it (least significant byte first).
  public var uid: [UInt8]
  public var dsfid: UInt8?
  public var afi: UInt8?
  public var blockCount: Int?
  public var blockSize: Int?
  public var icReference: UInt8?
  /// The whole answer after the response flags.
  public var raw: [UInt8]

  /// Parses the answer after the response flags byte.
  /// - Throws: ``TagError/malformed(_:offset:)`` when a field the flags announce is missing.
  public init(parsing answer: [UInt8]) throws(TagError) {
    var cursor = answer[...]
    func take(_ n: Int) throws(TagError) -> ArraySlice<UInt8> {
      guard cursor.count >= n else {
        throw .malformed("the GET SYSTEM INFORMATION answer (\(answer.count) bytes) is truncated", offset: nil)
      }
      defer { cursor = cursor.dropFirst(n) }
      return cursor.prefix(n)
    }
    raw = answer
    infoFlags = try take(1).first ?? 0
    uid = Array(try take(8))
    if infoFlags & 0x01 != 0 { dsfid = try take(1).first }
    if infoFlags & 0x02 != 0 { afi = try take(1).first }
    if infoFlags & 0x04 != 0 {
      let size = Array(try take(2))
      blockCount = Int(size[0]) + 1
      blockSize = Int(size[1] & 0x1F) + 1
    }
    if infoFlags & 0x08 != 0 { icReference = try take(1).first }
  }
}

/// A Type 5 chip recognised from its UID (MSB first: `E0`, manufacturer, then the chip's own
/// bytes). Sources: Flipper `slix.c` `slix_get_type` (ICODE type byte 01 with type indicator
/// 01 = SLIX2, 02 = SLIX; 02 SLIX-S; 03 SLIX-L), SL2S2602 §9.2 (80 blocks, block 79 the counter),
/// NXP community thread 2093136 (ICODE SLI/SLIX 28 blocks), Flipper SLIX-L files (8 blocks).
public struct Type5Chip: Hashable, Sendable {
  public var name: String
  /// Blocks GET SYSTEM INFORMATION reports; nil when not known.
  public var totalBlocks: Int?
  /// Blocks that hold user data (NDEF may use them); nil when not known.
  public var userBlocks: Int?
  /// True when the chip is known to answer READ MULTIPLE BLOCKS (23h) and LOCK BLOCK (22h).
  public var knownCommandSet: Bool

  /// The chip for a UID given least significant byte first; nil when it is not recognised.
  public init?(uid: [UInt8]) {
    guard uid.count == 8, uid[7] == 0xE0 else { return nil }
    let manufacturer = uid[6], type = uid[5], indicator = (uid[4] >> 3) & 0x03
    switch (manufacturer, type) {
    case (0x04, 0x01) where indicator == 0x01:
      self.init(name: "ICODE SLIX2 (SL2S2602)", totalBlocks: 80, userBlocks: 79, knownCommandSet: true)
    case (0x04, 0x01) where indicator == 0x02:
      self.init(name: "ICODE SLIX (SL2S2002)", totalBlocks: 28, userBlocks: 28, knownCommandSet: true)
    case (0x04, 0x01):
      self.init(name: "ICODE SLI", totalBlocks: 28, userBlocks: 28, knownCommandSet: true)
    case (0x04, 0x02):
      self.init(name: "ICODE SLIX-S", totalBlocks: nil, userBlocks: nil, knownCommandSet: true)
    case (0x04, 0x03):
      self.init(name: "ICODE SLIX-L", totalBlocks: 8, userBlocks: 8, knownCommandSet: true)
    case (0x04, _):
      self.init(name: "NXP ISO 15693 tag", totalBlocks: nil, userBlocks: nil, knownCommandSet: false)
    case (0x02, _):
      self.init(name: "ST ISO 15693 tag", totalBlocks: nil, userBlocks: nil, knownCommandSet: false)
    case (0x07, _):
      self.init(name: "TI Tag-it ISO 15693 tag", totalBlocks: nil, userBlocks: nil, knownCommandSet: false)
    default:
      return nil
    }
  }

  init(name: String, totalBlocks: Int?, userBlocks: Int?, knownCommandSet: Bool) {
    self.name = name
    self.totalBlocks = totalBlocks
    self.userBlocks = userBlocks
    self.knownCommandSet = knownCommandSet
  }
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
/// skip unchanged blocks, and read back. Block numbers above FFh (extended commands) are not
/// supported.
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
public final class Type5Tag: NDEFTagPlatform {
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

  /// Flags for every request: high data rate, not addressed.
  static let requestFlags: UInt8 = 0x02

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

  // MARK: Command layer

  private func exchange(_ command: [UInt8], name: String, block: Int?) throws(TagError) -> [UInt8] {
    let reply: [UInt8]
    do {
      reply = try link.transceive(command)
    } catch {
      throw .transceive(error, command: name, address: block)
    }
    guard let response = ISO15693Response(reply) else {
      throw .transceive(.malformedResponse(reply), command: name, address: block)
    }
    if let code = response.errorCode { throw .transceive(.nak(code.rawValue), command: name, address: block) }
    return response.payload
  }

  private func blockByte(_ block: Int, _ name: String) throws(TagError) -> UInt8 {
    guard let b = UInt8(exactly: block) else {
      throw .unsupported("\(name) of block \(block): blocks above FFh need the extended commands, which are not supported")
    }
    return b
  }

  /// READ SINGLE BLOCK (20h), uncached.
  public func readBlock(_ block: Int) throws(TagError) -> [UInt8] {
    let data = try exchange([Self.requestFlags, 0x20, try blockByte(block, "READ SINGLE BLOCK")],
                            name: "READ SINGLE BLOCK", block: block)
    guard data.count == blockSize else {
      throw .transceive(.malformedResponse(data), command: "READ SINGLE BLOCK", address: block)
    }
    return data
  }

  /// READ MULTIPLE BLOCKS (23h): `count` blocks from `first`, uncached.
  public func readBlocks(from first: Int, count: Int) throws(TagError) -> [UInt8] {
    guard count >= 1, count <= 256 else { throw .unsupported("READ MULTIPLE BLOCKS of \(count) blocks") }
    _ = try blockByte(first + count - 1, "READ MULTIPLE BLOCKS")
    let data = try exchange([Self.requestFlags, 0x23, try blockByte(first, "READ MULTIPLE BLOCKS"), UInt8(count - 1)],
                            name: "READ MULTIPLE BLOCKS", block: first)
    guard data.count == count * blockSize else {
      throw .transceive(.malformedResponse(data), command: "READ MULTIPLE BLOCKS", address: first)
    }
    return data
  }

  /// WRITE SINGLE BLOCK (21h), unchecked: this can overwrite the CC.
  public func writeBlock(_ block: Int, _ data: [UInt8]) throws(TagError) {
    guard data.count == blockSize else {
      throw .unsupported("WRITE SINGLE BLOCK of \(data.count) bytes; a block is \(blockSize) bytes")
    }
    do {
      _ = try exchange([Self.requestFlags, 0x21, try blockByte(block, "WRITE SINGLE BLOCK")] + data,
                       name: "WRITE SINGLE BLOCK", block: block)
    } catch .transceive(.nak(let code), let command, let address) {
      throw .writeRefused(.nak(code), command: command, address: address)
    }
  }

  /// LOCK BLOCK (22h): permanent. A block that is already locked (error 11h) counts as done.
  public func lockBlock(_ block: Int) throws(TagError) {
    do {
      _ = try exchange([Self.requestFlags, 0x22, try blockByte(block, "LOCK BLOCK")], name: "LOCK BLOCK", block: block)
    } catch {
      if case .transceive(.nak(0x11), _, _) = error { return }
      throw error
    }
  }

  /// GET MULTIPLE BLOCK SECURITY STATUS (2Ch): one byte per block, bit 0 = locked.
  public func securityStatus(from first: Int, count: Int) throws(TagError) -> [UInt8] {
    guard count >= 1, count <= 256 else { throw .unsupported("GET MULTIPLE BLOCK SECURITY STATUS of \(count) blocks") }
    let data = try exchange([Self.requestFlags, 0x2C, try blockByte(first, "GET MULTIPLE BLOCK SECURITY STATUS"),
                             UInt8(count - 1)], name: "GET MULTIPLE BLOCK SECURITY STATUS", block: first)
    guard data.count == count else {
      throw .transceive(.malformedResponse(data), command: "GET MULTIPLE BLOCK SECURITY STATUS", address: first)
    }
    return data
  }

  /// Sends GET SYSTEM INFORMATION once, when the link passes raw commands.
  private func identify() throws(TagError) {
    guard !identified else { return }
    guard link.capabilities.rawCommands else {
      identified = true
      return
    }
    do {
      let answer = try exchange([Self.requestFlags, 0x2B], name: "GET SYSTEM INFORMATION", block: nil)
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

  // MARK: CC and TLVs

  /// What the CC and TLVs say.
  private struct Snapshot: TLVAreaSnapshot {
    var cc: [UInt8]
    var ccLength: Int
    var layout: Result<TLVLayout, TagError>?
    var report: NDEFStatusReport
    var areaEnd: Int
    var convention: String
    var why: String
    /// The convention for programs: nfcForum, androidNeard, clamped or memorySizeUnknown.
    var conventionKey: String {
      if convention.hasPrefix("NFC Forum") { return "nfcForum" }
      if convention.hasPrefix("Android") { return "androidNeard" }
      if convention.hasPrefix("memory size unknown") { return "memorySizeUnknown" }
      return "clamped"
    }
  }

  private func analyse(_ memory: Type5BlockCache) throws(TagError) -> Snapshot {
    let head = try memory.bytes(in: 0..<4)
    func notNDEF(_ why: String) -> Snapshot {
      Snapshot(cc: head, ccLength: 0, layout: nil, report: NDEFStatusReport(status: .notSupported, capacity: 0),
               areaEnd: 0, convention: "", why: why)
    }
    guard head[0] == 0xE1 || head[0] == 0xE2 else {
      return notNDEF(head == [0, 0, 0, 0] ? "block 0 is empty (no CC)"
                     : "block 0 holds \(hexString(head, separator: " ")), not a CC starting E1 or E2")
    }
    guard head[1] >> 6 == 1 else {
      return notNDEF("CC version \(head[1] >> 6).\((head[1] >> 4) & 3) is not supported (major version 1 is)")
    }
    guard (head[1] >> 2) & 0x03 == 0 else {
      return notNDEF("the CC's read access is \(hexString([(head[1] >> 2) & 3])) (proprietary), not free")
    }
    var cc = head
    var ccLength = 4
    var mlen = Int(head[2])
    if head[2] == 0 {
      let tail = try memory.bytes(in: 4..<8)
      cc += tail
      ccLength = 8
      mlen = Int(tail[2]) << 8 | Int(tail[3])
    }
    guard mlen > 0 else { return notNDEF("the CC's MLEN is 0") }
    let userBytes = userBlocks.map { $0 * blockSize }
    var end: Int
    var convention: String
    if let userBytes {
      if ccLength + mlen * 8 <= userBytes {
        end = ccLength + mlen * 8
        convention = "NFC Forum (MLEN × 8 after the CC)"
      } else if mlen * 8 <= userBytes {
        end = mlen * 8
        convention = "Android/neard (MLEN × 8 from byte 0)"
      } else {
        end = userBytes
        convention = "MLEN × 8 = \(mlen * 8) exceeds the \(userBytes)-byte memory; clamped"
      }
    } else {
      end = mlen * 8
      convention = "memory size unknown: MLEN × 8 from byte 0 (the smaller reading)"
    }
    end = max(end, ccLength)
    if link.capabilities.rawCommands && (cc[3] & 0x01 != 0 || (chip?.knownCommandSet ?? false)) {
      memory.useMultiple = true
    }
    memory.readAheadLimit = memory.useMultiple ? (end - 1) / blockSize : 0
    let status: NDEFStatus = cc[1] & 0x03 == 0 ? .readWrite : .readOnly
    do {
      let layout = try TLVLayout.parse(memory: memory, area: TLVArea(start: ccLength, end: end))
      let report = NDEFStatusReport(status: status, capacity: layout.capacity,
                                    messageLength: layout.ndefTLVAddress == nil ? nil : layout.ndefLength)
      return Snapshot(cc: cc, ccLength: ccLength, layout: .success(layout), report: report, areaEnd: end,
                      convention: convention, why: "")
    } catch {
      if error.isTagLost { throw error }
      return Snapshot(cc: cc, ccLength: ccLength, layout: .failure(error),
                      report: NDEFStatusReport(status: status, capacity: 0), areaEnd: end, convention: convention,
                      why: "\(error)")
    }
  }

  // MARK: NDEFTagPlatform

  public func queryNDEFStatus() throws(TagError) -> NDEFStatusReport {
    try analyse(try beginOperation()).checkedReport()
  }

  public func readNDEF() throws(TagError) -> [UInt8] {
    let memory = try beginOperation()
    return try analyse(memory).readMessage(from: memory)
  }

  public func writeNDEF(_ message: [UInt8], verify: Bool) throws(TagError) {
    let memory = try beginOperation()
    let (plan, layout) = try analyse(memory).writePlan(for: message)
    try commit(plan, area: layout.area, memory: memory, verify: verify)
  }

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
    let memory = try beginOperation()
    let (plan, layout) = try analyse(memory).writePlan(for: [], clearingOldMessage: overwritingOldMessage)
    try commit(plan, area: layout.area, memory: memory, verify: true)
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

  public func info() throws(TagError) -> TagInfo {
    let memory = try beginOperation()
    let snapshot = try analyse(memory)
    var report = snapshot.report
    var details: [TagInfoFact] = [
      TagInfoFact("UID (MSB first)", key: "uidMSBFirst", text: hexString(uidMSBFirst, separator: ":"),
                  value: .bytes(uidMSBFirst)),
    ]
    if let systemInfo {
      if let dsfid = systemInfo.dsfid { details.append(byteFact("DSFID", key: "dsfid", dsfid)) }
      if let afi = systemInfo.afi { details.append(byteFact("AFI", key: "afi", afi)) }
      if let ic = systemInfo.icReference { details.append(byteFact("IC reference", key: "icReference", ic)) }
    }
    if let totalBlocks {
      details.append(TagInfoFact("Blocks", key: "blocks", text: "\(totalBlocks) × \(blockSize) bytes",
                                 value: .members(["count": .number(totalBlocks), "size": .number(blockSize)])))
    }
    if let userBlocks, userBlocks != totalBlocks {
      details.append(TagInfoFact("User blocks", key: "userBlocks", text: "\(userBlocks)", value: .number(userBlocks)))
    }
    switch snapshot.layout {
    case .success(let layout)?:
      let area = layout.area.start ..< layout.area.end
      details.append(TagInfoFact("Data area", key: "dataArea", text: "\(byteSpan(area)) (\(snapshot.convention))",
                                 value: .members(["start": .number(area.lowerBound), "size": .number(area.count),
                                                  "convention": .string(snapshot.conventionKey)])))
      details.append(.tlvs(.success(layout)))
    case .failure(let error)?:
      report = NDEFStatusReport(status: report.status, capacity: 0, messageLength: nil)
      details.append(.tlvs(.failure(error)))
    case nil:
      details.append(.ndefProblem(snapshot.why))
    }
    var locks: [TagInfoFact] = []
    if snapshot.ccLength > 0 {
      let access = snapshot.cc[1] & 0x03
      let meaning = access == 0 ? "granted" : (access == 3 ? "never" : "proprietary")
      locks.append(TagInfoFact("CC write access", key: "ccWriteAccess",
                               text: "CC write access \(access >> 1)\(access & 1)b (\(meaning))",
                               value: accessValue(access, meaning: meaning)))
    } else {
      locks.append(TagInfoFact("CC", key: "ccWriteAccess", text: "no CC", value: .null))
    }
    if link.capabilities.rawCommands, let totalBlocks {
      var locked = 0
      var first = 0
      var known = true
      while first < totalBlocks {
        let count = min(totalBlocks - first, max(1, link.capabilities.maxResponseLength))
        do {
          locked += try securityStatus(from: first, count: count).filter { $0 & 0x01 != 0 }.count
        } catch {
          if error.isTagLost { throw error }
          known = false
          break
        }
        first += count
      }
      locks.append(TagInfoFact("Block locks", key: "lockedBlocks",
                               text: known ? "\(locked) of \(totalBlocks) blocks locked" : "block lock state unknown",
                               value: known ? .members(["locked": .number(locked), "total": .number(totalBlocks)]) : .null))
    } else {
      locks.append(TagInfoFact("Block locks", key: "lockedBlocks", text: "block lock state unknown through this reader",
                               value: .null))
    }
    let memorySize = (totalBlocks.map { $0 * blockSize }) ?? snapshot.areaEnd
    return TagInfo(platform: .type5, chip: chip?.name ?? "ISO 15693 tag", identifier: identifier,
                   memorySize: memorySize, ndef: report, capabilityContainer: snapshot.cc,
                   version: systemInfo?.raw ?? [], locks: locks, details: details)
  }

  /// A one-byte fact shown as two hex digits.
  private func byteFact(_ label: String, key: String, _ byte: UInt8) -> TagInfoFact {
    TagInfoFact(label, key: key, text: hexString([byte]), value: .bytes([byte]))
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

  private func commit(_ plan: TLVWritePlan, area: TLVArea, memory: Type5BlockCache, verify: Bool) throws(TagError) {
    let blocks = plan.touchedBlocks(blockSize: blockSize)
    guard let low = blocks.first, let high = blocks.last else { return }
    guard low * blockSize >= area.start - area.start % blockSize, high * blockSize < area.end else {
      throw .malformed("a write outside the data area was planned (blocks \(low)…\(high))", offset: nil)
    }
    _ = try memory.bytes(in: low * blockSize ..< (high + 1) * blockSize)
    var current: [Int: [UInt8]] = [:]
    for block in blocks { current[block] = try memory.block(block) }
    let writes = try plan.orderedWrites(blockSize: blockSize, current: current)
    var progress = TransferProgress.Counter(.writing, total: writes.count * blockSize)
    for write in writes {
      try memory.write(block: write.block, write.bytes)
      progress.advance(by: blockSize)
    }
    if verify { try memory.verify(blocks: writes.map(\.block)) }
  }
}

/// Tag memory over READ SINGLE / READ MULTIPLE BLOCKS, cached per operation so no block is read
/// twice. Reads ahead up to ``readAheadLimit`` when READ MULTIPLE BLOCKS is used.
final class Type5BlockCache: TLVMemory {
  unowned let tag: Type5Tag
  let blockLimit: Int?
  let chunkBlocks: Int
  var useMultiple = false
  var readAheadLimit = 0
  private var blocks: [Int: [UInt8]] = [:]
  /// Counts the blocks fetched for an operation that reports its progress (a whole-memory read).
  var progress: TransferProgress.Counter?

  init(tag: Type5Tag, blockLimit: Int?, chunkBlocks: Int) {
    self.tag = tag
    self.blockLimit = blockLimit
    self.chunkBlocks = max(1, min(chunkBlocks, 256))
  }

  var blockSize: Int { tag.blockSize }

  func block(_ n: Int) throws(TagError) -> [UInt8] {
    if let cached = blocks[n] { return cached }
    try load(n ... n)
    guard let cached = blocks[n] else { throw .malformed("block \(n) could not be read", offset: nil) }
    return cached
  }

  func bytes(in range: Range<Int>) throws(TagError) -> [UInt8] {
    guard range.lowerBound >= 0 else { throw .malformed("read before byte 0", offset: nil) }
    guard !range.isEmpty else { return [] }
    let first = range.lowerBound / blockSize, last = (range.upperBound - 1) / blockSize
    if let blockLimit, last >= blockLimit {
      throw .malformed("read of \(byteSpan(range)) past the end of the "
                       + "\(blockLimit * blockSize)-byte memory", offset: nil)
    }
    // The TLV walk reads one byte at a time: a cached byte is answered without copying its block.
    if range.count == 1, let b = blocks[first], range.lowerBound - first * blockSize < b.count {
      return [b[range.lowerBound - first * blockSize]]
    }
    try load(first ... last)
    var out: [UInt8] = []
    out.reserveCapacity((last - first + 1) * blockSize)
    for n in first ... last {
      guard let b = blocks[n] else { throw .malformed("block \(n) could not be read", offset: nil) }
      out += b
    }
    let offset = range.lowerBound - first * blockSize
    return Array(out[offset ..< offset + range.count])
  }

  /// Reads every missing block of `needed`, in runs; with READ MULTIPLE BLOCKS a run may extend
  /// up to ``readAheadLimit`` and stops before a cached block.
  private func load(_ needed: ClosedRange<Int>) throws(TagError) {
    var n = needed.lowerBound
    while n <= needed.upperBound {
      if blocks[n] != nil {
        n += 1
        continue
      }
      guard useMultiple else {
        blocks[n] = try tag.readBlock(n)
        progress?.advance(by: blockSize)
        n += 1
        continue
      }
      var end = min(n + chunkBlocks - 1, max(needed.upperBound, readAheadLimit))
      if let blockLimit { end = min(end, blockLimit - 1) }
      end = max(end, n)
      var stop = n
      while stop < end, blocks[stop + 1] == nil { stop += 1 }
      let count = stop - n + 1
      if count == 1 {
        blocks[n] = try tag.readBlock(n)
      } else {
        let data = try tag.readBlocks(from: n, count: count)
        for i in 0 ..< count { blocks[n + i] = Array(data[(i * blockSize) ..< ((i + 1) * blockSize)]) }
      }
      progress?.advance(by: count * blockSize)
      n = stop + 1
    }
  }

  /// Starts counting a read of blocks 0..<`count`: the blocks already cached count as done.
  func reportProgress(reading count: Int) {
    var counter = TransferProgress.Counter(.reading, total: count * blockSize)
    counter.advance(by: (0 ..< count).filter { blocks[$0] != nil }.count * blockSize)
    progress = counter
  }

  func write(block: Int, _ data: [UInt8]) throws(TagError) {
    try tag.writeBlock(block, data)
    blocks[block] = data
  }

  /// Reads `written` again, uncached, in contiguous runs, and compares.
  func verify(blocks written: [Int]) throws(TagError) {
    let sorted = Set(written).sorted()
    var i = 0
    while i < sorted.count {
      var j = i
      while useMultiple, j + 1 < sorted.count, sorted[j + 1] == sorted[j] + 1, j - i + 1 < chunkBlocks { j += 1 }
      let first = sorted[i], count = j - i + 1
      let data = count == 1 ? try tag.readBlock(first) : try tag.readBlocks(from: first, count: count)
      for k in 0 ..< count where Array(data[(k * blockSize) ..< ((k + 1) * blockSize)]) != blocks[first + k] {
        throw .verifyFailed(address: (first + k) * blockSize)
      }
      i = j + 1
    }
  }
}
