import NFCTransport

/// An NFC Forum Type 2 tag (MIFARE Ultralight family, NTAG21x): 4-byte pages, a CC in page 3 and
/// TLVs from page 4.
///
/// Every operation starts with a fresh page cache, so no page is read twice in one operation and
/// nothing stale survives between operations. The chip is identified once with GET_VERSION (60h)
/// when the link passes raw commands; with a known product, memory is read with FAST_READ (3Ah) in
/// chunks as long as the link allows (64 pages on an ACR122U), else with READ (30h, 4 pages).
/// Writes are tear-safe (NDEF length 00 first, then the data, then the length), skip pages whose
/// contents do not change when reading them is cheaper than writing them, and are read back unless
/// `verify` is false.
///
/// Source: NFC Forum T2T 1.0; nfcpy `tt2.py`, `tt2_nxp.py`.
/// - Warning: Not thread-safe: one operation at a time.
public final class Type2Tag: NDEFTagPlatform, TLVPlatform {
  public var platform: TagPlatform { .type2 }
  public let identifier: [UInt8]
  /// The link to the tag.
  public let link: any Transceiver
  /// The chip, from GET_VERSION or the initialiser; nil when unknown (CC-based sizes are used).
  public private(set) var product: Type2Product?
  /// The GET_VERSION answer; empty when not asked or not answered.
  public private(set) var version: [UInt8] = []
  private var identified: Bool
  let commands: Type2Commands

  /// Creates the platform for a Type 2 target.
  /// - Parameters:
  ///   - identifier: the UID (7 bytes for NXP chips).
  ///   - link: the link to the tag.
  ///   - product: the chip when already known; then GET_VERSION is not sent.
  public init(identifier: [UInt8], link: any Transceiver, product: Type2Product? = nil) {
    self.identifier = identifier
    self.link = link
    self.product = product
    self.identified = product != nil
    self.commands = Type2Commands(link: link)
  }

  /// Creates the platform with the GET_VERSION answer the reader driver already got while it
  /// identified the card, so the tag is not asked twice (one round trip less).
  public convenience init(identifier: [UInt8], link: any Transceiver, version: [UInt8]) {
    self.init(identifier: identifier, link: link, product: Type2Product(version: version))
    if product != nil { self.version = version }
  }

  // MARK: Command layer

  /// READ (30h): pages `page`…`page + 3`, 16 bytes, uncached.
  public func read(page: Int) throws(TagError) -> [UInt8] { try commands.read(page: page) }

  /// FAST_READ (3Ah): pages `start`…`end`, uncached. The reader's answer limit applies.
  public func fastRead(from start: Int, to end: Int) throws(TagError) -> [UInt8] {
    try commands.fastRead(from: start, to: end)
  }

  /// WRITE (A2h) of one page, unchecked: this can lock the tag or write its configuration.
  public func write(page: Int, data: [UInt8]) throws(TagError) {
    readCache = nil
    try commands.write(page: page, data)
  }

  /// READ_SIG (3Ch): the 32-byte originality signature (NTAG21x, Ultralight EV1).
  public func readSignature() throws(TagError) -> [UInt8] {
    guard link.capabilities.rawCommands else {
      throw .unsupported("READ_SIG needs a reader that passes raw Type 2 commands")
    }
    return try commands.readSignature()
  }

  /// Sends PWD_AUTH (1Bh) with a 4-byte password; the tag stays authenticated until it leaves the
  /// field or is reselected.
  ///
  /// Source: NXP NTAG213/215/216 data sheet §10.7.
  /// - Returns: the 2-byte PACK the tag answered (compare it with the one you expect).
  /// - Throws: ``TagError/authenticationFailed(_:)`` on a NAK or no answer;
  ///   ``TagError/unsupported(_:)`` when the link cannot send raw commands or the password is not
  ///   4 bytes.
  public func authenticate(password: [UInt8]) throws(TagError) -> [UInt8] {
    guard link.capabilities.rawCommands else {
      throw .unsupported("PWD_AUTH needs a reader that passes raw Type 2 commands")
    }
    // Pages read before may have been refused or shown as zeros: they are read again.
    readCache = nil
    return try SecretExchange.run { () throws(TagError) in try commands.passwordAuth(password) }
  }

