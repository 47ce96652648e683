import Foundation
import Testing

/// The vpcd slot the running end-to-end test holds (``VirtualSlot/current``): its reader name.
var e2eReader: String { VirtualSlot.current.reader }
/// The vpcd slot the running end-to-end test holds: where `nfctag emulate --vpcd` connects.
var e2ePort: String { VirtualSlot.current.port }

/// The two slots of the Debian vpcd configuration: "Virtual PCD 00 00" (pcscd listens on 35963)
/// and "Virtual PCD 00 01" (35964). The machine's pcscd is shared, so an end-to-end suite holds
/// the slots it uses while it runs: one, any that is free (`.virtualReader`), or
/// both (`.virtualReaders`: two readers, a pcscd restart, the demo's slot).
/// The slot is taken for each test case, so the tests of one suite run on both slots side by side
/// (such a suite is not `.serialized`: the slots keep its tests apart); the rest run beside them.
///
/// A slot is held across processes too: its lock file (``lockPath``) is `flock`ed while a test
/// holds it, so that `make test`'s test processes, which run side by side (scripts/run-tests.sh),
/// and a second test run on the machine take turns. A process that holds a slot for all its
/// tests takes the same lock: `flock /tmp/nfctag-vpcd-slot-0.lock COMMAND`.
enum VirtualSlot: Int, Sendable, CaseIterable, Comparable {
  case first = 0, second = 1

  /// The slot the running test holds; "00 01" outside one (and for a test that holds both,
  /// whose other reader is named "00 00" in full).
  @TaskLocal static var current: VirtualSlot = .second
  /// The slots the running test holds (none outside a suite with the trait).
  @TaskLocal static var held: Set<VirtualSlot> = []

  var reader: String { "Virtual PCD 00 0\(rawValue)" }
  var port: String { "127.0.0.1:\(35963 + rawValue)" }
  /// The file whose `flock` is this slot, for every process on the machine.
  var lockPath: String { "/tmp/nfctag-vpcd-slot-\(rawValue).lock" }
  static func < (a: VirtualSlot, b: VirtualSlot) -> Bool { a.rawValue < b.rawValue }
}

