import EV2SecureMessaging

/// PICCData once decrypted: what a SUN message says about the tag that produced it.
///
/// NT4H2421Gx datasheet §9.3.4 (AES mode, §9.3.4.1): `E(SDMMetaReadKey; PICCDataTag [|| UID]
/// [|| SDMReadCtr] || RandomPadding)`, AES-CBC with a zero IV, one block. PICCDataTag (Table 21):
/// bit 7 UID mirrored, bit 6 SDMReadCtr mirrored, bits 5–4 RFU (zero), bits 3–0 the UID length (7).
public struct PICCData: Hashable, Sendable {
  /// The UID (7 bytes), when the tag mirrors it.
  public let uid: [UInt8]?
  /// SDMReadCtr, the tag's read counter (3 bytes, LSB first inside PICCData), when mirrored.
  public let readCounter: UInt32?

  /// Decrypts and parses PICCData.
  ///
  /// - Parameters:
  ///   - encrypted: the 16 bytes of encrypted PICCData (the URL carries them as 32 hex digits).
  ///   - metaReadKey: the key the file's SDMMetaRead access right names.
  /// - Throws: ``NTAG424Error/invalidLength(field:expected:actual:)`` when not 16 bytes;
  ///   ``NTAG424Error/invalidPICCData`` when the plaintext is not a valid PICCData, which is what a
  ///   wrong key produces (a random tag byte passes Table 21 with probability 3/256, so about one
  ///   wrong key in 85 gets past this check; the SDMMAC catches those).
  public init(decrypting encrypted: some Collection<UInt8>, metaReadKey: AESKey) throws(NTAG424Error) {
    guard encrypted.count == 16 else {
      throw .invalidLength(field: "encrypted PICCData", expected: 16, actual: encrypted.count)
    }
    // One block with a zero IV: CBC is the block decryption itself. The layout is the shared one
    // (EV2SecureMessaging's SDMFrames); swift-crypto's single-block decryption stays the fast path.
    let plain = try SwiftCryptoAES.decryptBlock(Array(encrypted), key: metaReadKey)
    guard let fields = SDMFrames.parsePICCData(plain) else { throw .invalidPICCData }
    uid = fields.uid
    readCounter = fields.readCounter
  }
}

/// SesSDMFileReadENCKey and SesSDMFileReadMACKey for one read (NT4H2421Gx datasheet §9.3.9.1).
///
/// `SV1 = C3 3C 00 01 00 80 || UID || SDMReadCtr` and `SV2 = 3C C3 00 01 00 80 [|| UID] [|| SDMReadCtr]`,
/// zero-padded to a multiple of 16 bytes, the counter LSB first; each key is the CMAC of its vector
/// under the SDMFileRead key. Reproduced against NXP AN12196 rev 2.0 §3.3, Table 1.
public struct SDMSessionKeys: Sendable {
  /// SesSDMFileReadENCKey: decrypts SDMENCFileData.
  public let encryption: AESKey
  /// SesSDMFileReadMACKey: computes the SDMMAC.
  public let mac: AESKey

  /// Derives both keys.
  ///
  /// - Parameters:
  ///   - fileReadKey: the key the file's SDMFileRead access right names.
  ///   - uid: the tag's 7-byte UID, nil when not mirrored.
  ///   - readCounter: SDMReadCtr (below 2^24), nil when not mirrored.
  /// - Throws: ``NTAG424Error/invalidLength(field:expected:actual:)`` for a UID that is not 7 bytes
  ///   or a counter above FFFFFFh.
  public init(fileReadKey: AESKey, uid: [UInt8]?, readCounter: UInt32?) throws(NTAG424Error) {
    // The vectors are the shared layout (SDMFrames, which checks the UID and counter); the two
    // CMACs share one key schedule here, the verifier's fast path.
    let vectors = try SwiftCryptoAES.mapped { () throws(EV2Error) in
      try SDMFrames.sessionVectors(uid: uid, readCounter: readCounter)
    }
    let (sv1, sv2) = try SwiftCryptoAES.cmac(vectors.encryption, vectors.mac, key: fileReadKey)
    encryption = AESKey(unchecked: sv1)
    mac = AESKey(unchecked: sv2)
  }

  /// Both keys as the shared module's ``SDMSessionKeyPair``.
  var pair: SDMSessionKeyPair { SDMSessionKeyPair(encryption: encryption.bytes, mac: mac.bytes) }
}

/// What a verified SUN message holds.
public struct SUNMessage: Hashable, Sendable {
  /// The tag's UID, when mirrored.
  public let uid: [UInt8]?
  /// SDMReadCtr, when mirrored: compare it with the last one accepted for this UID to refuse replays.
  public let readCounter: UInt32?
  /// SDMENCFileData decrypted, when the message carried some.
  public let fileData: [UInt8]?
}

