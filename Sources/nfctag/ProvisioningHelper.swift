import NFCTagCLI
import ProvisionCommands
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// nfctag's side of `provision` and `ledger`: once the command line is parsed and valid, it is
/// handed as it is to nfctag-provision with `execv`. The same process goes on in the other
/// program, so its pid, Ctrl-C, standard streams and exit status are the command's own.
///
/// nfctag-provision holds the provisioning modules (the ledgers' SQLite and PostgreSQL clients,
/// swift-crypto, Foundation, SwiftNIO); nfctag itself does not link them, which keeps its cold
/// start short (docs/performance.md).
struct ProvisioningHelper: ProvisioningCommandsRunner {
  /// The helper's file name.
  static let name = "nfctag-provision"

  func run(_ command: ProvisionCommand) throws { try handOver() }
  func run(_ command: LedgerCommand.Status) throws { try handOver() }
  func run(_ command: LedgerCommand.Export) throws { try handOver() }
  func run(_ command: LedgerCommand.Release) throws { try handOver() }

  /// Where nfctag-provision is looked for, for nfctag at `executable` (its real path): next to
  /// it (a build tree), then in `../libexec/nfctag/` (make install's and the Debian package's
  /// layout: PREFIX/bin/nfctag, PREFIX/libexec/nfctag/nfctag-provision).
  static func candidates(executable: String) -> [String] {
    let directory = executable.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    let base = directory.isEmpty ? (executable.hasPrefix("/") ? "" : ".") : directory
    return ["\(base)/\(name)", "\(base)/../libexec/nfctag/\(name)"]
  }

  /// Replaces this process with nfctag-provision and the same arguments; returns only by throwing.
  /// - Throws: 69 (one `nfctag: ` line) when no candidate can be run.
  private func handOver() throws {
    let paths = Self.candidates(executable: ownPath())
    var problem = ENOENT
    for path in paths {
      execv(path, CommandLine.unsafeArgv)
      problem = errno  // execv returned: this one cannot run
      if problem != ENOENT && problem != ENOTDIR { break }
    }
    throw fail(CLIFailure(ExitStatus.unavailable,
                          "cannot run \(Self.name), which provision and ledger need (looked for "
                          + paths.map(sanitizeLine).joined(separator: " and ") + "): "
                          + String(cString: strerror(problem)) + "; reinstall nfctag"))
  }

  /// This program's own file, symbolic links resolved (`/proc/self/exe`); argv[0] elsewhere.
  private func ownPath() -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return CommandLine.arguments.first ?? "nfctag" }
    return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
