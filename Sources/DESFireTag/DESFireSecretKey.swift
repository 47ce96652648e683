import DESFire
import Hex
import NFCTags

/// A MIFARE DESFire key the host holds: read from a file or an environment variable (`nfctag
/// format`'s PICC master key, `nfctag desfire …`'s keys, `lock`'s key 0), its type and bytes,
/// never shown (its description names the type only). The lengths and types are MF3ICDx21_41_81
/// §9.3's: DES and 2K3DES keys are 16 bytes on the card (a DES key may be given as 8), 3K3DES 24,
/// AES 16.
public struct DESFireSecretKey: Sendable, CustomStringConvertible {
  /// The key types, as the options name them.
  public enum Kind: String, Sendable, CaseIterable {
    case des, twoKeyTripleDES = "2k3des", threeKeyTripleDES = "3k3des", aes
  }

  /// Why a key was refused (never a byte of it).
  public struct KeyError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
  }

  /// The key type.
  public let kind: Kind
  /// The key's bytes and cipher type, for the host's commands (ChangeKey); never shown.
  public let material: DESFireKeyMaterial

  /// The factory key of a new card and of a new application: all zeros, DES (a DESFire's PICC
  /// master key as delivered, MF3ICDx21_41_81 §9.3) unless another type is named.
  public static func zero(_ kind: Kind = .des) -> DESFireSecretKey {
    let length = kind == .threeKeyTripleDES ? 24 : (kind == .des ? 8 : 16)
    // A zero key of a length its type has always makes a key.
    guard case .success(let key) = make([UInt8](repeating: 0, count: length), kind: kind, what: "the key") else {
      preconditionFailure("a zero \(kind.rawValue) key")
    }
    return key
  }

  /// A key from a secret's text (a key file or an environment variable): hex digits on the first
  /// line (spaces and colons allowed between bytes). `what` names the key ("the application key"),
  /// `origin` where it came from and `typeOption` the option that names a type, in the reason
  /// (never a digit of the key).
  public static func parse(_ text: [UInt8], kind: Kind?, what: String, origin: String,
                           typeOption: String = "--key-type") -> Result<DESFireSecretKey, KeyError> {
    let line = text.split(separator: 0x0A, maxSplits: 1, omittingEmptySubsequences: false).first ?? []
    let digits = String(decoding: line.filter { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D && $0 != 0x3A }, as: UTF8.self)
    guard !digits.isEmpty, digits.count % 2 == 0, let bytes = parseHex(digits) else {
      return .failure(KeyError("\(what) (\(origin)) must be 16, 32 or 48 hex digits on the first line"))
    }
    return make(bytes, kind: kind, what: "\(what) (\(origin))", typeOption: typeOption)
  }

  /// A key from its bytes and, when given, its type; without a type the length tells: 8 bytes
  /// DES, 24 3K3DES (16 bytes are 2K3DES or AES, so the type must be given).
  /// - Returns: a reason that names `what` and shows no byte of the key, for a length the type
  ///   (or no type) does not have.
  public static func make(_ bytes: [UInt8], kind: Kind?, what: String,
                          typeOption: String = "--key-type") -> Result<DESFireSecretKey, KeyError> {
    let resolved: Kind
    switch (kind, bytes.count) {
    case (let kind?, _): resolved = kind
    case (nil, 8): resolved = .des
    case (nil, 24): resolved = .threeKeyTripleDES
    case (nil, 16): return .failure(KeyError("\(what): a 16-byte key is 2K3DES or AES: say which with \(typeOption) 2k3des or aes"))
    case (nil, let n): return .failure(KeyError("\(what): a key has 8, 16 or 24 bytes, not \(n)"))
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
      return .failure(KeyError("\(what): a \(resolved.rawValue) key has \(lengths.map(String.init).joined(separator: " or ")) bytes, not \(bytes.count)"))
    }
    return .success(DESFireSecretKey(kind: resolved, material: material))
  }

  private init(kind: Kind, material: DESFireKeyMaterial) {
    self.kind = kind
    self.material = material
  }

  /// Authenticates with key `keyNumber` of the selected level. With ``DESFireAuthenticationScheme/ev1``:
  /// AuthenticateAES (AAh) for an AES key, AuthenticateISO (1Ah) for the others on an EV1 and
  /// later, the legacy Authenticate (0Ah) on a DESFire before EV1 (which has only that). With
  /// ``DESFireAuthenticationScheme/ev2``: AuthenticateEV2First (71h), an AES key only (another is
  /// refused before anything is sent); ``DESFireAuthenticationScheme/auto``: EV2 on an EV2 or EV3
  /// (GetVersion's hardware major) with an AES key, else as `ev1`. A MIFARE DESFire Light, which
  /// takes no EV1 authentication, always EV2 (docs/desfire.md, "DESFire Light").
  public func authenticate(_ card: DESFireCard, keyNumber: UInt8, version: DESFireVersionInfo,
                           scheme: DESFireAuthenticationScheme = .ev1) throws(DESFireCommandError) {
    if scheme.usesEV2(kind: kind, generation: version.generation) || version.isLight {  // a Light has no 1Ah/AAh
      return try card.authenticateEV2First(keyNumber: keyNumber, key: material)
    }
    let command: DESFireAuthenticationCommand
    switch material.type {
    case .aes: command = .aes
    case .des where version.generation == .original: command = .legacy
    default: command = .iso
    }
    try card.authenticate(command, keyNumber: keyNumber, key: material)
  }

  /// The authentication ``Type4Tag/desfirePICCAuthentication`` runs: key 0 of the PICC level,
  /// as ``authenticate(_:keyNumber:version:scheme:)`` with ``DESFireAuthenticationScheme/ev1``.
  public var authentication: DESFirePICCAuthentication { authentication(scheme: .ev1) }

  /// Key 0 of the PICC level (the PICC master key) authenticated by `scheme`, as
  /// ``authenticate(_:keyNumber:version:scheme:)``: after ``DESFireAuthenticationScheme/ev2`` (or
  /// `auto` on an EV2 or EV3 with an AES key) the PICC-level commands that follow go under EV2
  /// secure messaging (`nfctag … --picc-auth`, docs/desfire.md, "EV2 secure messaging").
  public func authentication(scheme: DESFireAuthenticationScheme) -> DESFirePICCAuthentication {
    let key = self
    return { (card: DESFireCard, version: DESFireVersionInfo) throws(DESFireCommandError) in
      try key.authenticate(card, keyNumber: 0, version: version, scheme: scheme)
    }
  }

  /// The type, never the bytes.
  public var description: String { "DESFireSecretKey(\(kind.rawValue))" }
}

/// Which authentication, and so which secure messaging, a DESFire key is used with (`nfctag
/// desfire … --auth`; docs/desfire.md, "EV2 secure messaging").
public enum DESFireAuthenticationScheme: String, Sendable, CaseIterable {
  /// AuthenticateISO (1Ah) or AuthenticateAES (AAh) and EV1 secure messaging (0Ah on a DESFire
  /// before EV1): what every DESFire since EV1 takes.
  case ev1
  /// AuthenticateEV2First (71h) and EV2 secure messaging: an EV2 or later, an AES key.
  case ev2
  /// EV2 when the card is an EV2 or later and the key AES, EV1 otherwise.
  case auto

  /// Whether a key of `kind` authenticates by EV2 on a card of `generation`.
  public func usesEV2(kind: DESFireSecretKey.Kind, generation: DESFireVersionInfo.Generation) -> Bool {
    switch self {
    case .ev1: return false
    case .ev2: return true
    case .auto: return kind == .aes && (generation == .ev2 || generation == .ev3)
    }
  }
}
