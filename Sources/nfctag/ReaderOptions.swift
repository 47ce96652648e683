import ArgumentParser
import Logging
import NFCEmulator
import NFCTagCLI
import NFCTags
import NFCTransport

/// Options every tag command shares: which reader, how long to wait, whether to trace APDUs.
struct ReaderOptions: ParsableArguments {
  @Option(name: .shortAndLong,
          help: ArgumentHelp("""
            Reader name, a unique prefix of it, its index in `nfctag readers`, or the built-in simulator: \
            \(SimulatorSpec.grammar) (KIND: a tag of emulate --tag; FACE: \(ReaderFaceKind.allCases.map(\.rawValue).joined(separator: ", "))). \
            Default: NFC_READER's reader, else the first reader with a tag.
            """))
  var reader: String?

  @Option(parsing: .unconditional, help: "Seconds to wait for a tag (default 60; with scan --continuous, seconds without a tag before it ends, default never).")
  var timeout: Double?

  @Flag(help: "Print every APDU in and out, with timings, on stderr (passwords are masked).")
  var trace = false

  @Option(parsing: .unconditional, help: "Seconds a PC/SC reader may take to answer one command before the tag counts as lost (default 5).")
  var exchangeTimeout: Double?

  /// What --exchange-timeout is when not given.
  static var defaultExchangeTimeout: Double { NFCTagCLI.defaultExchangeTimeout }
  /// The exchange deadline in seconds.
  var exchangeSeconds: Double { exchangeTimeout ?? Self.defaultExchangeTimeout }

  @Option(help: "A file whose first line is the tag's password (NTAG21x PWD, 8 hex digits); sent with PWD_AUTH before anything else.")
  var tagPasswordFile: String?

  @Option(help: "An environment variable that holds the tag's password (8 hex digits).")
  var tagPasswordEnv: String?

  @Option(help: "A file of MIFARE Classic keys, one of 12 hex digits per line (# starts a comment), tried in order after the well-known keys.")
  var keys: String?

  @Flag(name: .shortAndLong, help: "Errors only: no confirmations, warnings, waiting prompt or progress line.")
  var quiet = false

  @Flag(name: .shortAndLong, help: "Say what the tool decides on stderr: reader path, tag type and chip, the plan of a write.")
  var verbose = false

  /// The tag password from --tag-password-file or --tag-password-env, nil when neither is given.
  func tagPassword(in context: CommandContext) throws(CLIFailure) -> [UInt8]? {
    try PasswordSource(file: tagPasswordFile, environment: tagPasswordEnv, what: "the tag password",
                       options: ("--tag-password-file", "--tag-password-env")).password(in: context)
  }

  /// The MIFARE Classic keys from --keys, nil when it is not given.
  /// - Throws: 66 for an unreadable file, 64 for a line that is not a key (named by number only)
  ///   or a key given in place of the file name (not printed).
  func classicKeys(in context: CommandContext) throws(CLIFailure) -> [[UInt8]]? {
    guard let keys else { return nil }
    let text = try readSecretInputOrFail(keys, option: "--keys", alternative: nil, in: context)
    do {
      return try MIFAREClassicKeyList.parse(String(decoding: text, as: UTF8.self))
    } catch {
      throw CLIFailure(.invalidValue(error.description))
    }
  }

  func validate() throws {
    if let timeout, !(timeout > 0 && timeout <= 86_400) {
      throw ValidationError("--timeout must be more than 0 and at most 86400 seconds.")
    }
    if let exchangeTimeout, !(exchangeTimeout >= 0.05 && exchangeTimeout <= 600) {
      throw ValidationError("--exchange-timeout must be at least 0.05 and at most 600 seconds.")
    }
    if tagPasswordFile != nil && tagPasswordEnv != nil {
      throw ValidationError("give the tag password with one of --tag-password-file or --tag-password-env, not both.")
    }
    if quiet && verbose { throw ValidationError("give one of --quiet or --verbose, not both.") }
  }

  /// Sets what the command says on stderr (the context's ``Console``) from --quiet and --verbose.
  func configureConsole(in context: CommandContext) { context.console.configure(quiet: quiet, verbose: verbose) }

  /// The session's time limit: seconds without a tag before it ends.
  func waitSeconds(continuous: Bool) -> Double { timeout ?? (continuous ? .infinity : 60) }

  /// The APDU trace logger, when --trace was given.
  func makeLogger(in context: CommandContext) -> Logger? { trace ? context.trace.logger() : nil }

  /// With --trace, holds the trace back until the command knows the tag's message, so that Wi-Fi
  /// keys in the answers can be masked (``CommandTrace``; `read`, `scan`, `dump`).
  func holdTraceForSecrets(in context: CommandContext) { if trace { context.trace.hold() } }
}
