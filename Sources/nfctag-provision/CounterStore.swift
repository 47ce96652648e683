import NFCTagCLI

/// `sdm verify --counter-store FILE`: the last SDMReadCtr accepted for each UID, so that a URL seen
/// before (or an older one) is refused as a replay.
///
/// The file is text, one `UID COUNTER` line per tag (lowercase hex UID, decimal counter), and holds
/// nothing else: no key, no URL. Each acceptance rewrites it whole: a temporary file beside it,
/// written and synced, then renamed over it, so a crash leaves the old file or the new one, never
/// half of one. `FILE.lock` (flock) keeps two verifications of the same store one after the other.
struct CounterStore {
  let path: String

  /// Accepts `counter` for `uid` when it is above the last one accepted, and records it.
  ///
  /// - Returns: nil when accepted; else the last counter accepted for that UID.
  /// - Throws: 65 for a damaged store, 73 when it cannot be written, 66 when it cannot be read.
  func accept(uid: String, counter: UInt32) throws(CLIFailure) -> UInt32? {
    let lock = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard lock >= 0 else { throw failure(FailureReason.unwritableFile, "cannot create \(sanitizeLine(path)).lock") }
    defer { close(lock) }
    while flock(lock, LOCK_EX) != 0 {
      guard errno == EINTR else { throw failure(FailureReason.unwritableFile, "cannot lock \(sanitizeLine(path)).lock") }
    }
    var entries = try load()
    if let last = entries[uid], counter <= last { return last }
    entries[uid] = counter
    try save(entries)
    return nil
  }

  /// The store's entries; empty when the file does not exist yet.
  func load() throws(CLIFailure) -> [String: UInt32] {
    guard access(path, F_OK) == 0 else { return [:] }
    guard let bytes = readInput(path) else { throw failure(FailureReason.unreadableFile, "cannot read the counter store \(sanitizeLine(path))") }
    var entries: [String: UInt32] = [:]
    for (index, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: true).enumerated() {
      let fields = line.split(separator: 0x20)
      guard fields.count == 2, let uid = fields.first, uid.count == 14,
            uid.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
            let counter = UInt32(String(decoding: fields[1], as: UTF8.self)), counter <= 0xFF_FFFF else {
        throw CLIFailure(.malformedInput("the counter store \(sanitizeLine(path)) is damaged at line \(index + 1)"))
      }
      entries[String(decoding: uid, as: UTF8.self)] = counter
    }
    return entries
  }

  private func save(_ entries: [String: UInt32]) throws(CLIFailure) {
    let text = entries.keys.sorted().map { "\($0) \(entries[$0] ?? 0)\n" }.joined()
    let temporary = "\(path).tmp.\(getpid())"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw failure(FailureReason.unwritableFile, "cannot write the counter store \(sanitizeLine(path))") }
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
      let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else {
        close(fd)
        unlink(temporary)
        throw failure(FailureReason.unwritableFile, "cannot write the counter store \(sanitizeLine(path))")
      }
      bytes = bytes.dropFirst(n)
    }
    let synced = fsync(fd) == 0
    close(fd)
    guard synced, rename(temporary, path) == 0 else {
      unlink(temporary)
      throw failure(FailureReason.unwritableFile, "cannot write the counter store \(sanitizeLine(path))")
    }
  }

  private func failure(_ reason: (String) -> FailureReason, _ what: String) -> CLIFailure {
    CLIFailure(reason("\(what): \(String(cString: strerror(errno)))"))
  }
}
