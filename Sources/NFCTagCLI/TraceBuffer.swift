import Locking
import NDEF
import NFCTransport

/// The APDU trace of a command that reads a tag (`read`, `scan`, `dump`), held back until the
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
package enum TraceBuffer {
  private struct State {
    var holding = false
    var lines: [String] = []
    var secrets: [[UInt8]] = []
  }
  private static let state = Locked(State())
  /// The longest reader and tag header before an answer's data (a Part 3 transparent exchange
  /// answer to an ISO 15693 read has about 13).
  package static let maximumHeader = 24

  /// Holds trace lines back from now on (a command that reads a tag, with `--trace`).
  package static func hold() { state.withLock { $0.holding = true } }

  /// Keeps `line` for later when lines are held back; false when it is to be printed now.
  package static func keep(_ line: String) -> Bool {
    state.withLock { state in
      guard state.holding else { return false }
      state.lines.append(line)
      return true
    }
  }

  /// Remembers the Wi-Fi network keys of the NDEF message `bytes` (nothing when it does not decode).
  package static func learnSecrets(ofMessage bytes: [UInt8]) {
    guard !bytes.isEmpty, let message = try? NDEFMessage(decoding: bytes) else { return }
    learnSecrets(of: message)
  }

  /// Remembers the Wi-Fi network keys of `message`.
  package static func learnSecrets(of message: NDEFMessage) {
    let keys = message.records.compactMap { WiFiCredential($0)?.networkKey }.filter { !$0.isEmpty }
    state.withLock { $0.secrets += keys }
  }

  /// Prints the lines held back, with the keys learnt masked; `keepHolding` for a command that
  /// reads tag after tag (`scan --continuous`), which releases once per tag.
  package static func release(keepHolding: Bool = false) {
    let (lines, secrets) = state.withLock { state -> ([String], [[UInt8]]) in
      defer {
        state.lines = []
        state.secrets = []
        state.holding = keepHolding && state.holding
      }
      return (state.lines, state.secrets)
    }
    for line in masked(lines, secrets: secrets) { writeStderr("trace: \(line)\n") }
  }

  /// `lines` with every byte of every occurrence of a secret in the answers (`< …` lines) as `**`.
  package static func masked(_ lines: [String], secrets: [[UInt8]]) -> [String] {
    guard !secrets.isEmpty else { return lines }
    var answers: [(line: Int, bytes: [UInt8], tokens: [Substring], rest: Substring)] = []
    for (index, line) in lines.enumerated() {
      guard line.hasPrefix("< "), !line.hasPrefix("< error") else { continue }
      let body = line.dropFirst(2)
      let hexPart = body.firstRange(of: " (").map { body[..<$0.lowerBound] } ?? body
      let tokens = hexPart.split(separator: " ")
      var bytes: [UInt8] = []
      for token in tokens {
        guard token.count == 2, let byte = UInt8(token, radix: 16) else { break }  // `********`: already masked
        bytes.append(byte)
      }
      answers.append((index, bytes, tokens, body[hexPart.endIndex...]))
    }
    var hidden = answers.map { [Bool](repeating: false, count: $0.bytes.count) }
    for secret in secrets {
      for (a, answer) in answers.enumerated() {
        for range in runs(of: secret, in: answer.bytes) { for i in range { hidden[a][i] = true } }
        for s in answer.bytes.indices where answer.bytes[s] == secret[0] {
          guard let pieces = occurrence(of: secret, in: answers.map(\.bytes), answer: a, at: s, matched: 0) else { continue }
          for (piece, range) in pieces { for i in range { hidden[piece][i] = true } }
        }
      }
    }
    var out = lines
    for (a, answer) in answers.enumerated() where hidden[a].contains(true) {
      let tokens = answer.tokens.enumerated().map { i, token in i < hidden[a].count && hidden[a][i] ? "**" : String(token) }
      out[answer.line] = "< " + tokens.joined(separator: " ") + answer.rest
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
