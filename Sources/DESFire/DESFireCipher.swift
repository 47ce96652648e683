import COpenSSL

/// Why a DESFire cryptographic operation could not be done.
public enum DESFireCryptoError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The system's libcrypto (OpenSSL 3) cannot be loaded.
  case libcryptoUnavailable
  /// A key or a message of the wrong length for the cipher.
  case invalidLength(field: String, actual: Int)
  /// OpenSSL refused the operation.
  case cryptoFailure(operation: String)
  /// The authentication command does not take a key of this type (the card answers AEh).
  case wrongKeyType

  /// One line, without key or data bytes.
  public var description: String {
    switch self {
    case .libcryptoUnavailable: return "OpenSSL's libcrypto (libcrypto.so.3) cannot be loaded"
    case .invalidLength(let field, let actual): return "the \(field) has a length the cipher does not take (\(actual) bytes)"
    case .cryptoFailure(let operation): return "OpenSSL failed at \(operation)"
    case .wrongKeyType: return "the authentication command does not take a key of this type"
    }
  }
}

/// One DESFire key as a cipher: DES, 2K3DES, 3K3DES or AES-128 (NXP MF3ICDx21_41_81 data sheet
/// §9.3: the key types of the PICC and application keys), with CBC without padding and CMAC.
///
/// Every operation is OpenSSL's (libcrypto through COpenSSL, loaded at the first use): the DES
/// family as triple DES in EDE3 form (2K3DES `K1 K2` runs as `K1 K2 K1`, a key whose halves are
/// equal is single DES as the data sheet says, DES `K` as `K K K`), AES-128 as itself. The key's
/// description never shows its bytes.
public struct DESFireCipher: Sendable, CustomStringConvertible {
  /// The cipher family.
  public enum Kind: Sendable, Hashable {
    /// DES, 2K3DES or 3K3DES: 8-byte blocks.
    case tripleDES
    /// AES-128: 16-byte blocks.
    case aes
  }

  /// The family.
  public let kind: Kind
  /// The key as OpenSSL takes it (24 bytes EDE3, or 16 bytes AES).
  private let key: [UInt8]

  /// A DES (8 bytes), 2K3DES (16) or 3K3DES (24) key.
  /// - Throws: ``DESFireCryptoError/invalidLength(field:actual:)`` for another length.
  public static func tripleDES(_ key: [UInt8]) throws(DESFireCryptoError) -> DESFireCipher {
    switch key.count {
    case 8: return DESFireCipher(kind: .tripleDES, key: key + key + key)
    case 16: return DESFireCipher(kind: .tripleDES, key: key + key.prefix(8))
    case 24: return DESFireCipher(kind: .tripleDES, key: key)
    default: throw .invalidLength(field: "DES key", actual: key.count)
    }
  }

  /// An AES-128 key (16 bytes).
  /// - Throws: ``DESFireCryptoError/invalidLength(field:actual:)`` for another length.
  public static func aes(_ key: [UInt8]) throws(DESFireCryptoError) -> DESFireCipher {
    guard key.count == 16 else { throw .invalidLength(field: "AES key", actual: key.count) }
    return DESFireCipher(kind: .aes, key: key)
  }

  private init(kind: Kind, key: [UInt8]) {
    self.kind = kind
    self.key = key
  }

  /// The block length: 8 (DES family) or 16 (AES).
  public var blockLength: Int { kind == .aes ? 16 : 8 }

  /// The family, never the key.
  public var description: String { kind == .aes ? "DESFireCipher(AES-128)" : "DESFireCipher(3DES)" }

  private var algorithm: Int32 { kind == .aes ? COPENSSL_AES_128 : COPENSSL_DES_EDE3 }

  /// CBC encryption of whole blocks, no padding.
  public func encrypt(_ plaintext: [UInt8], iv: [UInt8]) throws(DESFireCryptoError) -> [UInt8] {
    try cbc(plaintext, iv: iv, encrypt: true)
  }

  /// CBC decryption of whole blocks, no padding removed.
  public func decrypt(_ ciphertext: [UInt8], iv: [UInt8]) throws(DESFireCryptoError) -> [UInt8] {
    try cbc(ciphertext, iv: iv, encrypt: false)
  }

  private func cbc(_ input: [UInt8], iv: [UInt8], encrypt: Bool) throws(DESFireCryptoError) -> [UInt8] {
    guard input.count % blockLength == 0 else { throw .invalidLength(field: "CBC data", actual: input.count) }
    guard iv.count == blockLength else { throw .invalidLength(field: "IV", actual: iv.count) }
    guard !input.isEmpty else { return [] }
    var output = [UInt8](repeating: 0, count: input.count)
    let result = output.withUnsafeMutableBufferPointer { out in
      copenssl_cbc(algorithm, encrypt ? 1 : 0, key, iv, input, input.count, out.baseAddress)
    }
    try Self.check(result, encrypt ? "CBC encryption" : "CBC decryption")
    return output
  }

  /// The CMAC (NIST SP 800-38B) of a non-empty `message` chained from `iv` (one block): the
  /// CBC-MAC starts at the IV instead of zero, as DESFire EV1's secure messaging chains its 8-byte
  /// CMACs (data sheet §2.5; the chaining as a real card answers,
  /// https://github.com/RfidResearchGroup/proxmark3/issues/2961). Computed with OpenSSL's CMAC
  /// alone, over the block `D(K, iv)` followed by the message: the first CBC step turns that
  /// block into `iv`, and the message's blocks, its padding and its subkey are those of a CMAC
  /// started at `iv`. Returns the whole block (the
  /// next IV); EV1 sends its first 8 bytes.
  public func cmac(_ message: [UInt8], iv: [UInt8]) throws(DESFireCryptoError) -> [UInt8] {
    guard !message.isEmpty else { throw .invalidLength(field: "CMAC message", actual: 0) }
    guard iv.count == blockLength else { throw .invalidLength(field: "IV", actual: iv.count) }
    let start = try decrypt(iv, iv: [UInt8](repeating: 0, count: blockLength))
    let input = start + message
    var mac = [UInt8](repeating: 0, count: blockLength)
    let result = mac.withUnsafeMutableBufferPointer { out in
      copenssl_cmac(algorithm, key, input, input.count, out.baseAddress)
    }
    try Self.check(result, "CMAC")
    return mac
  }

  /// The plain CMAC (NIST SP 800-38B) of `message`, from a zero state: EV2 secure messaging's.
  public func cmac(_ message: [UInt8]) throws(DESFireCryptoError) -> [UInt8] {
    var mac = [UInt8](repeating: 0, count: blockLength)
    let result = mac.withUnsafeMutableBufferPointer { out in
      copenssl_cmac(algorithm, key, message, message.count, out.baseAddress)
    }
    try Self.check(result, "CMAC")
    return mac
  }

  /// `count` random bytes (a card's or a host's RndA/RndB), from OpenSSL.
  public static func random(count: Int) throws(DESFireCryptoError) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: max(0, count))
    let result = bytes.withUnsafeMutableBufferPointer { copenssl_random($0.baseAddress, $0.count) }
    try check(result, "random bytes")
    return bytes
  }

  private static func check(_ result: Int32, _ operation: String) throws(DESFireCryptoError) {
    switch result {
    case 0: return
    case -2: throw .libcryptoUnavailable
    default: throw .cryptoFailure(operation: operation)
    }
  }
}
