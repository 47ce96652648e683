import Foundation

/// What a run of the built `nfctag` binary produced.
struct RunResult {
  var status: Int32
  var stdout: String
  var stderr: String
  var stdoutBytes: Data
}

/// The `nfctag` executable that `swift test` built next to the test bundle.
func nfctagBinary() -> URL {
  let bundle = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
  return bundle.deletingLastPathComponent().appendingPathComponent("nfctag")
}

/// Runs `nfctag` with `arguments`, feeding `stdin`; waits at most `timeout` seconds.
@discardableResult
func runNFCTag(_ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:], timeout: TimeInterval = 60) throws -> RunResult {
  try runProcess(nfctagBinary(), arguments, stdin: stdin, environment: environment, timeout: timeout)
}

/// Runs a program with `arguments`, feeding `stdin`, and collects its output and status; a
/// program still running after `timeout` seconds is terminated.
func runProcess(_ executable: URL, _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:],
                timeout: TimeInterval = 60) throws -> RunResult {
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
  if let stdin { input.fileHandleForWriting.write(stdin) }
  try input.fileHandleForWriting.close()
  let outData = out.fileHandleForReading.readDataToEndOfFile()
  let errData = err.fileHandleForReading.readDataToEndOfFile()
  let deadline = Date().addingTimeInterval(timeout)
  while process.isRunning, Date() < deadline { usleep(10_000) }
  if process.isRunning { process.terminate() }
  process.waitUntilExit()
  return RunResult(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                   stderr: String(decoding: errData, as: UTF8.self), stdoutBytes: outData)
}
