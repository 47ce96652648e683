import NFCTagCLI

/// nfctag's hand-over: the commands whose work is nfctag-provision's go to that program with
/// `execv`, the command line as it is. The same process goes on in the other program, so its pid,
/// Ctrl-C, standard streams and exit status are the command's own.
///
/// nfctag-provision holds the provisioning modules (the ledgers' SQLite and PostgreSQL clients,
/// swift-crypto, Foundation, SwiftNIO); nfctag itself does not link them, which keeps its cold
/// start short (docs/performance.md).
///
/// Two ways in, one verb ("hand over" is the `exec`; "perform" is the work, nfctag-provision's):
/// - by name, before anything parses the command line: a line whose command is one of
///   ``commands`` (``handOverNamedCommand(_:)``). nfctag-provision parses it, with the same
///   declarations (ProvisionCommands), so its help and usage errors read the same;
/// - after parsing: `emulate` of a tag kind nfctag does not link (`ntag424dna`), which only the
///   parsed `--tag` tells (`EmulateCommand.run(in:)`, through the context's hand-over, ``exec(arguments:)``);
///   and after a session: `lock` of a tag that named itself an NTAG 424 DNA, handed over as
///   `keys lock-ndef-file` (``exec(arguments:)``).
enum HandOver {
  /// The commands nfctag hands over whole, by their name (the command line's first argument):
  /// nfctag-provision's subcommands but `emulate` (handed over for some tag kinds only) and the
  /// hidden `virtual-card` (nfctag starts it itself). nfctag keeps their declarations for its
  /// help, man page and completions only.
  static let commands: Set<String> = ["provision", "ledger", "sdm", "keys"]

  /// The file name of the program that performs ``commands`` and `emulate --tag ntag424dna`.
  static let program = "nfctag-provision"

  /// True when `arguments` (the command line without the program's name) name one of
  /// ``commands``: their first argument is its name. `nfctag help provision`, `nfctag --help`
  /// and completion requests name none: nfctag answers them, as it does a completion script
  /// asked for after a command's name (ArgumentParser writes the root command's, which is
  /// nfctag's).
  static func namesHandedOverCommand(_ arguments: some Collection<String>) -> Bool {
    guard let first = arguments.first, commands.contains(first) else { return false }
    return !arguments.contains { $0.hasPrefix("--generate-completion-script") }
  }

  /// nfctag's first step: a command line that names one of ``commands`` goes to nfctag-provision
  /// as it is, before anything parses it; this process is replaced and the call never returns.
  /// Returns nil for any other line, and the failure when nfctag-provision cannot be run: nfctag
  /// then parses the line itself (help and usage errors need no nfctag-provision) and throws
  /// the failure for a line that parses.
  static func handOverNamedCommand(_ arguments: some Collection<String>) -> CLIFailure? {
    guard namesHandedOverCommand(arguments) else { return nil }
    do { try exec() } catch { return error }
  }

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

  /// Replaces this process with nfctag-provision and the same arguments, or `arguments` (without
  /// the program's name: `lock` of an NTAG 424 DNA goes on as `keys lock-ndef-file …`, built from
  /// its parsed options); returns only by throwing.
  /// - Throws: 69 (one `nfctag: ` line) when no candidate can be run.
  static func exec(arguments: [String]? = nil) throws(CLIFailure) -> Never {
    let paths = candidates(executable: ownPath())
    guard !paths.isEmpty else {
      throw CLIFailure(.missingProgram(
        "cannot run \(program), which provision, ledger, sdm, keys and the virtual NTAG 424 DNA need: the path of nfctag itself is unknown "
          + "(/proc/self/exe cannot be read); run \(program) from where it is installed"))
    }
    var problem = ENOENT
    // The C strings live until the exec replaces this process (or this function throws).
    let argv: [UnsafeMutablePointer<CChar>?]? = arguments.map { ([CommandLine.arguments.first ?? program] + $0).map { strdup($0) } + [nil] }
    defer { argv?.forEach { free($0) } }
    for path in paths {
      if let argv { execv(path, argv) } else { execv(path, CommandLine.unsafeArgv) }
      problem = errno  // execv returned: this one cannot run
      if problem != ENOENT && problem != ENOTDIR { break }
    }
    throw CLIFailure(.missingProgram(
      "cannot run \(program), which provision, ledger, sdm, keys and the virtual NTAG 424 DNA need (looked for "
        + paths.map(sanitizeLine).joined(separator: " and ") + "): "
        + String(cString: strerror(problem)) + "; reinstall nfctag"))
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