  /// Sets the password and PACK and turns protection on from page `page` on.
  ///
  /// Writes PWD, then PACK, then CFG1's PROT bit (reads protected too, when `protectReads`), and
  /// AUTH0 last, so a tear before the end leaves the tag unprotected. A `page` beyond the last
  /// page (FFh, the factory value) turns protection off. Authenticate first when the
  /// configuration is already protected. Source: NXP NTAG213/215/216
  /// data sheet §8.8; nfcpy `_protect_with_password`.
  /// - Throws: ``TagError/unsupported(_:)`` when the chip has no password (unknown chip or
  ///   MIFARE Ultralight MF0ICU1) or the sizes are wrong.
  public func setPassword(_ pwd: [UInt8], pack: [UInt8], protectFrom page: UInt8, protectReads: Bool) throws(TagError) {
    guard pwd.count == 4, pack.count == 2 else {
      throw .unsupported("PWD is 4 bytes and PACK 2 bytes; got \(pwd.count) and \(pack.count)")
    }
    let memory = try beginOperation()
    guard let product, let cfg0 = product.cfg0Page, let cfg1 = product.cfg1Page,
          let pwdPage = product.passwordPage, let packPage = product.packPage else {
      throw .unsupported("\(chipName) has no password protection (or the chip is unknown)")
    }
    let cfg = try memory.bytes(in: cfg0 * 4 ..< (cfg1 + 1) * 4)
    guard cfg.count == 8 else { throw .malformed("configuration pages unreadable", offset: nil) }
    try SecretExchange.run { () throws(TagError) in
      try memory.write(page: pwdPage, pwd)
      try memory.write(page: packPage, pack + [0x00, 0x00])
    }
    let access = protectReads ? cfg[4] | 0x80 : cfg[4] & 0x7F
    if access != cfg[4] {
      try memory.write(page: cfg1, [access, cfg[5], cfg[6], cfg[7]])
    }
    if cfg[3] != page {
      try memory.write(page: cfg0, [cfg[0], cfg[1], cfg[2], page])
    }
  }

  // MARK: NDEFTagPlatform

  // Public witnesses of NDEFTagPlatform; the steps are TLVPlatform's.
  public func queryNDEFStatus() throws(TagError) -> NDEFStatusReport { try tlvNDEFStatus() }
  public func readNDEF() throws(TagError) -> [UInt8] { try tlvReadNDEF() }
  public func writeNDEF(_ message: [UInt8], verify: Bool) throws(TagError) { try tlvWriteNDEF(message, verify: verify) }

  /// Formats the tag for NDEF.
  ///
  /// A blank tag (page 3 all zero) gets its TLVs (`03 00 FE`; NTAG213: the factory Lock Control
  /// TLV `01 03 A0 0C 34` first) and then the CC `E1 10 size 00`, the size from the chip or, for an
  /// unknown chip, from probing page 10h (no answer or a wrap-around: 48 bytes; else 144 bytes).
  /// A formatted tag gets an empty NDEF message (tear-safe), or fresh TLVs when its TLVs are
  /// broken. Source: nfcpy `tt2.py` / `tt2_nxp.py` `_format`.
  /// - Throws: ``TagError/unsupported(_:)`` when the CC holds something else (it is one-time
  ///   programmable); ``TagError/readOnly`` on a read-only tag.
  public func format() throws(TagError) {
    let memory = try beginOperation()
    let header = try memory.bytes(in: 0..<16)
    let cc = Array(header[12..<16])
    let tlvs = product?.factoryTLVs ?? [0x03, 0x00, 0xFE]
    if cc == [0, 0, 0, 0] {
      let size: UInt8
      if let product { size = product.ccDataAreaSize } else { size = try probeDataAreaSize(memory, header: header) }
      memory.extendLimit(to: 4 + Int(size) * 2)
      try writeFresh(tlvs, memory: memory, areaEnd: 16 + Int(size) * 8)
      try memory.write(page: 3, [0xE1, 0x10, size, 0x00])
      return
    }
    let snapshot = try analyse(memory)
    guard let result = snapshot.layout else {
      throw .unsupported("page 3 holds \(hexString(cc, separator: " ")), not an NDEF CC; the CC is one-time "
                         + "programmable and cannot be rewritten")
    }
    guard snapshot.report.status == .readWrite else { throw .readOnly }
    if let layout = try? result.get(), layout.ndefTLVAddress != nil {
      let plan = try TLVWriter.plan(message: [], layout: layout)
      try commit(plan, area: layout.area, memory: memory, verify: true)
    } else {
      try writeFresh(tlvs, memory: memory, areaEnd: snapshot.areaEnd)
    }
  }