/// Hands out the slots: a test waits (without holding a thread) until what it needs is free in
/// this process and its lock file is free for the machine. Waiters are served in order, so a test
/// that needs both slots is not overtaken for ever; a waiter marked `first` (`.virtualReaderEarly`:
/// one of the longest tests, or a test of a `.serialized` suite, whose next test can only ask
/// when this one ends) goes before the others, so that it does not end the run.
actor VirtualSlots {
  static let shared = VirtualSlots()
  private struct Waiter {
    let count: Int
    let first: Bool
    let resume: CheckedContinuation<Set<VirtualSlot>, Never>
  }
  private var busy: Set<VirtualSlot> = []
  private var waiting: [Waiter] = []
  private var polling = false
  /// Each slot's lock file, opened once (a `flock` belongs to the open file).
  private var descriptors: [VirtualSlot: Int32] = [:]

  /// `count` slots (1 or 2), once free.
  func acquire(_ count: Int, first: Bool = false) async -> Set<VirtualSlot> {
    await withCheckedContinuation { resume in
      let waiter = Waiter(count: count, first: first, resume: resume)
      if first, let later = waiting.firstIndex(where: { !$0.first }) {
        waiting.insert(waiter, at: later)
      } else {
        waiting.append(waiter)
      }
      serve()
    }
  }

  /// Gives `slots` back. A `first` test leaves them for a moment to the test that may follow it in
  /// a `.serialized` suite: that test asks only once this one has returned.
  func release(_ slots: Set<VirtualSlot>, first: Bool = false) {
    for slot in slots { if let fd = descriptors[slot] { flock(fd, LOCK_UN) } }
    busy.subtract(slots)
    guard first else { return serve() }
    Task {
      try? await Task.sleep(for: .milliseconds(200))
      self.serve()
    }
  }

  /// Serves the waiters in order while what the first needs can be taken; while some wait, looks
  /// again every 50 ms (another process gives a slot back without telling this one).
  private func serve() {
    while let head = waiting.first, let slots = take(head.count) {
      waiting.removeFirst()
      head.resume.resume(returning: slots)
    }
    guard !waiting.isEmpty, !polling else { return }
    polling = true
    Task {
      try? await Task.sleep(for: .milliseconds(50))
      self.pollAgain()
    }
  }

  private func pollAgain() {
    polling = false
    serve()
  }

  /// `count` slots free here whose locks this process could take (the second slot first, as
  /// before the locks), or nil, with nothing taken.
  private func take(_ count: Int) -> Set<VirtualSlot>? {
    var taken: Set<VirtualSlot> = []
    for slot in VirtualSlot.allCases.reversed() where !busy.contains(slot) && taken.count < count {
      if lock(slot) { taken.insert(slot) }
    }
    guard taken.count == count else {
      for slot in taken { if let fd = descriptors[slot] { flock(fd, LOCK_UN) } }
      return nil
    }
    busy.formUnion(taken)
    return taken
  }

  private func lock(_ slot: VirtualSlot) -> Bool {
    let fd: Int32
    if let open = descriptors[slot] {
      fd = open
    } else {
      fd = open(slot.lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
      guard fd >= 0 else { return true }  // no lock file (read-only /tmp): this process alone
      descriptors[slot] = fd
    }
    return flock(fd, LOCK_EX | LOCK_NB) == 0
  }
}

/// Holds vpcd slots around each test of a suite (see ``VirtualSlot``).
struct VirtualSlotTrait: SuiteTrait, TestTrait, TestScoping {
  /// 1: any free slot; 2: both.
  let count: Int
  /// Served before the tests that asked earlier (``VirtualSlots``): for the longest tests, which
  /// would end the run if they started last.
  var early = false
  var isRecursive: Bool { true }

  func provideScope(for test: Test, testCase: Test.Case?,
                    performing function: @Sendable () async throws -> Void) async throws {
    // A suite's own scope, or a test already holding enough (its other trait): nothing to take.
    // The slots are taken at once, as many as the test's traits ask for (its own and its suite's):
    // a test that held one while waiting for the other could wait for ever on another such test.
    let needed = test.traits.compactMap { ($0 as? VirtualSlotTrait)?.count }.max() ?? count
    let missing = max(needed, count) - VirtualSlot.held.count
    if test.isSuite || missing <= 0 { return try await function() }
    try await withVirtualSlots(missing, test: test, function)
  }
}

/// Runs `body` holding `count` more vpcd slots (taken at once, given back after), with
/// `e2eReader`/`e2ePort` naming them: for a test that needs a slot for a part of its work only.
/// A test with `.virtualReaderEarly` (its own or its suite's) is served before the tests that
/// wait beside it.
func withVirtualSlots<T>(_ count: Int, test: Test? = Test.current, _ body: () async throws -> T) async throws -> T {
  let first = test?.traits.contains { ($0 as? VirtualSlotTrait)?.early == true } ?? false
  if let test { checkSuiteName(test) }
  let slots = await VirtualSlots.shared.acquire(count, first: first)
  let held = VirtualSlot.held.union(slots)
  let start = Date()
  defer { SlotTimes.record(test: test, slots: slots.count, start: start) }
  do {
    if e2eEnabled { try waitForEmptySlots(slots) }
    let result = try await VirtualSlot.$held.withValue(held) {
      try await VirtualSlot.$current.withValue(held.count > 1 ? .second : slots.first ?? .second) { try await body() }
    }
    await VirtualSlots.shared.release(slots, first: first)
    return result
  } catch {
    await VirtualSlots.shared.release(slots, first: first)
    throw error
  }
}

/// scripts/run-tests.sh runs the suites named …EndToEnd or …E2E… in a process of their own, each
/// test holding its slots for the whole of its run, so that the process's two threads serve the
/// two slots. A test elsewhere would take slots from the other process, which polls for them and
/// so loses them to this one's tests, one after another.
private func checkSuiteName(_ test: Test) {
  let suite = String(describing: test.id).split(separator: "/").first.map(String.init) ?? ""
  if !(suite.contains("EndToEnd") || suite.contains("E2E")) {
    Issue.record("\(suite) holds vpcd slots: name it …EndToEnd, so that scripts/run-tests.sh runs it with the end-to-end suites")
  }
}

/// With NFCTAG_SLOT_TIMES=FILE, each test's time holding vpcd slots is appended to FILE (seconds,
/// slots, when it took them in seconds since 1970, test): what to shorten first when `make test`
/// grows (their sum over two is its floor), and what ran last.
enum SlotTimes {
  private static let file = ProcessInfo.processInfo.environment["NFCTAG_SLOT_TIMES"]

  static func record(test: Test?, slots: Int, start: Date) {
    guard let file else { return }
    let fd = open(file, O_WRONLY | O_APPEND | O_CREAT, 0o644)
    guard fd >= 0 else { return }
    defer { close(fd) }
    let seconds = Date().timeIntervalSince(start)
    let fields = String(format: "%7.2f %d %.1f", seconds, slots, start.timeIntervalSince1970)
    let line = Array((fields + " \(test?.name ?? "?")\n").utf8)
    _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }  // one write: O_APPEND keeps lines whole
  }
}

extension Trait where Self == VirtualSlotTrait {
  /// One vpcd slot, whichever is free: the suite's tests name it `e2eReader` and `e2ePort`.
  static var virtualReader: Self { VirtualSlotTrait(count: 1) }
  /// Both vpcd slots: the suite uses "Virtual PCD 00 00" beside `e2eReader` ("00 01"), or restarts pcscd.
  static var virtualReaders: Self { VirtualSlotTrait(count: 2) }
  /// One vpcd slot, before the tests that asked earlier: for a test among the longest, or a
  /// `.serialized` suite's tests (one after another, they would otherwise end the run).
  static var virtualReaderEarly: Self { VirtualSlotTrait(count: 1, early: true) }
}
