import NFCTransport

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

  /// Block `n` when it is cached; nil without a round trip otherwise.
  func cachedBlock(_ n: Int) -> [UInt8]? { blocks[n] }

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