  public func erase(overwritingOldMessage: Bool) throws(TagError) {
    try tlvErase(overwritingOldMessage: overwritingOldMessage)
  }

  /// Makes the tag read-only: CC write access 0Fh, then the dynamic lock bytes (by chip, else by
  /// the Lock Control TLVs, else nfcpy's default after the data area), then the static lock bytes
  /// (page 2 bytes 2–3 FF FF) last. Pages that already hold the values are not written.
  ///
  /// Source: nfcpy `tt2.py` `_protect`.
  public func makeReadOnly() throws(TagError) {
    let memory = try beginOperation()
    let snapshot = try analyse(memory)
    guard let result = snapshot.layout else { throw .notFormatted(snapshot.why) }
    let cc = snapshot.cc
    let ccNew = [cc[0], cc[1], cc[2], cc[3] | 0x0F]
    if ccNew != cc { try memory.write(page: 3, ccNew) }

    // Dynamic lock bits: address → mask.
    var masks: [Int: UInt8] = [:]
    if let page = product?.dynamicLockPage {
      for i in 0..<3 { masks[page * 4 + i] = 0xFF }
    } else if let layout = try? result.get(), !layout.controls.filter({ $0.kind == .lock }).isEmpty {
      for control in layout.controls where control.kind == .lock {
        for i in 0..<control.byteCount {
          let bits = min(8, control.lockBitCount - 8 * i)
          masks[control.address + i] = bits >= 8 ? 0xFF : UInt8((1 << bits) - 1)
        }
      }
    } else if product == nil, cc[2] > 6 {
      // nfcpy `tt2.py` `_protect`: one bit per 8 bytes beyond the first 48, right after the data area.
      let dataSize = Int(cc[2]) * 8
      let bits = (dataSize - 48 + 7) / 8
      let start = 16 + dataSize
      for i in 0..<((bits + 7) / 8) {
        let n = min(8, bits - 8 * i)
        masks[start + i] = n >= 8 ? 0xFF : UInt8((1 << n) - 1)
      }
    }
    for page in Set(masks.keys.map { $0 / 4 }).sorted() {
      guard page >= 4 else { continue }
      if product == nil { memory.extendLimit(to: page + 1) }
      var contents = try memory.page(page)
      for i in 0..<4 { if let mask = masks[page * 4 + i] { contents[i] |= mask } }
      if contents != (try memory.page(page)) { try memory.write(page: page, contents) }
    }

    let lockPage = try memory.page(2)
    let lockNew = [lockPage[0], lockPage[1], 0xFF, 0xFF]
    if lockNew != lockPage { try memory.write(page: 2, lockNew) }
  }

  /// Chip (from GET_VERSION at detection) and NDEF status from the data area's one read: no lock,
  /// configuration page or READ_SIG reads. The pages stay cached for ``readNDEF()``.
  public func identification() throws(TagError) -> TagInfo {
    let memory = try beginReadOperation()
    let snapshot = try analyse(memory)
    var report = snapshot.report
    if case .failure? = snapshot.layout { report = NDEFStatusReport(status: report.status, capacity: 0) }
    let memorySize = product.map { $0.totalPages * 4 } ?? (snapshot.layout != nil ? snapshot.areaEnd : 64)
    return TagInfo(platform: .type2, chip: chipName, identifier: identifier, memorySize: memorySize,
                   ndef: report, capabilityContainer: snapshot.cc, version: version, locks: [], details: [])
  }

  public func readMemory() throws(TagError) -> [UInt8] {
    let memory = try beginOperation()
    let pageCount: Int
    if let product {
      pageCount = product.totalPages
    } else {
      let header = try memory.bytes(in: 0..<16)
      let cc = Array(header[12..<16])
      pageCount = cc[0] == 0xE1 && cc[2] > 0 ? min(256, 4 + Int(cc[2]) * 2) : 16
      memory.extendLimit(to: pageCount)
    }
    memory.reportProgress(reading: 0 ..< pageCount)
    return try memory.bytes(in: 0 ..< pageCount * 4)
  }

