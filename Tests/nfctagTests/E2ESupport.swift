import Foundation
import Testing

/// End-to-end tests need the machine's pcscd with the vpcd driver; `make test` sets NFCTAG_E2E=1
/// after starting it. Elsewhere they are skipped, and swift-testing prints this reason.
let e2eEnabled = ProcessInfo.processInfo.environment["NFCTAG_E2E"] == "1"
let e2eSkipReason: Comment = "needs pcscd with vsmartcard-vpcd: run `make test` (sets NFCTAG_E2E=1)"

/// `make tsan` sets NFCTAG_TSAN=1.
let underThreadSanitizer = ProcessInfo.processInfo.environment["NFCTAG_TSAN"] == "1"

/// How many times a test that repeats one scenario (tags in a row, kills at random moments,
/// reads, thousands of rows) repeats it: `full` in CI (`.ci/run` sets NFCTAG_FULL_COUNTS=1),
/// `tsan` under `make tsan` (the same threads meet in each repetition), and `quick` in a plain
/// `make test`, where a newcomer waits for the end-to-end suites on two vpcd slots.
func repetitions(full: Int, quick: Int, tsan: Int) -> Int {
  if underThreadSanitizer { return tsan }
  return fullCounts ? full : quick
}

/// CI's full counts (`.ci/run` sets NFCTAG_FULL_COUNTS=1): ``repetitions(full:quick:tsan:)``, and
/// the tear test's every cut.
let fullCounts = ProcessInfo.processInfo.environment["NFCTAG_FULL_COUNTS"] == "1"

/// A process's exit status once it exits by itself (a feeder whose last tag left, a station at
/// the end of its rows), nil while it still runs after `seconds`.
func waitForExit(_ process: Process, seconds: Double = 10) -> Int32? {
  let deadline = Date().addingTimeInterval(seconds)
  while process.isRunning, Date() < deadline { usleep(20_000) }
  return process.isRunning ? nil : process.terminationStatus
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
  try waitForEmptySlots([VirtualSlot.current], seconds: seconds)
}

/// Waits until pcscd shows no card in `slots` (or does not list them: pcscd is down, which the
/// test will find out itself); false after `seconds`. Every test does it when it takes its slots
/// (``withVirtualSlots(_:test:_:)``): pcscd sees a card leave up to a poll later (400 ms) than
/// the test before stopped its emulator.
@discardableResult
func waitForEmptySlots(_ slots: Set<VirtualSlot>, seconds: Double = 5) throws -> Bool {
  slots.allSatisfy { CardWatch.wait(in: $0.reader, present: false, seconds: seconds) != .timedOut }
}

/// A running `nfctag emulate`.
final class Emulator {
  let process = Process()
  let stderrPipe = Pipe()
  let image: URL
  /// The PC/SC reader the card shows in: the e2e slot's, or a driver reader's (``DriverReader``).
  let reader: String

  /// Starts `nfctag emulate` and waits until pcscd reports the card present (at most
  /// `appearWithin` seconds; then the emulator is stopped and the init throws). It attaches to
  /// the vpcd slot the test holds, or to `driver`'s port (nfctag's pcsc-lite driver).
  init(tag: String = "ntag215", image: URL? = nil, extra: [String] = [], appearWithin: Double = 10,
       driver: DriverReader? = nil) throws {
    reader = driver?.name ?? e2eReader
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-e2e-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    self.image = image ?? directory.appendingPathComponent("\(tag).bin")
    process.executableURL = nfctagBinary()
    process.arguments = ["emulate", "--tag", tag, "--image", self.image.path, "--vpcd", driver?.address ?? e2ePort] + extra
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

  /// Waits until pcscd shows (or stops showing) a card in the emulator's reader.
  func waitForCard(present: Bool, seconds: Double = 10) throws {
    let outcome = CardWatch.wait(in: reader, present: present, seconds: seconds) { present && !process.isRunning }
    if outcome == .reached { return }
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
