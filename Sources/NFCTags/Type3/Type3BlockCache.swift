import NFCTransport

/// The blocks read in one operation: fetched in as few Checks as the limit allows, never twice.
final class Type3BlockCache {
  let commands: Type3Commands
  /// Blocks per Check.
  var limit: Int
  private var blocks: [Int: [UInt8]] = [:]
  /// Counts the blocks fetched for an operation that reports its progress (a whole-memory read).
  var progress: TransferProgress.Counter?

  init(commands: Type3Commands, limit: Int) {
    self.commands = commands
    self.limit = max(1, limit)
  }

  /// Starts counting a read of `numbers`: the blocks already cached count as done.
  func reportProgress(reading numbers: [Int]) {
    var counter = TransferProgress.Counter(.reading, total: numbers.count * 16)
    counter.advance(by: numbers.filter { blocks[$0] != nil }.count * 16)
    progress = counter
  }

  /// Reads the blocks of `numbers` not cached yet, `limit` per Check, in the order given.
  func fetch(_ numbers: [Int]) throws(TagError) {
    var missing: [Int] = []
    for n in numbers where blocks[n] == nil && !missing.contains(n) { missing.append(n) }
    var start = 0
    while start < missing.count {
      let chunk = Array(missing[start..<min(missing.count, start + limit)])
      let data = try commands.check(chunk)
      for (i, n) in chunk.enumerated() { blocks[n] = Array(data[(i * 16)..<(i * 16 + 16)]) }
      progress?.advance(by: chunk.count * 16)
      start += chunk.count
    }
  }

  /// Fetches `numbers`, with `optional` in the same Checks where the limit allows. A Check the
  /// tag refuses with status flags (a block it gives only after authentication) is tried again
  /// without the optional blocks: a block that saves a round trip never fails an operation that
  /// does not need it. The optional blocks are then read when needed.
  func fetch(_ numbers: [Int], prefetching optional: [Int]) throws(TagError) {
    do {
      try fetch(numbers + optional)
    } catch {
      guard !optional.isEmpty, case .transceive(.status, _, _) = error else { throw error }
      try fetch(numbers)
    }
  }

  /// A block, read when not cached.
  func block(_ n: Int) throws(TagError) -> [UInt8] {
    if let b = blocks[n] { return b }
    try fetch([n])
    guard let b = blocks[n] else { throw .malformed("block \(n) was not answered", offset: n * 16) }
    return b
  }

  /// Update of consecutive or single blocks in one command; the cache follows.
  func write(_ writes: [(Int, [UInt8])]) throws(TagError) {
    guard !writes.isEmpty else { return }
    try commands.update(writes.map(\.0), data: writes.flatMap(\.1))
    for (n, data) in writes { blocks[n] = data }
  }
}
