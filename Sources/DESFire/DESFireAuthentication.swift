/// A DESFire key as the authentication and secure messaging take it.
public struct DESFireKeyMaterial: Sendable, CustomStringConvertible {
  /// The key type.
  public enum KeyType: Sendable, Hashable {
    /// DES or 2K3DES: 16 bytes (a DES key is its 8 bytes twice), 8-byte randoms.
    case des
    /// 3K3DES: 24 bytes, 16-byte randoms.
    case tripleDES3K
    /// AES-128: 16 bytes, 16-byte randoms.
    case aes
  }

  /// The type.
  public let type: KeyType
  /// The key bytes (16, 24 or 16).
  let bytes: [UInt8]

  /// A key of `type`. A DES key may be given as 8 bytes.
  /// - Throws: ``DESFireCryptoError/invalidLength(field:actual:)`` for a length the type does not have.
  public init(_ type: KeyType, _ bytes: [UInt8]) throws(DESFireCryptoError) {
    switch (type, bytes.count) {
    case (.des, 8): self.bytes = bytes + bytes
    case (.des, 16), (.aes, 16), (.tripleDES3K, 24): self.bytes = bytes
    default: throw .invalidLength(field: "key", actual: bytes.count)
    }
    self.type = type
  }

  /// The key's cipher.
  public func cipher() throws(DESFireCryptoError) -> DESFireCipher {
    type == .aes ? try .aes(bytes) : try .tripleDES(bytes)
  }

  /// A 2K3DES key whose halves are equal, parity bits included, is single DES (EDE with K1 = K2).
  public var isSingleDES: Bool { type == .des && bytes.prefix(8) == bytes.suffix(8) }

  /// The length of RndA and RndB: the cipher's block.
  public var randomLength: Int { type == .des ? 8 : 16 }

  /// The type, never the bytes.
  public var description: String { "DESFireKeyMaterial(\(type))" }
}

/// How a DESFire authentication was started, and so which secure messaging follows it.
public enum DESFireAuthenticationCommand: UInt8, Sendable, CaseIterable {
  /// Authenticate (0Ah): the legacy (D40) scheme, DES and 2K3DES keys.
  case legacy = 0x0A
  /// AuthenticateISO (1Ah): DES, 2K3DES and 3K3DES keys, EV1 secure messaging.
  case iso = 0x1A
  /// AuthenticateAES (AAh): AES keys, EV1 secure messaging.
  case aes = 0xAA

  /// Whether the command takes a key of `type`.
  public func takes(_ type: DESFireKeyMaterial.KeyType) -> Bool {
    switch self {
    case .legacy: return type == .des
    case .iso: return type != .aes
    case .aes: return type == .aes
    }
  }
}

/// The card's side of DESFire's three-pass mutual authentication (NXP MF3ICDx21_41_81 data sheet
/// §9.3): the card sends `E(K, RndB)`, the host answers with RndA and RndB rotated left by one
/// byte, the card checks RndB and answers with RndA rotated.
///
/// EV1 (1Ah, AAh): CBC encryption, the IV of each message the last block of the one before it.
/// Legacy (0Ah): each message on its own from a zero IV, the host "deciphering" to send, so the
/// card enciphers what the host sent to read it. The session key is RndA's and RndB's first four
/// bytes, then (2K3DES) bytes 4-7, (3K3DES) bytes 6-9 and 12-15, or (AES) bytes 12-15 of each.
public final class DESFireCardAuthentication {
  /// The command that started it.
  public let command: DESFireAuthenticationCommand
  private let key: DESFireKeyMaterial
  private let cipher: DESFireCipher
  private let rndB: [UInt8]
  /// The card's first answer: `E(K, RndB)`.
  public let challenge: [UInt8]

  /// Starts an authentication with `key` and the card's random `rndB` (nil: a fresh one).
  /// - Throws: ``DESFireCryptoError/wrongKeyType`` for a key the command does not take;
  ///   ``DESFireCryptoError/libcryptoUnavailable``.
  public init(command: DESFireAuthenticationCommand, key: DESFireKeyMaterial, rndB: [UInt8]? = nil) throws(DESFireCryptoError) {
    guard command.takes(key.type) else { throw .wrongKeyType }
    let random: [UInt8]
    if let rndB { random = rndB } else { random = try DESFireCipher.random(count: key.randomLength) }
    guard random.count == key.randomLength else { throw .invalidLength(field: "RndB", actual: random.count) }
    self.command = command
    self.key = key
    self.rndB = random
    cipher = try key.cipher()
    challenge = try cipher.encrypt(random, iv: [UInt8](repeating: 0, count: cipher.blockLength))
  }

  /// The card's second answer to the host's token (`RndA ‖ RndB'` as the scheme sends it) and the
  /// session key; nil when RndB' is not RndB rotated (the card answers AEh) or the token's length
  /// is wrong.
  public func finish(_ token: [UInt8]) throws(DESFireCryptoError) -> (answer: [UInt8], sessionKey: DESFireKeyMaterial)? {
    let n = rndB.count
    guard token.count == 2 * n else { return nil }
    let zero = [UInt8](repeating: 0, count: cipher.blockLength)
    let rndA: [UInt8], rotatedB: [UInt8], answerIV: [UInt8]
    if command == .legacy {
      let first = Array(token[0..<n]), second = Array(token[n...])
      rndA = try cipher.encrypt(first, iv: zero)
      rotatedB = zip(try cipher.encrypt(second, iv: zero), first).map { $0 ^ $1 }
      answerIV = zero
    } else {
      let plain = try cipher.decrypt(token, iv: Array(challenge.suffix(cipher.blockLength)))
      rndA = Array(plain[0..<n])
      rotatedB = Array(plain[n...])
      answerIV = Array(token.suffix(cipher.blockLength))
    }
    guard rotatedB == Array(rndB.dropFirst()) + rndB.prefix(1) else { return nil }
    let answer = try cipher.encrypt(Array(rndA.dropFirst()) + rndA.prefix(1), iv: answerIV)
    return (answer, try Self.sessionKey(rndA: rndA, rndB: rndB, key: key))
  }

  /// The session key of `key`'s type from the two randoms.
  public static func sessionKey(rndA: [UInt8], rndB: [UInt8], key: DESFireKeyMaterial) throws(DESFireCryptoError) -> DESFireKeyMaterial {
    guard rndA.count == key.randomLength, rndB.count == key.randomLength else {
      throw .invalidLength(field: "RndA or RndB", actual: rndA.count)
    }
    let head = Array(rndA[0..<4]) + rndB[0..<4]
    switch key.type {
    case .des where key.isSingleDES: return try DESFireKeyMaterial(.des, head)
    case .des: return try DESFireKeyMaterial(.des, head + rndA[4..<8] + rndB[4..<8])
    case .tripleDES3K: return try DESFireKeyMaterial(.tripleDES3K, head + rndA[6..<10] + rndB[6..<10] + rndA[12..<16] + rndB[12..<16])
    case .aes: return try DESFireKeyMaterial(.aes, head + rndA[12..<16] + rndB[12..<16])
    }
  }
}
