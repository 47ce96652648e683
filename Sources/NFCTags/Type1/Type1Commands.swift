import NFCTransport

/// The Type 1 (Topaz) command set as frames the tag receives: command, address, data, UID0–UID3,
/// without CRC (nfcpy `tt1.py`; libnfc `jewel.h`).
///
/// Each method checks the answer's shape and maps link failures to ``TagError/transceive(_:command:address:)``.
struct Type1Commands {
  let link: any Transceiver
  /// UID0–UID3: what the tag compares with the UID field of every command but RID.
  var uid: [UInt8]

  private static let zeros8 = [UInt8](repeating: 0, count: 8)

  private func send(_ frame: [UInt8], _ name: String, address: Int?, writes: Bool = false) throws(TagError) -> [UInt8] {
    do {
      return try link.transceive(frame)
    } catch .nak(let code) where writes {
      throw .writeRefused(.nak(code), command: name, address: address)
    } catch {
      throw .transceive(error, command: name, address: address)
    }
  }

  /// RALL (00h): `HR0 HR1` and the 120 bytes of blocks 0–E.
  func readAll() throws(TagError) -> [UInt8] {
    let answer = try send([0x00, 0x00, 0x00] + uid, "RALL", address: nil)
    guard answer.count == 122 else {
      throw .transceive(.malformedResponse(answer), command: "RALL", address: nil)
    }
    return answer
  }

  /// READ8 (02h): the 8 bytes of `block`.
  func read8(block: Int) throws(TagError) -> [UInt8] {
    let answer = try send([0x02, UInt8(truncatingIfNeeded: block)] + Self.zeros8 + uid, "READ8", address: block * 8)
    guard answer.count == 9, answer.first == UInt8(truncatingIfNeeded: block) else {
      throw .transceive(.malformedResponse(answer), command: "READ8", address: block * 8)
    }
    return Array(answer.dropFirst())
  }

  /// RSEG (10h): the 128 bytes of `segment` (ADDS high nibble).
  func readSegment(_ segment: Int) throws(TagError) -> [UInt8] {
    let adds = UInt8(truncatingIfNeeded: segment << 4)
    let answer = try send([0x10, adds] + Self.zeros8 + uid, "RSEG", address: segment * 128)
    guard answer.count == 129, answer.first == adds else {
      throw .transceive(.malformedResponse(answer), command: "RSEG", address: segment * 128)
    }
    return Array(answer.dropFirst())
  }

  /// WRITE-E (53h) or WRITE-NE (1Ah) of one byte at `address` (0–127); returns the byte the tag
  /// reports after the write.
  func writeByte(_ value: UInt8, at address: Int, erase: Bool) throws(TagError) -> UInt8 {
    let name = erase ? "WRITE-E" : "WRITE-NE"
    guard (0..<128).contains(address) else {
      throw .malformed("\(name) addresses bytes 0-127, not \(address)", offset: nil)
    }
    let answer = try send([erase ? 0x53 : 0x1A, UInt8(address), value] + uid, name, address: address, writes: true)
    guard answer.count == 2, answer[0] == UInt8(address) else {
      throw .transceive(.malformedResponse(answer), command: name, address: address)
    }
    return answer[1]
  }

  /// WRITE-E8 (54h) or WRITE-NE8 (1Bh) of `block`; returns the 8 bytes the tag reports after the write.
  func writeBlock(_ block: Int, _ data: [UInt8], erase: Bool) throws(TagError) -> [UInt8] {
    let name = erase ? "WRITE-E8" : "WRITE-NE8"
    guard data.count == 8, (0..<256).contains(block) else {
      throw .malformed("\(name) writes 8 bytes to blocks 0-255", offset: nil)
    }
    let answer = try send([erase ? 0x54 : 0x1B, UInt8(block)] + data + uid, name, address: block * 8, writes: true)
    guard answer.count == 9, answer.first == UInt8(block) else {
      throw .transceive(.malformedResponse(answer), command: name, address: block * 8)
    }
    return Array(answer.dropFirst())
  }
}

/// Type 1 memory read lazily in as few exchanges as the tag and link allow, for one operation.
///
/// Blocks 0–E come with one RALL; further blocks with READ8, or with RSEG when the link carries a
/// 129-byte answer and two or more blocks of the segment are wanted. Blocks named in
/// ``skippable`` (wholly reserved, never NDEF bytes) read as zeros unless fetched explicitly.
final class Type1Memory: TLVMemory {
  var commands: Type1Commands
  /// `HR0 HR1`, after ``loadStatic()``.
  private(set) var headerROM: [UInt8] = []
  private(set) var blocks: [Int: [UInt8]] = [:]
  /// One past the last address that may be read.
  var limit: Int = 120
  /// Blocks read as zeros when not loaded (reserved blocks a message read passes over).
  var skippable: Set<Int> = []
  /// Counts the bytes fetched for an operation that reports its progress (a whole-memory read).
  var progress: TransferProgress.Counter?
  private let nativeSegments: Bool

