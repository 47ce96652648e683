import ArgumentParser
import NFCTags

/// The NDEF application's key type `format` gives a MIFARE DESFire.
enum DESFireApplicationKeyType: String, ExpressibleByArgument, CaseIterable {
  case des, aes
  var algorithm: DESFireKeyAlgorithm { self == .aes ? .aes : .des }
}

/// `format`'s MIFARE DESFire options: the NDEF application's key type and the NDEF file's size
/// (docs/desfire.md); other tags ignore them.
struct DESFireFormatOptions: ParsableArguments {
  @Option(help: ArgumentHelp("MIFARE DESFire: the NDEF application's key type, des (AN11004's, default) or aes "
                             + "(what EV2 secure messaging and SDM need); its key is the zero key.", valueName: "des|aes"))
  var keyType: DESFireApplicationKeyType?
  @Option(help: ArgumentHelp("MIFARE DESFire: the NDEF file's size in bytes, 3 to 32767 (default: by the card's storage "
                             + "and free memory).", valueName: "n"))
  var ndefSize: Int?

  func validate() throws {
    if let ndefSize, !(3...0x7FFF).contains(ndefSize) {
      throw ValidationError("--ndef-size is 3 to 32767 bytes, not \(ndefSize).")
    }
  }

  /// The options as NFCTags takes them; nil when none is given.
  var options: DESFireNDEFFormatOptions? {
    guard keyType != nil || ndefSize != nil else { return nil }
    return DESFireNDEFFormatOptions(applicationKeyType: keyType?.algorithm ?? .des, ndefFileSize: ndefSize)
  }
}
