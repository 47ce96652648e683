import NFCTransport

/// A MIFARE Classic Mini, 1K or 4K holding NDEF as NXP AN1304 maps it: the MAD (AN10787) names
/// the NDEF sectors, whose data blocks carry the TLVs (``MIFAREClassicNDEFArea``).
///
/// Every sector is opened once per operation with the first key that works
/// (``MIFAREClassicKeyList``: the public keys lead for MAD and NDEF sectors, then the well-known
/// keys, then the caller's); a sector none opens ends the operation with
/// ``TagError/authenticationFailed(_:)`` naming it. The reader runs Crypto1; the commands go to
/// the link in the PN532's form (`ACR122UClassicLink`, `PartThreeClassicLink`).
public final class MIFAREClassicTag: NDEFTagPlatform {
  /// Always ``TagPlatform/mifareClassic``.
  public var platform: TagPlatform { .mifareClassic }
  /// The 4-byte NUID or 7-byte UID; its last 4 bytes go into each authentication.
  public let identifier: [UInt8]
  /// Mini, 1K or 4K.
  public let chip: MIFAREClassicChip
  let link: any Transceiver
  /// The keys tried on each sector.
  public var keys: MIFAREClassicKeyList
  /// Exchanges with the card so far (authentications included).
  public internal(set) var exchangeCount = 0
  /// WRITE commands sent to the card so far, one that failed included (the card may have taken
  /// it before the failure): the same count before and after an operation that failed means the
  /// card was not changed.
  public internal(set) var writeCommandsSent = 0
  /// The key type and key that opened each sector.
  public internal(set) var openedWith: [Int: (type: MIFAREClassicKeyType, key: [UInt8])] = [:]

  var cache: [Int: [UInt8]] = [:]
  /// True when the cache holds what a read-only operation that ended read (``needsFormat()``,
  /// ``queryNDEFStatus()``, ``readNDEF()``): the next NDEF operation of this connection starts
  /// from those blocks instead of reading them again (``beginOperation()``).
  var readsKept = false
  /// True while ``format()`` runs: the factory key is tried first.
  var formatting = false
  var authenticated: (sector: Int, purpose: MIFAREClassicPurpose)?
  /// The key that may write each sector, as ``openForWriting(_:keyType:)`` found it before the
  /// operation's first write; emptied with the reads (``forgetReads()``).
  var writers: [Int: (type: MIFAREClassicKeyType, key: [UInt8])] = [:]
  /// The keys A and B this connection wrote into each sector's trailer (a restore of an image
  /// with other keys): tried first there, so the sector still opens after its keys changed.
  var writtenKeys: [Int: [[UInt8]]] = [:]

  /// A card of `chip` with UID `identifier` behind `link`.
  public init(chip: MIFAREClassicChip, identifier: [UInt8], link: any Transceiver, keys: MIFAREClassicKeyList = .init()) {
    self.chip = chip
    self.identifier = identifier
    self.link = link
    self.keys = keys
  }

  // MARK: - MAD and NDEF area

  /// The MAD, read from sectors 0 (and 16), and sector 0's trailer.
  /// - Throws: ``TagError/notFormatted(_:)`` without a MAD; ``TagError/malformed(_:offset:)`` for
  ///   a MAD whose CRC is wrong (it is not trusted).
  func readDirectory() throws(TagError) -> MIFAREApplicationDirectory {
    let sector0 = try read(blocks: [1, 2, 3])
    guard let b1 = sector0[1], let b2 = sector0[2], let trailer = sector0[3], trailer.count == 16 else {
      throw .malformed("sector 0 could not be read whole", offset: nil)
    }
    var sector16: [UInt8]?
    if trailer[9] & 0x83 == 0x82 {
      guard chip == .classic4K else { throw Self.tagError(.madMalformed("a MAD2 on a \(chip.productName)")) }
      let blocks = try read(blocks: [64, 65, 66])
      sector16 = (64...66).flatMap { blocks[$0] ?? [] }
    }
    do {
      return try MIFAREApplicationDirectory.decode(generalPurposeByte: trailer[9], sector0: b1 + b2, sector16: sector16)
    } catch {
      throw Self.tagError(error)
    }
  }

