/// The AES-128 operations EV2 secure messaging is built from, supplied by a kept library: the
/// NTAG 424 DNA's module uses swift-crypto, the DESFire module OpenSSL's libcrypto.
///
/// Nothing in this module implements AES or CMAC; it only says in which order to use them. Keys
/// are 16 bytes, IVs 16 bytes and CBC data whole blocks: callers check lengths first, so a failure
/// here is a broken invariant and surfaces as ``EV2Error/cryptoFailure(operation:)``.
public protocol EV2Cipher {
  /// E(K, block): AES-128 encryption of one 16-byte block.
  static func encryptBlock(_ block: [UInt8], key: [UInt8]) throws(EV2Error) -> [UInt8]
  /// AES-128-CBC encryption of whole blocks, no padding added.
  static func cbcEncrypt(_ plaintext: [UInt8], key: [UInt8], iv: [UInt8]) throws(EV2Error) -> [UInt8]
  /// AES-128-CBC decryption of whole blocks, no padding removed.
  static func cbcDecrypt(_ ciphertext: [UInt8], key: [UInt8], iv: [UInt8]) throws(EV2Error) -> [UInt8]
  /// The full 16-byte AES-CMAC of `message` (NIST SP 800-38B).
  static func cmac(_ message: [UInt8], key: [UInt8]) throws(EV2Error) -> [UInt8]
}

extension EV2Cipher {
  /// MACt(CMAC(key, message)): the 8 bytes at odd indices (NT4H2421Gx datasheet §9.1.9).
  static func truncatedCMAC(_ message: [UInt8], key: [UInt8]) throws(EV2Error) -> [UInt8] {
    EV2Frames.truncate(try cmac(message, key: key))
  }
}
