import Dispatch
import Locking
import NFCTransport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Listens for SIGINT and SIGTERM and runs a cancel action off the signal context when one arrives.
package final class InterruptFlag: Sendable {
  /// Dispatch sources are not marked Sendable: they go behind the lock once resumed, and are
  /// cancelled under it.
  private let sources: Locked<[any DispatchSourceSignal]>

  private init(onInterrupt: @escaping @Sendable () -> Void) {
    var made: [any DispatchSourceSignal] = []
    for sig in [SIGINT, SIGTERM] {
      signal(sig, SIG_IGN)
      made.append(DispatchSource.makeSignalSource(signal: sig, queue: .global()))
    }
    for source in made {
      source.setEventHandler { onInterrupt() }
      source.resume()
    }
    sources = Locked(made)
  }

  package static func install(onInterrupt: @escaping @Sendable () -> Void) -> InterruptFlag {
    InterruptFlag(onInterrupt: onInterrupt)
  }

  /// Stops listening; the signals get their default action back.
  package func uninstall() {
    sources.withLock { for source in $0 { source.cancel() } }
    signal(SIGINT, SIG_DFL)
    signal(SIGTERM, SIG_DFL)
  }
}
