import Dispatch
import Locking

/// Where a command's Ctrl-C comes from: SIGINT and SIGTERM in a program (``signals()``), a call to
/// ``interrupt()`` in a test (``manual()``). A command listens while it waits (``listen(_:)``);
/// each interruption runs the actions of every listener, off the signal context.
package final class Interrupts: Sendable {
  private struct State {
    var next = 0
    var actions: [Int: @Sendable () -> Void] = [:]
    /// The signal sources while someone listens (``signals()`` only). Dispatch sources are not
    /// marked Sendable: they live behind the lock once resumed, and are cancelled under it.
    var sources: [any DispatchSourceSignal] = []
  }
  private let state = Locked(State())
  private let catchesSignals: Bool

  private init(catchesSignals: Bool) { self.catchesSignals = catchesSignals }

  /// SIGINT and SIGTERM, caught while someone listens; their default action otherwise.
  package static func signals() -> Interrupts { Interrupts(catchesSignals: true) }
  /// Interruptions only from ``interrupt()``.
  package static func manual() -> Interrupts { Interrupts(catchesSignals: false) }

  /// Runs `action` at each interruption until the returned listener stops.
  package func listen(_ action: @escaping @Sendable () -> Void) -> Listener {
    let id = state.withLock { state -> Int in
      state.next += 1
      state.actions[state.next] = action
      if catchesSignals, state.sources.isEmpty {
        for sig in LibC.interruptSignals {
          LibC.ignoreSignal(sig)
          let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
          source.setEventHandler { [self] in interrupt() }
          source.resume()
          state.sources.append(source)
        }
      }
      return state.next
    }
    return Listener(interrupts: self, id: id)
  }

  /// Runs every listener's action (what Ctrl-C does).
  package func interrupt() {
    for action in state.withLock({ Array($0.actions.values) }) { action() }
  }

  fileprivate func stop(_ id: Int) {
    state.withLock { state in
      state.actions[id] = nil
      guard state.actions.isEmpty, !state.sources.isEmpty else { return }
      for source in state.sources { source.cancel() }
      state.sources = []
      for sig in LibC.interruptSignals { LibC.restoreSignal(sig) }
    }
  }

  /// One listener; ``stop()`` ends it (the signals get their default action back when it was the last).
  package struct Listener: Sendable {
    fileprivate let interrupts: Interrupts
    fileprivate let id: Int

    /// Stops listening.
    package func stop() { interrupts.stop(id) }
  }
}
