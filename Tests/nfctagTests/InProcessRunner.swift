import Foundation
import Locking
@testable import NFCTagCLI
@testable import nfctag
@testable import nfctag_provision

/// Runs `nfctag ARGUMENTS` in this process, as the program would: the same command line through
/// `NFCTool.runCommandLine(_:in:)`, in a context of its own whose standard output and error are
/// buffers, standard input a pipe fed with `stdin`, and whose environment is this process's with
/// `environment` on top (what the commands read through the context: passwords, secrets,
/// `NO_COLOR`). `provision` and `ledger` are performed in process too, as nfctag-provision
/// performs them.
///
/// What only a process shows stays with ``runNFCTag(_:stdin:environment:timeout:)``: signals,
/// a terminal, the `exec` hand-over, variables a library reads itself (`PCSCLITE_CSOCK_NAME`,
/// libpq's `PG*`), a kill.
///
/// A command still running after `timeout` seconds is interrupted as Ctrl-C would (its context's
/// interrupts), and the result says so.
@discardableResult
func runTool(_ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:],
             timeout: TimeInterval = 60) throws -> RunResult {
  let output = CapturedOutput(), errors = CapturedOutput()
  var pipeEnds: [Int32] = [0, 0]
  guard pipe(&pipeEnds) == 0 else { throw POSIXError(.EMFILE) }
  let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])
  let input = stdin ?? Data()
  // The writer stops when the command closes the read end without reading everything.
  let feeder = Thread {
    input.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let n = write(writeEnd, raw.baseAddress! + offset, raw.count - offset)
        if n <= 0 { if n < 0, errno == EINTR { continue }; break }
        offset += n
      }
    }
    close(writeEnd)
  }
  signal(SIGPIPE, SIG_IGN)
  feeder.start()
  let overlay = environment
  let context = CommandContext(
    output: output, errors: errors, inputDescriptor: readEnd,
    environment: { name in overlay[name] ?? ProcessInfo.processInfo.environment[name] },
    dispatch: { command, context in try NFCTagProvision.perform(command, in: context) })
  let status = Locked<Int32?>(nil)
  let done = DispatchSemaphore(value: 0)
  let runner = Thread {
    let code = NFCTool.runCommandLine(arguments, in: context)
    status.withLock { $0 = code }
    done.signal()
  }
  runner.stackSize = 8 << 20
  runner.start()
  var note = ""
  if done.wait(timeout: .now() + timeout) == .timedOut {
    context.interrupts.interrupt()
    note = "\n(test runner: interrupted after \(Int(timeout)) s)"
    if done.wait(timeout: .now() + 10) == .timedOut { note += " and still running" }
  }
  close(readEnd)
  let code = status.withLock { $0 } ?? 137
  let bytes = output.bytes
  return RunResult(status: code, stdout: String(decoding: bytes, as: UTF8.self), stderr: errors.text + note,
                   stdoutBytes: Data(bytes))
}
