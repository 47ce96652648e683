import DESFire
import Hex
import NFCTags

/// A MIFARE DESFire PICC master key as `nfctag format` takes it: its type and bytes, never shown
/// (its description names the type only).
public struct DESFirePICCKey: Sendable, CustomStringConvertible {
  /// The key types, as the options name them (MF3ICDx21_41_81 §9.3: DES and 2K3DES keys are 16
  /// bytes on the card, 3K3DES 24, AES 16).
  public enum Kind: String, Sendable, CaseIterable {
    case des, twoKeyTripleDES = "2k3des", threeKeyTripleDES = "3k3des", aes
  }

  /// The key type.
  public let kind: Kind
  private let material: DESFireKeyMaterial

  /// A key from its bytes and, when given, its type; without a type the length tells: 8 bytes
  /// DES, 24 3K3DES (16 bytes are 2K3DES or AES, so the type must be given).
  /// - Returns: nil, with a reason that shows no byte of the key, for a length the type (or no
  ///   type) does not have.
  public static func make(_ bytes: [UInt8], kind: Kind?) -> Result<DESFirePICCKey, KeyError> {
    let resolved: Kind
    switch (kind, bytes.count) {
    case (let kind?, _): resolved = kind
    case (nil, 8): resolved = .des
    case (nil, 24): resolved = .threeKeyTripleDES
    case (nil, 16): return .failure(KeyError("a 16-byte key is 2K3DES or AES: say which with --picc-key-type 2k3des or aes"))
    case (nil, let n): return .failure(KeyError("a PICC key has 8, 16 or 24 bytes, not \(n)"))
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
      return .failure(KeyError("a \(resolved.rawValue) key has \(lengths.map(String.init).joined(separator: " or ")) bytes, not \(bytes.count)"))
    }
    return .success(DESFirePICCKey(kind: resolved, material: material))
  }

  /// Why a key was refused (never a byte of it).
  public struct KeyError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
  }

  private init(kind: Kind, material: DESFireKeyMaterial) {
    self.kind = kind
    self.material = material
  }

  /// The authentication ``Type4Tag/desfirePICCAuthentication`` runs: key 0 of the PICC level,
  /// AuthenticateAES (AAh) for an AES key, AuthenticateISO (1Ah) for the others on an EV1 and
  /// later, the legacy Authenticate (0Ah) on a DESFire before EV1 (which has only that).
  public var authentication: DESFirePICCAuthentication {
    let material = material
    return { (card: DESFireCard, version: DESFireVersionInfo) throws(DESFireCommandError) in
      let command: DESFireAuthenticationCommand
      switch material.type {
      case .aes: command = .aes
      case .des where version.generation == .original: command = .legacy
      default: command = .iso
      }
      try card.authenticate(command, keyNumber: 0, key: material)
    }
  }

  /// The type, never the bytes.
  public var description: String { "DESFirePICCKey(\(kind.rawValue))" }
}

extension DESFirePICCKey {
  /// A key from a secret's text (a key file or an environment variable): hex digits on the first
  /// line (spaces allowed between bytes), then ``make(_:kind:)``. `origin` names where it came from
  /// in the reason (never a digit of the key).
  public static func parse(_ text: [UInt8], kind: Kind?, origin: String) -> Result<DESFirePICCKey, KeyError> {
    let line = text.split(separator: 0x0A, maxSplits: 1, omittingEmptySubsequences: false).first ?? []
    let digits = String(decoding: line.filter { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D && $0 != 0x3A }, as: UTF8.self)
    guard !digits.isEmpty, digits.count % 2 == 0, let bytes = parseHex(digits) else {
      return .failure(KeyError("the PICC master key (\(origin)) must be 16, 32 or 48 hex digits on the first line"))
    }
    return make(bytes, kind: kind).mapError { KeyError("the PICC master key (\(origin)): \($0.description)") }
  }
}
