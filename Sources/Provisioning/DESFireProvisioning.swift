// `provision` onto MIFARE DESFire cards: the job's keys (diversified per card from a master key by
// NXP AN10922, or fixed from a file), the card's factory PICC master key, and each card's target
// keys with their version.
import DESFire
import DESFireTag
import NFCTags
import NTAG424

/// The job-wide settings of a DESFire `provision`: where each card's keys come from, their type,
/// and the factory PICC master key the cards come with (docs/provisioning.md, "MIFARE DESFire").
///
/// Two keys per card change: the NDEF application's key 0 (AID 000001h, NXP AN11004) and the PICC
/// master key, each to the target key with ``targetVersion``. Keys stay in memory: never written to
/// the ledger, an event or an error (``DESFireSecretKey`` never shows its bytes).
public struct DESFireProvisioning: Sendable {
  /// Where each card's target keys come from.
  public enum KeySource: Sendable {
    /// Diversified per card from the master key (its bytes, of the job's key type), with NXP AN10922
    /// (AES-128 §2.2, 2TDEA §2.3, 3TDEA §2.4): M = the card's real UID ‖ the level's AID (3
    /// bytes as sent, least significant first) ‖ the system identifier.
    case diversified(master: DESFireSecretKey)
    /// The same keys on every card: the PICC master key and the NDEF application's key 0.
    case fixed(picc: DESFireSecretKey, application: DESFireSecretKey)
  }

  /// The target keys' type: AES by default; 2K3DES or 3K3DES.
  public var keyType: DESFireSecretKey.Kind
  /// Where the target keys come from.
  public var keys: KeySource
  /// The PICC master key the cards come with (DES 00…00 by default, MF3ICDx21_41_81 §9.3).
  public var factoryPICCKey: DESFireSecretKey
  /// AN10922's system identifier, the end of every diversification input (6 to 21 bytes, so that
  /// M = UID(7) ‖ AID(3) ‖ it has 16 to 31 bytes, what the AES scheme takes).
  public var systemIdentifier: [UInt8]

  /// The version every target key carries (an AES key's own byte; a DES-family key's parity bits,
  /// MF3ICDx21_41_81 §9.3 GetKeyVersion), which tells it from a factory key (version 00).
  public static let targetVersion: UInt8 = 0x01
  /// The default system identifier: "nfctag" in ASCII.
  public static let defaultSystemIdentifier = Array("nfctag".utf8)
  /// The keys changed per card: the NDEF application's key 0, then the PICC master key.
  public static let keyCount = 2

  /// A job's settings.
  public init(keyType: DESFireSecretKey.Kind, keys: KeySource, factoryPICCKey: DESFireSecretKey = .zero(),
              systemIdentifier: [UInt8] = DESFireProvisioning.defaultSystemIdentifier) {
    self.keyType = keyType; self.keys = keys; self.factoryPICCKey = factoryPICCKey; self.systemIdentifier = systemIdentifier
  }

  /// The NDEF application's key type on the card, for the format (AN11004's application made with
  /// keys of the job's type; its key 0 is then the zero key of that type).
  public var applicationKeyAlgorithm: DESFireKeyAlgorithm {
    switch keyType {
    case .aes: return .aes
    case .threeKeyTripleDES: return .tripleDES3K
    case .des, .twoKeyTripleDES: return .des
    }
  }

  /// The NDEF application's key 0 as a new application has it: zeros of the job's type.
  public var factoryApplicationKey: DESFireSecretKey { .zero(keyType == .des ? .des : keyType) }

  /// The version a key reads as: AES keys carry theirs apart (00 for a factory key), a DES-family
  /// key's is its parity bits.
  public static func version(of key: DESFireSecretKey) -> UInt8 {
    key.kind == .aes ? 0 : parityVersion(key.material.packageBytes)
  }

  /// Checks the job before any tag: the factory PICC key's version must not be the target
  /// version (the run tells them apart by it), the system identifier 6 to 21 bytes.
  /// - Returns: the problem as one line, nil when none.
  public func problem() -> String? {
    if Self.version(of: factoryPICCKey) == Self.targetVersion {
      return "the factory PICC master key reads as version 01, the version this job gives its keys: the run could not tell them apart"
    }
    if !(6...21).contains(systemIdentifier.count) {
      return "the DESFire system identifier has 6 to 21 bytes, not \(systemIdentifier.count)"
    }
    return nil
  }

  /// A card's target keys, from its real UID (GetCardUID's, never a random ID).
  /// - Throws: ``ProvisioningFailure`` (`.unsupported`) when a key cannot be made (never a byte of one).
  public func targetKeys(uid: [UInt8]) throws -> (picc: DESFireSecretKey, application: DESFireSecretKey) {
    switch keys {
    case .fixed(let picc, let application):
      return (try withVersion(picc), try withVersion(application))
    case .diversified(let master):
      let picc = try diversify(master, input: uid + DESFireApplicationID.picc.wireBytes + systemIdentifier)
      let application = try diversify(master, input: uid + DESFireApplicationID.ndefApplication.wireBytes + systemIdentifier)
      return (picc, application)
    }
  }

  private func diversify(_ master: DESFireSecretKey, input: [UInt8]) throws -> DESFireSecretKey {
    let bytes: [UInt8]
    do {
      switch keyType {
      case .aes:
        bytes = try KeyDiversification.aes128(master: try AESKey(bytes: master.material.packageBytes), input: input).packageBytes
      case .twoKeyTripleDES, .des:
        bytes = try DESFireKeyDiversification.twoKeyTripleDES(master: master.material.packageBytes, input: input)
      case .threeKeyTripleDES:
        bytes = try DESFireKeyDiversification.threeKeyTripleDES(master: master.material.packageBytes, input: input)
      }
    } catch {
      throw ProvisioningFailure(.unsupported, "the card's key cannot be diversified: \(error)")
    }
    return try make(bytes, kind: keyType == .des ? .twoKeyTripleDES : keyType)
  }

  /// `key` with ``targetVersion``: a DES-family key's parity bits set to it (byte i's bit 0 is
  /// version bit 7 − i, as the card reads them); an AES key as it is (its version goes apart).
  private func withVersion(_ key: DESFireSecretKey) throws -> DESFireSecretKey {
    try make(key.material.packageBytes, kind: key.kind)
  }

  private func make(_ bytes: [UInt8], kind: DESFireSecretKey.Kind) throws -> DESFireSecretKey {
    var bytes = bytes
    if kind != .aes {
      for i in 0..<min(8, bytes.count) {
        bytes[i] = bytes[i] & 0xFE | (Self.targetVersion >> (7 - i) & 1)
      }
    }
    switch DESFireSecretKey.make(bytes, kind: kind, what: "the card's key") {
    case .success(let key): return key
    case .failure(let error): throw ProvisioningFailure(.unsupported, error.description)
    }
  }

  /// A DES-family key's version: bit 0 of its first 8 bytes, byte i giving bit 7 − i.
  static func parityVersion(_ bytes: [UInt8]) -> UInt8 {
    var version: UInt8 = 0
    for (i, byte) in bytes.prefix(8).enumerated() { version |= (byte & 1) << (7 - i) }
    return version
  }
}
