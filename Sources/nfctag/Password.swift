import NFCTagCLI
import ArgumentParser
import NFCSession
import NFCTransport

/// Where a secret comes from (a 4-byte NTAG password, a Wi-Fi key): a file or an environment
/// variable, never argv (the process list shows every argument to every user).
struct PasswordSource {
  var file: String?
  var environment: String?
  var what: String
  /// The options that give the file and the variable (`--tag-password-file`, `--tag-password-env`),
  /// which errors name instead of a value that looks like a key.
  var options: (file: String, env: String)

  /// The password, or nil when neither source was named.
  /// - Throws: 66 for an unreadable file, 64 for a missing variable or a value that is not
  ///   8 hex digits.
  func password(in context: CommandContext) throws(CLIFailure) -> [UInt8]? {
    guard let line = try firstLine(in: context) else { return nil }
    guard let bytes = parseLenientHex(line.filter { $0 != 0x0D }), bytes.count == 4 else {
      throw CLIFailure(.invalidValue("\(what) must be 4 bytes as 8 hex digits (for example 1a2b3c4d)"))
    }
    return bytes
  }

  /// The first line of the file or the variable, without its line end; nil when neither source
  /// was named. Error messages name the source and `what`, never the value (nor the source's
  /// name when it looks like a key: ``secretSourceName(_:option:)``).
  /// - Throws: 66 for an unreadable file, 64 for a variable that is not set or a key given in
  ///   place of the file or variable name.
  func firstLine(in context: CommandContext) throws(CLIFailure) -> [UInt8]? {
    guard let (text, _) = try readSecret(file: file, environment: environment, options: (options.file, options.env), what: what,
                                         in: context) else { return nil }
    var line = Array(text.split(separator: 0x0A, maxSplits: 1, omittingEmptySubsequences: false).first ?? [])
    if line.last == 0x0D { line.removeLast() }
    return line
  }
}

extension NFCTool {
  /// `nfctag password set|remove`: NTAG21x / Ultralight EV1 password protection (PWD, PACK, AUTH0).
  struct Password: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "password",
      abstract: "Set or remove the password of an NTAG21x or Ultralight EV1 tag.",
      discussion: """
        Passwords are 4 bytes, given as 8 hex digits in a file or an environment variable, never \
        on the command line. A tag that is already protected needs its current password: \
        --tag-password-file or --tag-password-env.
        """,
      subcommands: [Set.self, Remove.self])

    struct Set: ToolCommand {
      static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Protect the tag with a password (writes PWD, PACK, then the protection pages).")
      @OptionGroup var readerOptions: ReaderOptions
      @Option(help: "A file whose first line is the new password (8 hex digits).") var newPasswordFile: String?
      @Option(help: "An environment variable that holds the new password (8 hex digits).") var newPasswordEnv: String?
      @Option(help: "The 2-byte PACK the tag answers after a good password, as 4 hex digits.") var pack = HexBytes([0, 0])
      // .unconditional: `--from-page -1` is a range error, not "Missing value".
      @Option(parsing: .unconditional, help: "The first protected page (AUTH0, 0 to 255); 4 protects all user memory.") var fromPage: Int = 4
      @Flag(help: "Protect reads too, not only writes.") var protectReads = false

      func validate() throws {
        guard (newPasswordFile == nil) != (newPasswordEnv == nil) else {
          throw ValidationError("give the new password with exactly one of --new-password-file or --new-password-env.")
        }
        guard pack.bytes.count == 2 else {
          throw ValidationError("--pack takes 2 bytes as 4 hex digits.")
        }
        guard (0...255).contains(fromPage) else { throw ValidationError("--from-page takes 0 to 255.") }
      }

      func run(in context: CommandContext) throws {
        let source = PasswordSource(file: newPasswordFile, environment: newPasswordEnv, what: "the new password",
                                    options: ("--new-password-file", "--new-password-env"))
        guard let pwd = try source.password(in: context) else { throw CLIFailure(.invalidCommandLine("no new password given")) }
        let packBytes = pack.bytes
        let page = UInt8(clamping: fromPage)  // validate(): 0...255
        let reads = protectReads
        try TagSession(options: readerOptions, context: context).withTag { tag in
          try tag.setPassword(pwd, pack: packBytes, protectFrom: page, protectReads: reads)
        }
        context.console.notice("password set; pages from \(page) are protected (\(reads ? "reads and writes" : "writes"))")
      }
    }

    struct Remove: ToolCommand {
      static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Turn password protection off (AUTH0 past the last page); needs the current password.")
      @OptionGroup var readerOptions: ReaderOptions

      func run(in context: CommandContext) throws {
        guard let current = try readerOptions.tagPassword(in: context) else {
          throw CLIFailure(.invalidCommandLine("give the current password with --tag-password-file or --tag-password-env"))
        }
        try TagSession(options: readerOptions, context: context).withTag { tag in
          try tag.setPassword(current, pack: [0, 0], protectFrom: 0xFF, protectReads: false)
        }
        context.console.notice("password protection is off")
      }
    }
  }
}
