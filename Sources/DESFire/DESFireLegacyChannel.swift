/// The legacy (DESFire D40, and EV1 backwards-compatible) secure messaging after Authenticate
/// (0Ah) with a DES or 2K3DES key, for both sides (NXP MIFARE DESFire data sheet M075031, "MACing"
/// and "enciphering" of the communication; the byte layouts as libfreefare's
/// `mifare_desfire_crypto.c` implements them for a session that is not EV1's,
/// https://github.com/nfc-tools/libfreefare/blob/master/libfreefare/mifare_desfire_crypto.c).
/// Every message starts from a zero IV: nothing is carried from one command to the next.
///
/// - MAC mode: the first 4 bytes of the last block of CBC encryption, zero IV, over the data
///   alone (zero-padded to 8 bytes), appended to the data (WriteData's data, ReadData's answer).
/// - Full mode: `data ‖ CRC16(data) ‖ 00…` (ISO/IEC 14443-3 CRC_A, least significant byte first,
///   ``DESFireCRC/crc16(_:)``). The host sends it in "send mode" (each block XOR the previous
///   result, then DES decryption); the card answers in "receive mode" (plain CBC encryption, which
///   the host undoes by decrypting each block and XORing the previous ciphertext).
///
/// The ciphers are OpenSSL's through ``DESFireCipher``; only the chaining is this type's.
public struct DESFireLegacyChannel: Sendable {
  /// The session key's cipher (DES or 2K3DES: 8-byte blocks).
  public let cipher: DESFireCipher

  /// A channel with the session key of an Authenticate (0Ah).
  /// - Throws: ``DESFireCryptoError/wrongKeyType`` for an AES key.
  public init(sessionKey: DESFireKeyMaterial) throws(DESFireCryptoError) {
    cipher = try sessionKey.cipher()
    guard cipher.blockLength == 8 else { throw .wrongKeyType }
  }

  private static let zero = [UInt8](repeating: 0, count: 8)

  /// `bytes` with zeros to whole 8-byte blocks (none added to whole blocks).
  public static func padded(_ bytes: [UInt8]) -> [UInt8] {
    bytes + [UInt8](repeating: 0, count: (8 - bytes.count % 8) % 8)
  }

  // MARK: MAC mode

  /// The 4-byte MAC of `data` (non-empty).
  public func mac(_ data: [UInt8]) throws(DESFireCryptoError) -> [UInt8] {
    guard !data.isEmpty else { throw .invalidLength(field: "MAC data", actual: 0) }
    let out = try cipher.encrypt(Self.padded(data), iv: Self.zero)
    return Array(out.suffix(8).prefix(4))
  }

  /// Whether `sent` is the MAC of `data`.
  public func checkMAC(_ data: [UInt8], mac sent: [UInt8]) throws(DESFireCryptoError) -> Bool {
    guard sent.count == 4 else { return false }
    return try mac(data) == sent
  }

  // MARK: The two chainings

  /// Send mode (the host's): each block XOR the previous result, then decrypted.
  public func sendMode(_ plaintext: [UInt8]) throws(DESFireCryptoError) -> [UInt8] {
    guard plaintext.count % 8 == 0 else { throw .invalidLength(field: "CBC data", actual: plaintext.count) }
    var previous = Self.zero, out: [UInt8] = []
    for start in stride(from: 0, to: plaintext.count, by: 8) {
      let block = zip(plaintext[start..<(start + 8)], previous).map { $0 ^ $1 }
      previous = try cipher.decrypt(block, iv: Self.zero)
      out += previous
    }
    return out
  }

  /// The card's undoing of send mode: each block encrypted, then XOR the previous ciphertext.
  public func undoSendMode(_ ciphertext: [UInt8]) throws(DESFireCryptoError) -> [UInt8] {
    guard ciphertext.count % 8 == 0 else { throw .invalidLength(field: "CBC data", actual: ciphertext.count) }
    var previous = Self.zero, out: [UInt8] = []
    for start in stride(from: 0, to: ciphertext.count, by: 8) {
      let block = Array(ciphertext[start..<(start + 8)])
      out += zip(try cipher.encrypt(block, iv: Self.zero), previous).map { $0 ^ $1 }
      previous = block
    }
    return out
  }

  // MARK: Full mode

  /// The host's full-mode command data: `data ‖ CRC16(data) ‖ 00…` in send mode.
  public func encipherCommand(_ data: [UInt8]) throws(DESFireCryptoError) -> [UInt8] {
    try sendMode(Self.padded(data + DESFireCRC.crc16(data)))
  }

  /// The card's reading of a full-mode command's `length` data bytes; nil when the CRC16 or the
  /// padding is wrong, or the ciphertext is not the blocks of `length` bytes and the CRC16.
  public func decipherCommand(_ ciphertext: [UInt8], length: Int) throws(DESFireCryptoError) -> [UInt8]? {
    guard length >= 0, ciphertext.count == Self.padded([UInt8](repeating: 0, count: length + 2)).count else { return nil }
    return Self.unframe(try undoSendMode(ciphertext), length: length)
  }

