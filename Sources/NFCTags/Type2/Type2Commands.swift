import NFCTransport

/// The Type 2 command layer: one function per tag command, answers validated.
///
/// Source: NFC Forum T2T 1.0 §5; NXP NTAG213/215/216 data sheet §10.
struct Type2Commands {
  let link: any Transceiver

  private func exchange(_ command: [UInt8], name: String, address: Int?) throws(TagError) -> [UInt8] {
    do {
      return try link.transceive(command)
    } catch .nak(let code) where command.first == 0x30 || command.first == 0x3A {
      // READ and FAST_READ of pages the tag has are refused only behind a password (PROT, AUTH0).
      throw .readRefused(.nak(code), command: name, address: address)
    } catch {
      throw .transceive(error, command: name, address: address)
    }
  }

  private func pageByte(_ page: Int, command: String) throws(TagError) -> UInt8 {
    guard let byte = UInt8(exactly: page) else {
      throw .unsupported("\(command) of page \(page): pages beyond FFh need SECTOR_SELECT, which is not supported")
    }
    return byte
  }

  /// READ (30h): 16 bytes, pages `page`…`page + 3` (wrapping past the last page).
  func read(page: Int) throws(TagError) -> [UInt8] {
    let pg = try pageByte(page, command: "READ")
    let reply = try exchange([0x30, pg], name: "READ", address: page)
    guard reply.count == 16 else {
      throw .transceive(.malformedResponse(reply), command: "READ", address: page)
    }
    return reply
  }

  /// FAST_READ (3Ah): pages `start`…`end`, (end − start + 1) × 4 bytes.
  func fastRead(from start: Int, to end: Int) throws(TagError) -> [UInt8] {
    let s = try pageByte(start, command: "FAST_READ")
    let e = try pageByte(end, command: "FAST_READ")
    guard s <= e else { throw .unsupported("FAST_READ from page \(start) to \(end)") }
    let reply = try exchange([0x3A, s, e], name: "FAST_READ", address: start)
    guard reply.count == (end - start + 1) * 4 else {
      throw .transceive(.malformedResponse(reply), command: "FAST_READ", address: start)
    }
    return reply
  }

  /// WRITE (A2h): one page; the tag answers a 4-bit ACK, which links return as `[0x0A]`.
  func write(page: Int, _ data: [UInt8]) throws(TagError) {
    let pg = try pageByte(page, command: "WRITE")
    guard data.count == 4 else { throw .unsupported("WRITE of \(data.count) bytes to page \(page); a page is 4 bytes") }
    let reply: [UInt8]
    do {
      reply = try link.transceive([0xA2, pg] + data)
    } catch .nak(let code) {
      throw .writeRefused(.nak(code), command: "WRITE", address: page)
    } catch {
      throw .transceive(error, command: "WRITE", address: page)
    }
    guard reply == [0x0A] else {
      throw .transceive(.malformedResponse(reply), command: "WRITE", address: page)
    }
  }

  /// GET_VERSION (60h): 8 bytes. Tags that do not know it go mute.
  func getVersion() throws(TagError) -> [UInt8] {
    let reply = try exchange([0x60], name: "GET_VERSION", address: nil)
    guard reply.count == 8 else {
      throw .transceive(.malformedResponse(reply), command: "GET_VERSION", address: nil)
    }
    return reply
  }

  /// READ_SIG (3Ch 00h): the 32-byte ECC originality signature.
  func readSignature() throws(TagError) -> [UInt8] {
    let reply = try exchange([0x3C, 0x00], name: "READ_SIG", address: nil)
    guard reply.count == 32 else {
      throw .transceive(.malformedResponse(reply), command: "READ_SIG", address: nil)
    }
    return reply
  }

  /// PWD_AUTH (1Bh): answers PACK (2 bytes); a NAK or silence means the password was refused.
  func passwordAuth(_ password: [UInt8]) throws(TagError) -> [UInt8] {
    guard password.count == 4 else {
      throw .unsupported("a Type 2 password is 4 bytes, not \(password.count)")
    }
    let reply: [UInt8]
    do {
      reply = try link.transceive([0x1B] + password)
    } catch {
      switch error {
      case .nak, .timeout:
        throw .authenticationFailed("the tag refused the password (\(error))")
      default:
        throw .transceive(error, command: "PWD_AUTH", address: nil)
      }
    }
    guard reply.count == 2 else {
      throw .transceive(.malformedResponse(reply), command: "PWD_AUTH", address: nil)
    }
    return reply
  }
}

/// A lazily filled page cache over a Type 2 tag: the ``TLVMemory`` the TLV walker reads.
///
/// Missing pages are fetched with FAST_READ in chunks of `chunkPages` (the link's longest answer
/// / 4) when the chip has it, else with READ (4 pages each). Small requests (≤ 16 bytes, the TLV
/// walk) read ahead up to `readAheadLimit`; larger ones read exactly what they name. A page is
/// never fetched twice while it is cached.
final class Type2PageCache: TLVMemory {
  let commands: Type2Commands
  /// Pages known to exist: reads at or beyond are refused.
  private(set) var pageLimit: Int
  /// Last page a small read may fetch ahead to (the data area's end; never the footer pages).
  var readAheadLimit: Int
  let fastRead: Bool
  let chunkPages: Int
  private(set) var pages: [Int: [UInt8]] = [:]
  /// Counts the pages fetched for an operation that reports its progress (a whole-memory read).
  var progress: TransferProgress.Counter?

