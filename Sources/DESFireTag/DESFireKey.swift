import DESFire
import Hex
import NFCTags

/// A MIFARE DESFire key as `nfctag desfire …` takes it (`--key-file`/`--key-env` with `--key-no`
/// and `--key-type`, the PICC master key options): its type and bytes, never shown (its
/// description names the type only). The lengths and types are ``DESFirePICCKey``'s
/// (MF3ICDx21_41_81 §9.3).
public struct DESFireKey: Sendable, CustomStringConvertible {
  /// The key type.
  public let kind: DESFirePICCKey.Kind
  private let material: DESFireKeyMaterial

  /// The factory key of a new card and of a new application: all zeros, DES (a DESFire's PICC
  /// master key as delivered, MF3ICDx21_41_81 §9.3) unless another type is named.
  public static func zero(_ kind: DESFirePICCKey.Kind = .des) -> DESFireKey {
    let length = kind == .threeKeyTripleDES ? 24 : (kind == .des ? 8 : 16)
    // A zero key of a length its type has always makes a key.
    guard case .success(let key) = make([UInt8](repeating: 0, count: length), kind: kind, what: "the key") else {
      preconditionFailure("a zero \(kind.rawValue) key")
    }
    return key
  }

  /// A key from a secret's text (a key file or an environment variable): hex digits on the first
  /// line (spaces and colons allowed between bytes). `what` names the key ("the application key")
  /// and `origin` where it came from, in the reason (never a digit of the key).
  public static func parse(_ text: [UInt8], kind: DESFirePICCKey.Kind?, what: String, origin: String) -> Result<DESFireKey, DESFirePICCKey.KeyError> {
    let line = text.split(separator: 0x0A, maxSplits: 1, omittingEmptySubsequences: false).first ?? []
    let digits = String(decoding: line.filter { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D && $0 != 0x3A }, as: UTF8.self)
    guard !digits.isEmpty, digits.count % 2 == 0, let bytes = parseHex(digits) else {
      return .failure(DESFirePICCKey.KeyError("\(what) (\(origin)) must be 16, 32 or 48 hex digits on the first line"))
    }
    return make(bytes, kind: kind, what: "\(what) (\(origin))")
  }

  static func make(_ bytes: [UInt8], kind: DESFirePICCKey.Kind?, what: String) -> Result<DESFireKey, DESFirePICCKey.KeyError> {
    let resolved: DESFirePICCKey.Kind
    switch (kind, bytes.count) {
    case (let kind?, _): resolved = kind
    case (nil, 8): resolved = .des
    case (nil, 24): resolved = .threeKeyTripleDES
    case (nil, 16): return .failure(DESFirePICCKey.KeyError("\(what): a 16-byte key is 2K3DES or AES: say which with --key-type 2k3des or aes"))
    case (nil, let n): return .failure(DESFirePICCKey.KeyError("\(what): a key has 8, 16 or 24 bytes, not \(n)"))
    }
    let type: DESFireKeyMaterial.KeyType
    let lengths: [Int]
    switch resolved {
    case .des: (type, lengths) = (.des, [8, 16])
    case .twoKeyTripleDES: (type, lengths) = (.des, [16])
    case .threeKeyTripleDES: (type, lengths) = (.tripleDES3K, [24])
    case .aes: (type, lengths) = (.aes, [16])
    }
    guard lengths.contains(bytes.count), let material = try? DESFireKeyMaterial(type, bytes) else {
      return .failure(DESFirePICCKey.KeyError("\(what): a \(resolved.rawValue) key has \(lengths.map(String.init).joined(separator: " or ")) bytes, not \(bytes.count)"))
    }
    return .success(DESFireKey(kind: resolved, material: material))
  }

  private init(kind: DESFirePICCKey.Kind, material: DESFireKeyMaterial) {
    self.kind = kind
    self.material = material
  }

  /// Authenticates with key `keyNumber` of the selected level: AuthenticateAES (AAh) for an AES
  /// key, AuthenticateISO (1Ah) for the others on an EV1 and later, the legacy Authenticate (0Ah)
  /// on a DESFire before EV1 (as ``DESFirePICCKey/authentication`` chooses).
  public func authenticate(_ card: DESFireCard, keyNumber: UInt8, version: DESFireVersionInfo) throws(DESFireCommandError) {
    let command: DESFireAuthenticationCommand
    switch material.type {
    case .aes: command = .aes
    case .des where version.generation == .original: command = .legacy
    default: command = .iso
    }
    try card.authenticate(command, keyNumber: keyNumber, key: material)
  }

  /// The type, never the bytes.
  public var description: String { "DESFireKey(\(kind.rawValue))" }
}
