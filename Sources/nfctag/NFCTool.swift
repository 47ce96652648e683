import ArgumentParser

/// The `nfctag` command: read, write and emulate NFC Forum tags through PC/SC readers.
@main
struct NFCTool: ParsableCommand {
  /// ArgumentParser's own entry, except that a command line it refuses gets one `nfctag: ` line
  /// with a `--help` hint and exit 64 (docs/exit-codes.md), not its several lines.
  static func main() {
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

  static let configuration = CommandConfiguration(
    commandName: "nfctag",
    abstract: "Read, write and emulate NFC Forum tags through PC/SC readers.",
    version: "0.1.0",
    subcommands: [
      NDEFCommand.self,
      ListReaders.self, Scan.self, Read.self, Dump.self, Write.self,
      Format.self, Erase.self, Lock.self, Info.self, Password.self, Send.self, Reader.self, Doctor.self, Emulate.self,
      Provision.self, LedgerCommand.self,
    ])
}
