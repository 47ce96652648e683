import Logging
import NFCSession

/// What `--exchange-timeout` is when not given: seconds a PC/SC reader may take to answer one
/// command before the tag counts as lost.
package let defaultExchangeTimeout = 5.0

/// The poller for a `--reader` value: a PC/SC reader (name, unique prefix, index; nil: the
/// first with a tag) or the in-process simulator (`sim:…`). A PC/SC reader that leaves one
/// exchange unanswered for `exchangeTimeout` seconds loses the tag (74) instead of hanging.
package func makeTagPoller(spec: String?, logger: Logger?,
                           exchangeTimeout: Double = defaultExchangeTimeout) throws(CLIFailure) -> any TagPoller {
  if let spec, spec.hasPrefix("sim:") {
    do {
      return try SessionReaders.simulator(spec, logger: logger)
    } catch {
      let advice = error.workingFace.map { ": use sim:KIND@\($0.rawValue)" } ?? ""
      throw cliFailure(for: error, otherwise: ExitStatus.usage, "bad simulator reader '\(spec)': \(error)\(advice)")
    }
  }
  do {
    return try PCSCReaders.poller(named: spec, logger: logger, exchangeTimeout: exchangeTimeout)
  } catch {
    throw cliFailure(for: error)
  }
}
