/// Secure Dynamic Messaging's cryptography (NT4H2421Gx datasheet §9.3), written once for the NTAG
/// 424 DNA and the MIFARE DESFire EV3, generic over the AES of the module that uses it (swift-crypto
/// in NTAG424, libcrypto in DESFire): both sides, the card's (PICCData and SDMENCFileData
/// encrypted, the SDMMAC) and the verifier's (the same, decrypted). The layouts are ``SDMFrames``'.
///
/// Every entry point is `@inlinable`, so a caller's module gets code specialized for its cipher
/// (the verifier of `sdm serve` runs here). Reproduced against NXP AN12196 rev 2.0 §3.3 and §3.4.
public enum SDMCrypto<C: EV2Cipher> {
  /// D(K, block): one AES block decrypted (CBC of one block with a zero IV).
  @inlinable
  public static func decryptBlock(_ block: [UInt8], key: [UInt8]) throws(EV2Error) -> [UInt8] {
    try C.cbcDecrypt(block, key: key, iv: EV2Frames.zeroIV)
  }

  /// SesSDMFileReadENCKey = CMAC(SDMFileReadKey; SV1), SesSDMFileReadMACKey = CMAC(SDMFileReadKey; SV2)
  /// (§9.3.9.1).
  ///
  /// - Throws: ``EV2Error/invalidLength(field:expected:actual:)`` for a UID that is not 7 bytes or
  ///   a counter above FFFFFFh.
  @inlinable
  public static func sessionKeys(fileReadKey: [UInt8], uid: [UInt8]?, readCounter: UInt32?) throws(EV2Error) -> SDMSessionKeyPair {
    let vectors = try SDMFrames.sessionVectors(uid: uid, readCounter: readCounter)
    return SDMSessionKeyPair(encryption: try C.cmac(vectors.encryption, key: fileReadKey),
                             mac: try C.cmac(vectors.mac, key: fileReadKey))
  }

  /// Encrypted PICCData: `E(SDMMetaReadKey; PICCDataTag [|| UID] [|| SDMReadCtr] || RandomPadding)`,
  /// one block, zero IV (§9.3.4).
  ///
  /// - Throws: as ``SDMFrames/piccDataPlaintext(uid:readCounter:padding:)``.
  @inlinable
  public static func encryptPICCData(uid: [UInt8]?, readCounter: UInt32?, metaReadKey: [UInt8],
                                     padding: [UInt8]) throws(EV2Error) -> [UInt8] {
    try C.encryptBlock(try SDMFrames.piccDataPlaintext(uid: uid, readCounter: readCounter, padding: padding), key: metaReadKey)
  }

  /// PICCData decrypted and parsed; nil when it is not valid PICCData (a wrong key).
  ///
  /// - Throws: ``EV2Error/invalidLength(field:expected:actual:)`` when not 16 bytes.
  @inlinable
  public static func decryptPICCData(_ encrypted: [UInt8], metaReadKey: [UInt8]) throws(EV2Error) -> SDMPICCFields? {
    guard encrypted.count == SDMFrames.piccDataLength else {
      throw .invalidLength(field: "encrypted PICCData", expected: SDMFrames.piccDataLength, actual: encrypted.count)
    }
    return SDMFrames.parsePICCData(try decryptBlock(encrypted, key: metaReadKey))
  }

  /// SDMMAC = MACt(SesSDMFileReadMACKey; DynamicFileData[SDMMACInputOffset ..< SDMMACOffset]) (§9.3.8.1).
  @inlinable
  public static func mac(over macInput: [UInt8], sessionKeys: SDMSessionKeyPair) throws(EV2Error) -> [UInt8] {
    EV2Frames.truncate(try C.cmac(macInput, key: sessionKeys.mac))
  }

  /// SDMENCFileData: AES-CBC under SesSDMFileReadENCKey, IV = E(SesSDMFileReadENCKey;
  /// ``SDMFrames/fileDataIVInput(readCounter:)``), whole blocks, no padding (§9.3.6.1).
  ///
  /// - Throws: ``EV2Error/invalidLength(field:expected:actual:)`` when not whole 16-byte blocks.
  @inlinable
  public static func encryptFileData(_ plain: [UInt8], readCounter: UInt32,
                                     sessionKeys: SDMSessionKeyPair) throws(EV2Error) -> [UInt8] {
    try checkBlocks(plain)
    let iv = try C.encryptBlock(SDMFrames.fileDataIVInput(readCounter: readCounter), key: sessionKeys.encryption)
    return try C.cbcEncrypt(plain, key: sessionKeys.encryption, iv: iv)
  }

  /// SDMENCFileData decrypted (the inverse of ``encryptFileData(_:readCounter:sessionKeys:)``).
  ///
  /// - Throws: ``EV2Error/invalidLength(field:expected:actual:)`` when not whole 16-byte blocks.
  @inlinable
  public static func decryptFileData(_ encrypted: [UInt8], readCounter: UInt32,
                                     sessionKeys: SDMSessionKeyPair) throws(EV2Error) -> [UInt8] {
    try checkBlocks(encrypted)
    let iv = try C.encryptBlock(SDMFrames.fileDataIVInput(readCounter: readCounter), key: sessionKeys.encryption)
    return try C.cbcDecrypt(encrypted, key: sessionKeys.encryption, iv: iv)
  }

  /// SDMENCFileData is one or more whole blocks (§10.7.1, Table 69: SDMENCLength a multiple of 32 digits).
  @inlinable
  static func checkBlocks(_ data: [UInt8]) throws(EV2Error) {
    guard !data.isEmpty, data.count % EV2Frames.blockLength == 0 else {
      throw .invalidLength(field: "SDMENCFileData", expected: max(16, (data.count + 15) / 16 * 16), actual: data.count)
    }
  }
}
