import Locking
import NFCTagCLI
import Dispatch
import Logging
import NFCSession
import NFCTransport
import Provisioning

/// Watches the PC/SC reader list during `provision`: readers of the run that go away are reported
/// (their session keeps waiting and picks up again when the reader is back, which is reported
/// too); with `--reader all`, readers plugged in during the run join it.
final class ReaderWatch: Sendable {
  private let stopped = Locked(false)
  private let inRun: Locked<Set<String>>

  init(initial: [String]) { inRun = Locked(Set(initial)) }

  /// Checks the reader list every `interval` seconds until ``stop()``.
  func start(run: ProvisioningRun, addingNew: Bool, interval: Double = 1, logger: Logger?,
             context: CommandContext, report: @escaping @Sendable (String, String) -> Void) {
    DispatchQueue.global().async { [self] in
      var present = inRun.withLock { $0 }
      while !stopped.withLock({ $0 }) {
        usleep(UInt32(interval * 1_000_000))
        // pcscd gone (restarting): every reader is gone until it answers again.
        let names = (try? pcscReaderNames()) ?? []
        let now = Set(names)
        let members = inRun.withLock { $0 }
        for gone in present.subtracting(now) where members.contains(gone) { report(gone, "unplugged") }
        for name in now.subtracting(present) {
          if members.contains(name) {
            report(name, "back")
          } else if addingNew, let poller = try? makeTagPoller(spec: name, logger: logger, in: context) {
            inRun.withLock { _ = $0.insert(name) }
            report(name, "added")
            run.add(poller)
          }
        }
        present = now
      }
    }
  }

  func stop() { stopped.withLock { $0 = true } }
}
