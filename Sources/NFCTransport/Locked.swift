#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a pthread mutex: `withLock` is the only way to it.
///
/// The project's one lock. Not `Synchronization.Mutex`: on Linux that is built on futexes, which
/// ThreadSanitizer cannot see, so every value it guards looked raced to `make tsan` (a false
/// report on two `withLock` bodies). pthread mutexes are what TSan understands. The value lives in
/// its own allocation, not in a stored property, so TSan's Swift access checks see plain memory
/// ordered by the mutex.
///
/// `@unchecked Sendable`: the value is only reached inside `withLock`, under the mutex.
public final class Locked<Value>: @unchecked Sendable {
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private let storage: UnsafeMutablePointer<Value>

  /// A lock around `value`.
  public init(_ value: Value) {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
    storage = .allocate(capacity: 1)
    storage.initialize(to: value)
  }

  deinit {
    storage.deinitialize(count: 1)
    storage.deallocate()
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  /// Runs `body` with the value, under the lock.
  public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&storage.pointee)
  }
}
