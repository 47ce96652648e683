/// The card's side of Secure Dynamic Messaging for reading: what a 424 DNA mirrors into its NDEF
/// file at an unauthenticated read. The verifier's side is ``SecureDynamicMessaging``.
///
/// PICCData encryption (NT4H2421Gx datasheet §9.3.4), SDMENCFileData encryption (§9.3.6) and the
/// SDMMAC (§9.3.8, through ``SecureDynamicMessaging/mac(over:sessionKeys:)``) under the session keys
/// of §9.3.9 (``SDMSessionKeys``). Reproduced against NXP AN12196 rev 2.0 §3.3 (Table 1) and the
/// SUN examples of §3.4.
public enum SDMGeneration {
  /// The length of RandomPadding when both the UID and SDMReadCtr are in PICCData:
  /// 16 − 1 (PICCDataTag) − 7 (UID) − 3 (SDMReadCtr).
  public static let fullPaddingLength = 5

  /// Encrypted PICCData: `E(SDMMetaReadKey; PICCDataTag [|| UID] [|| SDMReadCtr] || RandomPadding)`,
  /// AES-CBC with a zero IV, one block (§9.3.4, Table 21: tag bit 7 UID mirrored, bit 6 SDMReadCtr
  /// mirrored, bits 3–0 the UID length).
  ///
  /// - Parameters:
  ///   - uid: the 7-byte UID when mirrored, nil otherwise.
  ///   - readCounter: SDMReadCtr when mirrored (below 2^24; LSB first inside PICCData).
  ///   - metaReadKey: the key the file's SDMMetaRead access right names.
  ///   - padding: RandomPadding: at least as many random bytes as the block has room for (only
  ///     those are used); a test passes a transcript's.
  /// - Returns: the 16 bytes the file mirrors as 32 hex digits.
  /// - Throws: ``NTAG424Error/invalidLength(field:expected:actual:)`` for a UID that is not 7 bytes,
  ///   a counter above FFFFFFh or too little padding.
  public static func encryptPICCData(uid: [UInt8]?, readCounter: UInt32?, metaReadKey: AESKey,
                                     padding: [UInt8]) throws(NTAG424Error) -> [UInt8] {
    if let uid, uid.count != 7 { throw .invalidLength(field: "UID", expected: 7, actual: uid.count) }
    if let readCounter, readCounter > 0xFF_FFFF { throw .invalidLength(field: "SDMReadCtr", expected: 3, actual: 4) }
    var tag: UInt8 = 0
    var plain: [UInt8] = []
    if let uid {
      tag |= 0x80 | UInt8(uid.count)
      plain += uid
    }
    if let readCounter {
      tag |= 0x40
      plain += SecureDynamicMessaging.counterBytes(readCounter)
    }
    plain.insert(tag, at: 0)
    let room = 16 - plain.count
    guard padding.count >= room else { throw .invalidLength(field: "RandomPadding", expected: room, actual: padding.count) }
    plain += padding.prefix(room)
    return try AESPrimitives.cbcEncrypt(plain, key: metaReadKey, iv: EV2Authentication.zeroIV)
  }

  /// SDMENCFileData: AES-CBC with SesSDMFileReadENCKey, IV = E(SesSDMFileReadENCKey; SDMReadCtr (LSB
  /// first) || 00…), no padding (§9.3.6.1). The file's plain bytes are whole blocks: SDMENCLength
  /// is a multiple of 32 hex digits (§10.7.1, Table 69).
  ///
  /// - Throws: ``NTAG424Error/invalidLength(field:expected:actual:)`` when not whole 16-byte blocks.
  public static func encryptFileData(_ plain: [UInt8], readCounter: UInt32,
                                     sessionKeys: SDMSessionKeys) throws(NTAG424Error) -> [UInt8] {
    guard !plain.isEmpty, plain.count % 16 == 0 else {
      throw .invalidLength(field: "SDMENCFileData", expected: max(16, (plain.count + 15) / 16 * 16), actual: plain.count)
    }
    let ivInput = SecureDynamicMessaging.counterBytes(readCounter) + [UInt8](repeating: 0, count: 13)
    let iv = try AESPrimitives.encryptBlock(ivInput, key: sessionKeys.encryption)
    return try AESPrimitives.cbcEncrypt(plain, key: sessionKeys.encryption, iv: iv)
  }
}