  init(commands: Type2Commands, pageLimit: Int, readAheadLimit: Int, fastRead: Bool, chunkPages: Int) {
    self.commands = commands
    self.pageLimit = min(pageLimit, 256)
    self.readAheadLimit = readAheadLimit
    self.fastRead = fastRead
    self.chunkPages = max(1, chunkPages)
  }

  /// Starts counting a read of `range` (pages): the pages already cached count as done.
  func reportProgress(reading range: Range<Int>) {
    var counter = TransferProgress.Counter(.reading, total: range.count * 4)
    counter.advance(by: range.filter { pages[$0] != nil }.count * 4)
    progress = counter
  }

  /// Allows reads up to page `limit − 1` (unknown chips, once the CC told the size).
  func extendLimit(to limit: Int) { pageLimit = max(pageLimit, min(limit, 256)) }

  /// Makes sure pages `range` are cached.
  func ensure(_ range: ClosedRange<Int>, readAhead: Bool) throws(TagError) {
    guard range.lowerBound >= 0, range.upperBound < pageLimit else {
      throw .malformed("page \(range.upperBound) is beyond the tag's \(pageLimit) pages", offset: nil)
    }
    var page = range.lowerBound
    while page <= range.upperBound {
      if pages[page] != nil { page += 1; continue }
      if fastRead {
        let bound = readAhead ? min(pageLimit - 1, max(range.upperBound, readAheadLimit)) : range.upperBound
        var end = page
        while end + 1 <= bound, end + 1 - page < chunkPages, pages[end + 1] == nil { end += 1 }
        let data = try commands.fastRead(from: page, to: end)
        for i in 0...(end - page) { pages[page + i] = Array(data[(i * 4)..<(i * 4 + 4)]) }
        progress?.advance(by: data.count)
        page = end + 1
      } else {
        let data = try commands.read(page: page)
        var fetched = 0
        for i in 0..<4 where page + i < pageLimit && pages[page + i] == nil {
          pages[page + i] = Array(data[(i * 4)..<(i * 4 + 4)])
          fetched += 4
        }
        progress?.advance(by: fetched)
        page += 1
      }
    }
  }

  /// One cached (or fetched) page.
  func page(_ number: Int) throws(TagError) -> [UInt8] {
    try ensure(number...number, readAhead: false)
    guard let contents = pages[number] else { throw .malformed("page \(number) missing", offset: nil) }
    return contents
  }

  func bytes(in range: Range<Int>) throws(TagError) -> [UInt8] {
    guard !range.isEmpty else { return [] }
    guard range.lowerBound >= 0 else { throw .malformed("negative address", offset: nil) }
    // The TLV walk reads one byte at a time: a cached byte is answered without copying its page.
    if range.count == 1, let contents = pages[range.lowerBound / 4], range.lowerBound % 4 < contents.count {
      return [contents[range.lowerBound % 4]]
    }
    let first = range.lowerBound / 4
    let last = (range.upperBound - 1) / 4
    try ensure(first...last, readAhead: range.count <= 16)
    var out: [UInt8] = []
    out.reserveCapacity((last - first + 1) * 4)
    for p in first...last {
      guard let contents = pages[p] else { throw .malformed("page \(p) missing", offset: nil) }
      out += contents
    }
    let offset = range.lowerBound - first * 4
    return Array(out[offset..<(offset + range.count)])
  }

  /// The page `number` when it is cached; nil without a round trip otherwise.
  func cachedPage(_ number: Int) -> [UInt8]? { pages[number] }

  /// The pages one read round trip brings: a FAST_READ's chunk, else a READ's 4 pages over as many
  /// round trips as the link needs for its 16 bytes (`maxResponseLength` of them per round trip:
  /// 4 on a reader whose READ BINARY answers one page).
  func pagesPerRoundTrip(_ capabilities: LinkCapabilities) -> Int {
    fastRead ? chunkPages : max(1, min(16, capabilities.maxResponseLength) / 4)
  }

  /// Writes one page and caches the new contents.
  func write(page: Int, _ data: [UInt8]) throws(TagError) {
    try commands.write(page: page, data)
    pages[page] = data
  }

  /// Reads `written` pages back (their whole span, one request) and compares with the cache.
  /// - Throws: ``TagError/verifyFailed(address:)`` at the first differing byte.
  func verify(pages written: [Int]) throws(TagError) {
    guard let low = written.min(), let high = written.max() else { return }
    var expected: [Int: [UInt8]] = [:]
    for p in low...high {
      expected[p] = pages[p]
      pages[p] = nil
    }
    try ensure(low...high, readAhead: false)
    for p in low...high {
      guard let want = expected[p], let got = pages[p] else { continue }
      for i in 0..<min(want.count, got.count) where want[i] != got[i] {
        throw .verifyFailed(address: p * 4 + i)
      }
    }
  }
}
