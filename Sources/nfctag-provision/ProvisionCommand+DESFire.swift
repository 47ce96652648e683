import DESFireTag
import NFCTagCLI
import ProvisionCommands
import Provisioning

extension ProvisionCommand {
  /// The DESFire options as a job (docs/provisioning.md, "MIFARE DESFire"), nil without DESFire
  /// keys: the master key or the fixed keys, of `--desfire-key-type`; the factory PICC master key
  /// (DES zeros unless `--desfire-factory-key-file`); the system identifier. Read and checked
  /// before the ledger or a tag is touched.
  /// - Throws: 66 for an unreadable key file, 64 for a variable not set, a key that is not one of
  ///   its type, or a factory key whose version is the job's (no digit of a key in any message).
  func readDESFireJob(in context: CommandContext) throws(CLIFailure) -> DESFireProvisioning? {
    guard isDESFireJob else { return nil }
    let kind: DESFireSecretKey.Kind
    switch desfireKeyType {
    case .aes: kind = .aes
    case .twoKeyTripleDES: kind = .twoKeyTripleDES
    case .threeKeyTripleDES: kind = .threeKeyTripleDES
    }
    func key(_ text: [UInt8], _ kind: DESFireSecretKey.Kind?, what: String, origin: String, typeOption: String) throws(CLIFailure) -> DESFireSecretKey {
      switch DESFireSecretKey.parse(text, kind: kind, what: what, origin: origin, typeOption: typeOption) {
      case .success(let key): return key
      case .failure(let why): throw CLIFailure(.invalidValue(why.description))
      }
    }
    let keys: DESFireProvisioning.KeySource
    if let file = desfireKeysFile {
      let text = try readSecretInputOrFail(file, option: "--desfire-keys-file", alternative: nil, in: context)
      let origin = "--desfire-keys-file \(secretSourceName(file, option: "--desfire-keys-file"))"
      let lines = text.split(separator: 0x0A, omittingEmptySubsequences: false)
      let second = lines.count > 1 ? Array(lines[1]) : []
      keys = .fixed(picc: try key(Array(lines.first ?? []), kind, what: "the PICC master key", origin: origin, typeOption: "--desfire-key-type"),
                    application: try key(second, kind, what: "the NDEF application's key (second line)", origin: origin,
                                         typeOption: "--desfire-key-type"))
    } else {
      guard let (text, origin) = try readSecret(file: desfireMasterKeyFile, environment: desfireMasterKeyEnv,
                                                options: ("--desfire-master-key-file", "--desfire-master-key-env"),
                                                what: "the DESFire master key", in: context) else { return nil }
      keys = .diversified(master: try key(text, kind, what: "the DESFire master key", origin: origin, typeOption: "--desfire-key-type"))
    }
    var factory = DESFireSecretKey.zero()
    if let file = desfireFactoryKeyFile {
      let text = try readSecretInputOrFail(file, option: "--desfire-factory-key-file", alternative: nil, in: context)
      let origin = "--desfire-factory-key-file \(secretSourceName(file, option: "--desfire-factory-key-file"))"
      // 8 bytes DES, 24 3K3DES; 16 bytes are taken as 2K3DES (the DES family a card is delivered with).
      if case .success(let two) = DESFireSecretKey.parse(text, kind: .twoKeyTripleDES, what: "", origin: "") {
        factory = two
      } else {
        factory = try key(text, nil, what: "the factory PICC master key", origin: origin, typeOption: "--desfire-key-type")
      }
    }
    let job = DESFireProvisioning(keyType: kind, keys: keys, factoryPICCKey: factory,
                                  systemIdentifier: desfireSystemId.map { Array($0.utf8) } ?? DESFireProvisioning.defaultSystemIdentifier)
    if let problem = job.problem() { throw CLIFailure(.invalidValue(problem)) }
    return job
  }
}