  /// The NDEF area the MAD names, and whether it may be written (the first NDEF sector's GPB
  /// and access bits: AN1304's read-only forms).
  func ndefArea() throws(TagError) -> (area: MIFAREClassicNDEFArea, writable: Bool) {
    let mad = try readDirectory()
    let area: MIFAREClassicNDEFArea
    do { area = try MIFAREClassicNDEFArea(chip: chip, mad: mad) } catch { throw Self.tagError(error) }
    guard let first = area.sectors.first else { throw .notFormatted("no NDEF sector") }
    let trailer = try read(blocks: [chip.trailer(of: first)])[chip.trailer(of: first)] ?? []
    guard trailer.count == 16 else { throw .malformed("the trailer of sector \(first) could not be read", offset: nil) }
    let gpbWritable = MIFAREClassicNDEF.access(generalPurposeByte: trailer[9]).write
    let bitsWritable = MIFAREClassicAccessConditions(bytes: Array(trailer[6..<9]))?.groups[0].dataWrite != .never
    return (area, gpbWritable && bitsWritable)
  }

  /// The start of an NDEF operation: the blocks the read-only operation before it read are kept
  /// (a format check or a status query, then a write: sector 0's MAD is read once), else the
  /// cache is emptied; the next operation reads afresh either way. A format, a lock, a restore,
  /// a value change and every read-back start from the card (``forgetReads()``). The
  /// authentication starts anew.
  func beginOperation() {
    if !readsKept { forgetReads() }
    readsKept = false
    authenticated = nil
  }

  static func tagError(_ error: MIFAREClassicError) -> TagError {
    switch error {
    case .madAbsent, .noNDEFSector: return .notFormatted(error.description)
    case .sectorsNotOpened, .authenticationRefused: return .authenticationFailed(error.description)
    case .permanentAccessBits: return .unsupported(error.description)
    default: return .malformed(error.description, offset: nil)
    }
  }

  private func layout(_ area: MIFAREClassicNDEFArea) throws(TagError) -> (TLVLayout, MIFAREClassicAreaMemory) {
    let memory = MIFAREClassicAreaMemory(tag: self, area: area)
    return (try TLVLayout.parse(memory: memory, area: TLVArea(start: 0, end: area.size)), memory)
  }

  // MARK: - NDEFTagPlatform

  /// The NDEF status: the MAD, the first NDEF sector's GPB and access bits, the NDEF TLV.
  public func queryNDEFStatus() throws(TagError) -> NDEFStatusReport {
    beginOperation()
    let (area, writable) = try ndefArea()
    let (layout, _) = try layout(area)
    guard layout.ndefTLVAddress != nil else { throw .notFormatted("the NDEF sectors hold no NDEF TLV") }
    readsKept = true
    return NDEFStatusReport(status: writable ? .readWrite : .readOnly, capacity: layout.capacity,
                            messageLength: layout.ndefLength, tlvAddress: layout.ndefTLVAddress)
  }

  /// The message in the NDEF area the MAD names.
  public func readNDEF() throws(TagError) -> [UInt8] {
    beginOperation()
    let (area, _) = try ndefArea()
    let (layout, memory) = try layout(area)
    let message = try layout.readMessage(from: memory)
    readsKept = true
    return message
  }

  /// Writes `message` tear-safely (NDEF TLV length 00 first, the changed blocks, then the length).
  public func writeNDEF(_ message: [UInt8], verify: Bool) throws(TagError) {
    try write(message, clearing: false, verify: verify)
  }

  /// Writes an empty message; with `overwritingOldMessage` the old message's bytes are zeroed too.
  public func erase(overwritingOldMessage: Bool) throws(TagError) {
    try write([], clearing: overwritingOldMessage, verify: true)
  }

