import DESFireTag
import NFCSession
import NFCTagCLI
import NFCTags

extension NFCTool.Format {
  /// `format` of a MIFARE DESFire Light not yet set up for NDEF (its files are fixed, so AN11004's
  /// application cannot be created): DESFireTag's `DESFireCard.setUpLightForNDEF(key:)` renames
  /// files 00h/04h to E103h/E104h and the DF to D2760000850101/E110h, makes both files plain and
  /// free, and writes the CC, authenticated with the application's key 0 (AES) from
  /// `--picc-key-file`/`--picc-key-env` (a Light has no PICC master key: its one application's
  /// key 0 takes that role, as for `desfire info`), else the factory key 00…00 with a warning.
  /// docs/desfire.md, "DESFire Light". Called only on a Type 4 tag that holds no NDEF application:
  /// GetVersion tells a Light from the rest, which are left to NFCTags' `format()`. Returns true
  /// when it was a Light (now set up).
  static func setUpDESFireLightIfOne(_ tag: any NFCNDEFTag, key: DESFireSecretKey?, in context: CommandContext) throws -> Bool {
    let console = context.console
    let result = try tag.withDESFireCard { card throws(DESFireCommandError) -> DESFireLightNDEFSetup? in
      guard let version = try? card.getVersion(), version.isLight else { return nil }
      if let key, key.kind != .aes {
        throw .invalidArgument("a MIFARE DESFire Light's key 0 is an AES key: give --picc-key-type aes")
      }
      if key == nil {
        console.warning("no key 0 given (--picc-key-file or --picc-key-env): authenticating with the factory key 00…00")
      }
      return try card.setUpLightForNDEF(key: (key ?? DESFireSecretKey.zero(.aes)).material)
    }
    switch result {
    case .success(nil): return false
    case .success(.alreadySetUp?):
      console.info("the MIFARE DESFire Light is set up for NDEF already")
      return true
    case .success(.setUp?):
      console.info("set the MIFARE DESFire Light up for NDEF (files E103h and E104h, DF D2760000850101)")
      return true
    case .failure(let error):
      switch error {
      case .invalidArgument(let why) where why.contains("--picc-key-type"):
        throw CLIFailure(.invalidValue(why + "; nothing was written"))
      case .invalidArgument(let why):
        throw CLIFailure(.unsupported(why))
      case .status(.authenticationError, _):
        throw CLIFailure(.tagRefused("\(error): key 0 of the MIFARE DESFire Light's application is not "
                                     + "\(key == nil ? "the factory key" : "the key given"): give it with --picc-key-file or "
                                     + "--picc-key-env; nothing was written"))
      default:
        throw desfireFailure(error)
      }
    }
  }
}
