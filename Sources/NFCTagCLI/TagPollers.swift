import Logging
import NFCEmulator
import NFCReaders
import NFCSession

/// What `--exchange-timeout` is when not given: seconds a PC/SC reader may take to answer one
/// command before the tag counts as lost.
package let defaultExchangeTimeout = 5.0

/// The poller for a `--reader` value, chosen where a session chooses one
/// (`SessionReaders.poller(named:…)`): a PC/SC reader (name, unique prefix, index), the in-process
/// simulator (`sim:…`), or with no `--reader` the reader `NFC_READER` names in the context's
/// environment, else the first PC/SC reader with a tag. A `sim:` name is one reader per command
/// (the context's ``CommandContext/simulatedReaders``). A PC/SC reader that leaves one exchange
/// unanswered for `exchangeTimeout` seconds loses the tag (74) instead of hanging.
/// - Throws: 64 for a `sim:` name that is not a simulator (with the reader face that has the
///   kind, when another has it); the status of the reader's failure otherwise.
package func makeTagPoller(spec: String?, logger: Logger?, exchangeTimeout: Double = defaultExchangeTimeout,
                           in context: CommandContext) throws(CLIFailure) -> any TagPoller {
  do {
    return try SessionReaders.poller(named: spec, logger: logger, exchangeTimeout: exchangeTimeout,
                                     environment: context.environment, simulators: context.simulatedReaders)
  } catch {
    guard let emulator = error.underlyingError as? EmulatorError else { throw cliFailure(for: error) }
    let advice = emulator.workingFace.map { ": use sim:KIND@\($0.rawValue)" } ?? ""
    throw cliFailure(for: emulator, otherwise: .invalidValue(error.message + advice))
  }
}

/// The PC/SC readers pcscd knows, in its order (`provision --reader all`, its reader watch).
/// - Throws: the status of a PC/SC failure (pcscd does not answer: 69).
package func pcscReaderNames() throws(CLIFailure) -> [String] {
  do { return try PCSCReaders.names() } catch { throw cliFailure(for: error) }
}
