/// NXP AN10922 ("Symmetric key diversifications") for the Triple-DES key types: §2.3 (2TDEA) and
/// §2.4 (3TDEA), one key per card from a master key and the card's diversification input M
/// (typically UID ‖ AID ‖ a system identifier), 1 to 31 bytes.
///
/// Each 8-byte part of the diversified key is the CMAC (NIST SP 800-38B) with the master key of a
/// constant byte followed by M: 21h and 22h for 2TDEA (the key is the two CMACs), 31h, 32h and 33h
/// for 3TDEA (three). AN10922 pads the CMAC input to at least two cipher blocks (16 bytes for
/// TDEA): an input shorter than that is padded `80 00…` to 16 bytes and its last block taken with
/// the CMAC subkey K2; 16 bytes or more is NIST's CMAC as it is (Proxmark3's
/// `client/src/mifare/desfirecrypto.c`, `mifare_kdf_an10922` and `DesfireCryptoCMACEx` with a
/// minimum length of two blocks, do the same). Only that layout is written here: every CMAC is
/// OpenSSL's (``DESFireCipher``). The AES-128 variant (§2.2, constant 01h) is NTAG424's
/// `KeyDiversification`, not repeated here.
public enum DESFireKeyDiversification {
  /// The longest diversification input AN10922 allows.
  public static let maximumInputLength = 31

  /// Why a key could not be diversified (never a byte of a key).
  public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
    /// M is empty or longer than 31 bytes.
    case inputLength(Int)
    /// The master key's length is not the variant's (16 bytes for 2TDEA, 24 for 3TDEA).
    case masterKeyLength(Int)
    /// libcrypto failed (or is not there).
    case cipher(DESFireCryptoError)

    public var description: String {
      switch self {
      case .inputLength(let n): return "an AN10922 diversification input has 1 to 31 bytes, not \(n)"
      case .masterKeyLength(let n): return "the master key has the wrong length for its type (\(n) bytes)"
      case .cipher(let error): return "the key diversification failed: \(error)"
      }
    }
  }

  /// The AN10922 §2.3 2TDEA key (16 bytes): `CMAC(K, 21h ‖ M) ‖ CMAC(K, 22h ‖ M)`.
  /// - Parameters:
  ///   - master: the 16-byte 2TDEA master key.
  ///   - input: M, 1 to 31 bytes.
  public static func twoKeyTripleDES(master: [UInt8], input: [UInt8]) throws(Failure) -> [UInt8] {
    guard master.count == 16 else { throw .masterKeyLength(master.count) }
    return try parts([0x21, 0x22], master: master, input: input)
  }

  /// The AN10922 §2.4 3TDEA key (24 bytes): `CMAC(K, 31h ‖ M) ‖ CMAC(K, 32h ‖ M) ‖ CMAC(K, 33h ‖ M)`.
  /// - Parameters:
  ///   - master: the 24-byte 3TDEA master key.
  ///   - input: M, 1 to 31 bytes.
  public static func threeKeyTripleDES(master: [UInt8], input: [UInt8]) throws(Failure) -> [UInt8] {
    guard master.count == 24 else { throw .masterKeyLength(master.count) }
    return try parts([0x31, 0x32, 0x33], master: master, input: input)
  }

  private static func parts(_ constants: [UInt8], master: [UInt8], input: [UInt8]) throws(Failure) -> [UInt8] {
    guard (1...maximumInputLength).contains(input.count) else { throw .inputLength(input.count) }
    do {
      let cipher = try DESFireCipher.tripleDES(master)
      var key: [UInt8] = []
      for constant in constants { key += try cmac(cipher, [constant] + input) }
      return key
    } catch {
      throw .cipher(error)
    }
  }

  /// AN10922's CMAC of `data` with a minimum of two blocks: NIST's CMAC for 16 bytes or more.
  /// For less, the padded input `P1 ‖ P2` (`data ‖ 80 00…`, 16 bytes) with K2 on P2 is
  /// `E(K, P2 ⊕ K2 ⊕ E(K, P1))`; OpenSSL's CMAC of one byte `00` chained from the IV
  /// `X = E(K, P1) ⊕ P2 ⊕ (00 80 00 00 00 00 00 00)` (``DESFireCipher/cmac(_:iv:)``) is
  /// `E(K, (00 80 00…) ⊕ K2 ⊕ X)`, the same value, with no subkey computed here.
  private static func cmac(_ cipher: DESFireCipher, _ data: [UInt8]) throws(DESFireCryptoError) -> [UInt8] {
    let block = cipher.blockLength
    guard data.count < 2 * block else { return try cipher.cmac(data) }
    var padded = data + [0x80]
    padded += [UInt8](repeating: 0, count: 2 * block - padded.count)
    let first = try cipher.encrypt(Array(padded.prefix(block)), iv: [UInt8](repeating: 0, count: block))
    var oneBytePadded = [UInt8](repeating: 0, count: block)
    oneBytePadded[1] = 0x80
    let iv = (0..<block).map { first[$0] ^ padded[block + $0] ^ oneBytePadded[$0] }
    return try cipher.cmac([0x00], iv: iv)
  }
}

extension DESFireKeyMaterial {
  /// The key's bytes (a DES key as its 8 bytes twice), for diversifying from a master key within
  /// this package (`provision`'s DESFire keys); never shown.
  package var packageBytes: [UInt8] { bytes }
}
