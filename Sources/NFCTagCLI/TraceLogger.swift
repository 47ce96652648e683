import Locking
import Logging
import NFCTransport

/// The APDU trace logger (stderr, one line per APDU; secrets masked by the readers).
package func makeTraceLogger() -> Logger {
  TraceLogging.bootstrapOnce()
  var logger = Logger(label: "nfctag.apdu")
  logger.logLevel = .trace
  return logger
}

/// A swift-log handler that writes one line per message to stderr: `trace: …` for the APDU trace
/// (`nfctag.apdu`), `nfctag: …` (`nfctag: warning: …`) for the tool's own messages (``Console``).
package struct StderrLogHandler: LogHandler {
  package var metadata: Logger.Metadata = [:]
  package var logLevel: Logger.Level = .trace
  package let label: String

  package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  package func log(event: LogEvent) {
    StatusLine.clear()
    if label == "nfctag.apdu" {
      if TraceBuffer.keep("\(event.message)") { return }
      writeStderr("trace: \(event.message)\n")
    } else {
      writeStderr("nfctag: \(event.level == .warning ? "warning: " : "")\(event.message)\n")
    }
  }
}

package enum TraceLogging {
  private static let done = Locked(false)
  package static func bootstrapOnce() {
    let first = done.withLock { done in defer { done = true }; return !done }
    if first { LoggingSystem.bootstrap { label in StderrLogHandler(label: label) } }
  }
}
