import Locking
import Logging
import NDEF
import NFCReaders
import NFCTransport

/// A command's APDU trace (`--trace`): the readers' events (``APDUTraceEvent``, as data), printed
/// as they come or, for a command that reads a tag (`read`, `scan`, `dump`), held back until the
/// message is known, so that the bytes of a Wi-Fi network key in the tag's answers are masked
/// before anything is printed.
///
/// The key is found in the answers as the reader returned them: whole in one answer, or split
/// across consecutive answers (a key longer than a page, block or READ BINARY chunk), each piece
/// ending its answer but for a status word (at most 2 bytes) and starting after the next answer's
/// header (at most ``maximumHeader`` bytes: the PN532's `D5 43 00`, a FeliCa response header, a
/// Part 3 response's data objects). Every byte of every such occurrence becomes `**`, and so does
/// any run of at least ``minimumRun`` bytes of a key inside one answer (a key that reserved or lock
/// bytes interrupt on the tag: Type 1 dynamic memory). Not covered: a message that does not decode
/// (no key is known then), and the READ8 answers of a Topaz 512 through the ACR122U, which are the
/// PN532's FIFO bits with their parity bits, not bytes of the key.
package final class CommandTrace: Sendable {
  /// A line of the trace: an exchange's event, or a message the readers logged as text.
  package enum Entry: Sendable, Hashable {
    /// A command, an answer or a failure.
    case exchange(APDUTraceEvent)
    /// Any other trace message.
    case text(String)
  }

  private struct State {
    var holding = false
    var entries: [Entry] = []
    var secrets: [[UInt8]] = []
  }
  private let state = Locked(State())
  private let errors: any OutputSink
  private let statusLine: StatusLine
  /// The longest reader and tag header before an answer's data (a Part 3 transparent exchange
  /// answer to an ISO 15693 read has about 13).
  package static let maximumHeader = 24

  /// The trace of the context that writes to `errors`.
  package init(errors: any OutputSink, statusLine: StatusLine) {
    self.errors = errors
    self.statusLine = statusLine
  }

  /// The logger to hand to a reader (`--trace`): each event it logs comes here, as data.
  package func logger() -> Logger {
    var logger = Logger(label: "nfctag.apdu") { [self] label in TraceLogHandler(label: label, trace: self) }
    logger.logLevel = .trace
    return logger
  }

  /// Holds entries back from now on (a command that reads a tag, with `--trace`).
  package func hold() { state.withLock { $0.holding = true } }

  /// Prints `entry` now, or keeps it for later when entries are held back.
  package func record(_ entry: Entry) {
    let held = state.withLock { state in
      guard state.holding else { return false }
      state.entries.append(entry)
      return true
    }
    if !held { write([entry.line]) }
  }

  /// Remembers the Wi-Fi network keys of the NDEF message `bytes` (nothing when it does not decode).
  package func learnSecrets(ofMessage bytes: [UInt8]) {
    guard !bytes.isEmpty, let message = try? NDEFMessage(decoding: bytes) else { return }
    learnSecrets(of: message)
  }

  /// Remembers the Wi-Fi network keys of `message`.
  package func learnSecrets(of message: NDEFMessage) {
    let keys = message.records.compactMap { WiFiCredential($0)?.networkKey }.filter { !$0.isEmpty }
    state.withLock { $0.secrets += keys }
  }

  /// Prints the entries held back, with the keys learnt masked; `keepHolding` for a command that
  /// reads tag after tag (`scan --continuous`), which releases once per tag.
  package func release(keepHolding: Bool = false) {
    let (entries, secrets) = state.withLock { state -> ([Entry], [[UInt8]]) in
      defer {
        state.entries = []
        state.secrets = []
        state.holding = keepHolding && state.holding
      }
      return (state.entries, state.secrets)
    }
    write(Self.masked(entries, secrets: secrets))
  }

  private func write(_ lines: [String]) {
    guard !lines.isEmpty else { return }
    statusLine.clear()
    errors.write(lines.map { "trace: \($0)\n" }.joined())
  }

  /// The lines of `entries`, with every byte of every occurrence of a secret in the answers as `**`.
  package static func masked(_ entries: [Entry], secrets: [[UInt8]]) -> [String] {
    var answers: [(entry: Int, event: APDUTraceEvent)] = []
    for (index, entry) in entries.enumerated() {
      if case .exchange(let event) = entry, event.direction == .answer { answers.append((index, event)) }  // masked: no bytes
    }
    var hidden = answers.map { [Bool](repeating: false, count: $0.event.bytes.count) }
    let bytes = answers.map(\.event.bytes)
    for secret in secrets where !secret.isEmpty {
      for (a, answer) in bytes.enumerated() {
        for range in runs(of: secret, in: answer) { for i in range { hidden[a][i] = true } }
        for s in answer.indices where answer[s] == secret[0] {
          guard let pieces = occurrence(of: secret, in: bytes, answer: a, at: s, matched: 0) else { continue }
          for (piece, range) in pieces { for i in range { hidden[piece][i] = true } }
        }
      }
    }
    var out = entries.map(\.line)
    for (a, answer) in answers.enumerated() where hidden[a].contains(true) {
      let hex = answer.event.bytes.enumerated().map { i, byte in hidden[a][i] ? "**" : hexString([byte]) }
      out[answer.entry] = answer.event.line(hex: hex.joined(separator: " "))
    }
    return out
  }

  /// The shortest piece of a secret masked wherever it shows inside one answer, split from the
  /// rest by bytes that are not the secret's (reserved or lock bytes in the middle of a message).
  package static let minimumRun = 6

  /// Runs of at least ``minimumRun`` bytes of `bytes` that are a piece of `secret`.
  private static func runs(of secret: [UInt8], in bytes: [UInt8]) -> [Range<Int>] {
    var found: [Range<Int>] = []
    for i in bytes.indices {
      for j in secret.indices where bytes[i] == secret[j] {
        var length = 0
        while i + length < bytes.count, j + length < secret.count, bytes[i + length] == secret[j + length] { length += 1 }
        if length >= min(minimumRun, secret.count) { found.append(i ..< i + length) }
      }
    }
    return found
  }

  /// The pieces of `secret[matched...]` starting at byte `start` of answer `a`, continued in the
  /// following answers; nil when the secret is not there.
  private static func occurrence(of secret: [UInt8], in answers: [[UInt8]], answer a: Int, at start: Int,
                                 matched: Int) -> [(Int, Range<Int>)]? {
    let bytes = answers[a]
    var end = start, next = matched
    while end < bytes.count, next < secret.count, bytes[end] == secret[next] {
      end += 1
      next += 1
    }
    if next == secret.count { return [(a, start..<end)] }
    guard a + 1 < answers.count else { return nil }
    // The piece ends the answer's data: only a status word (0 to 2 bytes) may follow it.
    for pieceEnd in stride(from: end, through: max(start + 1, bytes.count - 2), by: -1) where bytes.count - pieceEnd <= 2 {
      let done = matched + (pieceEnd - start)
      let following = answers[a + 1]
      for header in 0..<min(maximumHeader, following.count) where following[header] == secret[done] {
        if let rest = occurrence(of: secret, in: answers, answer: a + 1, at: header, matched: done) {
          return [(a, start..<pieceEnd)] + rest
        }
      }
    }
    return nil
  }
}

extension CommandTrace.Entry {
  /// The entry's line, without the `trace: ` prefix.
  var line: String {
    switch self {
    case .exchange(let event): return event.description
    case .text(let text): return text
    }
  }
}

/// The trace's swift-log handler: an exchange's event from the message's metadata, else its text.
struct TraceLogHandler: LogHandler {
  var metadata: Logger.Metadata = [:]
  var logLevel: Logger.Level = .trace
  let label: String
  let trace: CommandTrace

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    trace.record(APDUTraceEvent(event.metadata).map { .exchange($0) } ?? .text("\(event.message)"))
  }
}
