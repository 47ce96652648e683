import Foundation
import Testing

/// End-to-end tests need the machine's pcscd with the vpcd driver; `make test` sets NFCTAG_E2E=1
/// after starting it. Elsewhere they are skipped, and swift-testing prints this reason.
let e2eEnabled = ProcessInfo.processInfo.environment["NFCTAG_E2E"] == "1"
let e2eSkipReason: Comment = "needs pcscd with vsmartcard-vpcd: run `make test` (sets NFCTAG_E2E=1)"

/// `make tsan` sets NFCTAG_TSAN=1. The suites that repeat one scenario many times (kills at random
/// moments, thousands of rows) repeat it fewer times there: the same threads meet in each
/// repetition, and `make test` keeps the full counts.
let underThreadSanitizer = ProcessInfo.processInfo.environment["NFCTAG_TSAN"] == "1"

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
enum VirtualSlot: Int, Sendable, CaseIterable, Comparable {
  case first = 0, second = 1

  /// The slot the running test holds; "00 01" outside one (and for a test that holds both,
  /// whose other reader is named "00 00" in full).
  @TaskLocal static var current: VirtualSlot = .second
  /// The slots the running test holds (none outside a suite with the trait).
  @TaskLocal static var held: Set<VirtualSlot> = []

  var reader: String { "Virtual PCD 00 0\(rawValue)" }
  var port: String { "127.0.0.1:\(35963 + rawValue)" }
  static func < (a: VirtualSlot, b: VirtualSlot) -> Bool { a.rawValue < b.rawValue }
}

/// Hands out the slots: a test waits (without holding a thread) until what it needs is free;
/// waiters are served in order, so a test that needs both slots is not overtaken for ever.
actor VirtualSlots {
  static let shared = VirtualSlots()
  private var busy: Set<VirtualSlot> = []
  private var waiting: [(count: Int, resume: CheckedContinuation<Set<VirtualSlot>, Never>)] = []

  /// `count` slots (1 or 2), once free.
  func acquire(_ count: Int) async -> Set<VirtualSlot> {
    if waiting.isEmpty, let slots = free(count) {
      busy.formUnion(slots)
      return slots
    }
    return await withCheckedContinuation { waiting.append((count, $0)) }
  }

  func release(_ slots: Set<VirtualSlot>) {
    busy.subtract(slots)
    while let first = waiting.first, let slots = free(first.count) {
      waiting.removeFirst()
      busy.formUnion(slots)
      first.resume.resume(returning: slots)
    }
  }

  private func free(_ count: Int) -> Set<VirtualSlot>? {
    let free = VirtualSlot.allCases.filter { !busy.contains($0) }
    return free.count >= count ? Set(free.suffix(count)) : nil
  }
}

/// Holds vpcd slots around each test of a suite (see ``VirtualSlot``).
struct VirtualSlotTrait: SuiteTrait, TestTrait, TestScoping {
  /// 1: any free slot; 2: both.
  let count: Int
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
func withVirtualSlots<T>(_ count: Int, test: Test? = Test.current, _ body: () async throws -> T) async throws -> T {
  let slots = await VirtualSlots.shared.acquire(count)
  let held = VirtualSlot.held.union(slots)
  let start = Date()
  defer { SlotTimes.record(test: test, slots: slots.count, seconds: Date().timeIntervalSince(start)) }
  do {
    let result = try await VirtualSlot.$held.withValue(held) {
      try await VirtualSlot.$current.withValue(held.count > 1 ? .second : slots.first ?? .second) { try await body() }
    }
    await VirtualSlots.shared.release(slots)
    return result
  } catch {
    await VirtualSlots.shared.release(slots)
    throw error
  }
}

/// With NFCTAG_SLOT_TIMES=FILE, each test's time holding vpcd slots is appended to FILE (seconds,
/// slots, test): what to shorten first when `make test` grows (their sum over two is its floor).
enum SlotTimes {
  private static let file = ProcessInfo.processInfo.environment["NFCTAG_SLOT_TIMES"]

  static func record(test: Test?, slots: Int, seconds: Double) {
    guard let file else { return }
    let fd = open(file, O_WRONLY | O_APPEND | O_CREAT, 0o644)
    guard fd >= 0 else { return }
    defer { close(fd) }
    let line = Array((String(format: "%7.2f", seconds) + " \(slots) \(test?.name ?? "?")\n").utf8)
    _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }  // one write: O_APPEND keeps lines whole
  }
}

extension Trait where Self == VirtualSlotTrait {
  /// One vpcd slot, whichever is free: the suite's tests name it `e2eReader` and `e2ePort`.
  static var virtualReader: Self { VirtualSlotTrait(count: 1) }
  /// Both vpcd slots: the suite uses "Virtual PCD 00 00" beside `e2eReader` ("00 01"), or restarts pcscd.
  static var virtualReaders: Self { VirtualSlotTrait(count: 2) }
}

/// Whether a live pcscd runs (a killed one may linger as a zombie until reaped).
func pcscdAlive() -> Bool {
  guard let r = try? runProgram("/usr/bin/ps", ["-C", "pcscd", "-o", "stat="]) else { return false }
  return r.stdout.split(separator: "\n").contains { !$0.hasPrefix("Z") }
}

