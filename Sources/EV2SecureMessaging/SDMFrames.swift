/// The byte layouts of Secure Dynamic Messaging for reading ("SUN"), without cryptography, as the
/// NTAG 424 DNA and the MIFARE DESFire EV3 share them (NT4H2421Gx datasheet §9.3; NXP's EV3
/// material calls its SDM "compatible and already known from NTAG 424 DNA"): the session vectors
/// of §9.3.9.1, PICCData's plaintext (§9.3.4, Table 21) and SDMENCFileData's IV input (§9.3.6.1).
/// ``SDMCrypto`` runs them through an ``EV2Cipher``.
public enum SDMFrames {
  /// PICCData's length: one AES block.
  public static let piccDataLength = 16
  /// The UID length SDM mirrors (7 bytes).
  public static let uidLength = 7
  /// The largest SDMReadCtr (3 bytes).
  public static let maximumReadCounter: UInt32 = 0xFF_FFFF

  /// SDMReadCtr as 3 bytes, least significant first (§9.3.4, §9.3.9.1).
  @inlinable
  public static func counterBytes(_ counter: UInt32) -> [UInt8] {
    [UInt8(truncatingIfNeeded: counter), UInt8(truncatingIfNeeded: counter >> 8), UInt8(truncatingIfNeeded: counter >> 16)]
  }

  /// Checks a mirrored UID (7 bytes) and counter (below 2^24).
  ///
  /// - Throws: ``EV2Error/invalidLength(field:expected:actual:)`` naming "UID" or "SDMReadCtr".
  @inlinable
  public static func check(uid: [UInt8]?, readCounter: UInt32?) throws(EV2Error) {
    if let uid, uid.count != uidLength { throw .invalidLength(field: "UID", expected: uidLength, actual: uid.count) }
    if let readCounter, readCounter > maximumReadCounter { throw .invalidLength(field: "SDMReadCtr", expected: 3, actual: 4) }
  }

  /// SV1 (for SesSDMFileReadENCKey) and SV2 (for SesSDMFileReadMACKey), §9.3.9.1:
  /// `C3 3C 00 01 00 80 [|| UID] [|| SDMReadCtr]` and `3C C3 00 01 00 80 [|| UID] [|| SDMReadCtr]`,
  /// each zero-padded to a multiple of 16 bytes.
  ///
  /// - Throws: ``EV2Error/invalidLength(field:expected:actual:)`` as ``check(uid:readCounter:)``.
  @inlinable
  public static func sessionVectors(uid: [UInt8]?, readCounter: UInt32?) throws(EV2Error) -> (encryption: [UInt8], mac: [UInt8]) {
    try check(uid: uid, readCounter: readCounter)
    var context = uid ?? []
    if let readCounter { context += counterBytes(readCounter) }
    var sv1: [UInt8] = [0xC3, 0x3C, 0x00, 0x01, 0x00, 0x80]
    sv1 += context
    while sv1.count % EV2Frames.blockLength != 0 { sv1.append(0) }
    var sv2 = sv1
    sv2[0] = 0x3C
    sv2[1] = 0xC3
    return (sv1, sv2)
  }

  /// The input of SDMENCFileData's IV: `SDMReadCtr (LSB first) || 00×13`, encrypted under
  /// SesSDMFileReadENCKey (§9.3.6.1).
  @inlinable
  public static func fileDataIVInput(readCounter: UInt32) -> [UInt8] {
    counterBytes(readCounter) + [UInt8](repeating: 0, count: 13)
  }

  /// PICCData's plaintext: `PICCDataTag [|| UID] [|| SDMReadCtr] || RandomPadding` (§9.3.4, Table
  /// 21: bit 7 UID mirrored, bit 6 SDMReadCtr mirrored, bits 3–0 the UID length).
  ///
  /// - Parameter padding: at least as many random bytes as the block has room for (only those are used).
  /// - Throws: ``EV2Error/invalidLength(field:expected:actual:)`` for a bad UID or counter, or too
  ///   little padding.
  @inlinable
  public static func piccDataPlaintext(uid: [UInt8]?, readCounter: UInt32?, padding: [UInt8]) throws(EV2Error) -> [UInt8] {
    try check(uid: uid, readCounter: readCounter)
    var tag: UInt8 = 0
    var plain: [UInt8] = [0]
    if let uid {
      tag |= 0x80 | UInt8(uid.count)
      plain += uid
    }
    if let readCounter {
      tag |= 0x40
      plain += counterBytes(readCounter)
    }
    plain[0] = tag
    let room = piccDataLength - plain.count
    guard padding.count >= room else { throw .invalidLength(field: "RandomPadding", expected: room, actual: padding.count) }
    return plain + padding.prefix(room)
  }

  /// Parses decrypted PICCData; nil when it is not valid PICCData (what a wrong key gives: a
  /// random tag byte passes Table 21 with probability 3/256, the SDMMAC catches those).
  @inlinable
  public static func parsePICCData(_ plain: [UInt8]) -> SDMPICCFields? {
    guard plain.count == piccDataLength, let tag = plain.first else { return nil }
    let uidMirrored = tag & 0x80 != 0, counterMirrored = tag & 0x40 != 0
    let length = Int(tag & 0x0F)
    guard tag & 0x30 == 0, uidMirrored || counterMirrored,
          uidMirrored ? length == uidLength : length == 0 else { return nil }
    // 1 + 7 + 3 ≤ 16: every index below is inside the checked 16 bytes.
    var offset = 1
    var uid: [UInt8]?
    if uidMirrored {
      uid = Array(plain[offset..<(offset + length)])
      offset += length
    }
    let counter = counterMirrored
      ? UInt32(plain[offset]) | UInt32(plain[offset + 1]) << 8 | UInt32(plain[offset + 2]) << 16 : nil
    return SDMPICCFields(uid: uid, readCounter: counter)
  }

  /// Upper-case hex digits as ASCII bytes: how SDM mirrors in ASCII encoding (SDMOptions bit 0).
  @inlinable
  public static func hexDigits(_ bytes: [UInt8]) -> [UInt8] {
    let digits: [UInt8] = Array("0123456789ABCDEF".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count * 2)
    for byte in bytes {
      out.append(digits[Int(byte >> 4)])
      out.append(digits[Int(byte & 0x0F)])
    }
    return out
  }
}

/// What PICCData holds once decrypted.
public struct SDMPICCFields: Hashable, Sendable {
  /// The 7-byte UID, when mirrored.
  public let uid: [UInt8]?
  /// SDMReadCtr, when mirrored.
  public let readCounter: UInt32?

  /// The fields as parsed.
  @inlinable
  public init(uid: [UInt8]?, readCounter: UInt32?) {
    self.uid = uid
    self.readCounter = readCounter
  }
}

/// SesSDMFileReadENCKey and SesSDMFileReadMACKey of one read (§9.3.9.1). Their description and
/// mirror never show the bytes.
public struct SDMSessionKeyPair: Sendable, CustomStringConvertible, CustomReflectable {
  /// SesSDMFileReadENCKey: SDMENCFileData's key.
  public let encryption: [UInt8]
  /// SesSDMFileReadMACKey: the SDMMAC's key.
  public let mac: [UInt8]

  /// Keys derived elsewhere (16 bytes each; the ciphers check lengths).
  @inlinable
  public init(encryption: [UInt8], mac: [UInt8]) {
    self.encryption = encryption
    self.mac = mac
  }

  /// "SDM session keys", never the bytes.
  public var description: String { "SDM session keys" }
  /// A mirror without children.
  public var customMirror: Mirror { Mirror(self, children: [:]) }
}
