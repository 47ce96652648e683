import Crypto
import CryptoExtras
import EV2SecureMessaging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The 424 DNA's AES-128 from swift-crypto: the cipher of EV2 secure messaging
/// (``EV2Cipher``, for ``EV2HostSession`` and ``EV2CardSession``) and of SDM: one AES block each
/// way, AES-CBC without padding, AES-CMAC (NIST SP 800-38B) and the 424 DNA's truncation of it
/// (NT4H2421Gx datasheet §9.1.9).
///
/// Nothing here implements AES or CMAC itself. The callers pass lengths they have already
/// checked (16-byte keys, whole blocks), so a failure of swift-crypto here is a broken
/// invariant; it still surfaces as ``EV2Error/cryptoFailure(operation:)`` (``NTAG424Error/cryptoFailure(operation:)``
/// through the ``AESKey`` overloads) rather than a trap.
enum SwiftCryptoAES: EV2Cipher {
  /// The AES block length in bytes.
  static let blockLength = EV2Frames.blockLength

  /// AES-128 encryption of one 16-byte block (the "E(K, …)" of the datasheet's IV formulas).
  static func encryptBlock(_ block: [UInt8], key: [UInt8]) throws(EV2Error) -> [UInt8] {
    var out = block
    do {
      try AES.permute(&out, key: SymmetricKey(data: key))
    } catch {
      throw .cryptoFailure(operation: "AES block encryption")
    }
    return out
  }

  /// AES-128 decryption of one 16-byte block: AES-CBC of one block with a zero IV (PICCData's,
  /// NT4H2421Gx datasheet §9.3.4) without the CBC set-up.
  static func decryptBlock(_ block: [UInt8], key: [UInt8]) throws(EV2Error) -> [UInt8] {
    var out = block
    do {
      try AES.inversePermute(&out, key: SymmetricKey(data: key))
    } catch {
      throw .cryptoFailure(operation: "AES block decryption")
    }
    return out
  }

  /// AES-128-CBC encryption of whole blocks, no padding added.
  static func cbcEncrypt(_ plaintext: [UInt8], key: [UInt8], iv: [UInt8]) throws(EV2Error) -> [UInt8] {
    guard plaintext.count % blockLength == 0 else {
      throw .invalidLength(field: "AES-CBC plaintext", expected: roundUp(plaintext.count), actual: plaintext.count)
    }
    do {
      let cbcIV = try AES._CBC.IV(ivBytes: iv)
      return Array(try AES._CBC.encrypt(plaintext, using: SymmetricKey(data: key), iv: cbcIV, noPadding: true))
    } catch {
      throw .cryptoFailure(operation: "AES-CBC encryption")
    }
  }

  /// AES-128-CBC decryption of whole blocks, no padding removed.
  static func cbcDecrypt(_ ciphertext: [UInt8], key: [UInt8], iv: [UInt8]) throws(EV2Error) -> [UInt8] {
    guard ciphertext.count % blockLength == 0 else {
      throw .invalidLength(field: "AES-CBC ciphertext", expected: roundUp(ciphertext.count), actual: ciphertext.count)
    }
    do {
      let cbcIV = try AES._CBC.IV(ivBytes: iv)
      return Array(try AES._CBC.decrypt(ciphertext, using: SymmetricKey(data: key), iv: cbcIV, noPadding: true))
    } catch {
      throw .cryptoFailure(operation: "AES-CBC decryption")
    }
  }

  /// The full 16-byte AES-CMAC of `message` (NIST SP 800-38B).
  static func cmac(_ message: [UInt8], key: [UInt8]) throws(EV2Error) -> [UInt8] {
    do {
      var mac = try AES.CMAC(key: SymmetricKey(data: key))
      message.withUnsafeBytes { mac.update(bufferPointer: $0) }  // not the generic DataProtocol path
      return mac.finalize().withUnsafeBytes { Array($0) }
    } catch {
      throw .cryptoFailure(operation: "AES-CMAC")
    }
  }

