import NFCTransport

/// `info` on a Type 2 tag: the facts of the whole memory, or, when reads are password-protected
/// and no password was given, what the tag lets be read.
extension Type2Tag {
  /// Chip, CC, lock bytes, TLVs, password configuration and originality signature.
  ///
  /// An NTAG21x whose reads are protected (PROT, AUTH0) refuses the first read that reaches a
  /// protected page. Then the tag is reselected (a refusal leaves it idle), the first protected
  /// page is found by single-page reads (a binary search: about eight), the pages before it are
  /// read, and the result says what they hold with ``TagInfo/readProtectedFrom`` set.
  public func info() throws(TagError) -> TagInfo {
    let memory = try beginReadOperation()
    let snapshot: Snapshot
    do throws(TagError) {
      snapshot = try analyse(memory)
      // `info` needs the data area (docs/faults.md). A read of it that failed (the reader's
      // answer or the tag's refusal, not TLVs that do not parse) fails the command as a failed
      // read of the CC does: on a reader that brings the CC in a read of its own (READ BINARY of
      // 16 bytes or fewer), it is not a data area of 0 bytes.
      if case .failure(let error)? = snapshot.layout {
        switch error {
        case .transceive, .readRefused: throw error
        default: break
        }
      }
    } catch .readRefused(let cause, let command, let address) {
      guard let product else { throw .readRefused(cause, command: command, address: address) }
      let partial = try readProtectedInfo(product: product, refused: command)
      // Every page reads now: the refusal was not AUTH0's doing (a fault on the way); say what it was.
      guard let first = partial.readProtectedFrom, first < product.totalPages else {
        throw .readRefused(cause, command: command, address: address)
      }
      return partial
    }
    var report = snapshot.report
    var details: [TagInfoFact] = []
    if let result = snapshot.layout {
      if case .success(let layout) = result {
        details.append(TagInfoFact("Data area", key: "dataArea", text: "\(layout.area.size) bytes (CC)",
                                   value: .span(layout.area.start ..< layout.area.end)))
      } else {
        report = NDEFStatusReport(status: report.status, capacity: 0, messageLength: nil)
      }
      details.append(.tlvs(result))
    } else {
      details.append(.ndefProblem(snapshot.why))
    }
    if let product {
      details.append(TagInfoFact("User memory", key: "userMemory", text: "\(product.userMemorySize) bytes",
                                 value: .number(product.userMemorySize)))
    }
    let lock = try memory.bytes(in: 8..<12)
    var locks: [TagInfoFact] = [staticLockFact(Array(lock[2..<4]))]
    if let page = product?.dynamicLockPage {
      if let dyn = try unlessRemoved({ () throws(TagError) in try memory.page(page) }) {
        let bytes = Array(dyn[0..<3])
        let extent = product?.dynamicLockExtent(bytes) ?? lockExtent(bytes, all: false)
        locks.append(TagInfoFact("Dynamic lock bytes", key: "dynamicLock",
                                 text: "dynamic lock bytes \(hexString(bytes, separator: " ")) (\(extent) set)",
                                 value: .members(["bytes": .bytes(bytes), "set": .string(extent)])))
      } else {
        locks.append(TagInfoFact("Dynamic lock bytes", key: "dynamicLock", text: "dynamic lock bytes unreadable", value: .null))
      }
    }
    locks.append(ccWriteAccessFact(snapshot.cc[3] & 0x0F))
    if let product, let cfg0 = product.cfg0Page, let cfg1 = product.cfg1Page,
       let cfg = try unlessRemoved({ () throws(TagError) in try memory.bytes(in: cfg0 * 4 ..< (cfg1 + 1) * 4) }), cfg.count == 8 {
      details.append(passwordProtectionFact(auth0: cfg[3], access: cfg[4], product: product))
    }
    if link.capabilities.rawCommands, product?.hasExtendedCommands == true,
       let signature = try unlessRemoved({ () throws(TagError) in try commands.readSignature() }), !signature.allSatisfy({ $0 == 0 }) {
      // READ_SIG (3Ch), NXP ECC
      details.append(TagInfoFact("Originality signature", key: "originalitySignature", text: hexString(signature),
                                 value: .bytes(signature)))
    }
    let memorySize: Int
    if let product {
      memorySize = product.totalPages * 4
    } else {
      memorySize = snapshot.layout != nil ? snapshot.areaEnd : 64
    }
    return TagInfo(platform: .type2, chip: chipName, identifier: identifier, memorySize: memorySize,
                   ndef: report, capabilityContainer: snapshot.cc, version: version,
                   locks: locks, details: details)
  }

  /// Static lock bytes (page 2 bytes 2–3): none, some or all pages locked.
  func staticLockFact(_ bytes: [UInt8]) -> TagInfoFact {
    let all = bytes.count == 2 && bytes[0] & 0xF8 == 0xF8 && bytes[1] == 0xFF
    let extent = lockExtent(bytes, all: all)
    let words = extent == "none" ? "none set" : (extent == "all" ? "all pages locked" : "some pages locked")
    return TagInfoFact("Static lock bytes", key: "staticLock",
                       text: "static lock bytes \(hexString(bytes, separator: " ")) (\(words))",
                       value: .members(["bytes": .bytes(bytes), "locked": .string(extent)]))
  }

