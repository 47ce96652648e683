#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Locking
import Logging
import NFCTransport

/// What the tag commands say on stderr besides their one-line failure, through swift-log levels:
/// `--quiet` keeps errors only (level `error`), the default adds confirmations and warnings
/// (`notice`, `warning`), `--verbose` adds what the tool decides (`info`: reader path, tag type
/// and chip, the plan of a write). The data a command exists to print goes to stdout whatever
/// the level.
package enum Console {
  private static let logger = Locked<Logger?>(nil)

  /// Sets the level from a tag command's `--quiet` / `--verbose`.
  package static func configure(quiet: Bool, verbose: Bool) {
    let level: Logger.Level = quiet ? .error : verbose ? .info : .notice
    logger.withLock { $0 = makeLogger(level: level) }
  }

  private static func makeLogger(level: Logger.Level) -> Logger {
    TraceLogging.bootstrapOnce()
    var made = Logger(label: "nfctag")
    made.logLevel = level
    return made
  }

  private static var current: Logger { logger.withLock { $0 } ?? makeLogger(level: .notice) }

  /// True with `--quiet`.
  package static var isQuiet: Bool { current.logLevel > .warning }
  /// True with `--verbose`.
  package static var isVerbose: Bool { current.logLevel <= .info }
  /// True when a prompt or a progress line may be shown: stderr is a terminal and not `--quiet`.
  package static var isInteractive: Bool { !isQuiet && isatty(2) != 0 }

  /// What the tool decides (`--verbose` only): "nfctag: reader: …".
  package static func info(_ message: @autoclosure () -> String) { current.info("\(message())") }
  /// A confirmation ("nfctag: wrote 42 bytes, verified"); not with `--quiet`.
  package static func notice(_ message: @autoclosure () -> String) { current.notice("\(message())") }
  /// "nfctag: warning: …"; not with `--quiet`.
  package static func warning(_ message: @autoclosure () -> String) { current.warning("\(message())") }
}

/// The one transient line on stderr (the waiting prompt, a progress line): written without a
/// newline and cleared with `\r ESC[K` before anything else is printed.
package enum StatusLine {
  private static let shown = Locked(false)

  /// Replaces the transient line with `text`.
  package static func show(_ text: String) {
    shown.withLock { shown in
      writeStderr("\r\u{1B}[K" + text)
      shown = true
    }
  }

  /// Clears the transient line, if one is shown.
  package static func clear() {
    shown.withLock { shown in
      if shown { writeStderr("\r\u{1B}[K") }
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
  private let enabled: Bool

  package init(reader: String, enabled: Bool = Console.isInteractive) {
    text = "Waiting for a tag on \(sanitizeLine(reader))… (Ctrl-C to stop)"
    self.enabled = enabled
  }

  /// A prompt that never shows (delegates made without one).
  package static var none: WaitingPrompt { WaitingPrompt(reader: "", enabled: false) }

  /// Starts the 150 ms delay; call just before the session begins.
  package func start() {
    guard enabled else { return }
    let go = state.withLock { state -> Bool in
      guard state == .idle else { return false }
      state = .pending
      return true
    }
    guard go else { return }
    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(150)) { [self] in
      state.withLock { state in
        guard state == .pending else { return }
        StatusLine.show(text)
        state = .shown
      }
    }
  }

  /// A tag arrived or the session ended: the prompt goes (or never comes).
  package func finish() {
    state.withLock { state in
      if state == .shown { StatusLine.clear() }
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

  /// - Parameters:
  ///   - delay: nanoseconds after the start before the line shows (1 s).
  ///   - show, clear: where the line goes (``StatusLine``; tests collect it).
  package init(enabled: Bool = Console.isInteractive, delay: UInt64 = 1_000_000_000,
       show: @escaping @Sendable (String) -> Void = StatusLine.show, clear: @escaping @Sendable () -> Void = StatusLine.clear) {
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