  /// The full AES-CMACs of two messages under one key: the key schedule and the subkeys once,
  /// the context copied for the second (swift-crypto's CMAC is copy-on-write). The SDM session
  /// keys' two vectors (NT4H2421Gx datasheet §9.3.9.1) take one set-up instead of two.
  static func cmac(_ first: [UInt8], _ second: [UInt8], key: [UInt8]) throws(EV2Error) -> ([UInt8], [UInt8]) {
    do {
      let initial = try AES.CMAC(key: SymmetricKey(data: key))
      var one = initial, two = initial
      first.withUnsafeBytes { one.update(bufferPointer: $0) }
      second.withUnsafeBytes { two.update(bufferPointer: $0) }
      return (one.finalize().withUnsafeBytes { Array($0) }, two.finalize().withUnsafeBytes { Array($0) })
    } catch {
      throw .cryptoFailure(operation: "AES-CMAC")
    }
  }

  private static func roundUp(_ count: Int) -> Int { (count + blockLength - 1) / blockLength * blockLength }
}

/// The same operations with an ``AESKey`` and the 424 DNA's errors: what SDM, the key
/// diversification and the tests call. Each delegates to the `[UInt8]` form above.
extension SwiftCryptoAES {
  /// AES-128 encryption of one block.
  static func encryptBlock(_ block: [UInt8], key: AESKey) throws(NTAG424Error) -> [UInt8] {
    try mapped { () throws(EV2Error) in try encryptBlock(block, key: key.bytes) }
  }

  /// AES-128 decryption of one block.
  static func decryptBlock(_ block: [UInt8], key: AESKey) throws(NTAG424Error) -> [UInt8] {
    try mapped { () throws(EV2Error) in try decryptBlock(block, key: key.bytes) }
  }

  /// AES-128-CBC encryption of whole blocks, no padding added.
  static func cbcEncrypt(_ plaintext: [UInt8], key: AESKey, iv: [UInt8]) throws(NTAG424Error) -> [UInt8] {
    try mapped { () throws(EV2Error) in try cbcEncrypt(plaintext, key: key.bytes, iv: iv) }
  }

  /// AES-128-CBC decryption of whole blocks, no padding removed.
  static func cbcDecrypt(_ ciphertext: [UInt8], key: AESKey, iv: [UInt8]) throws(NTAG424Error) -> [UInt8] {
    try mapped { () throws(EV2Error) in try cbcDecrypt(ciphertext, key: key.bytes, iv: iv) }
  }

  /// The full 16-byte AES-CMAC of `message`.
  static func cmac(_ message: [UInt8], key: AESKey) throws(NTAG424Error) -> [UInt8] {
    try mapped { () throws(EV2Error) in try cmac(message, key: key.bytes) }
  }

  /// The full AES-CMACs of two messages under one key (``cmac(_:_:key:)-([UInt8],_,_)``).
  static func cmac(_ first: [UInt8], _ second: [UInt8], key: AESKey) throws(NTAG424Error) -> ([UInt8], [UInt8]) {
    try mapped { () throws(EV2Error) in try cmac(first, second, key: key.bytes) }
  }

  /// MACt: the 8 bytes the 424 DNA sends of a 16-byte CMAC (``EV2Frames/truncate(_:)``).
  static func truncate(_ fullMAC: [UInt8]) -> [UInt8] { EV2Frames.truncate(fullMAC) }

  /// MACt(CMAC(key, message)).
  static func truncatedCMAC(_ message: [UInt8], key: AESKey) throws(NTAG424Error) -> [UInt8] {
    truncate(try cmac(message, key: key))
  }

  /// ISO/IEC 9797-1 padding method 2 (``EV2Frames/pad(_:)``, the one implementation).
  static func pad(_ data: [UInt8]) -> [UInt8] { EV2Frames.pad(data) }

  /// Removes ISO/IEC 9797-1 padding method 2 (``EV2Frames/unpad(_:)``).
  ///
  /// - Throws: ``NTAG424Error/invalidPadding`` when the last block does not end in `80 00…`.
  static func unpad(_ data: [UInt8]) throws(NTAG424Error) -> [UInt8] {
    try mapped { () throws(EV2Error) in try EV2Frames.unpad(data) }
  }

  /// Constant-time comparison of two MACs of equal length; false when the lengths differ
  /// (``EV2Frames/macsMatch(_:_:)``).
  static func macsMatch(_ a: [UInt8], _ b: [UInt8]) -> Bool { EV2Frames.macsMatch(a, b[...]) }

  /// Runs a step of the shared module, its error as the 424 DNA's.
  static func mapped<T>(_ body: () throws(EV2Error) -> T) throws(NTAG424Error) -> T {
    do { return try body() } catch { throw NTAG424Error(error) }
  }
}

/// The name the SDM code and the tests know the cipher by.
typealias AESPrimitives = SwiftCryptoAES
