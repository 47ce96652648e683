import ArgumentParser

extension ParsableCommand {
  /// ArgumentParser's own entry, except that a command line it refuses gets one `nfctag: ` line
  /// with a `--help` hint and exit 64 (docs/exit-codes.md), not its several lines. The entry of
  /// both nfctag and nfctag-provision.
  package static func mainWithOneLineErrors() {
    do {
      var command = try parseAsRoot()
      try command.run()
    } catch let code as ExitCode {
      exit(withError: code)  // the command printed its own line
    } catch {
      guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
      let message = self.message(for: error).split(separator: "\n").first.map(String.init) ?? "invalid command line"
      writeStderr("nfctag: \(message.hasPrefix("Error: ") ? String(message.dropFirst(7)) : message) (see `nfctag help`)\n")
      exit(withError: ExitCode(ExitStatus.usage))
    }
  }
}
