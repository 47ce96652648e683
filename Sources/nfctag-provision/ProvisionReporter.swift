import Locking
import NFCTagCLI
import NTAG424
import NTAG424Tag
import Provisioning

/// What `nfctag provision` prints: one line per tag (stdout), a live line on a terminal (stderr),
/// or one JSON event per line with `--json`. Events come from every reader's queue.
final class ProvisionReporter: Sendable {
  enum Style: Sendable { case text, json, quiet }

  struct Tally: Sendable {
    var done = 0, failed = 0, skipped = 0
    /// Per reader: done count.
    var byReader: [String: Int] = [:]
    /// Readers in the order they first finished a tag.
    var readerOrder: [String] = []
    /// The highest exit status of a failed tag.
    var worstExit: Int32 = 0
    var started = 0.0
  }

  private let style: Style
  private let live: Bool
  private let colour: Bool
  private let total: Int
  private let alreadyDone: Int
  private let tally = Locked(Tally())
  private let output: any OutputSink
  private let errors: any OutputSink
  private let statusLine: StatusLine

  /// - Parameters:
  ///   - total: rows in the job; `alreadyDone`: done before this run.
  ///   - context: where the lines go, and whether they go to a terminal.
  init(style: Style, total: Int, alreadyDone: Int, context: CommandContext) {
    self.style = style
    self.total = total
    self.alreadyDone = alreadyDone
    output = context.output
    errors = context.errors
    statusLine = context.statusLine
    let terminal = context.errorsIsTerminal
    live = style == .text && terminal
    colour = terminal && context.outputIsTerminal && context.environment("NO_COLOR") == nil
    tally.withLock { $0.started = monotonicSeconds() }
  }

  var current: Tally { tally.withLock { $0 } }

  func handle(_ event: ProvisioningEvent) {
    switch event {
    case .readerReady(let reader):
      if style == .text { clearLive(); errors.write("nfctag: provisioning on \(sanitizeLine(reader)); Ctrl-C to stop\n"); drawLive() }
    case .readerEnded:
      break
    case .jobRefused(let problems):
      clearLive()
      for problem in problems { errors.write("nfctag: \(sanitizeLine(problem))\n") }
    case .tag(let tag):
      tally.withLock { t in
        switch tag.status {
        case .done:
          t.done += 1
          if t.byReader[tag.reader] == nil { t.readerOrder.append(tag.reader) }
          t.byReader[tag.reader, default: 0] += 1
        case .failed: t.failed += 1; t.worstExit = max(t.worstExit, tag.failure?.exitStatus ?? ExitStatus.software)
        case .skipped: t.skipped += 1
        }
      }
      switch style {
      case .json: writeLine(json(tag))
      case .quiet:
        if tag.status == .failed { errors.write("nfctag: \(line(tag, colour: false))\n") }
      case .text:
        clearLive()
        writeLine(line(tag, colour: colour))
        drawLive()
      }
    }
  }

  /// A reader was added, unplugged or came back (`--reader all`).
  func readerChanged(_ reader: String, _ change: String) {
    switch style {
    case .json:
      var object = JSONObjectWriter()
      object.string("event", "reader")
      object.string("reader", reader)
      object.string("status", change)
      writeLine(object.finish())
    case .text:
      clearLive()
      errors.write("nfctag: reader \(sanitizeLine(reader)): \(change)\n")
      drawLive()
    case .quiet:
      if change == "unplugged" { errors.write("nfctag: reader \(sanitizeLine(reader)): unplugged\n") }
    }
  }

  /// The final summary (JSON) or line (text), and the live line cleared.
  func finish(remaining: Int) {
    let t = current
    switch style {
    case .json:
      var object = JSONObjectWriter()
      object.string("event", "summary")
      object.number("done", t.done)
      object.number("failed", t.failed)
      object.number("skipped", t.skipped)
      object.number("remaining", remaining)
      writeLine(object.finish())
    case .text:
      clearLive()
      errors.write("nfctag: \(t.done) done, \(t.failed) failed, \(t.skipped) skipped; \(remaining) of \(total) rows remaining\n")
    case .quiet:
      break
    }
  }

