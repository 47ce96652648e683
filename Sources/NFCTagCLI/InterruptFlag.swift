import Dispatch
import NFCTransport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Set once SIGINT or SIGTERM arrived; the handler runs a cancel action off the signal context.
package final class InterruptFlag: Sendable {
  private let flagged = Locked(false)
  /// Dispatch sources are thread-safe (`cancel()` from any thread is documented); the protocol is
  /// just not marked Sendable. Set once in `init`, never changed.
  nonisolated(unsafe) private let sources: [any DispatchSourceSignal]

  package var isSet: Bool { flagged.withLock { $0 } }

  private init(onInterrupt: @escaping @Sendable () -> Void) {
    var made: [any DispatchSourceSignal] = []
    for sig in [SIGINT, SIGTERM] {
      signal(sig, SIG_IGN)
      made.append(DispatchSource.makeSignalSource(signal: sig, queue: .global()))
    }
    sources = made
    for source in made {
      source.setEventHandler { [self] in
        flagged.withLock { $0 = true }
        onInterrupt()
      }
      source.resume()
    }
  }

  package static func install(onInterrupt: @escaping @Sendable () -> Void) -> InterruptFlag {
    InterruptFlag(onInterrupt: onInterrupt)
  }

  /// Stops listening; the signals get their default action back.
  package func uninstall() {
    for source in sources { source.cancel() }
    signal(SIGINT, SIG_DFL)
    signal(SIGTERM, SIG_DFL)
  }
}
