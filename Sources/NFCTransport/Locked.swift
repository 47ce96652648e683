#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a pthread mutex: `withLock` is the only way to it.
///
/// The project's one lock. Not `Synchronization.Mutex`: on Linux that is built on futexes, which
/// ThreadSanitizer cannot see, so every value it guards looked raced to `make tsan` (a false
/// report on two `withLock` bodies). pthread mutexes are what TSan understands.
///
/// `@unchecked Sendable`: the value is only reached inside `withLock`, under the mutex.
public final class Locked<Value>: @unchecked Sendable {
  private var value: Value
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>

  /// A lock around `value`.
  public init(_ value: Value) {
    self.value = value
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  /// Runs `body` with the value, under the lock.
  public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&value)
  }
}
