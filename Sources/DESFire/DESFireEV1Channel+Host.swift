/// The host's side of EV1 secure messaging (NXP MF3ICDx21_41_81 data sheet §2.5, "a 32-bit CRC" and
/// the 8-byte CMAC; §9.3 ChangeKey and ChangeKeySettings): what the host enciphers for the card and
/// deciphers from it, with the same IV chaining as the card's side (``DESFireEV1Channel``).
extension DESFireEV1Channel {
  /// A full-mode command's data as the host sends it: `data ‖ CRC32(prefix ‖ data) ‖ 00…`
  /// enciphered from the IV (`prefix` is `cmd ‖ header`, sent plain); the last block becomes the IV.
  public func encipherCommand(prefix: [UInt8], _ data: [UInt8]) throws(DESFireCryptoError) -> [UInt8] {
    try encipher(data + DESFireCRC.crc32(prefix + data))
  }

  /// Deciphers a full-mode answer, `data ‖ CRC32(data ‖ status) ‖ 00…` enciphered from the IV
  /// (ReadData, GetCardUID); the last ciphertext block becomes the IV.
  /// - Parameters:
  ///   - status: the answer's status byte (00h).
  ///   - length: the data's length when the command says it; nil to find the CRC32 from the end
  ///     (the last position followed only by the zeros of the last block).
  /// - Returns: the data; nil when the ciphertext is not whole blocks, no CRC32 matches, or the
  ///   padding is not zeros short of a block.
  public func decipherAnswer(_ ciphertext: [UInt8], status: UInt8 = 0x00, length: Int? = nil) throws(DESFireCryptoError) -> [UInt8]? {
    try decipherAnswer(ciphertext, status: status, lengths: length.map { [$0] })
  }

  /// ``decipherAnswer(_:status:length:)`` with the lengths the data may have, tried in order (nil:
  /// every length, longest first). A GetCardUID answer names no length, and a UID whose CRC32
  /// begins with 00 also reads as one byte longer; its lengths (7, 10, 4) tell them apart.
  public func decipherAnswer(_ ciphertext: [UInt8], status: UInt8 = 0x00, lengths: [Int]?) throws(DESFireCryptoError) -> [UInt8]? {
    guard !ciphertext.isEmpty, ciphertext.count % cipher.blockLength == 0 else { return nil }
    let plain = try cipher.decrypt(ciphertext, iv: iv)
    iv = Array(ciphertext.suffix(cipher.blockLength))
    let candidates = lengths ?? Array((0...max(0, plain.count - 4)).reversed())
    for n in candidates where n >= 0 && n + 4 <= plain.count && plain.count - (n + 4) < cipher.blockLength {
      let data = Array(plain[0..<n])
      guard plain[(n + 4)...].allSatisfy({ $0 == 0 }), Array(plain[n..<(n + 4)]) == DESFireCRC.crc32(data + [status]) else { continue }
      return data
    }
    return nil
  }

  /// A ChangeKey (C4h) cryptogram for key byte `keyNumber` (as sent: at the PICC level with the
  /// new key type in bits 7-6), enciphered from the IV; the last block becomes the IV (the command
  /// itself is not MACed).
  ///
  /// The authenticated key (`oldKey` nil): `new [‖ version] ‖ CRC32(C4 ‖ KeyNo ‖ new [‖ version])`;
  /// another key: `(new ⊕ old) [‖ version] ‖ CRC32(C4 ‖ KeyNo ‖ (new ⊕ old) [‖ version]) ‖
  /// CRC32(new)`; zeros to whole blocks. `version` goes only with an AES key (a DES-family key's
  /// version is the parity bits of its first 8 bytes, as the caller gives them).
  /// - Throws: ``DESFireCryptoError/invalidLength(field:actual:)`` when the old key's length is not
  ///   the new key's (a key's type changes only with itself, at the PICC level).
  public func changeKeyCryptogram(keyNumber: UInt8, newKey: DESFireKeyMaterial, version: UInt8,
                                  oldKey: DESFireKeyMaterial?) throws(DESFireCryptoError) -> [UInt8] {
    let new = newKey.bytes
    var body = new
    if let old = oldKey?.bytes {
      guard old.count == new.count else { throw .invalidLength(field: "old key", actual: old.count) }
      body = zip(new, old).map { $0 ^ $1 }
    }
    if newKey.type == .aes { body.append(version) }
    var plain = body + DESFireCRC.crc32([0xC4, keyNumber] + body)
    if oldKey != nil { plain += DESFireCRC.crc32(new) }
    return try encipher(plain)
  }
}
