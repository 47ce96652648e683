import Dispatch
import Locking
import NFCSession
import NFCTagCLI
import NFCTransport
import NTAG424Tag
import ProvisionCommands
import Provisioning

/// One NTAG 424 DNA command of the tool (`sdm setup`, `keys`) on the reader `--reader` names,
/// through an ``NFCTagReaderSession``: the session owns waiting, "more than one tag", timeouts,
/// Ctrl-C and errors; the command gets an ``NTAG424DNA`` on the connected ISO 7816 tag.
struct NTAG424TagSession {
  let options: NTAG424ReaderOptions
  let context: CommandContext

  /// What the command's body returned, with the tag it ran on and the exchanges it took.
  struct Outcome<T: Sendable>: Sendable {
    var value: T
    var uid: [UInt8]
    var exchanges: Int
  }

  /// Waits for one tag, connects, runs `body` with the tag on the session's queue and ends the
  /// session. A tag that is not ISO 7816 (Type 4) is not a 424 DNA (65); Ctrl-C while waiting is
  /// user cancel (130).
  func run<T: Sendable>(_ body: @escaping @Sendable (NTAG424DNA, [UInt8]) throws -> T) throws(CLIFailure) -> Outcome<T> {
    // The trace shows the APDUs as sent: AuthenticateEV2First carries only challenges encrypted
    // with the key, ChangeKey and Full-mode data only ciphertext under the session keys, so no
    // key appears in it (NT4H2421Gx datasheet §9.1.5, §9.1.10, §10.6.1).
    let poller = try makeTagPoller(spec: options.reader, logger: options.trace ? context.trace.logger() : nil,
                                   exchangeTimeout: options.exchangeSeconds, in: context)
    let delegate = NTAG424Delegate(console: context.console, body: body)
    let session = NFCTagReaderSession(pollingOption: [.iso14443, .iso15693, .iso18092], delegate: delegate,
                                      poller: poller, timeout: options.waitSeconds)
    context.keepAlive(session)
    let interrupt = context.interrupts.listen { session.invalidate() }
    defer { interrupt.stop() }
    session.begin()
    return try delegate.wait()
  }
}

/// The delegate of a 424 DNA command: the first single tag gets the command, then the session ends.
private final class NTAG424Delegate<T: Sendable>: NFCTagReaderSessionDelegate, Sendable {
  private let console: Console
  private let body: @Sendable (NTAG424DNA, [UInt8]) throws -> T
  private let outcome = Locked<Result<NTAG424TagSession.Outcome<T>, CLIFailure>?>(nil)
  private let done = DispatchSemaphore(value: 0)

  init(console: Console, body: @escaping @Sendable (NTAG424DNA, [UInt8]) throws -> T) {
    self.console = console
    self.body = body
  }

  func tagReaderSession(_ session: NFCTagReaderSession, didDetect tags: [NFCTag]) {
    guard tags.count == 1, let tag = tags.first else {
      console.notice("more than one tag is in the field: remove all but one")
      session.queue.asyncAfter(deadline: .now() + .milliseconds(500)) { session.restartPolling() }
      return
    }
    let result: Result<NTAG424TagSession.Outcome<T>, CLIFailure>
    do {
      try session.connect(to: tag)
      let connection = tag.ndefTag.connection
      console.info("reader: \(sanitizeLine(connection.readerName)); tag: \(sanitizeLine(connection.cardName)), UID \(hexString(connection.identifier, separator: ":"))")
      guard case .iso7816(let iso) = tag else {
        throw CLIFailure(.unsupported("not an NTAG 424 DNA: the tag is not an ISO 7816 (Type 4) tag"))
      }
      let link = ISO7816TagLink(iso)
      let tag = NTAG424DNA(link: link)
      let value: T
      do { value = try body(tag, connection.identifier) } catch let error as NTAG424DNAError where Self.mayBeAnotherChip(error) {
        // One identification for every command, `info`'s (NTAG424Identification): GetVersion
        // names the chip; a tag that refused the 424 DNA's application or commands is told by it.
        do { try tag.identify() } catch let identified { if case .notNTAG424DNA = identified { throw identified } }
        throw error
      }
      result = .success(.init(value: value, uid: connection.identifier, exchanges: link.exchanges))
    } catch {
      result = .failure(cliFailure(for: error))
    }
    outcome.withLock { $0 = result }
    session.invalidate()
  }

  /// A failure that says the tag may be another chip: SELECT of the 424 DNA's application
  /// refused, or a native command answered with an ISO status word (a 424 DNA answers `91 xx`).
  private static func mayBeAnotherChip(_ error: NTAG424DNAError) -> Bool {
    switch error {
    case .applicationNotFound: return true
    case .tag(.status(_, let sw1, _), _): return sw1 != 0x91
    default: return false
    }
  }

  func tagReaderSession(_ session: NFCTagReaderSession, didInvalidateWithError error: NFCReaderError) {
    outcome.withLock {
      if $0 == nil {
        $0 = .failure(error.code == .readerSessionInvalidationErrorUserCanceled
                      ? CLIFailure(.interrupted) : cliFailure(for: error))
      }
    }
    done.signal()
  }

  /// Blocks until the session ended.
  func wait() throws(CLIFailure) -> NTAG424TagSession.Outcome<T> {
    done.wait()
    let result = outcome.withLock { $0 } ?? .failure(CLIFailure(.internalError("the session ended without a result")))
    return try result.get()
  }
}
