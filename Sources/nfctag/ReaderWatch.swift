import Dispatch
import Logging
import NFCSession
import Provisioning

/// `provision --reader all`: readers plugged in during the run join it; readers that go away are
/// reported (their session keeps waiting and picks up again when the reader is back).
final class ReaderWatch: Sendable {
  private let stopped = Locked(false)
  private let known: Locked<Set<String>>

  init(initial: [String]) { known = Locked(Set(initial)) }

  /// Checks the reader list every `interval` seconds until ``stop()``.
  func start(run: ProvisioningRun, interval: Double = 1, logger: Logger?, report: @escaping @Sendable (String, String) -> Void) {
    DispatchQueue.global().async { [self] in
      var present = known.withLock { $0 }
      while !stopped.withLock({ $0 }) {
        usleep(UInt32(interval * 1_000_000))
        guard let names = try? PCSCReaders.names() else { continue }
        let now = Set(names)
        for gone in present.subtracting(now) { report(gone, "unplugged") }
        for name in now.subtracting(present) {
          let isNew = known.withLock { k in k.insert(name).inserted }
          if isNew {
            guard let poller = try? TagSession.makePoller(spec: name, logger: logger) else { continue }
            report(name, "added")
            run.add(poller)
          } else {
            report(name, "back")
          }
        }
        present = now
      }
    }
  }

  func stop() { stopped.withLock { $0 = true } }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
