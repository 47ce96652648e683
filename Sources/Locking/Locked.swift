import Synchronization

/// A value behind a mutex: `withLock` is the only way to it.
///
/// The project's one lock: a reference that callers share, around a `Synchronization.Mutex`, with
/// `Mutex`'s signatures. The value goes in and comes out as `sending`, so a non-`Sendable` value
/// in it can neither be reached from outside the lock nor escape it still shared; `Locked` is
/// `Sendable` because `Mutex` is, with nothing unchecked here.
///
/// `Mutex` is futex-based on Linux and ThreadSanitizer does not see the order it puts between two
/// `withLock` bodies: every value it guards looked raced to `make tsan`. So each body starts with
/// an acquiring load of `order` and ends with a releasing add to it: compiled into this module,
/// those are atomics TSan sees, and they order the bodies exactly as the mutex does.
public final class Locked<Value>: Sendable {
  private let mutex: Mutex<Value>
  private let order = Atomic<UInt>(0)

  /// A lock around `initialValue`.
  public init(_ initialValue: sending Value) {
    mutex = Mutex(initialValue)
  }

  /// Runs `body` with the value, under the lock.
  public func withLock<Result, E: Error>(
    _ body: (inout sending Value) throws(E) -> sending Result
  ) throws(E) -> sending Result {
    try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
      _ = order.load(ordering: .acquiring)
      defer { order.add(1, ordering: .releasing) }
      return try body(&value)
    }
  }
}
