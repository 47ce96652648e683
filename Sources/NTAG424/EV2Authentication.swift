/// The host side of AuthenticateEV2First (AES), as a two-step state machine without I/O.
///
/// The caller sends ``firstCommand(keyNumber:)``, hands the tag's answer to
/// ``init(key:keyNumber:encryptedRndB:rndA:)``, sends ``secondCommand`` and hands the second
/// answer to ``finish(response:)``, which checks RndA' and returns the session keys, TI and
/// capabilities. NT4H2421Gx datasheet §9.1.5 (protocol), §9.1.7 (session keys), §10.4.1 (frames);
/// reproduced against NXP AN12196 (rev 2.0) §5.6 (key 0) and §5.10 (key 3).
///
/// ```swift
/// let answer1 = try transmit(EV2Authentication.firstCommand(keyNumber: 0))     // … 91 AF
/// let auth = try EV2Authentication(key: key, keyNumber: 0, encryptedRndB: answer1.dropLast(2))
/// let answer2 = try transmit(auth.secondCommand)                               // … 91 00
/// let session = try auth.finish(response: answer2)
/// ```
public struct EV2Authentication: Sendable, CustomStringConvertible, CustomReflectable {
  /// The key authenticated with.
  let key: AESKey
  /// The key number authenticated with, 00h–04h.
  public let keyNumber: UInt8
  /// The host's challenge.
  let rndA: [UInt8]
  /// The tag's challenge, decrypted.
  let rndB: [UInt8]

  /// "AuthenticateEV2First with key N": never the key or the challenges, from which, with the key,
  /// the session keys follow.
  public var description: String { "AuthenticateEV2First with key \(keyNumber)" }

  /// A mirror without the key or the challenges, for `dump(_:)`.
  public var customMirror: Mirror { Mirror(self, children: ["keyNumber": keyNumber]) }

  /// AuthenticateEV2First part 1: `90 71 00 00 02 KeyNo 00 00` (LenCap 0: no PCDCap2).
  ///
  /// - Parameter keyNumber: the key to authenticate with, 00h–04h.
  /// - Throws: ``NTAG424Error/invalidKeyNumber(_:)`` for a number above 04h.
  public static func firstCommand(keyNumber: UInt8) throws(NTAG424Error) -> [UInt8] {
    guard keyNumber <= 4 else { throw .invalidKeyNumber(keyNumber) }
    return [0x90, 0x71, 0x00, 0x00, 0x02, keyNumber, 0x00, 0x00]
  }

  /// Takes the tag's answer to part 1 and prepares part 2.
  ///
  /// - Parameters:
  ///   - key: the key numbered `keyNumber`.
  ///   - keyNumber: the key the first command named.
  ///   - encryptedRndB: the answer's data, without its `91 AF`: E(Kx, RndB), 16 bytes.
  ///   - rndA: the host's 16-byte challenge; nil (the default) draws one from the system's
  ///     random source. Tests pass the transcript's.
  /// - Throws: ``NTAG424Error/invalidLength(field:expected:actual:)`` for a wrong length.
  public init(key: AESKey, keyNumber: UInt8, encryptedRndB: some Collection<UInt8>,
              rndA: [UInt8]? = nil) throws(NTAG424Error) {
    guard keyNumber <= 4 else { throw .invalidKeyNumber(keyNumber) }
    guard encryptedRndB.count == 16 else {
      throw .invalidLength(field: "E(Kx, RndB)", expected: 16, actual: encryptedRndB.count)
    }
    let challenge = rndA ?? (0..<16).map { _ in UInt8.random(in: .min ... .max) }
    guard challenge.count == 16 else { throw .invalidLength(field: "RndA", expected: 16, actual: challenge.count) }
    self.key = key
    self.keyNumber = keyNumber
    self.rndA = challenge
    self.rndB = try AESPrimitives.cbcDecrypt(Array(encryptedRndB), key: key, iv: Self.zeroIV)
  }

  /// AuthenticateEV2First part 2: `90 AF 00 00 20 E(Kx, RndA || RndB') 00`, RndB' being RndB
  /// rotated left by one byte (NT4H2421Gx datasheet §9.1.5).
  public var secondCommand: [UInt8] {
    get throws(NTAG424Error) {
      let encrypted = try AESPrimitives.cbcEncrypt(rndA + Self.rotateLeft(rndB), key: key, iv: Self.zeroIV)
      return [0x90, 0xAF, 0x00, 0x00, 0x20] + encrypted + [0x00]
    }
  }

