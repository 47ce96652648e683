import ArgumentParser
import Locking
import NFCSession

/// Everything a command reaches outside its own options: where it writes, what it reads, the
/// environment, whether it talks to a terminal, what it says on stderr at which level, the APDU
/// trace, Ctrl-C, and where the commands whose work is elsewhere are dispatched.
///
/// A program makes one with ``standard(dispatch:)`` from its own streams and signals; a test makes
/// one with ``init(output:errors:inputDescriptor:environment:outputIsTerminal:errorsIsTerminal:interrupts:dispatch:)``
/// around buffers, runs a command line in it (``ToolCommand/runCommandLine(_:in:)``) and reads what
/// it wrote. Nothing a command does goes through process-wide state, so commands can run one after
/// another, or side by side, in one process.
package final class CommandContext: Sendable {
  /// Where a program dispatches a command whose declaration does not do the work itself
  /// (`provision`, `ledger`, `sdm`, `keys`, `emulate` of a kind not linked here): nfctag hands it
  /// over (`exec`s nfctag-provision, its `HandOver`), nfctag-provision performs it (its
  /// `perform(_:in:)`). Two programs, two verbs; this is the one seam both fill.
  package typealias Dispatch = @Sendable (any ParsableCommand, CommandContext) throws -> Void

  /// Standard output.
  package let output: any OutputSink
  /// Standard error.
  package let errors: any OutputSink
  /// The descriptor read as standard input (`-`, `--lines`).
  package let inputDescriptor: Int32
  /// The value of an environment variable (passwords, secrets, `NO_COLOR`).
  package let environment: @Sendable (String) -> String?
  /// True when standard output is a terminal (raw bytes are refused there, colour is allowed).
  package let outputIsTerminal: Bool
  /// True when standard error is a terminal (prompts and progress lines show there).
  package let errorsIsTerminal: Bool
  /// The transient line on stderr: the waiting prompt, a progress line.
  package let statusLine: StatusLine
  /// Confirmations, warnings and `--verbose` on stderr, at the level `--quiet`/`--verbose` chose.
  package let console: Console
  /// The APDU trace (`--trace`).
  package let trace: CommandTrace
  /// Ctrl-C and SIGTERM: the signals in a program, ``Interrupts/interrupt()`` in a test.
  package let interrupts: Interrupts
  /// The command's `sim:` readers, one per name (``makeTagPoller(spec:logger:exchangeTimeout:in:)``):
  /// a command gets a new simulated tag, as a process of its own would.
  package let simulatedReaders = SimulatedReaders()
  private let dispatcher: Dispatch?
  private let kept = Locked<[any AnyObject & Sendable]>([])

  /// A context around the given streams.
  ///
  /// - Parameters:
  ///   - output: standard output.
  ///   - errors: standard error.
  ///   - inputDescriptor: the descriptor standard input is read from.
  ///   - environment: looks up an environment variable.
  ///   - outputIsTerminal: whether standard output is a terminal.
  ///   - errorsIsTerminal: whether standard error is a terminal.
  ///   - interrupts: where Ctrl-C comes from.
  ///   - dispatch: where ``dispatch(_:)`` sends a command (``Dispatch``); nil in a program that has none.
  package init(output: any OutputSink, errors: any OutputSink, inputDescriptor: Int32,
               environment: @escaping @Sendable (String) -> String?, outputIsTerminal: Bool = false,
               errorsIsTerminal: Bool = false, interrupts: Interrupts = .manual(), dispatch: Dispatch? = nil) {
    self.output = output
    self.errors = errors
    self.inputDescriptor = inputDescriptor
    self.environment = environment
    self.outputIsTerminal = outputIsTerminal
    self.errorsIsTerminal = errorsIsTerminal
    self.interrupts = interrupts
    dispatcher = dispatch
    statusLine = StatusLine(errors: errors)
    console = Console(errors: errors, statusLine: statusLine, errorsIsTerminal: errorsIsTerminal)
    trace = CommandTrace(errors: errors, statusLine: statusLine)
  }

  /// The program's own context: file descriptors 0, 1 and 2, the process environment, SIGINT
  /// and SIGTERM.
  package static func standard(dispatch: Dispatch? = nil) -> CommandContext {
    CommandContext(output: FileDescriptorSink(fd: 1), errors: FileDescriptorSink(fd: 2), inputDescriptor: 0,
                   environment: { name in LibC.environmentValue(name) },
                   outputIsTerminal: LibC.isTerminal(1), errorsIsTerminal: LibC.isTerminal(2),
                   interrupts: .signals(), dispatch: dispatch)
  }

  /// Writes `line` on standard error as one `nfctag: ` line (the transient line cleared first),
  /// with any key material in it hidden (``hidingKeyMaterial(_:)``).
  package func say(_ line: String) {
    statusLine.clear()
    errors.write("nfctag: \(hidingKeyMaterial(line))\n")
  }

  /// Sends `command` where its work is (``Dispatch``): handed over in nfctag, performed in
  /// nfctag-provision.
  /// - Throws: 70 when this context has none: a bug.
  package func dispatch(_ command: any ParsableCommand) throws {
    guard let dispatcher else {
      throw CLIFailure(.internalError("provision and ledger are not available in this program"))
    }
    try dispatcher(command, self)
  }

  /// Keeps `object` alive as long as the context. A session the tool starts must outlive its poll
  /// loop: were the loop's reference the last one, the PC/SC context would be released on the
  /// loop's thread while `exit` runs pcsc-lite's destructor, which crashes. A program's context
  /// lives until the process exits.
  package func keepAlive(_ object: any AnyObject & Sendable) { kept.withLock { $0.append(object) } }
}
