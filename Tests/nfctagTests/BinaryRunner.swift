import Foundation

/// What a run of the built `nfctag` binary produced.
struct RunResult {
  var status: Int32
  var stdout: String
  var stderr: String
  var stdoutBytes: Data
  /// The runner ended the program at its time limit.
  var timedOut = false
}

/// The `nfctag` executable that `swift test` built next to the test bundle.
func nfctagBinary() -> URL {
  let bundle = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
  return bundle.deletingLastPathComponent().appendingPathComponent("nfctag")
}

/// Runs `nfctag` with `arguments`, feeding `stdin`; waits at most `timeout` seconds.
@discardableResult
func runNFCTag(_ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:], timeout: TimeInterval = 60,
               interruptWhen: (() -> Bool)? = nil) throws -> RunResult {
  try runProcess(nfctagBinary(), arguments, stdin: stdin, environment: environment, timeout: timeout, interruptWhen: interruptWhen)
}

/// Runs a program with `arguments`, feeding `stdin`, and collects its output and status; a
/// program still running after `timeout` seconds is terminated (its stderr then says so). With
/// `interruptWhen`, asked every quarter of a second while the program runs, the program gets one
/// SIGINT (Ctrl-C) when it first returns true.
func runProcess(_ executable: URL, _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:],
                timeout: TimeInterval = 60, interruptWhen: (() -> Bool)? = nil) throws -> RunResult {
  let process = Process()
  process.executableURL = executable
  process.arguments = arguments
  var env = ProcessInfo.processInfo.environment
  for (k, v) in environment { env[k] = v }
  process.environment = env
  let out = Pipe(), err = Pipe(), input = Pipe()
  process.standardOutput = out
  process.standardError = err
  process.standardInput = input
  try process.run()
  // Both pipes are drained on their own threads while this one keeps the deadline: a program
  // that hangs (or a child that keeps a pipe open) cannot block the test past `timeout`.
  let outData = PipeDrain(out), errData = PipeDrain(err)
  if let stdin { input.fileHandleForWriting.write(stdin) }
  try input.fileHandleForWriting.close()
  let deadline = Date().addingTimeInterval(timeout)
  var nextLook = Date().addingTimeInterval(0.25), interrupted = interruptWhen == nil
  while process.isRunning, Date() < deadline {
    usleep(10_000)
    if !interrupted, Date() >= nextLook, let interruptWhen {
      if interruptWhen(), process.isRunning {
        kill(process.processIdentifier, SIGINT)
        interrupted = true
      }
      nextLook = Date().addingTimeInterval(0.25)
    }
  }
  let timedOut = process.isRunning
  if timedOut {
    process.terminate()
    let grace = Date().addingTimeInterval(2)
    while process.isRunning, Date() < grace { usleep(10_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
  }
  process.waitUntilExit()
  let outBytes = outData.wait(seconds: 2), errBytes = errData.wait(seconds: 2)
  return RunResult(status: process.terminationStatus, stdout: String(decoding: outBytes, as: UTF8.self),
                   stderr: String(decoding: errBytes, as: UTF8.self) + (timedOut ? "\n(test runner: killed after \(Int(timeout)) s)" : ""),
                   stdoutBytes: outBytes, timedOut: timedOut)
}

/// Reads a pipe to its end on a background thread.
///
/// `@unchecked Sendable`: `data` is written once by the reading thread before it signals `done`,
/// and read only after `done` was waited for, so the semaphore orders every access.
private final class PipeDrain: @unchecked Sendable {
  private var data = Data()
  private let done = DispatchSemaphore(value: 0)

  init(_ pipe: Pipe) {
    let handle = pipe.fileHandleForReading
    Thread.detachNewThread { [self] in
      data = handle.readDataToEndOfFile()
      done.signal()
    }
  }

  /// What was read; after `seconds` without the end of the pipe, nothing.
  func wait(seconds: Double) -> Data {
    done.wait(timeout: .now() + seconds) == .success ? data : Data()
  }
}