  /// Checks the tag's answer to part 2 and derives the session.
  ///
  /// - Parameter response: the whole answer, status included: 32 bytes
  ///   E(Kx, TI || RndA' || PDcap2 || PCDcap2), then `91 00`.
  /// - Returns: a session with CmdCtr 0, the TI, the session keys and both capabilities.
  /// - Throws: ``NTAG424Error/status(command:sw1:sw2:)`` when the status is not `91 00`
  ///   (`91 AE`: wrong key), ``NTAG424Error/invalidLength(field:expected:actual:)``, and
  ///   ``NTAG424Error/authenticationFailed`` when RndA' is not RndA rotated left.
  public func finish(response: some Collection<UInt8>) throws(NTAG424Error) -> SecureMessagingSession {
    let bytes = Array(response)
    guard bytes.count >= 2 else { throw .invalidLength(field: "AuthenticateEV2First part 2 answer", expected: 34, actual: bytes.count) }
    let sw1 = bytes[bytes.count - 2], sw2 = bytes[bytes.count - 1]
    guard sw1 == 0x91, sw2 == 0x00 else { throw .status(command: 0xAF, sw1: sw1, sw2: sw2) }
    guard bytes.count == 34 else {
      throw .invalidLength(field: "AuthenticateEV2First part 2 answer", expected: 34, actual: bytes.count)
    }
    let plain = try AESPrimitives.cbcDecrypt(Array(bytes[0..<32]), key: key, iv: Self.zeroIV)
    guard AESPrimitives.macsMatch(Array(plain[4..<20]), Self.rotateLeft(rndA)) else { throw .authenticationFailed }
    let keys = try SessionKeys(key: key, rndA: rndA, rndB: rndB)
    return SecureMessagingSession(
      unchecked: Array(plain[0..<4]), keys: keys, keyNumber: keyNumber,
      capabilities: .init(pdCap2: Array(plain[20..<26]), pcdCap2: Array(plain[26..<32])))
  }

  /// The session vector SV1 (label A55Ah) or SV2 (5AA5h) of NT4H2421Gx datasheet §9.1.7:
  /// `label || 00 01 00 80 || RndA[15..14] || (RndA[13..8] XOR RndB[15..10]) || RndB[9..0] || RndA[7..0]`,
  /// the datasheet counting bytes from the least significant (RndA[15] is the first byte sent).
  static func sessionVector(label: (UInt8, UInt8), rndA: [UInt8], rndB: [UInt8]) -> [UInt8] {
    var sv: [UInt8] = [label.0, label.1, 0x00, 0x01, 0x00, 0x80]
    sv += rndA[0..<2]
    sv += (0..<6).map { rndA[2 + $0] ^ rndB[$0] }
    sv += rndB[6..<16]
    sv += rndA[8..<16]
    return sv
  }

  static let zeroIV = [UInt8](repeating: 0, count: 16)

  static func rotateLeft(_ bytes: [UInt8]) -> [UInt8] {
    guard let first = bytes.first else { return bytes }
    return Array(bytes.dropFirst()) + [first]
  }
}

/// The two keys of an AES secure-messaging session (NT4H2421Gx datasheet §9.1.7).
public struct SessionKeys: Sendable {
  /// SesAuthENCKey = CMAC(Kx, SV1): encrypts CommMode.Full data and derives its IVs.
  public let encryption: AESKey
  /// SesAuthMACKey = CMAC(Kx, SV2): computes the command and response MACs.
  public let mac: AESKey

  /// Session keys known from elsewhere (a test transcript, an earlier derivation).
  public init(encryption: AESKey, mac: AESKey) {
    self.encryption = encryption
    self.mac = mac
  }

  /// SesAuthENCKey and SesAuthMACKey from the authentication key and both challenges.
  init(key: AESKey, rndA: [UInt8], rndB: [UInt8]) throws(NTAG424Error) {
    let sv1 = EV2Authentication.sessionVector(label: (0xA5, 0x5A), rndA: rndA, rndB: rndB)
    let sv2 = EV2Authentication.sessionVector(label: (0x5A, 0xA5), rndA: rndA, rndB: rndB)
    encryption = AESKey(unchecked: try AESPrimitives.cmac(sv1, key: key))
    mac = AESKey(unchecked: try AESPrimitives.cmac(sv2, key: key))
  }
}

/// The capabilities exchanged in AuthenticateEV2First (NT4H2421Gx datasheet §9.1.5, §10.4.1).
public struct AuthenticationCapabilities: Hashable, Sendable {
  /// PDcap2: the tag's 6 capability bytes (bit 1 of PDcap2.1 set: LRP mode).
  public let pdCap2: [UInt8]
  /// PCDcap2 as the tag echoes it, truncated or padded with zeros to 6 bytes.
  public let pcdCap2: [UInt8]
}
