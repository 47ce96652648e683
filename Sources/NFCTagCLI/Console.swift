import Dispatch
import Locking
import Logging
import NFCTransport

/// What the tag commands say on stderr besides their one-line failure, through swift-log levels:
/// `--quiet` keeps errors only (level `error`), the default adds confirmations and warnings
/// (`notice`, `warning`), `--verbose` adds what the tool decides (`info`: reader path, tag type
/// and chip, the plan of a write). The data a command exists to print goes to stdout whatever
/// the level. One per ``CommandContext``.
package final class Console: Sendable {
  private let logger: Locked<Logger>
  private let errorsIsTerminal: Bool

  /// A console at the default level (`notice`) writing to `errors`.
  package init(errors: any OutputSink, statusLine: StatusLine, errorsIsTerminal: Bool) {
    var made = Logger(label: "nfctag") { label in ConsoleLogHandler(label: label, errors: errors, statusLine: statusLine) }
    made.logLevel = .notice
    logger = Locked(made)
    self.errorsIsTerminal = errorsIsTerminal
  }

  /// Sets the level from a tag command's `--quiet` / `--verbose`.
  package func configure(quiet: Bool, verbose: Bool) {
    logger.withLock { $0.logLevel = quiet ? .error : verbose ? .info : .notice }
  }

  private var current: Logger { logger.withLock { $0 } }

  /// True with `--quiet`.
  package var isQuiet: Bool { current.logLevel > .warning }
  /// True with `--verbose`.
  package var isVerbose: Bool { current.logLevel <= .info }
  /// True when a prompt or a progress line may be shown: stderr is a terminal and not `--quiet`.
  package var isInteractive: Bool { !isQuiet && errorsIsTerminal }

  /// What the tool decides (`--verbose` only): "nfctag: reader: …".
  package func info(_ message: @autoclosure () -> String) { current.info("\(message())") }
  /// A confirmation ("nfctag: wrote 42 bytes, verified"); not with `--quiet`.
  package func notice(_ message: @autoclosure () -> String) { current.notice("\(message())") }
  /// "nfctag: warning: …"; not with `--quiet`.
  package func warning(_ message: @autoclosure () -> String) { current.warning("\(message())") }
}

/// The console's swift-log handler: one `nfctag: ` line per message (`nfctag: warning: …` for a
/// warning), the transient line cleared first.
struct ConsoleLogHandler: LogHandler {
  var metadata: Logger.Metadata = [:]
  var logLevel: Logger.Level = .notice
  let label: String
  let errors: any OutputSink
  let statusLine: StatusLine

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    statusLine.clear()
    errors.write("nfctag: \(event.level == .warning ? "warning: " : "")\(hidingKeyMaterial("\(event.message)"))\n")
  }
}

/// The one transient line on stderr (the waiting prompt, a progress line): written without a
/// newline and cleared with `\r ESC[K` before anything else is printed.
package final class StatusLine: Sendable {
  private let shown = Locked(false)
  private let errors: any OutputSink

  /// The transient line of the context that writes to `errors`.
  package init(errors: any OutputSink) { self.errors = errors }

  /// Replaces the transient line with `text`.
  package func show(_ text: String) {
    shown.withLock { shown in
      errors.write("\r\u{1B}[K" + text)
      shown = true
    }
  }

  /// Clears the transient line, if one is shown.
  package func clear() {
    shown.withLock { shown in
      if shown { errors.write("\r\u{1B}[K") }
      shown = false
    }
  }
}

/// "Waiting for a tag on READER… (Ctrl-C to stop)" on a terminal, shown only when no tag arrived
/// within 150 ms (a tag already on the reader causes no flash), cleared when one arrives or the
/// session ends.
package final class WaitingPrompt: Sendable {
  private enum State { case idle, pending, shown, done }
  private let state = Locked(State.idle)
  private let text: String
  private let statusLine: StatusLine?

  /// The prompt for `reader`, shown on the context's transient line when it is interactive.
  package init(reader: String, context: CommandContext) {
    text = "Waiting for a tag on \(sanitizeLine(reader))… (Ctrl-C to stop)"
    statusLine = context.console.isInteractive ? context.statusLine : nil
  }

  private init() {
    text = ""
    statusLine = nil
  }

  /// A prompt that never shows (delegates made without one).
  package static var none: WaitingPrompt { WaitingPrompt() }

  /// Starts the 150 ms delay; call just before the session begins.
  package func start() {
    guard let statusLine else { return }
    let go = state.withLock { state -> Bool in
      guard state == .idle else { return false }
      state = .pending
      return true
    }
    guard go else { return }
    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(150)) { [self] in
      state.withLock { state in
        guard state == .pending else { return }
        statusLine.show(text)
        state = .shown
      }
    }
  }

  /// A tag arrived or the session ended: the prompt goes (or never comes).
  package func finish() {
    state.withLock { state in
      if state == .shown { statusLine?.clear() }
      state = .done
    }
  }
}

/// The progress line of a long operation ("written 312/540 bytes"), on a terminal only, from
/// one second after the operation started, at most ten times a second; cleared at the end.
package final class ProgressLine: Sendable {
  private struct State {
    var lastShown: UInt64 = 0
    var shown = false
  }
  private let started = DispatchTime.now().uptimeNanoseconds
  private let enabled: Bool
  private let delay: UInt64
  private let show: @Sendable (String) -> Void
  private let clear: @Sendable () -> Void
  private let state = Locked(State())

  /// The progress line on the context's transient line, when it is interactive.
  package convenience init(context: CommandContext) {
    let line = context.statusLine
    self.init(enabled: context.console.isInteractive, show: { line.show($0) }, clear: { line.clear() })
  }

  /// - Parameters:
  ///   - enabled: false: the line never shows.
  ///   - delay: nanoseconds after the start before the line shows (1 s).
  ///   - show, clear: where the line goes (a ``StatusLine``; tests collect it).
  package init(enabled: Bool, delay: UInt64 = 1_000_000_000,
               show: @escaping @Sendable (String) -> Void, clear: @escaping @Sendable () -> Void) {
    self.enabled = enabled
    self.delay = delay
    self.show = show
    self.clear = clear
  }

  /// Installs the line as the progress hook around `body` and clears it afterwards.
  package func around<T>(_ body: () throws -> T) throws -> T {
    guard enabled else { return try body() }
    defer { finish() }
    let result = TransferProgress.observe({ [self] direction, done, total in report(direction, done, total) }) {
      () -> Result<T, any Error> in Result { try body() }
    }
    return try result.get()
  }

  private func report(_ direction: TransferProgress.Direction, _ done: Int, _ total: Int) {
    let now = DispatchTime.now().uptimeNanoseconds
    guard now - started >= delay else { return }
    state.withLock { state in
      guard done == total || now - state.lastShown >= 100_000_000 else { return }
      state.lastShown = now
      state.shown = true
      show("\(direction == .writing ? "written" : "read") \(done)/\(total) bytes")
    }
  }

  private func finish() {
    state.withLock { state in
      if state.shown { clear() }
      state.shown = false
    }
  }
}
