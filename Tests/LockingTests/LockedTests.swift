import Dispatch
import Locking
import Testing

/// `Locked` from many threads at once. Under `make tsan` this is also the check that
/// ThreadSanitizer sees the order between two `withLock` bodies (it does not see the futex
/// under `Synchronization.Mutex` on Linux).
@Suite struct LockedTests {
  @Test func bodiesOnManyThreadsNeverOverlap() {
    let counter = Locked((value: 0, inside: 0, overlapped: false))
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      for _ in 0..<2_000 {
        counter.withLock { state in
          state.inside += 1
          if state.inside > 1 { state.overlapped = true }
          state.value += 1
          state.inside -= 1
        }
      }
    }
    let state = counter.withLock { $0 }
    #expect(state.value == 16_000)
    #expect(!state.overlapped)
  }

  @Test func aThrowingBodyKeepsWhatItChangedAndReleasesTheLock() {
    struct Refused: Error {}
    let list = Locked<[Int]>([1])
    #expect(throws: Refused.self) {
      try list.withLock { (values: inout [Int]) throws(Refused) in
        values.append(2)
        throw Refused()
      }
    }
    #expect(list.withLock { $0 } == [1, 2])
    list.withLock { $0.append(3) }
    #expect(list.withLock { $0 } == [1, 2, 3])
  }

  @Test func aValueMadeInsideTheLockComesOutWhole() {
    final class Box { var items: [String] = [] }
    let locked = Locked(Box())
    let copy: [String] = locked.withLock { box in
      box.items.append("a")
      return box.items
    }
    #expect(copy == ["a"])
  }
}