  /// The card's full-mode answer: `data ‖ CRC16(data) ‖ 00…` CBC-encrypted from zero.
  public func encipherAnswer(_ data: [UInt8]) throws(DESFireCryptoError) -> [UInt8] {
    try cipher.encrypt(Self.padded(data + DESFireCRC.crc16(data)), iv: Self.zero)
  }

  /// The host's reading of a full-mode answer: the data (`length` bytes, or nil to find the CRC16,
  /// the padding short of a block); nil when no CRC16 matches.
  ///
  /// Without a length the shortest data whose CRC16 and zeros fill the blocks is taken: CRC_A has
  /// no final XOR, so `CRC16(data ‖ c0) = c1 ‖ 00` and `CRC16(data ‖ c0 ‖ c1) = 00 00`, and
  /// `data ‖ CRC16` followed by zeros of padding always reads as one or two bytes longer "data" too.
  public func decipherAnswer(_ ciphertext: [UInt8], length: Int? = nil) throws(DESFireCryptoError) -> [UInt8]? {
    guard !ciphertext.isEmpty, ciphertext.count % 8 == 0 else { return nil }
    let plain = try cipher.decrypt(ciphertext, iv: Self.zero)
    if let length { return Self.unframe(plain, length: length) }
    for n in max(0, plain.count - 9)...(plain.count - 2) {
      if let data = Self.unframe(plain, length: n) { return data }
    }
    return nil
  }

  /// The first `length` bytes of `plain` when the CRC16 of them follows and then only zeros.
  static func unframe(_ plain: [UInt8], length: Int) -> [UInt8]? {
    guard length >= 0, length + 2 <= plain.count else { return nil }
    let data = Array(plain[0..<length])
    guard Array(plain[length..<(length + 2)]) == DESFireCRC.crc16(data),
          plain[(length + 2)...].allSatisfy({ $0 == 0 }) else { return nil }
    return data
  }
}

/// ChangeKey (C4h) under the legacy scheme, as libfreefare's `mifare_desfire_change_key` sends it
/// when the session is not EV1's: the CRC16s cover the key bytes alone (not `C4 ‖ KeyNo`).
extension DESFireLegacyChannel {
  /// The cryptogram after `C4 ‖ KeyNo`, in send mode. The authenticated key (`oldKey` nil):
  /// `new [‖ version] ‖ CRC16(new [‖ version])`; another key: `(new ⊕ old) [‖ version] ‖
  /// CRC16(…) ‖ CRC16(new)`; zeros to whole blocks. `version` goes only with an AES key.
  /// - Throws: ``DESFireCryptoError/invalidLength(field:actual:)`` when the old key's length is
  ///   not the new key's.
  public func changeKeyCryptogram(newKey: DESFireKeyMaterial, version: UInt8, oldKey: DESFireKeyMaterial?) throws(DESFireCryptoError) -> [UInt8] {
    let new = newKey.bytes
    var body = new
    if let old = oldKey?.bytes {
      guard old.count == new.count else { throw .invalidLength(field: "old key", actual: old.count) }
      body = zip(new, old).map { $0 ^ $1 }
    }
    if newKey.type == .aes { body.append(version) }
    var plain = body + DESFireCRC.crc16(body)
    if oldKey != nil { plain += DESFireCRC.crc16(new) }
    return try sendMode(Self.padded(plain))
  }

  /// The card's reading of a ChangeKey cryptogram: the new key bytes and (AES) its version; nil
  /// when a CRC16 or the padding is wrong (1Eh).
  /// - Parameters:
  ///   - keyLength: the new key's length (16 or 24).
  ///   - withVersion: whether a version byte follows (AES keys).
  ///   - oldKey: the slot's current key for another key; nil when it is the authenticated one.
  public func decipherChangeKey(_ ciphertext: [UInt8], keyLength: Int, withVersion: Bool,
                                oldKey: [UInt8]?) throws(DESFireCryptoError) -> (key: [UInt8], version: UInt8?)? {
    let body = keyLength + (withVersion ? 1 : 0)
    let crcs = oldKey == nil ? 2 : 4
    guard ciphertext.count == Self.padded([UInt8](repeating: 0, count: body + crcs)).count else { return nil }
    let plain = try undoSendMode(ciphertext)
    guard plain[(body + crcs)...].allSatisfy({ $0 == 0 }) else { return nil }
    let sent = Array(plain[0..<body])
    guard Array(plain[body..<(body + 2)]) == DESFireCRC.crc16(sent) else { return nil }
    var key = Array(sent.prefix(keyLength))
    if let old = oldKey {
      guard old.count == keyLength else { return nil }
      key = zip(key, old).map { $0 ^ $1 }
      guard Array(plain[(body + 2)..<(body + 4)]) == DESFireCRC.crc16(key) else { return nil }
    }
    return (key, withVersion ? sent.last : nil)
  }
}
