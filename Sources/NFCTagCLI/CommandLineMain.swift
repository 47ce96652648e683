import ArgumentParser

/// A command of the tool: it runs in a ``CommandContext`` and reaches nothing outside it, so that a
/// test can run it in process (``runCommandLine(_:in:)``).
package protocol ToolCommand: ParsableCommand {
  /// Runs the command. A failure is thrown, never printed: the entry prints its one line
  /// (``CommandContext/finish(after:in:)``). A command that printed its own lines throws an `ExitCode`.
  func run(in context: CommandContext) throws
}

extension ToolCommand {
  /// ArgumentParser's entry, for a command run outside ``runCommandLine(_:in:)``: the program's
  /// own streams and signals.
  package func run() throws { try run(in: .standard()) }
}

extension ParsableCommand {
  /// Parses `arguments` as this root command's line, runs the command in `context` and returns
  /// its exit status (docs/exit-codes.md). Help and `--version` go to standard output; a command
  /// line ArgumentParser refuses is one `nfctag: ` line with a `--help` hint and 64, not its
  /// several lines; a failure is one `nfctag: ` line and its status (``cliFailure(for:)``).
  package static func runCommandLine(_ arguments: [String], in context: CommandContext) -> Int32 {
    let command: any ParsableCommand
    do {
      command = try parseAsRoot(arguments)
    } catch {
      return context.finish(afterParsing: error, in: self)
    }
    guard let tool = command as? any ToolCommand else {
      // ArgumentParser's own (help, a group without a command of its own): it words what it throws.
      do {
        var command = command
        try command.run()
      } catch {
        return context.finish(afterParsing: error, in: self)
      }
      return ExitStatus.ok
    }
    do {
      try tool.run(in: context)
    } catch {
      return context.finish(after: error, in: self)
    }
    context.trace.release()
    context.statusLine.clear()
    return ExitStatus.ok
  }

  /// The program's entry: the command line in the program's context (``CommandContext/standard(dispatch:)``),
  /// then `exit` with the command's status. The context lives until then (``CommandContext/keepAlive(_:)``).
  package static func mainInContext(dispatch: CommandContext.Dispatch? = nil) -> Never {
    let context = CommandContext.standard(dispatch: dispatch)
    let status = runCommandLine(Array(CommandLine.arguments.dropFirst()), in: context)
    withExtendedLifetime(context) { LibC.exitProcess(status) }
  }
}

extension CommandContext {
  /// Ends a command that threw `error`: the trace held back is printed, the transient line
  /// cleared, then one line for the error: the only place a failure is printed, with any key
  /// material in it hidden (``hidingKeyMaterial(_:)``). Returns the exit status.
  ///
  /// - Parameters:
  ///   - error: what the command threw.
  ///   - root: the root command, whose help and usage ArgumentParser's messages use.
  package func finish(after error: any Error, in root: any ParsableCommand.Type) -> Int32 {
    trace.release()
    statusLine.clear()
    if let code = error as? ExitCode { return code.rawValue }  // the command printed its own lines
    if error is ValidationError || error is CleanExit { return finish(afterParsing: error, in: root) }
    let failure = cliFailure(for: error)
    errors.write("nfctag: \(hidingKeyMaterial(failure.message))\n")
    return failure.code
  }

  /// Ends a command line ArgumentParser refused or answered itself (help, `--version`, a
  /// completion script: standard output, 0); a refused line is one `nfctag: ` line and 64, with
  /// any key material in it hidden (``hidingKeyMaterial(_:)``).
  fileprivate func finish(afterParsing error: any Error, in root: any ParsableCommand.Type) -> Int32 {
    let code = root.exitCode(for: error)
    let message = root.fullMessage(for: error)
    if code == .success {
      if !message.isEmpty { output.write(message + "\n") }
      return ExitStatus.ok
    }
    if code == .validationFailure {
      let first = message.split(separator: "\n").first.map(String.init) ?? "invalid command line"
      // A key pasted as an argument ("Unexpected argument '…'") is not printed back.
      errors.write("nfctag: \(hidingKeyMaterial(first.hasPrefix("Error: ") ? String(first.dropFirst(7)) : first)) (see `nfctag help`)\n")
      return ExitStatus.usage
    }
    if !message.isEmpty { errors.write(hidingKeyMaterial(message) + "\n") }
    return code.rawValue
  }
}
