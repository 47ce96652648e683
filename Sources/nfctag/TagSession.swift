import Locking
import NFCTagCLI
import Dispatch
import Logging
import NFCEmulator
import NFCReaders
import NFCSession
import NFCTransport

/// Opens the reader the options name (PC/SC or the in-process simulator) and runs a command on
/// one tag through an ``NFCNDEFReaderSession``: the session owns waiting, "more than one tag",
/// timeouts, Ctrl-C and errors; the command gets a connected tag.
struct TagSession {
  let options: ReaderOptions
  let context: CommandContext

  /// A session on the reader `options` name; --quiet and --verbose take effect from here on.
  init(options: ReaderOptions, context: CommandContext) {
    self.options = options
    self.context = context
    options.configureConsole(in: context)
  }

  /// The poller for `--reader`.
  func makePoller() throws(CLIFailure) -> any TagPoller {
    try makeTagPoller(spec: options.reader, logger: options.makeLogger(in: context), exchangeTimeout: options.exchangeSeconds,
                  in: context)
  }

  /// Waits for one tag, connects, authenticates when a tag password was given, runs `body` on
  /// the session's queue and ends the session. Ctrl-C while waiting ends it with user cancel (130).
  func withTag<T: Sendable>(_ body: @escaping @Sendable (any NFCNDEFTag) throws -> T) throws(CLIFailure) -> T {
    let password = try options.tagPassword(in: context)
    let classicKeys = try options.classicKeys(in: context)
    let poller = try makePoller()
    let prompt = WaitingPrompt(reader: poller.readerName, context: context)
    let delegate = OneTagDelegate(password: password, classicKeys: classicKeys, context: context, prompt: prompt, body: body)
    let session = NFCNDEFReaderSession(delegate: delegate, queue: nil, invalidateAfterFirstRead: true,
                                       poller: poller, timeout: options.waitSeconds(continuous: false))
    return try run(session, until: delegate.outcome, prompt: prompt)
  }

  /// Begins `session` and waits for `outcome`; Ctrl-C invalidates the session (user cancel). On a
  /// terminal, `prompt` says what the session waits for until a tag arrives.
  func run<T: Sendable>(_ session: some ToolSession, until outcome: OneTagOutcome<T>,
                         prompt: WaitingPrompt? = nil) throws(CLIFailure) -> T {
    context.keepAlive(session)
    let interrupt = context.interrupts.listen { session.invalidate() }
    defer { interrupt.stop() }
    prompt?.start()
    session.begin()
    let result = outcome.wait()
    prompt?.finish()
    return try result.get()
  }
}

/// What ``TagSession/run(_:until:)`` needs of a session: both of NFCSession's kinds have it.
protocol ToolSession: AnyObject, Sendable {
  func begin()
  func invalidate()
}

extension NFCNDEFReaderSession: ToolSession {}
extension NFCTagReaderSession: ToolSession {}

/// The result of a one-tag session: set once by its delegate, read by the command that waits.
final class OneTagOutcome<T: Sendable>: Sendable {
  private let outcome = Locked<Result<T, CLIFailure>?>(nil)
  private let done = DispatchSemaphore(value: 0)
  private let context: CommandContext

  init(context: CommandContext) { self.context = context }

  /// Runs the command on the tag and keeps what it returned or why it failed. On a terminal a
  /// progress line shows while a long operation runs (``ProgressLine``).
  /// `platform` gives the tag's type once it is known, for the advice a failure gets.
  func run(platform: () -> TagPlatform? = { nil }, _ body: () throws -> T) {
    let result: Result<T, CLIFailure>
    do {
      result = .success(try ProgressLine(context: context).around(body))
    } catch {
      result = .failure(cliFailure(for: error, platform: platform()))
    }
    outcome.withLock { $0 = result }
  }

  /// The session ended: without a result, its reason is the failure (Ctrl-C: 130).
  func ended(_ error: NFCReaderError) {
    outcome.withLock {
      if $0 == nil {
        $0 = .failure(error.code == .readerSessionInvalidationErrorUserCanceled
                      ? CLIFailure(.interrupted) : cliFailure(for: error))
      }
    }
    done.signal()
  }

  /// Blocks until the session ended.
  func wait() -> Result<T, CLIFailure> {
    done.wait()
    return outcome.withLock { $0 } ?? .failure(CLIFailure(.internalError("the session ended without a result")))
  }
}

/// With --verbose: the reader, the path its driver takes to the tag, and the tag's type and chip
/// (one identification, which costs the reads `scan` makes).
func describeForVerbose(_ tag: any NFCNDEFTag, on console: Console) {
  guard console.isVerbose else { return }
  let connection = tag.connection
  let info = try? tag.identification()
  // After the identification: a Part 3 link knows its path once its first command probed it.
  let path = (try? connection.readerPath()) ?? "unknown"
  console.info("reader: \(sanitizeLine(connection.readerName)), \(path)")
  let platform = connection.platformType?.displayName ?? "unknown type"
  if let info {
    console.info("tag: \(platform), \(sanitizeLine(info.chip)), UID \(hexString(connection.identifier, separator: ":")), \(info.memorySize) bytes of memory")
  } else {
    console.info("tag: \(platform) (\(sanitizeLine(connection.cardName))), UID \(hexString(connection.identifier, separator: ":"))")
  }
}

/// More than one tag in the field: say so and poll again after half a second (Core NFC's sample).
func moreThanOneTag(on queue: DispatchQueue, console: Console, restart: @escaping @Sendable () -> Void) {
  console.notice("more than one tag is in the field: remove all but one")
  queue.asyncAfter(deadline: .now() + .milliseconds(500), execute: restart)
}

/// The delegate of a one-tag command: the first single tag gets the command, then the session ends.
final class OneTagDelegate<T: Sendable>: NFCNDEFReaderSessionDelegate, Sendable {
  let outcome: OneTagOutcome<T>
  private let password: [UInt8]?
  private let classicKeys: [[UInt8]]?
  private let console: Console
  private let prompt: WaitingPrompt
  private let body: @Sendable (any NFCNDEFTag) throws -> T

  init(password: [UInt8]?, classicKeys: [[UInt8]]? = nil, context: CommandContext, prompt: WaitingPrompt = .none,
       body: @escaping @Sendable (any NFCNDEFTag) throws -> T) {
    self.password = password
    self.classicKeys = classicKeys
    outcome = OneTagOutcome(context: context)
    console = context.console
    self.prompt = prompt
    self.body = body
  }

  func readerSession(_ session: NFCNDEFReaderSession, didDetect tags: [any NFCNDEFTag]) {
    prompt.finish()
    guard tags.count == 1, let tag = tags.first else {
      return moreThanOneTag(on: session.queue, console: console) { session.restartPolling() }
    }
    outcome.run(platform: { tag.platformType }) {
      try session.connect(to: tag)
      if let password { _ = try tag.authenticate(password: password) }
      if let classicKeys { try tag.useMIFAREClassicKeys(classicKeys) }
      describeForVerbose(tag, on: console)
      return try body(tag)
    }
    session.invalidate()
  }

  func readerSession(_ session: NFCNDEFReaderSession, didInvalidateWithError error: NFCReaderError) {
    prompt.finish()
    outcome.ended(error)
  }
}
