import DESFireTag
import NFCSession
import NFCTagCLI
import NFCTags

extension NFCTool.Lock {
  /// `lock --yes` of a MIFARE DESFire with AN11004's NDEF application (DESFireTag's
  /// `DESFireCard.lockNDEF(key:)`: the NDEF file's write access never by ChangeFileSettings, then
  /// the CC's write access byte FFh; a lock cut short is finished by running it again). The key of
  /// the NDEF file's change right (key 0) comes from `--auth-key-file`/`--auth-key-env`, of the
  /// type GetKeySettings names; without them the zero key of that type (what `format` makes). Runs
  /// in the tag session; its failures are thrown as `CLIFailure`s (docs/exit-codes.md, "MIFARE DESFire").
  static func lockDESFire(_ tag: any NFCNDEFTag, authKeyFile: String?, authKeyEnv: String?,
                          in context: CommandContext) throws -> Outcome {
    // A card without the NDEF application fails here as `read` does ("not NDEF formatted", 65).
    _ = try tag.queryNDEFStatus()
    let secret = try readSecret(file: authKeyFile, environment: authKeyEnv, options: ("--auth-key-file", "--auth-key-env"),
                                what: "key 0", in: context)
    let (text, origin) = (secret?.text, secret?.origin ?? "")
    var keyRefusal: String?
    let result = try tag.withDESFireCard { card throws(DESFireCommandError) -> DESFireNDEFLockOutcome in
      try card.lockNDEF { kind throws(DESFireCommandError) -> DESFireSecretKey in
        guard let text else { return DESFireSecretKey.zero(kind) }
        switch DESFireSecretKey.parse(text, kind: kind, what: "key 0 of the NDEF application", origin: origin) {
        case .success(let key): return key
        case .failure(let why):
          keyRefusal = why.description
          throw .invalidArgument(why.description)
        }
      }
    }
    switch result {
    case .success(.alreadyReadOnly): return .alreadyReadOnly
    case .success(.locked): return .locked
    case .failure(let error):
      if let keyRefusal { throw CLIFailure(.invalidValue(keyRefusal + "; nothing was changed")) }
      if error.status == .authenticationError {
        throw CLIFailure(.tagRefused("\(error): key 0 of the NDEF application is not \(text == nil ? "the zero key" : "the key given"): "
                                     + "give it with --auth-key-file or --auth-key-env; nothing was changed"))
      }
      throw desfireFailure(error)
    }
  }
}