  private func line(_ tag: ProvisionedTag, colour: Bool) -> String {
    let row = tag.rowID.map { "row \(sanitizeLine($0))" } ?? "no row"
    var status = tag.status.rawValue
    if colour { status = (tag.status == .failed ? "\u{1B}[31m" : tag.status == .done ? "\u{1B}[32m" : "") + status + "\u{1B}[0m" }
    var text = "\(tag.uid) \(row): \(status)"
    if let reason = tag.reason { text += ": \(sanitizeLine(reason))" }
    if tag.status == .failed, let advice = tag.failure?.advice { text += advice }
    return text + " (\(Int(tag.milliseconds.rounded())) ms, \(tag.exchanges) APDUs)"
  }

  private func json(_ tag: ProvisionedTag) -> String {
    var object = JSONObjectWriter()
    object.string("event", "tag")
    if let row = tag.rowID { object.string("row", row) } else { object.raw("row", "null") }
    object.string("uid", tag.uid)
    object.string("status", tag.status.rawValue)
    if let reason = tag.reason, tag.status == .failed { object.string("error", reason) } else { object.raw("error", "null") }
    if tag.status == .skipped, let reason = tag.reason { object.string("reason", reason) }
    if let exit = tag.failure?.exitStatus { object.number("exit", Int(exit)) }
    object.string("reader", tag.reader)
    object.raw("ms", formatMilliseconds(tag.milliseconds))
    object.number("apdus", tag.exchanges)
    return object.finish()
  }

  // MARK: The live line (stderr, terminals only)

  private func drawLive() {
    guard live else { return }
    let t = current
    let done = t.done + alreadyDone
    let minutes = max(monotonicSeconds() - t.started, 0.001) / 60
    let rate = Double(t.done) / minutes
    var text = "\(done)/\(total) done, \(t.failed) failed"
    if t.done > 0 {
      text += ", \(Int(rate.rounded()))/min"
      let left = Double(max(0, total - done)) / rate
      text += ", ETA \(formatDuration(left * 60))"
    }
    if t.byReader.count > 1 {
      // `reader 1: 412 done, 38/min`, numbered in the order readers first finished a tag.
      text += "; " + t.readerOrder.enumerated().map { index, name in
        let n = t.byReader[name] ?? 0
        return "reader \(index + 1): \(n) done, \(Int((Double(n) / minutes).rounded()))/min"
      }.joined(separator: "; ")
    }
    statusLine.show(text)
  }

  /// One line on stdout, written at once (events come from several threads).
  private func writeLine(_ text: String) { output.write(text + "\n") }

  private func clearLive() {
    if live { statusLine.clear() }
  }
}

func formatMilliseconds(_ value: Double) -> String {
  let tenths = (value * 10).rounded() / 10
  return tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
}

func formatDuration(_ seconds: Double) -> String {
  guard seconds.isFinite else { return "?" }
  let s = Int(seconds.rounded())
  return s >= 3600 ? "\(s / 3600)h\(s % 3600 / 60)m" : s >= 60 ? "\(s / 60)m\(s % 60)s" : "\(s)s"
}

extension TagFailure {
  /// What to do, after the fact, on a failed tag's line (the ledger and the JSON event keep the
  /// fact alone), as `sdm setup` and `keys` add theirs (FailureStatuses.swift): only this program
  /// names its options. Nil when there is nothing to add.
  var advice: String? {
    guard case .ntag424(let error) = self else { return nil }
    switch error {
    case .tag(.authenticationFailed, _), .tag(.status(_, 0x91, 0xAE), _):
      // The run authenticates with the key key 0's version names (SUNTagSteps): the factory key
      // at 00, the key the master key derives for the tag's UID at the scheme's version.
      return " (wrong key: the tag's key 0 is not the one its version names: the factory key at 00, otherwise the key"
        + " --master-key-file or --master-key-env derives for its UID; was it set up with another master key? It is not"
        + " tried again on this tag; each failure counts towards the tag's limit)"
    case .oldKeyMismatch(let number):
      return " (key \(number) has version 00 but is not the factory key: something else set it; the run does not guess a key)"
    default: return nil
    }
  }
}