  /// The CC's write access nibble (byte 3, bits 3–0).
  func ccWriteAccessFact(_ access: UInt8) -> TagInfoFact {
    let meaning = access == 0 ? "granted" : (access == 0x0F ? "readOnly" : "proprietary")
    let words = access == 0 ? "granted" : (access == 0x0F ? "read-only" : "proprietary")
    return TagInfoFact("CC write access", key: "ccWriteAccess",
                       text: "CC write access \(hexString([access]).dropFirst()) (\(words))",
                       value: accessValue(access, meaning: meaning))
  }

  /// AUTH0 and PROT: from which page the password protects writes, or reads and writes.
  func passwordProtectionFact(auth0: UInt8, access: UInt8, product: Type2Product) -> TagInfoFact {
    if Int(auth0) >= product.totalPages {
      return TagInfoFact("Password protection", key: "passwordProtection", text: "off (AUTH0 \(hexString([auth0])))",
                         value: .members(["protects": .string("nothing"), "auth0": .number(Int(auth0))]))
    }
    let reads = access & 0x80 != 0
    return TagInfoFact("Password protection", key: "passwordProtection",
                       text: "\(reads ? "reads and writes" : "writes") from page \(hexString([auth0])) (AUTH0)",
                       value: .members(["protects": .string(reads ? "readsAndWrites" : "writes"),
                                        "auth0": .number(Int(auth0))]))
  }


  /// What a read-protected tag shows without its password: GET_VERSION, the pages before AUTH0.
  private func readProtectedInfo(product: Type2Product, refused command: String) throws(TagError) -> TagInfo {
    try reselectAfterMute(command: command)
    let first = try firstReadProtectedPage(product)
    let bytes = try readPages(below: first)
    var locks: [TagInfoFact] = []
    var cc: [UInt8] = []
    var status = NDEFStatus.notSupported
    if bytes.count >= 12 { locks.append(staticLockFact(Array(bytes[10..<12]))) }
    if let page = product.dynamicLockPage {
      let readable = page < first
      let dynamic = readable ? Array(bytes[(page * 4)..<(page * 4 + 3)]) : []
      let set = product.dynamicLockExtent(dynamic)
      locks.append(TagInfoFact("Dynamic lock bytes", key: "dynamicLock",
                               text: readable ? "dynamic lock bytes \(hexString(dynamic, separator: " ")) (\(set) set)"
                                 : "dynamic lock bytes read-protected",
                               value: readable ? .members(["bytes": .bytes(dynamic), "set": .string(set)]) : .null))
    }
    if bytes.count >= 16 {
      cc = Array(bytes[12..<16])
      locks.append(ccWriteAccessFact(cc[3] & 0x0F))
      if cc[0] == 0xE1 { status = cc[3] & 0x0F == 0 && bytes[10] & 0xF0 == 0 && bytes[11] == 0 ? .readWrite : .readOnly }
    }
    let readable = first == 0 ? "none" : (first == 1 ? "page 0" : "pages 0–\(first - 1)")
    let details = [
      TagInfoFact("Readable pages", key: "readablePages", text: "\(readable) (the rest needs the password)",
                  value: .members(["first": .number(0), "count": .number(first)])),
      TagInfoFact("User memory", key: "userMemory", text: "\(product.userMemorySize) bytes", value: .number(product.userMemorySize)),
      passwordProtectionFact(auth0: UInt8(clamping: first), access: 0x80, product: product),
    ]
    return TagInfo(platform: .type2, chip: chipName, identifier: identifier, memorySize: product.totalPages * 4,
                   ndef: NDEFStatusReport(status: status, capacity: 0), capabilityContainer: cc, version: version,
                   locks: locks, details: details, readProtectedFrom: first)
  }

  /// The first page the tag refuses to read: reads are refused from AUTH0 on, so one binary
  /// search with single-page reads finds it.
  private func firstReadProtectedPage(_ product: Type2Product) throws(TagError) -> Int {
    var low = 0, high = product.totalPages  // pages below `low` read; `high` is refused (or the end)
    while low < high {
      let middle = (low + high) / 2
      if try canRead(page: middle) { low = middle + 1 } else { high = middle }
    }
    return low
  }

  /// Whether `page` reads without a password; a refusal reselects the tag.
  private func canRead(page: Int) throws(TagError) -> Bool {
    do {
      if fastReads { _ = try commands.fastRead(from: page, to: page) } else { _ = try commands.read(page: page) }
      return true
    } catch .readRefused {
      try reselectAfterMute(command: fastReads ? "FAST_READ" : "READ")
      return false
    }
  }

  /// Pages 0 up to `end` (excluded), in FAST_READ chunks or READs of four pages.
  private func readPages(below end: Int) throws(TagError) -> [UInt8] {
    var bytes: [UInt8] = []
    let chunk = fastReads ? max(1, link.capabilities.maxResponseLength / 4) : 4
    var page = 0
    while page < end {
      let last = min(end, page + chunk) - 1
      let read = fastReads ? try commands.fastRead(from: page, to: last) : try commands.read(page: page)
      bytes += read.prefix((last - page + 1) * 4)
      page = last + 1
    }
    return bytes
  }

  private var fastReads: Bool { link.capabilities.rawCommands && (product?.hasExtendedCommands ?? false) }
}
