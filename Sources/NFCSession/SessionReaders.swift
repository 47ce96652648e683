import Locking
import Logging
import NFCEmulator
import NFCReaders
import NFCTransport

/// The readers a session opens by name: PC/SC readers and the in-process simulator. This is the
/// one place a reader is chosen, for sessions and for the `nfctag` tool alike: NFCReaders'
/// `PCSCReaders` owns PC/SC readers, NFCEmulator owns `sim:` readers, and this is the module that
/// knows both.
///
/// A reader name is one of
/// - a PC/SC reader's name, a unique prefix of one, or its index in NFCReaders'
///   `PCSCReaders.names()`;
/// - `sim:KIND…`, a simulated reader in this process: a virtual tag behind an emulated reader
///   face, in the grammar of `SimulatorSpec` (`SimulatorSpec.grammar`): `sim:ntag215`,
///   `sim:type4`, `sim:icode-slix2`, `sim:ntag215:tag.bin` (the tag's memory kept in a file),
///   `sim:ntag213/ntag215+feed=20,seed=2` (a feeder: tag after tag). Every tag kind and feeder
///   option of `nfctag --reader sim:…` works here.
///
/// With no name, the environment variable `NFC_READER` (``environmentVariable``) names the
/// reader in the same forms, so that a program written for Core NFC, which names no reader,
/// runs on the reader or simulator its user chooses; without it, the session takes the first
/// PC/SC reader with a tag, else the first reader.
///
/// A `sim:` name is one reader per process (`SimulatedReaders.process`): the first session that
/// names `sim:ntag215` makes it, and every later session that names the same text polls the same
/// reader, whose tag is as the earlier sessions left it (a tag left on a reader). Two sessions on
/// it at once are two sessions on one reader: the second ends with 203. For a simulated reader of
/// its own, give ``simulator(_:logger:)``'s poller to a session's `poller:` initialiser. The tool
/// runs each command with a `SimulatedReaders` of its own (its `CommandContext`'s), so that
/// commands run one after another in one process (tests) each get a new tag, as in a process of
/// their own.
///
/// ```swift
/// // NFC_READER=sim:ntag215 swift run MyReader, or by name:
/// let session = NFCNDEFReaderSession(delegate: reader, queue: nil, invalidateAfterFirstRead: true,
///                                    readerName: "sim:ntag215")
/// session.begin()
/// ```
public enum SessionReaders {
  /// `NFC_READER`: the reader a session polls when its initialiser names none.
  public static let environmentVariable = "NFC_READER"

  /// A poller on the reader `name` names (see ``SessionReaders``); nil: `NFC_READER`'s, else
  /// the first PC/SC reader with a tag, else the first reader. `logger` gets every APDU at trace
  /// level (a `sim:` reader keeps the logger of the call that made it); `exchangeTimeout` bounds
  /// each exchange with a PC/SC reader (see NFCReaders' `PCSCReaders.poller(named:logger:exchangeTimeout:)`).
  /// - Throws: 202 when pcscd does not answer, there is no such reader, or the `sim:` name is
  ///   not a simulator (its message says which part is wrong; the `EmulatorError` is the
  ///   ``NFCReaderError/underlyingError``).
  public static func poller(named name: String?, logger: Logger? = nil,
                            exchangeTimeout: Double? = nil) throws(NFCReaderError) -> any TagPoller {
    try poller(named: name, logger: logger, exchangeTimeout: exchangeTimeout, environment: processEnvironment)
  }

  /// ``poller(named:logger:exchangeTimeout:)`` with the environment `NFC_READER` is looked up in
  /// and the set of `sim:` readers given: the tool passes its command's own.
  package static func poller(named name: String?, logger: Logger?, exchangeTimeout: Double?,
                             environment: (String) -> String?,
                             simulators: SimulatedReaders = .process) throws(NFCReaderError) -> any TagPoller {
    let chosen = name ?? environment(environmentVariable).flatMap { $0.isEmpty ? nil : $0 }
    guard let chosen, chosen.hasPrefix("sim:") else {
      do {
        return try PCSCReaders.poller(named: chosen, logger: logger, exchangeTimeout: exchangeTimeout)
      } catch {
        throw NFCReaderError(error)
      }
    }
    return try simulators.reader(chosen, logger: logger)
  }

  /// A simulated reader of its own for `spec` (`sim:…`), a new tag on each call; its tags are
  /// identified as a PC/SC reader's are (NFCReaders' detection), so links and platforms are the
  /// same code as with hardware.
  /// - Throws: `EmulatorError` naming the part of `spec` that is wrong.
  public static func simulator(_ spec: String, logger: Logger? = nil) throws(EmulatorError) -> SimulatorPoller {
    let parsed = try SimulatorSpec(parsing: spec)
    do {
      return try SimulatorPoller(spec: parsed) { transport throws(PollError) in
        try detectTarget(on: transport, logger: logger)
      }
    } catch let error as EmulatorError {
      throw error
    } catch {
      throw EmulatorError("\(error)")
    }
  }

  /// Core NFC's `readingAvailable`: true when `NFC_READER` is a `sim:` reader, or pcscd answers
  /// and at least one reader is attached.
  public static var readingAvailable: Bool { readingAvailable(environment: processEnvironment) }

  // MARK: - With the environment given (tests)

  static func readingAvailable(environment: (String) -> String?) -> Bool {
    if let name = environment(environmentVariable), name.hasPrefix("sim:") {
      return (try? SimulatorSpec(parsing: name)) != nil
    }
    return ((try? PCSCReaders.names()) ?? []).isEmpty == false
  }

  /// ``poller(named:logger:exchangeTimeout:)``, or a poller whose first wait fails with the
  /// reason, so that a session started on it ends at once with that error (Core NFC reports
  /// through the delegate).
  static func pollerOrFailure(named name: String?) -> any TagPoller {
    do {
      return try poller(named: name)
    } catch {
      return UnavailablePoller(readerName: name ?? "no reader",
                               error: error.underlyingError as? PollError ?? .noReader(error.message))
    }
  }

  private static func processEnvironment(_ variable: String) -> String? {
    LibC.environmentValue(variable)
  }
}

/// A set of `sim:` readers, one per name: the process's (``process``) for sessions, a command's
/// own in the tool.
package final class SimulatedReaders: Sendable {
  /// The process's `sim:` readers: those sessions open by name or through `NFC_READER`.
  package static let process = SimulatedReaders()

  private let readers = Locked<[String: SimulatorPoller]>([:])

  /// An empty set.
  package init() {}

  /// The reader `spec` names, made on first use.
  func reader(_ spec: String, logger: Logger?) throws(NFCReaderError) -> SimulatorPoller {
    try readers.withLock { readers throws(NFCReaderError) -> SimulatorPoller in
      if let reader = readers[spec] { return reader }
      let made: SimulatorPoller
      do {
        made = try SessionReaders.simulator(spec, logger: logger)
      } catch {
        throw NFCReaderError(.readerSessionInvalidationErrorSessionTerminatedUnexpectedly,
                             "bad simulator reader '\(spec)': \(error)", underlying: error)
      }
      readers[spec] = made
      return made
    }
  }
}

/// A reader that could not be opened: every wait fails with why.
final class UnavailablePoller: TagPoller {
  let readerName: String
  let error: PollError
  init(readerName: String, error: PollError) {
    self.readerName = readerName
    self.error = error
  }
  func waitForTargets(timeoutMilliseconds: Int?) throws(PollError) -> [DetectedTarget] { throw error }
  func waitForRemoval(timeoutMilliseconds: Int?) throws(PollError) { throw error }
  func release() {}
  func cancel() {}
}
