import ArgumentParser
import DESFireTag
import NFCSession
import NFCTagCLI
import NFCTags
import NFCTransport

/// `nfctag desfire …`: a MIFARE DESFire's applications, files and keys (docs/desfire.md,
/// "Command line"). Every communication mode; keys from files or the environment only.
struct DESFireCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "desfire",
    abstract: "Manage a MIFARE DESFire: its applications, files and keys.",
    discussion: """
      Keys come from a file or an environment variable, never the command line: --key-file or \
      --key-env with --key-no and --key-type authenticate in the application; --picc-key-file or \
      --picc-key-env give the PICC master key (default: the factory DES zero key where one is needed). \
      Data travels in the file's communication mode (plain, MAC or full) when the key given grants the command. See desfire.md in the documentation folder.
      """,
    subcommands: [Info.self, Apps.self, Files.self, CreateApp.self, DeleteApp.self, CreateFile.self, DeleteFile.self,
                  ReadFile.self, WriteFile.self, Value.self, Records.self, FormatCard.self, Keys.self, Config.self])
}

/// An AID on the command line: 6 hex digits, most significant first ("000001"), never 000000.
func parseDESFireAID(_ text: String) -> DESFireApplicationID? {
  guard text.utf8.count == 6, let bytes = parseHex(text), bytes.count == 3 else { return nil }
  let aid = DESFireApplicationID(bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
  return aid == .picc ? nil : aid
}

/// `--aid HEX`, the application a command works in.
struct DESFireAIDOption: ParsableArguments {
  @Option(help: ArgumentHelp("The application: 6 hex digits, most significant first (000001).", valueName: "hex"))
  var aid: String

  func validate() throws {
    guard parseDESFireAID(aid) != nil else { throw ValidationError("--aid is 6 hex digits other than 000000, not '\(aid)'.") }
  }

  /// The AID (valid after `validate()`).
  var value: DESFireApplicationID { parseDESFireAID(aid) ?? .ndefApplication }
}

/// A file number on the command line, 0 to 31.
struct DESFireFileOption: ParsableArguments {
  @Option(help: ArgumentHelp("The file number, 0 to 31.", valueName: "n")) var file: Int

  func validate() throws {
    guard (0...31).contains(file) else { throw ValidationError("--file is 0 to 31, not \(file).") }
  }

  /// The number (valid after `validate()`).
  var number: UInt8 { UInt8(clamping: file) }
}

/// The key a command authenticates with in an application: `--key-file`/`--key-env`, `--key-no`,
/// `--key-type`; never argv, never in traces, logs or errors (docs/desfire.md).
struct DESFireKeyOptions: ParsableArguments {
  @Option(help: ArgumentHelp("A file whose first line is the key to authenticate with, in hex (16, 32 or 48 digits).", valueName: "file"))
  var keyFile: String?
  @Option(help: ArgumentHelp("An environment variable holding the key to authenticate with, in hex.", valueName: "name"))
  var keyEnv: String?
  @Option(help: ArgumentHelp("The key's number in the application, 0 to 13 (default 0, the application master key).", valueName: "n"))
  var keyNo: Int?
  @Option(help: ArgumentHelp("The key's type (default: 8 bytes des, 24 bytes 3k3des; 16 bytes need it).",
                             valueName: "des|2k3des|3k3des|aes"))
  var keyType: DESFireSecretKey.Kind?
  @Option(help: ArgumentHelp("How the key authenticates: ev1 (AuthenticateISO or AuthenticateAES, the default), ev2 "
                             + "(AuthenticateEV2First and EV2 secure messaging: an EV2 or EV3 and an AES key) or auto "
                             + "(ev2 on an EV2 or EV3 with an AES key, else ev1).", valueName: "ev1|ev2|auto"))
  var auth: DESFireAuthenticationScheme?

  func validate() throws {
    if keyFile != nil && keyEnv != nil { throw ValidationError("give the key with one of --key-file or --key-env.") }
    if (keyType != nil || keyNo != nil || auth != nil) && keyFile == nil && keyEnv == nil {
      throw ValidationError("--key-no, --key-type and --auth need the key: --key-file or --key-env.")
    }
    if let keyNo, !(0...13).contains(keyNo) { throw ValidationError("--key-no is 0 to 13, not \(keyNo).") }
  }

  /// The key, its number and how it authenticates, or nil when none is given.
  /// - Throws: 66 for an unreadable file, 64 for a variable not set, a value that is not a key
  ///   of the type, or `--auth ev2` with a key that is not AES (the message shows no digit of it);
  ///   all before the card is touched.
  func key(in context: CommandContext) throws(CLIFailure) -> DESFireAuthenticatingKey? {
    let options = (file: "--key-file", env: "--key-env", type: "--key-type")
    guard let key = try readDESFireSecretKey(file: keyFile, env: keyEnv, options: options, kind: keyType, what: "the key",
                                             in: context) else { return nil }
    let scheme = auth ?? .ev1
    try checkDESFireAuthentication(scheme, key: key, keyOption: "--key-type")
    return DESFireAuthenticatingKey(key: key, number: UInt8(clamping: keyNo ?? 0), scheme: scheme)
  }
}

extension DESFireAuthenticationScheme: ExpressibleByArgument {}

/// `--auth ev2` (or `authOption`'s ev2) takes an AES key only: the one line and 64 before the card is touched.
func checkDESFireAuthentication(_ scheme: DESFireAuthenticationScheme, key: DESFireSecretKey, keyOption: String,
                                authOption: String = "--auth") throws(CLIFailure) {
  guard scheme == .ev2, key.kind != .aes else { return }
  throw CLIFailure(.invalidValue("\(authOption) ev2 authenticates with an AES key, not a \(key.kind.rawValue) key: "
                                 + "give an AES key (\(keyOption) aes) or use \(authOption) ev1"))
}

/// A key a `desfire` command authenticates with in an application: the key, its number and the scheme.
struct DESFireAuthenticatingKey: Sendable {
  let key: DESFireSecretKey
  let number: UInt8
  let scheme: DESFireAuthenticationScheme

  /// Authenticates with it on the selected application.
  func authenticate(_ card: DESFireCard, version: DESFireVersionInfo) throws(DESFireCommandError) {
    try key.authenticate(card, keyNumber: number, version: version, scheme: scheme)
  }
}

/// Runs a `desfire` command's work on the card in the field: one session, GetVersion first (a tag
/// that is not a DESFire is refused there), then `body`. Every refusal of the card ends as
/// ``desfireFailure(_:)`` says.
func withDESFireCard<T: Sendable>(
  _ readerOptions: ReaderOptions, in context: CommandContext,
  _ body: @escaping @Sendable (DESFireCard, DESFireVersionInfo) throws(DESFireCommandError) -> T
) throws -> T {
  let result = try TagSession(options: readerOptions, context: context).withTag { tag in
    try tag.withDESFireCard { card throws(DESFireCommandError) -> T in
      try body(card, try identifiedDESFire(card))
    }
  }
  switch result {
  case .success(let value): return value
  case .failure(let error): throw desfireFailure(error)
  }
}

/// GetVersion (``DESFireCard/identify()``), and the card refused unless it names a MIFARE DESFire.
func identifiedDESFire(_ card: DESFireCard) throws(DESFireCommandError) -> DESFireVersionInfo {
  let version: DESFireVersionInfo
  do throws(DESFireCommandError) {
    version = try card.identify()
  } catch {
    if case .link = error { throw error }
    throw .invalidArgument("not a MIFARE DESFire: \(error)")
  }
  guard version.isDESFire else { throw .invalidArgument("not a MIFARE DESFire: GetVersion names another chip") }
  return version
}

/// The one table from a DESFire refusal to its exit status and line (docs/exit-codes.md,
/// "MIFARE DESFire"): each line says what happened (the command and its status) and what to do.
func desfireFailure(_ error: DESFireCommandError) -> CLIFailure {
  let line = error.description
  switch error {
  case .status(let status, _):
    switch status {
    case .authenticationError:
      return CLIFailure(.tagRefused(line + ": authenticate with the key this needs (--key-file or --key-env with --key-no "
                                     + "and --key-type; the PICC master key with --picc-key-file or --picc-key-env)"))
    case .permissionDenied:
      return CLIFailure(.tagRefused(line + ": the key settings or the file's access rights do not allow it with this key; "
                                     + "`nfctag desfire files --aid` shows the rights"))
    case .outOfMemory:
      return CLIFailure(.nfcFailure(.ndefReaderSessionErrorTagSizeTooSmall,
                                    line + ": make it smaller or free memory (`nfctag desfire info` shows the free memory)"))
    case .countError:
      return CLIFailure(.nfcFailure(.ndefReaderSessionErrorTagSizeTooSmall, line + ": delete an application first"))
    case .duplicateError:
      return CLIFailure(.unsupported(line + ": choose another number or name, or delete the existing one first"))
    case .applicationNotFound:
      return CLIFailure(.unsupported(line + ": `nfctag desfire apps` lists the applications"))
    case .fileNotFound:
      return CLIFailure(.unsupported(line + ": `nfctag desfire files --aid` lists the application's files"))
    case .boundaryError:
      return CLIFailure(.unsupported(line + ": `nfctag desfire files --aid` shows the file's size"))
    case .noSuchKey:
      return CLIFailure(.unsupported(line + ": `nfctag desfire keys versions` lists the keys"))
    case .integrityError:
      return CLIFailure(.readBackMismatch(line + ": tap the card again; if it persists, check the key"))
    default:
      return CLIFailure(.unsupported(line))
    }
  case .isoStatus:
    return CLIFailure(.unsupported(line + ": the card does not take this DESFire command"))
  case .malformed:
    return CLIFailure(.unsupported(line))
  case .integrity:
    return CLIFailure(.readBackMismatch(line + "; tap the card again: if it persists, the answers are not the card's own"))
  case .link:
    return cliFailure(for: error.tagError)
  case .invalidArgument(let why):
    return CLIFailure(.unsupported(why))
  }
}

/// Text or JSON output of a `desfire` command.
func writeDESFireOutput(_ text: String, in context: CommandContext) {
  let output = StandardOutput(context.output)
  output.write(text)
  output.flush()
}
