import COpenSSL
import Hex

/// The NTAG 424 DNA's originality signature: an ECDSA signature on the secp224r1 curve over the
/// tag's 7-byte UID, used as the ECDSA integer with no hash, 56 bytes `r || s`, read with Read_Sig
/// (NT4H2421Gx datasheet, the Read_Sig command; NXP AN12196 §7.2, whose Table 30 gives NXP's public
/// key and a tag's UID and signature, checked in the tests).
///
/// The curve arithmetic is OpenSSL's (the system's libcrypto, through `COpenSSL`, which loads it
/// at the first check): swift-crypto has no P-224, and none is written here.
public enum OriginalitySignature {
  /// What a signature proves.
  public enum Verdict: String, Sendable, Hashable {
    /// It verifies with NXP's public key: the chip is an NXP NTAG 424 DNA.
    case nxp
    /// It verifies with this project's test key: a virtual tag (``testPublicKey``), not NXP-signed.
    case testKey
    /// It verifies with neither key (or is not 56 bytes): not an NXP-signed chip, or the UID is
    /// not the one signed.
    case invalid
    /// It could not be checked: OpenSSL's libcrypto (`libcrypto.so.3`) cannot be loaded.
    case unavailable
  }

  /// NXP's originality public key for the NTAG 424 DNA and 424 DNA TT, SEC1 uncompressed
  /// (`04 || X || Y`): NXP AN12196 §7.2, Table 30.
  public static let nxpPublicKey: [UInt8] = (parseHex(
    "048A9B380AF2EE1B98DC417FECC263F8449C7625CECE82D9B916C992DA209D68422B81EC20B65A66B5102A61596AF3379200599316A00A1410") ?? [])

  /// The public half of the test key pair the virtual NTAG 424 DNA signs its UID with (its
  /// private half: ``testPrivateKeyPEM``). Test material, generated once with
  /// `openssl ecparam -name secp224r1 -genkey` and published here: a signature that verifies
  /// with it proves nothing but that the tag is this project's virtual one (docs/ntag-424-dna.md).
  public static let testPublicKey: [UInt8] = (parseHex(
    "0445DF26FA9168279DE3E1674697A2369D3909EB0A96AC164E18413C218A61295F2BB61014CB5B93252B26BE957D6397F5F705CD359EBF2A64") ?? [])

  /// The test key pair's private half (PEM), published test material: never a secret.
  static let testPrivateKeyPEM = """
    -----BEGIN EC PRIVATE KEY-----
    MGgCAQEEHPuwTTGAcyOdQN9p6Gmr6MizYzWCM+nr++4YwHGgBwYFK4EEACGhPAM6
    AARF3yb6kWgnnePhZ0aXojadOQnrCpasFk4YQTwhimEpXyu2EBTLW5MlKya+lX1j
    l/X3Bc01nr8qZA==
    -----END EC PRIVATE KEY-----

    """

  /// The length of a signature: r and s, 28 bytes each.
  public static let signatureLength = 56

  /// Checks `signature` over `uid` with NXP's key, then with the test key.
  public static func check(uid: [UInt8], signature: [UInt8]) -> Verdict {
    guard copenssl_available() == 1 else { return .unavailable }
    guard signature.count == signatureLength, !uid.isEmpty else { return .invalid }
    if verify(uid: uid, signature: signature, publicKey: nxpPublicKey) == true { return .nxp }
    if verify(uid: uid, signature: signature, publicKey: testPublicKey) == true { return .testKey }
    return .invalid
  }

  /// Whether `signature` (r || s) over `uid` verifies with `publicKey` (SEC1 uncompressed, 57
  /// bytes); nil when the key is not a point of secp224r1, OpenSSL fails or cannot be loaded.
  public static func verify(uid: [UInt8], signature: [UInt8], publicKey: [UInt8]) -> Bool? {
    guard signature.count == signatureLength, !uid.isEmpty else { return false }
    let result = copenssl_p224_verify(publicKey, publicKey.count, uid, uid.count, signature, signature.count)
    return result < 0 ? nil : result == 1
  }

  /// A signature of `uid` with the test key, for the virtual tag's Read_Sig; nil when OpenSSL
  /// fails or cannot be loaded. ECDSA draws a new nonce each time, so two signatures of one UID differ; both verify.
  public static func testSignature(uid: [UInt8]) -> [UInt8]? {
    guard !uid.isEmpty else { return nil }
    var out = [UInt8](repeating: 0, count: signatureLength)
    let pem = Array(testPrivateKeyPEM.utf8)
    let result = pem.withUnsafeBufferPointer { key in
      key.withMemoryRebound(to: CChar.self) { key in
        copenssl_p224_sign(key.baseAddress, key.count, uid, uid.count, &out)
      }
    }
    return result == 0 ? out : nil
  }
}