  // MARK: Internals

  /// The chip name for people.
  public var chipName: String {
    if let product { return product.name }
    if version.isEmpty {
      return link.capabilities.rawCommands
        ? "Type 2 tag without GET_VERSION (MIFARE Ultralight, Ultralight C or NTAG203)"
        : "Type 2 tag"
    }
    return "Type 2 tag (GET_VERSION \(hexString(version, separator: " ")))"
  }

  /// Sends GET_VERSION once, when the link passes raw commands and the chip is not known.
  ///
  /// A tag that does not know GET_VERSION (MIFARE Ultralight MF0ICU1, NTAG203) goes mute; when the
  /// link is ``TargetReselecting`` it is reselected, as nfcpy does, else the next command may fail.
  private func identify() throws(TagError) {
    guard !identified else { return }
    guard product == nil, link.capabilities.rawCommands else {
      identified = true
      return
    }
    do {
      let reply = try link.transceive([0x60])
      identified = true
      version = reply
      product = Type2Product(version: reply)
    } catch {
      switch error {
      case .tagRemoved, .transport:
        throw .transceive(error, command: "GET_VERSION", address: nil)
      case .timeout, .nak, .chipError:
        identified = true
        try reselectAfterMute(command: "GET_VERSION")
      default:
        // The reader could not send it, or the answer was odd: the tag is not mute.
        identified = true
      }
    }
  }

  func reselectAfterMute(command: String) throws(TagError) {
    guard let reselecting = link as? any TargetReselecting else { return }
    do {
      try reselecting.reselect()
    } catch {
      throw .transceive(error, command: "reselect after \(command)", address: nil)
    }
  }

  /// Pages the read-only operations on this connection have read (status, info, the message):
  /// `scan` asks for info and then the message, and should read the tag once. Any other
  /// operation (a write, a password) drops it and starts from the tag.
  private var readCache: Type2PageCache?

  func beginReadOperation() throws(TagError) -> Type2PageCache {
    if let readCache { return readCache }
    let memory = try beginOperation()
    readCache = memory
    return memory
  }

  /// The pages a read-only operation of this connection just read, for a write that plans over
  /// them (a status query then a write read the tag once), else a fresh start. They are the tag's
  /// pages: every operation that changes the tag or its access (a write, a password, a
  /// configuration) drops them before its first command.
  func beginWriteOperation() throws(TagError) -> Type2PageCache {
    guard let cached = readCache else { return try beginOperation() }
    readCache = nil
    return cached
  }

  func beginOperation() throws(TagError) -> Type2PageCache {
    readCache = nil
    try identify()
    let fast = link.capabilities.rawCommands && (product?.hasExtendedCommands ?? false)
    return Type2PageCache(commands: commands, pageLimit: product?.totalPages ?? 4,
                          readAheadLimit: product?.userPages.upperBound ?? 3, fastRead: fast,
                          chunkPages: link.capabilities.maxResponseLength / 4)
  }

  /// What pages 0–3 and the TLVs say.
  struct Snapshot: TLVAreaSnapshot {
    var cc: [UInt8]
    /// nil when the CC is not an NDEF CC (`why` says what it is).
    var layout: Result<TLVLayout, TagError>?
    var report: NDEFStatusReport
    var areaEnd: Int
    var why: String
  }