  private func write(_ message: [UInt8], clearing: Bool, verify: Bool) throws(TagError) {
    beginOperation()
    let (area, writable) = try ndefArea()
    guard writable else { throw .readOnly }
    let (layout, memory) = try layout(area)
    let old = layout.ndefTLVAddress != nil ? layout.ndefLength : nil
    let clear = clearing ? old.map { ($0 < 255 ? 2 : 4) + $0 + 1 } ?? 0 : 0
    let plan = try TLVWriter.plan(message: message, layout: layout, clearing: clear)
    // A READ of a block costs what its WRITE costs (16 bytes each, MF1S50yyX §8.2.4): only the
    // blocks the plan does not fill are read; those already read are compared.
    var current: [Int: [UInt8]] = [:]
    for block in plan.blocksToRead(blockSize: 16, comparing: false) {
      current[block] = try memory.bytes(in: block * 16 ..< block * 16 + 16)
    }
    for block in plan.touchedBlocks(blockSize: 16) where current[block] == nil && area.blocks.indices.contains(block) {
      current[block] = cache[area.blocks[block]]
    }
    let writes = try plan.orderedWrites(blockSize: 16, current: current)
    var blocks: [Int: [Int]] = [:]
    for w in writes {
      guard w.block >= 0, w.block < area.blocks.count else { throw .malformed("area block \(w.block) is past the area", offset: nil) }
      blocks[chip.sector(of: area.blocks[w.block]), default: []].append(area.blocks[w.block])
    }
    try openForWriting(blocks)
    var progress = TransferProgress.Counter(.writing, total: writes.count * 16)
    for w in writes {
      try write(block: area.blocks[w.block], w.bytes)
      progress.advance(by: 16)
    }
    guard verify else { return }
    forgetReads()
    let (again, _) = try ndefArea()
    let (reread, rememory) = try self.layout(again)
    let readBack = try reread.readMessage(from: rememory)
    guard readBack == message else {
      let offset = zip(readBack, message).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(readBack.count, message.count)
      throw .verifyFailed(address: offset)
    }
  }

  /// Turns a factory card into an NDEF card (``MIFAREClassicNDEF/formatWrites(for:keyB:)``).
  /// Every data block of the card but block 0 is written (zeros, the MAD, an empty NDEF TLV), so
  /// an old message is overwritten too. Every sector is opened for its writes before the first
  /// one (``openForWriting(_:keyType:)``): a sector no key opens leaves the card as it was.
  public func format() throws(TagError) {
    forgetReads()
    formatting = true
    defer { formatting = false }
    let plan = MIFAREClassicNDEF.formatWrites(for: chip)
    var blocks: [Int: [Int]] = [:]
    for (sector, writes) in plan { blocks[sector, default: []] += writes.map(\.block) }
    try openForWriting(blocks)
    for (sector, blocks) in plan {
      for (block, bytes) in blocks {
        try write(block: block, bytes, purpose: .data)
      }
      // The trailer changed: the next sector authenticates anew; this one's keys are others now.
      authenticated = nil
      openedWith[sector] = nil
      writers[sector] = nil
    }
    forgetReads()
    openedWith = [:]
  }

  /// Makes every NDEF and MAD sector read-only as AN1305 defines it ("MIFARE BLOCKED READ-ONLY"):
  /// GPB write access 11 and access bits `07 8F 0F`, which no key can change again. The NDEF
  /// sectors first, the MAD last. Keys stay as they are: key B, which writes the trailers, is
  /// written back as it is, so every sector to lock is opened with key B before the first
  /// write; a sector already in the read-only form is left alone, so a lock cut short (a removal,
  /// a sector no key opened in an earlier release) is finished by running it again. Writes
  /// nothing when every sector is read-only already (``writeCommandsSent`` tells).
  /// - Throws: ``TagError/authenticationFailed(_:)`` naming every sector no key B opened (nothing
  ///   written); ``TagError/unsupported(_:)`` for a sector whose trailer can never be written
  ///   again while its data blocks stay writable.
  public func makeReadOnly() throws(TagError) {
    forgetReads()
    let mad = try readDirectory()
    let (area, _) = try ndefArea()
    var sectors: [(Int, [UInt8])] = area.sectors.map { ($0, MIFAREClassicNDEF.ndefTrailer(keyB: [], readOnly: true)) }
    sectors.append((0, MIFAREClassicNDEF.madTrailer(generalPurposeByte: mad.generalPurposeByte, keyB: [], readOnly: true)))
    if mad.version == .mad2 {
      sectors.append((16, MIFAREClassicNDEF.madTrailer(generalPurposeByte: mad.generalPurposeByte, keyB: [], readOnly: true)))
    }
    var pending: [(Int, [UInt8])] = []
    var closed: [Int] = []
    for (sector, partial) in sectors {
      guard let trailer = try trailer(of: sector) else {
        closed.append(sector)
        continue
      }
      if let conditions = MIFAREClassicAccessConditions(bytes: Array(trailer[6..<9])), conditions.isPermanent {
        let dataBlocks = Array(chip.firstBlock(of: sector) ..< chip.trailer(of: sector))
        guard Self.keyTypes(writing: dataBlocks, of: chip, under: conditions).isEmpty else {
          throw .unsupported("sector \(sector) cannot be locked: its access bits can never be changed and leave its data writable")
        }
        continue  // read-only already
      }
      pending.append((sector, partial))
    }
    guard closed.isEmpty else { throw .authenticationFailed(MIFAREClassicError.sectorsNotOpened(closed).description) }
    var trailers: [Int: [Int]] = [:]
    for (sector, _) in pending { trailers[sector] = [chip.trailer(of: sector)] }
    try openForWriting(trailers, keyType: .b)
    for (sector, partial) in pending {
      guard let keyB = writers[sector]?.key else { throw .authenticationFailed(MIFAREClassicError.sectorsNotOpened([sector]).description) }
      try write(block: chip.trailer(of: sector), Array(partial.prefix(10)) + keyB, purpose: .trailer)
      authenticated = nil
      writers[sector] = nil
    }
    forgetReads()
  }