/// Stops the machine's pcscd (SIGTERM) and waits until it has exited, up to `seconds`: a daemon
/// still shutting down (its drivers closing, a busy machine) would make scripts/start-pcscd.sh
/// take it for a running one and start none. For tests that hold both vpcd slots.
/// - Returns: false when it still runs.
func stopPcscd(seconds: Double = 10) throws -> Bool {
  _ = try runProgram("/usr/bin/pkill", ["-x", "pcscd"])
  let deadline = Date().addingTimeInterval(seconds)
  while pcscdAlive(), Date() < deadline { usleep(50_000) }
  return !pcscdAlive()
}

/// Waits until pcscd shows no card in the slot the running test holds (a card of the test before
/// it on this slot may still be leaving); false after `seconds`.
@discardableResult
func waitForEmptySlot(seconds: Double = 5) throws -> Bool {
  let deadline = Date().addingTimeInterval(seconds)
  while Date() < deadline {
    if try runNFCTag(["readers", "--json"]).stdout.contains(#""name":"\#(e2eReader)","card":false"#) { return true }
    usleep(100_000)
  }
  return false
}

/// A running `nfctag emulate`.
final class Emulator {
  let process = Process()
  let stderrPipe = Pipe()
  let image: URL

  /// Starts `nfctag emulate` and waits until pcscd reports the card present (at most
  /// `appearWithin` seconds; then the emulator is stopped and the init throws).
  init(tag: String = "ntag215", image: URL? = nil, extra: [String] = [], appearWithin: Double = 10) throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-e2e-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    self.image = image ?? directory.appendingPathComponent("\(tag).bin")
    process.executableURL = nfctagBinary()
    process.arguments = ["emulate", "--tag", tag, "--image", self.image.path, "--vpcd", e2ePort] + extra
    process.standardError = stderrPipe
    process.standardOutput = FileHandle.nullDevice
    try? waitForCard(present: false, seconds: 3)  // a previous card must be gone first
    try process.run()
    // The emulator holds the write end now: ours must go, or reading stderr to its end (when the
    // emulator exited early) would wait for ourselves.
    try? stderrPipe.fileHandleForWriting.close()
    do {
      try waitForCard(present: true, seconds: appearWithin)
    } catch {
      // An emulator whose card never showed must not outlive the failure: it would hold the slot
      // (and deinit never runs for an object whose init threw).
      if process.isRunning { process.terminate() }
      process.waitUntilExit()
      throw error
    }
  }

  /// Polls `nfctag readers --json` until the e2e slot shows (or stops showing) a card.
  func waitForCard(present: Bool, seconds: Double = 10) throws {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      let r = try runNFCTag(["readers", "--json"])
      let marker = #""name":"\#(e2eReader)","card":\#(present)"#
      if r.stdout.contains(marker) { return }
      if !process.isRunning && present { break }
      usleep(100_000)
    }
    throw EmulatorFailure(message: "the virtual card did not \(present ? "appear" : "leave"); emulator said: \(stderrText())")
  }

  /// What the emulator wrote to stderr so far, read without waiting: a write end of the pipe that
  /// outlived the emulator (a process started meanwhile can inherit it) must not make a failing
  /// test wait forever for an end of file.
  func stderrText() -> String {
    if process.isRunning { return "(running)" }
    let fd = stderrPipe.fileHandleForReading.fileDescriptor
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n <= 0 { break }
      bytes += chunk[0..<n]
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Sends SIGINT and returns the exit status.
  @discardableResult
  func stop() -> Int32 {
    if process.isRunning { kill(process.processIdentifier, SIGINT) }
    let deadline = Date().addingTimeInterval(10)
    while process.isRunning, Date() < deadline { usleep(20_000) }
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
    // pcscd notices the removal on its next presence poll (0.4 s): wait for it, so the next
    // emulator is not mistaken for this one.
    try? waitForCard(present: false)
    return process.terminationStatus
  }

  /// Waits for the emulator to exit by itself (after --remove-after).
  func waitForExit(seconds: Double = 10) -> Int32? {
    let deadline = Date().addingTimeInterval(seconds)
    while process.isRunning, Date() < deadline { usleep(20_000) }
    return process.isRunning ? nil : process.terminationStatus
  }

  deinit { if process.isRunning { stop() } }
}

/// A running `nfctag scan --continuous --json` on the e2e reader.
final class ContinuousScan {
  let process = Process()
  private let out = Pipe()

  /// Starts the scan once the slot is empty, so that only the test's own tags are reported.
  init() throws {
    try waitForEmptySlot()
    process.executableURL = nfctagBinary()
    process.arguments = ["scan", "--continuous", "--json", "--reader", e2eReader]
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
  }

  /// Sends SIGINT, waits for the exit, and returns the status and the lines printed.
  func interrupt() -> (status: Int32?, lines: [Substring]) {
    kill(process.processIdentifier, SIGINT)
    let deadline = Date().addingTimeInterval(10)
    while process.isRunning, Date() < deadline { usleep(20_000) }
    if process.isRunning { return (nil, []) }
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    return (process.terminationStatus, text.split(separator: "\n"))
  }

  deinit { if process.isRunning { process.terminate() } }
}

struct EmulatorFailure: Error, CustomStringConvertible {
  let message: String
  var description: String { message }
}

/// Runs a program (not nfctag) and returns its status and output.
func runProgram(_ path: String, _ arguments: [String], timeout: Double = 30) throws -> RunResult {
  try runProcess(URL(fileURLWithPath: path), arguments, timeout: timeout)
}

/// The repository root (for scripts/).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
