import ArgumentParser
import DESFireTag
import NFCTagCLI
import NFCTags

extension DESFireSecretKey.Kind: ExpressibleByArgument {}

/// The PICC master key of a MIFARE DESFire, for `format` on a card whose PICC key settings need it
/// and for the `desfire` commands of the PICC level: from a file or an environment variable, never
/// argv; never in traces, logs or errors; and how it authenticates, `--picc-auth` (docs/desfire.md).
struct DESFirePICCKeyOptions: ParsableArguments {
  @Option(help: ArgumentHelp("MIFARE DESFire: a file whose first line is the PICC master key in hex (16, 32 or 48 digits), "
                             + "for a card whose key settings need it.", valueName: "file"))
  var piccKeyFile: String?
  @Option(help: ArgumentHelp("MIFARE DESFire: an environment variable holding the PICC master key in hex.", valueName: "name"))
  var piccKeyEnv: String?
  @Option(help: ArgumentHelp("The PICC master key's type (default: 8 bytes des, 24 bytes 3k3des; 16 bytes need it).",
                             valueName: "des|2k3des|3k3des|aes"))
  var piccKeyType: DESFireSecretKey.Kind?
  @Option(help: ArgumentHelp("How the PICC master key authenticates: ev1 (AuthenticateISO or AuthenticateAES, the default), "
                             + "ev2 (AuthenticateEV2First and EV2 secure messaging: an EV2 or EV3 and an AES key) or auto "
                             + "(ev2 on an EV2 or EV3 with an AES key, else ev1).", valueName: "ev1|ev2|auto"))
  var piccAuth: DESFireAuthenticationScheme?

  func validate() throws {
    if piccKeyFile != nil && piccKeyEnv != nil { throw ValidationError("give the PICC master key with one of --picc-key-file or --picc-key-env.") }
    if (piccKeyType != nil || piccAuth != nil) && piccKeyFile == nil && piccKeyEnv == nil {
      throw ValidationError("--picc-key-type and --picc-auth need the key: --picc-key-file or --picc-key-env.")
    }
  }

  /// The key, or nil when none is given.
  /// - Throws: 66 for an unreadable file, 64 for a variable not set or a value that is not a key
  ///   of the type (the message shows no digit of it).
  func key(in context: CommandContext) throws(CLIFailure) -> DESFireSecretKey? {
    try readDESFireSecretKey(file: piccKeyFile, env: piccKeyEnv,
                             options: (file: "--picc-key-file", env: "--picc-key-env", type: "--picc-key-type"),
                             kind: piccKeyType, what: "the PICC master key", in: context)
  }

  /// How `key` authenticates: by `--picc-auth` (default ev1).
  /// - Throws: 64 for `--picc-auth ev2` with a key that is not AES, before the card is touched.
  func authentication(with key: DESFireSecretKey) throws(CLIFailure) -> DESFirePICCAuthentication {
    let scheme = piccAuth ?? .ev1
    try checkDESFireAuthentication(scheme, key: key, keyOption: "--picc-key-type", authOption: "--picc-auth")
    return key.authentication(scheme: scheme)
  }

  /// How the key given authenticates, or nil when none is given.
  /// - Throws: as ``key(in:)`` and ``authentication(with:)``: all before the card is touched.
  func givenAuthentication(in context: CommandContext) throws(CLIFailure) -> DESFirePICCAuthentication? {
    guard let key = try key(in: context) else { return nil }
    return try authentication(with: key)
  }

  /// How the PICC master key authenticates: the key given (by `--picc-auth`), else the factory DES
  /// zero key (by EV1: `--picc-auth` needs a key).
  func authentication(in context: CommandContext) throws(CLIFailure) -> DESFirePICCAuthentication {
    try givenAuthentication(in: context) ?? DESFireSecretKey.zero().authentication
  }
}