  /// The chip, the NDEF status and every sector's key and access conditions.
  public func info() throws(TagError) -> TagInfo {
    try classicInfo(full: true)
  }

  /// The chip and the NDEF status only.
  public func identification() throws(TagError) -> TagInfo {
    try classicInfo(full: false)
  }

  /// Every block in order, in the `.mfd` layout `nfc-mfclassic` and Proxmark3 read: each
  /// trailer carries the key that opened its sector (key A or B in its place; a key the card
  /// lets be read stays as read; the other reads as zeros).
  /// - Throws: ``TagError/authenticationFailed(_:)`` naming every sector no key opened.
  public func readMemory() throws(TagError) -> [UInt8] {
    forgetReads()
    var image: [UInt8] = []
    image.reserveCapacity(chip.memorySize)
    var closed: [Int] = []
    for sector in 0..<chip.sectorCount {
      let blocks = Array(chip.firstBlock(of: sector) ... chip.trailer(of: sector))
      let got: [Int: [UInt8]]
      do {
        got = try read(blocks: blocks)
      } catch {
        guard case .authenticationFailed = error else { throw error }
        closed.append(sector)
        image += [UInt8](repeating: 0, count: blocks.count * 16)
        continue
      }
      for block in blocks {
        guard var data = got[block], data.count == 16 else { throw .malformed("block \(block) was not read", offset: nil) }
        if block == chip.trailer(of: sector), let opened = openedWith[sector] {
          data.replaceSubrange(opened.type == .a ? 0..<6 : 10..<16, with: opened.key)
        }
        image += data
      }
    }
    guard closed.isEmpty else { throw .authenticationFailed(MIFAREClassicError.sectorsNotOpened(closed).description) }
    return image
  }
}

/// The NDEF area as TLV memory: area bytes read block by block through the sectors' keys, each
/// block once.
final class MIFAREClassicAreaMemory: TLVMemory {
  let tag: MIFAREClassicTag
  let area: MIFAREClassicNDEFArea

  init(tag: MIFAREClassicTag, area: MIFAREClassicNDEFArea) {
    self.tag = tag
    self.area = area
  }

  func bytes(in range: Range<Int>) throws(TagError) -> [UInt8] {
    guard range.lowerBound >= 0, range.upperBound <= area.size else {
      throw .malformed("bytes \(range.lowerBound)–\(range.upperBound) are past the \(area.size)-byte NDEF area", offset: range.lowerBound)
    }
    guard !range.isEmpty else { return [] }
    let first = range.lowerBound / 16, last = (range.upperBound - 1) / 16
    let cardBlocks = (first...last).map { area.blocks[$0] }
    let got = try tag.read(blocks: cardBlocks)
    var flat: [UInt8] = []
    flat.reserveCapacity(cardBlocks.count * 16)
    for block in cardBlocks {
      guard let data = got[block], data.count == 16 else { throw .malformed("block \(block) was not read", offset: nil) }
      flat += data
    }
    return Array(flat[(range.lowerBound - first * 16) ..< (range.upperBound - first * 16)])
  }
}
