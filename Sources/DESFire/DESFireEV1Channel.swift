/// EV1 secure messaging after AuthenticateISO (1Ah) or AuthenticateAES (AAh), NXP MF3ICDx21_41_81
/// data sheet §2.5, the 8-byte CMAC and 32-bit CRC; the chaining as real cards answer it: one IV, zero after the authentication, that every MAC and every enciphered
/// message moves on, in both directions.
///
/// - A command in plain or MAC mode: the CMAC of `cmd ‖ header ‖ data` becomes the IV (sent,
///   first 8 bytes, only in MAC mode).
/// - An answer in plain or MAC mode: `data ‖ CMAC(data ‖ status)` (first 8 bytes), the whole CMAC
///   the next IV.
/// - Full mode: `data ‖ CRC32 ‖ 00…` enciphered in CBC from the IV, the last ciphertext block the
///   next IV; a command's CRC32 covers `cmd ‖ header ‖ data`, an answer's `data ‖ status`.
public final class DESFireEV1Channel {
  /// The session key's cipher.
  public let cipher: DESFireCipher
  /// The current IV (moved by the host's side too: DESFireEV1Channel+Host.swift).
  public internal(set) var iv: [UInt8]

  /// A channel with the session key of an authentication, IV zero.
  public init(sessionKey: DESFireKeyMaterial) throws(DESFireCryptoError) {
    cipher = try sessionKey.cipher()
    iv = [UInt8](repeating: 0, count: cipher.blockLength)
  }

  /// The 8-byte MAC of `message` (a command with its header and data, or an answer's data and
  /// status); the whole CMAC becomes the IV.
  @discardableResult
  public func mac(_ message: [UInt8]) throws(DESFireCryptoError) -> [UInt8] {
    iv = try cipher.cmac(message, iv: iv)
    return Array(iv.prefix(8))
  }

  /// The card's answer in plain or MAC mode: `data`, then the MAC of `data ‖ status`.
  public func macAnswer(_ data: [UInt8], status: UInt8) throws(DESFireCryptoError) -> [UInt8] {
    data + (try mac(data + [status]))
  }

  /// The card's answer in full mode: `data ‖ CRC32(data ‖ status) ‖ 00…` enciphered.
  public func encipherAnswer(_ data: [UInt8], status: UInt8) throws(DESFireCryptoError) -> [UInt8] {
    try encipher(data + DESFireCRC.crc32(data + [status]))
  }

  /// Checks the 8-byte MAC a host appended to a command (`message` is `cmd ‖ header ‖ data`).
  /// - Returns: false when it does not match (the card answers 1Eh).
  public func checkMAC(_ message: [UInt8], mac sent: [UInt8]) throws(DESFireCryptoError) -> Bool {
    try mac(message) == sent
  }

  /// Deciphers a full-mode command's data: `prefix` (`cmd ‖ header`, sent plain) and the
  /// ciphertext, whose plaintext is `data ‖ CRC32(prefix ‖ data) ‖ 00…`.
  /// - Parameter length: the data's length when the command says it (WriteData); nil to find the
  ///   CRC32 from the end, the first position followed only by zeros.
  /// - Returns: the data, or nil when no CRC32 matches or the padding is not zeros (1Eh).
  public func decipherCommand(prefix: [UInt8], _ ciphertext: [UInt8], length: Int? = nil) throws(DESFireCryptoError) -> [UInt8]? {
    guard !ciphertext.isEmpty, ciphertext.count % cipher.blockLength == 0 else { return nil }
    let plain = try cipher.decrypt(ciphertext, iv: iv)
    iv = Array(ciphertext.suffix(cipher.blockLength))
    let candidates = length.map { [$0] } ?? Array((0...max(0, plain.count - 4)).reversed())
    for n in candidates where n >= 0 && n + 4 <= plain.count {
      let data = Array(plain[0..<n])
      guard plain[(n + 4)...].allSatisfy({ $0 == 0 }), Array(plain[n..<(n + 4)]) == DESFireCRC.crc32(prefix + data) else { continue }
      return data
    }
    return nil
  }

  /// `plaintext` padded with zeros to whole blocks and enciphered from the IV; the last block
  /// becomes the IV.
  public func encipher(_ plaintext: [UInt8]) throws(DESFireCryptoError) -> [UInt8] {
    let padding = (cipher.blockLength - plaintext.count % cipher.blockLength) % cipher.blockLength
    let out = try cipher.encrypt(plaintext + [UInt8](repeating: 0, count: padding), iv: iv)
    if !out.isEmpty { iv = Array(out.suffix(cipher.blockLength)) }
    return out
  }

  /// Deciphers a ChangeKey (C4h) cryptogram for key `keyNumber` (the byte as sent, with the PICC
  /// key's type bits) and returns the new key bytes and, for an AES key, its version.
  ///
  /// Same key (the authenticated one): `new [‖ version] ‖ CRC32(C4 ‖ KeyNo ‖ new [‖ version])`;
  /// another key: `(new ⊕ old) [‖ version] ‖ CRC32(C4 ‖ KeyNo ‖ (new ⊕ old) [‖ version]) ‖
  /// CRC32(new)`; zeros to whole blocks.
  /// - Parameters:
  ///   - keyLength: the new key's length (16 or 24).
  ///   - withVersion: whether a version byte follows (AES keys).
  ///   - oldKey: the slot's current key for another key; nil when it is the authenticated one.
  /// - Returns: nil when a CRC does not match (1Eh).
  public func decipherChangeKey(keyNumber: UInt8, _ ciphertext: [UInt8], keyLength: Int, withVersion: Bool,
                                oldKey: [UInt8]?) throws(DESFireCryptoError) -> (key: [UInt8], version: UInt8?)? {
    guard !ciphertext.isEmpty, ciphertext.count % cipher.blockLength == 0 else { return nil }
    let plain = try cipher.decrypt(ciphertext, iv: iv)
    iv = Array(ciphertext.suffix(cipher.blockLength))
    let body = keyLength + (withVersion ? 1 : 0)
    let crcs = oldKey == nil ? 4 : 8
    guard plain.count >= body + crcs, plain[(body + crcs)...].allSatisfy({ $0 == 0 }) else { return nil }
    let sent = Array(plain[0..<body])
    guard Array(plain[body..<(body + 4)]) == DESFireCRC.crc32([0xC4, keyNumber] + sent) else { return nil }
    var key = Array(sent.prefix(keyLength))
    if let old = oldKey {
      guard old.count == keyLength else { return nil }
      key = zip(key, old).map { $0 ^ $1 }
      guard Array(plain[(body + 4)..<(body + 8)]) == DESFireCRC.crc32(key) else { return nil }
    }
    return (key, withVersion ? sent.last : nil)
  }
}
