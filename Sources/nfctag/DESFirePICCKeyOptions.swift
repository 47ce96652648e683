import ArgumentParser
import DESFireTag
import NFCTagCLI

extension DESFireSecretKey.Kind: ExpressibleByArgument {}

/// `format`'s PICC master key of a MIFARE DESFire whose PICC key settings need it: from a file or an
/// environment variable, never argv; never in traces, logs or errors (docs/desfire.md).
struct DESFirePICCKeyOptions: ParsableArguments {
  @Option(help: ArgumentHelp("MIFARE DESFire: a file whose first line is the PICC master key in hex (16, 32 or 48 digits), "
                             + "for a card whose key settings need it.", valueName: "file"))
  var piccKeyFile: String?
  @Option(help: ArgumentHelp("MIFARE DESFire: an environment variable holding the PICC master key in hex.", valueName: "name"))
  var piccKeyEnv: String?
  @Option(help: ArgumentHelp("The PICC master key's type (default: 8 bytes des, 24 bytes 3k3des; 16 bytes need it).",
                             valueName: "des|2k3des|3k3des|aes"))
  var piccKeyType: DESFireSecretKey.Kind?

  func validate() throws {
    if piccKeyFile != nil && piccKeyEnv != nil { throw ValidationError("give the PICC master key with one of --picc-key-file or --picc-key-env.") }
    if piccKeyType != nil && piccKeyFile == nil && piccKeyEnv == nil {
      throw ValidationError("--picc-key-type needs the key: --picc-key-file or --picc-key-env.")
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
}