  init(commands: Type1Commands) {
    self.commands = commands
    nativeSegments = commands.link.capabilities.maxResponseLength >= 129
  }

  var isDynamic: Bool { (headerROM.first ?? 0) & 0x0F != 1 }

  /// RALL once: header ROM and blocks 0–E; the UID for later commands comes from block 0.
  func loadStatic() throws(TagError) {
    guard headerROM.isEmpty else { return }
    let answer = try commands.readAll()
    headerROM = Array(answer[0..<2])
    for b in 0..<15 { blocks[b] = Array(answer[(2 + b * 8)..<(10 + b * 8)]) }
    commands.uid = Array(answer[2..<6])
  }

  /// Fetches the blocks of `wanted` that are not loaded yet.
  func fetch(_ wanted: some Sequence<Int>) throws(TagError) {
    let missing = Set(wanted).filter { blocks[$0] == nil }.sorted()
    guard let first = missing.first else { return }
    if first < 15 { try loadStatic() }
    guard isDynamic else {
      if let beyond = missing.first(where: { $0 >= 15 }) {
        throw .malformed("block \(beyond) is beyond the 120-byte static memory", offset: nil)
      }
      return
    }
    var handled = Set<Int>()
    for block in missing where block >= 15 && !handled.contains(block) {
      guard block * 8 < limit else {
        throw .malformed("block \(block) is beyond the \(limit)-byte memory", offset: nil)
      }
      let segment = block / 16
      let inSegment = missing.filter { $0 / 16 == segment && $0 >= 15 }
      if nativeSegments, inSegment.count >= 2, (segment + 1) * 128 <= limit {
        let data = try commands.readSegment(segment)
        var fetched = 0
        for i in 0..<16 where blocks[segment * 16 + i] == nil {
          blocks[segment * 16 + i] = Array(data[(i * 8)..<(i * 8 + 8)])
          fetched += 8
        }
        handled.formUnion(inSegment)
        progress?.advance(by: fetched)
      } else {
        blocks[block] = try commands.read8(block: block)
        handled.insert(block)
        progress?.advance(by: 8)
      }
    }
  }

  /// The 8 bytes of `block`, fetched when needed.
  func block(_ block: Int) throws(TagError) -> [UInt8] {
    try fetch([block])
    guard let data = blocks[block] else { throw .malformed("block \(block) unreadable", offset: nil) }
    return data
  }

  func bytes(in range: Range<Int>) throws(TagError) -> [UInt8] {
    guard range.lowerBound >= 0, range.upperBound <= limit else {
      throw .malformed("\(byteSpan(range)) \(range.count == 1 ? "is" : "are") beyond the \(limit)-byte memory", offset: nil)
    }
    guard !range.isEmpty else { return [] }
    // The TLV walk reads one byte at a time: a loaded byte is answered without building sets.
    if range.count == 1, let data = blocks[range.lowerBound / 8], range.lowerBound % 8 < data.count {
      return [data[range.lowerBound % 8]]
    }
    let wanted = (range.lowerBound / 8)...((range.upperBound - 1) / 8)
    if wanted.contains(where: { blocks[$0] == nil && !skippable.contains($0) }) {
      try fetch(wanted.filter { !skippable.contains($0) })
    }
    var out: [UInt8] = []
    out.reserveCapacity(range.count)
    for b in wanted {
      let data = blocks[b] ?? [UInt8](repeating: 0, count: 8)
      out += data
    }
    let start = range.lowerBound - wanted.lowerBound * 8
    return Array(out[start..<(start + range.count)])
  }

  /// Starts counting a read of the first `size` bytes: the blocks already loaded count as done.
  func reportProgress(reading size: Int) {
    var counter = TransferProgress.Counter(.reading, total: size)
    counter.advance(by: (0 ..< (size + 7) / 8).filter { blocks[$0] != nil }.count * 8)
    progress = counter
  }

  /// Records what the tag reported after a write.
  func update(block: Int, _ data: [UInt8]) { blocks[block] = data }

  /// Records one byte the tag reported after a write (the block must be loaded).
  func update(address: Int, _ value: UInt8) { blocks[address / 8]?[address % 8] = value }

  /// The byte at `address` when its block is loaded.
  func cached(_ address: Int) -> UInt8? { blocks[address / 8]?[address % 8] }
}
