import EV2SecureMessaging

/// The card's side of Secure Dynamic Messaging for reading: what a 424 DNA mirrors into its NDEF
/// file at an unauthenticated read. The verifier's side is ``SecureDynamicMessaging``.
///
/// PICCData encryption (NT4H2421Gx datasheet §9.3.4), SDMENCFileData encryption (§9.3.6) and the
/// SDMMAC (§9.3.8, through ``SecureDynamicMessaging/mac(over:sessionKeys:)``) under the session keys
/// of §9.3.9 (``SDMSessionKeys``). Reproduced against NXP AN12196 rev 2.0 §3.3 (Table 1) and the
/// SUN examples of §3.4. The formulas and layouts are EV2SecureMessaging's (``SDMCrypto``,
/// ``SDMFrames``), shared with the virtual DESFire EV3; this is their 424 DNA face (``AESKey``,
/// ``NTAG424Error``).
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
    try SwiftCryptoAES.mapped { () throws(EV2Error) in
      try SecureDynamicMessaging.SDM.encryptPICCData(uid: uid, readCounter: readCounter, metaReadKey: metaReadKey.bytes,
                                                     padding: padding)
    }
  }

  /// SDMENCFileData: AES-CBC with SesSDMFileReadENCKey, IV = E(SesSDMFileReadENCKey; SDMReadCtr (LSB
  /// first) || 00…), no padding (§9.3.6.1). The file's plain bytes are whole blocks: SDMENCLength
  /// is a multiple of 32 hex digits (§10.7.1, Table 69).
  ///
  /// - Throws: ``NTAG424Error/invalidLength(field:expected:actual:)`` when not whole 16-byte blocks.
  public static func encryptFileData(_ plain: [UInt8], readCounter: UInt32,
                                     sessionKeys: SDMSessionKeys) throws(NTAG424Error) -> [UInt8] {
    try SwiftCryptoAES.mapped { () throws(EV2Error) in
      try SecureDynamicMessaging.SDM.encryptFileData(plain, readCounter: readCounter, sessionKeys: sessionKeys.pair)
    }
  }

  /// An SDM-enabled file's bytes as an unauthenticated read returns them: EV2SecureMessaging's
  /// ``SDMMirror`` (the one mirror logic, shared with the virtual DESFire EV3) over swift-crypto.
  ///
  /// - Parameters:
  ///   - contents: the file as stored.
  ///   - layout: where the mirrors go and with which keys.
  ///   - uid: the tag's 7-byte UID.
  ///   - counter: SDMReadCtr after this read's increment.
  ///   - keys: the application keys' bytes, by number.
  ///   - padding: PICCData's RandomPadding (``fullPaddingLength`` bytes or more).
  /// - Throws: ``NTAG424Error/invalidKeyNumber(_:)`` for a key the tag does not have;
  ///   ``NTAG424Error/cryptoFailure(operation:)`` when swift-crypto refuses (a broken invariant).
  public static func mirror(_ contents: [UInt8], layout: SDMMirrorLayout, uid: [UInt8], counter: UInt32,
                            keys: [[UInt8]], padding: [UInt8]) throws(NTAG424Error) -> [UInt8] {
    try SwiftCryptoAES.mapped { () throws(EV2Error) in
      try SDMMirror<SwiftCryptoAES>.apply(to: contents, layout: layout, uid: uid, counter: counter, keys: keys, padding: padding)
    }
  }
}
