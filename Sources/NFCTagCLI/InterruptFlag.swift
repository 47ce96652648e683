import Dispatch
import NFCTransport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Listens for SIGINT and SIGTERM and runs a cancel action off the signal context when one arrives.
package final class InterruptFlag: Sendable {
  /// Dispatch sources are thread-safe (`cancel()` from any thread is documented); the protocol is
  /// just not marked Sendable. Set once in `init`, never changed.
  nonisolated(unsafe) private let sources: [any DispatchSourceSignal]

  private init(onInterrupt: @escaping @Sendable () -> Void) {
    var made: [any DispatchSourceSignal] = []
    for sig in [SIGINT, SIGTERM] {
      signal(sig, SIG_IGN)
      made.append(DispatchSource.makeSignalSource(signal: sig, queue: .global()))
    }
    sources = made
    for source in made {
      source.setEventHandler { onInterrupt() }
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
