/// AES-128 key diversification of NXP AN10922 §2.2.1: one master key, a key of its own for each tag.
///
/// The diversified key is CMAC(master, 01h || M), M being the diversification input (typically the
/// UID, an application identifier and a system identifier), 1 to 31 bytes. AN10922 pads `01h || M`
/// with `80 00…` to 32 bytes and uses the CMAC subkey K2 when it is shorter than 32 bytes, K1
/// otherwise. For M of 16 to 31 bytes that is exactly NIST SP 800-38B's CMAC of `01h || M`, which
/// swift-crypto computes. A shorter M would need AN10922's 32-byte padding inside the CMAC, which
/// swift-crypto's CMAC does not offer and this module does not write by hand: it is refused.
///
/// ```swift
/// let tagKey = try KeyDiversification.aes128(master: master, input: uid + aid + systemIdentifier)
/// ```
public enum KeyDiversification {
  /// The shortest diversification input this module diversifies with.
  public static let minimumInputLength = 16
  /// The longest diversification input AN10922 §2.2.1 allows.
  public static let maximumInputLength = 31

  /// The AN10922 §2.2.1 AES-128 diversified key.
  ///
  /// - Parameters:
  ///   - master: the master key.
  ///   - input: the diversification input M, 16 to 31 bytes.
  /// - Returns: the tag's key.
  /// - Throws: ``NTAG424Error/invalidLength(field:expected:actual:)`` when M is outside 16...31 bytes.
  public static func aes128(master: AESKey, input: [UInt8]) throws(NTAG424Error) -> AESKey {
    guard input.count >= minimumInputLength else {
      throw .invalidLength(field: "AN10922 diversification input", expected: minimumInputLength, actual: input.count)
    }
    guard input.count <= maximumInputLength else {
      throw .invalidLength(field: "AN10922 diversification input", expected: maximumInputLength, actual: input.count)
    }
    return AESKey(unchecked: try SwiftCryptoAES.cmac([0x01] + input, key: master))
  }
}
