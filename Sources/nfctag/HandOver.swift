import NFCTagCLI

/// nfctag's handler of `provision`, `ledger`, `sdm`, `keys` and `emulate` of a kind nfctag does not link (`ntag424dna`): once the command line is parsed and valid, it is
/// handed as it is to nfctag-provision with `execv`. The same process goes on in the other
/// program, so its pid, Ctrl-C, standard streams and exit status are the command's own.
///
/// nfctag-provision holds the provisioning modules (the ledgers' SQLite and PostgreSQL clients,
/// swift-crypto, Foundation, SwiftNIO); nfctag itself does not link them, which keeps its cold
/// start short (docs/performance.md).
enum HandOver {
  /// The file name of the program that runs `provision`, `ledger`, `sdm`, `keys` and `emulate --tag ntag424dna`.
  static let program = "nfctag-provision"

  /// Where nfctag-provision is looked for, for nfctag at `executable` (its real, absolute path):
  /// next to it (a build tree), then in `../libexec/nfctag/` (make install's and the Debian
  /// package's layout: PREFIX/bin/nfctag, PREFIX/libexec/nfctag/nfctag-provision). Nowhere when
  /// nfctag's own path is unknown or relative: a program is never looked for in the current
  /// directory, which may be anyone's.
  static func candidates(executable: String?) -> [String] {
    guard let executable, executable.hasPrefix("/") else { return [] }
    let directory = executable.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    return ["\(directory)/\(program)", "\(directory)/../libexec/nfctag/\(program)"]
  }

  /// Replaces this process with nfctag-provision and the same arguments; returns only by throwing.
  /// - Throws: 69 (one `nfctag: ` line) when no candidate can be run.
  static func toProvisioningProgram() throws {
    let paths = candidates(executable: ownPath())
    guard !paths.isEmpty else {
      throw CLIFailure(ExitStatus.unavailable,
                            "cannot run \(program), which provision, ledger, sdm, keys and the virtual NTAG 424 DNA need: the path of nfctag itself is unknown "
                            + "(/proc/self/exe cannot be read); run \(program) from where it is installed")
    }
    var problem = ENOENT
    for path in paths {
      execv(path, CommandLine.unsafeArgv)
      problem = errno  // execv returned: this one cannot run
      if problem != ENOENT && problem != ENOTDIR { break }
    }
    throw CLIFailure(ExitStatus.unavailable,
                          "cannot run \(program), which provision, ledger, sdm, keys and the virtual NTAG 424 DNA need (looked for "
                          + paths.map(sanitizeLine).joined(separator: " and ") + "): "
                          + String(cString: strerror(problem)) + "; reinstall nfctag")
  }

  /// This program's own file, symbolic links resolved (`/proc/self/exe`); nil when it cannot be
  /// read (argv[0] is what the caller chose, not where this program is).
  static func ownPath() -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