  func analyse(_ memory: Type2PageCache) throws(TagError) -> Snapshot {
    let header = try memory.bytes(in: 0..<16)
    guard header.count == 16 else { throw .malformed("short header", offset: nil) }
    let cc = Array(header[12..<16])
    let lock0 = header[10], lock1 = header[11]
    guard cc[0] == 0xE1, cc[1] >> 4 == 1, cc[2] > 0 else {
      let why = cc == [0, 0, 0, 0]
        ? "the CC (page 3) is empty"
        : "the CC (page 3) holds \(hexString(cc, separator: " ")), not E1 1x with a size"
      return Snapshot(cc: cc, layout: nil, report: NDEFStatusReport(status: .notSupported, capacity: 0),
                      areaEnd: 16, why: why)
    }
    var end = 16 + Int(cc[2]) * 8
    if let product {
      end = min(end, (product.userPages.upperBound + 1) * 4)
    } else {
      end = min(end, 256 * 4)
      memory.extendLimit(to: end / 4)
    }
    memory.readAheadLimit = end / 4 - 1
    let area = TLVArea(start: 16, end: end)
    let readOnly = cc[3] & 0x0F != 0 || lock0 & 0xF0 != 0 || lock1 != 0
    let status: NDEFStatus = readOnly ? .readOnly : .readWrite
    do {
      let layout = try TLVLayout.parse(memory: memory, area: area)
      let report = NDEFStatusReport(status: status, capacity: layout.capacity,
                                    messageLength: layout.ndefTLVAddress == nil ? nil : layout.ndefLength,
                                    tlvAddress: layout.ndefTLVAddress)
      return Snapshot(cc: cc, layout: .success(layout), report: report, areaEnd: end, why: "")
    } catch {
      if error.isTagLost { throw error }
      return Snapshot(cc: cc, layout: .failure(error), report: NDEFStatusReport(status: status, capacity: 0),
                      areaEnd: end, why: "\(error)")
    }
  }

  /// Writes `plan` page by page in tear-safe order, skipping unchanged pages, then verifies. The
  /// pages the plan fills are read first only when a read round trip brings more than one page
  /// (not on the uTrust 3700 F: ``TLVWritePlan/blocksToRead(blockSize:comparing:)``).
  func commit(_ plan: TLVWritePlan, area: TLVArea, memory: Type2PageCache, verify: Bool) throws(TagError) {
    let blocks = plan.touchedBlocks(blockSize: 4)
    guard let low = blocks.first, let high = blocks.last else { return }
    guard low >= 4, (high + 1) * 4 <= area.end else {
      throw .malformed("a write outside the data area was planned (pages \(low)…\(high))", offset: nil)
    }
    let comparing = memory.pagesPerRoundTrip(link.capabilities) > 1
    if comparing { _ = try memory.bytes(in: low * 4 ..< (high + 1) * 4) }
    var current: [Int: [UInt8]] = [:]
    for block in plan.blocksToRead(blockSize: 4, comparing: comparing) { current[block] = try memory.page(block) }
    for block in blocks where current[block] == nil { current[block] = memory.cachedPage(block) }
    let writes = try plan.orderedWrites(blockSize: 4, current: current)
    var progress = TransferProgress.Counter(.writing, total: writes.count * 4)
    for write in writes {
      try memory.write(page: write.block, write.bytes)
      progress.advance(by: 4)
    }
    if verify { try memory.verify(pages: writes.map(\.block)) }
  }

  /// Writes `tlvs` from page 4 on over what is there (formatting), unchanged pages skipped.
  private func writeFresh(_ tlvs: [UInt8], memory: Type2PageCache, areaEnd: Int) throws(TagError) {
    guard 16 + tlvs.count <= areaEnd else {
      throw .insufficientCapacity(needed: tlvs.count, capacity: max(0, areaEnd - 16))
    }
    let pageCount = (tlvs.count + 3) / 4
    let old = try memory.bytes(in: 16 ..< 16 + pageCount * 4)
    var new = old
    for (i, byte) in tlvs.enumerated() { new[i] = byte }
    for p in 0..<pageCount {
      let slice = Array(new[(p * 4)..<(p * 4 + 4)])
      if slice != Array(old[(p * 4)..<(p * 4 + 4)]) { try memory.write(page: 4 + p, slice) }
    }
  }

  /// The data-area size (CC byte 2) of a blank chip that did not say what it is: READ of page
  /// 10h fails or wraps to page 0 on 16-page chips (48 bytes); else 144 bytes (NTAG203,
  /// Ultralight C).
  private func probeDataAreaSize(_ memory: Type2PageCache, header: [UInt8]) throws(TagError) -> UInt8 {
    do {
      let reply = try commands.read(page: 0x10)
      return reply == header ? 0x06 : 0x12
    } catch {
      if error.isTagLost, case .transceive(let inner, _, _) = error, inner != .timeout { throw error }
      try reselectAfterMute(command: "READ")
      return 0x06
    }
  }
}
