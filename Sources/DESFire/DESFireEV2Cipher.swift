import EV2SecureMessaging

/// EV2 secure messaging's AES-128 operations from OpenSSL's libcrypto (``DESFireCipher``), for the
/// DESFire EV2/EV3 and DESFire Light: `EV2HostAuthentication<DESFireEV2Cipher>`,
/// `EV2HostSession<DESFireEV2Cipher>` and their card sides. libcrypto, not swift-crypto, so that
/// `nfctag`, which links DESFire, speaks EV2 without swift-crypto (docs/architecture.md).
public enum DESFireEV2Cipher: EV2Cipher {
  public static func encryptBlock(_ block: [UInt8], key: [UInt8]) throws(EV2Error) -> [UInt8] {
    try cbcEncrypt(block, key: key, iv: EV2Frames.zeroIV)
  }

  public static func cbcEncrypt(_ plaintext: [UInt8], key: [UInt8], iv: [UInt8]) throws(EV2Error) -> [UInt8] {
    try run("AES-CBC encryption") { () throws(DESFireCryptoError) in try DESFireCipher.aes(key).encrypt(plaintext, iv: iv) }
  }

  public static func cbcDecrypt(_ ciphertext: [UInt8], key: [UInt8], iv: [UInt8]) throws(EV2Error) -> [UInt8] {
    try run("AES-CBC decryption") { () throws(DESFireCryptoError) in try DESFireCipher.aes(key).decrypt(ciphertext, iv: iv) }
  }

  public static func cmac(_ message: [UInt8], key: [UInt8]) throws(EV2Error) -> [UInt8] {
    try run("AES-CMAC") { () throws(DESFireCryptoError) in try DESFireCipher.aes(key).cmac(message) }
  }

  private static func run(_ operation: String, _ body: () throws(DESFireCryptoError) -> [UInt8]) throws(EV2Error) -> [UInt8] {
    do { return try body() } catch {
      throw error == .libcryptoUnavailable ? .cryptoFailure(operation: "\(operation) (libcrypto.so.3 cannot be loaded)")
        : .cryptoFailure(operation: operation)
    }
  }
}