/// Verification of Secure Dynamic Messaging for reading ("SUN"), NT4H2421Gx datasheet §9.3.
public enum SecureDynamicMessaging {
  /// Verifies a SUN message with encrypted PICCData and returns what it says.
  ///
  /// Order: PICCData is decrypted with the SDMMetaRead key, the session keys derived from its UID
  /// and counter with the SDMFileRead key, the SDMMAC checked over `macInput` (constant time), and
  /// only then SDMENCFileData decrypted. NT4H2421Gx datasheet §9.3.4, §9.3.6, §9.3.8, §9.3.9.
  ///
  /// - Parameters:
  ///   - encryptedPICCData: the 16 bytes of encrypted PICCData.
  ///   - sdmMAC: the 8-byte SDMMAC.
  ///   - macInput: the bytes the tag MACed, DynamicFileData[SDMMACInputOffset ..< SDMMACOffset]
  ///     as read (ASCII, placeholders filled); empty when the two offsets are equal.
  ///   - encryptedFileData: SDMENCFileData's ciphertext (hex-decoded), nil when there is none.
  ///   - metaReadKey: the SDMMetaRead key.
  ///   - fileReadKey: the SDMFileRead key.
  /// - Throws: ``NTAG424Error/invalidPICCData``, ``NTAG424Error/sdmMACMismatch``,
  ///   ``NTAG424Error/invalidLength(field:expected:actual:)``.
  public static func verify(encryptedPICCData: [UInt8], sdmMAC: [UInt8], macInput: [UInt8] = [],
                            encryptedFileData: [UInt8]? = nil, metaReadKey: AESKey,
                            fileReadKey: AESKey) throws(NTAG424Error) -> SUNMessage {
    let picc = try PICCData(decrypting: encryptedPICCData, metaReadKey: metaReadKey)
    let keys = try SDMSessionKeys(fileReadKey: fileReadKey, uid: picc.uid, readCounter: picc.readCounter)
    try checkMAC(sdmMAC, over: macInput, sessionKeys: keys)
    var fileData: [UInt8]?
    if let encryptedFileData {
      guard let counter = picc.readCounter, picc.uid != nil else { throw .invalidPICCData }
      fileData = try decryptFileData(encryptedFileData, readCounter: counter, sessionKeys: keys)
    }
    return SUNMessage(uid: picc.uid, readCounter: picc.readCounter, fileData: fileData)
  }

  /// SDMMAC = MACt(SesSDMFileReadMACKey; DynamicFileData[SDMMACInputOffset ... SDMMACOffset - 1])
  /// (NT4H2421Gx datasheet §9.3.8.1).
  public static func mac(over macInput: [UInt8], sessionKeys: SDMSessionKeys) throws(NTAG424Error) -> [UInt8] {
    try SwiftCryptoAES.mapped { () throws(EV2Error) in try SDM.mac(over: macInput, sessionKeys: sessionKeys.pair) }
  }

  /// Checks an SDMMAC in constant time.
  ///
  /// - Throws: ``NTAG424Error/sdmMACMismatch``; ``NTAG424Error/invalidLength(field:expected:actual:)``
  ///   when `sdmMAC` is not 8 bytes.
  public static func checkMAC(_ sdmMAC: [UInt8], over macInput: [UInt8],
                              sessionKeys: SDMSessionKeys) throws(NTAG424Error) {
    guard sdmMAC.count == 8 else { throw .invalidLength(field: "SDMMAC", expected: 8, actual: sdmMAC.count) }
    guard SwiftCryptoAES.macsMatch(try mac(over: macInput, sessionKeys: sessionKeys), sdmMAC) else {
      throw .sdmMACMismatch
    }
  }

  /// Decrypts SDMENCFileData: AES-CBC with SesSDMFileReadENCKey, IV =
  /// E(SesSDMFileReadENCKey; SDMReadCtr (LSB first) || 00…), no padding (NT4H2421Gx datasheet §9.3.6.1).
  ///
  /// - Throws: ``NTAG424Error/invalidLength(field:expected:actual:)`` when not whole 16-byte blocks.
  public static func decryptFileData(_ encrypted: [UInt8], readCounter: UInt32,
                                     sessionKeys: SDMSessionKeys) throws(NTAG424Error) -> [UInt8] {
    try SwiftCryptoAES.mapped { () throws(EV2Error) in
      try SDM.decryptFileData(encrypted, readCounter: readCounter, sessionKeys: sessionKeys.pair)
    }
  }

  /// The shared SDM formulas over swift-crypto (EV2SecureMessaging's ``SDMCrypto``).
  typealias SDM = SDMCrypto<SwiftCryptoAES>

  /// A 3-byte counter, least significant byte first.
  static func counterBytes(_ counter: UInt32) -> [UInt8] { SDMFrames.counterBytes(counter) }
}
