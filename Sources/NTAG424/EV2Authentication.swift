import EV2SecureMessaging

/// The host side of AuthenticateEV2First (AES), as a two-step state machine without I/O: the
/// shared ``EV2HostAuthentication`` over swift-crypto (``SwiftCryptoAES``), with the 424 DNA's key
/// numbers (00h–04h), ``AESKey`` and ``NTAG424Error``.
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
  /// The shared state machine.
  let shared: EV2HostAuthentication<SwiftCryptoAES>

  /// The key number authenticated with, 00h–04h.
  public var keyNumber: UInt8 { shared.keyNumber }
  /// The host's challenge.
  var rndA: [UInt8] { shared.hostChallenge }
  /// The tag's challenge, decrypted.
  var rndB: [UInt8] { shared.cardChallenge }

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
    return EV2HostAuthentication<SwiftCryptoAES>.firstCommand(keyNumber: keyNumber)
  }

  /// Takes the tag's answer to part 1 and prepares part 2.
  ///
  /// - Parameters:
  ///   - key: the key numbered `keyNumber`.
  ///   - keyNumber: the key the first command named.
  ///   - encryptedRndB: the answer's data, without its `91 AF`: E(Kx, RndB), 16 bytes.
  ///   - rndA: the host's 16-byte challenge; nil (the default) draws one from the system's
  ///     random source. Tests pass the transcript's.
  /// - Throws: ``NTAG424Error/invalidKeyNumber(_:)``, ``NTAG424Error/invalidLength(field:expected:actual:)``.
  public init(key: AESKey, keyNumber: UInt8, encryptedRndB: some Collection<UInt8>,
              rndA: [UInt8]? = nil) throws(NTAG424Error) {
    try self.init(key: key, keyNumber: keyNumber, nonFirst: false, encryptedRndB: encryptedRndB, rndA: rndA)
  }

  /// Part 1's answer taken for AuthenticateEV2First or (`nonFirst`) AuthenticateEV2NonFirst.
  init(key: AESKey, keyNumber: UInt8, nonFirst: Bool, encryptedRndB: some Collection<UInt8>,
       rndA: [UInt8]?) throws(NTAG424Error) {
    guard keyNumber <= 4 else { throw .invalidKeyNumber(keyNumber) }
    shared = try SwiftCryptoAES.mapped { () throws(EV2Error) in
      try EV2HostAuthentication(key: key.bytes, keyNumber: keyNumber, nonFirst: nonFirst, encryptedRndB: encryptedRndB, rndA: rndA)
    }
  }

  /// AuthenticateEV2First part 2: `90 AF 00 00 20 E(Kx, RndA || RndB') 00`, RndB' being RndB
  /// rotated left by one byte (NT4H2421Gx datasheet §9.1.5).
  public var secondCommand: [UInt8] {
    get throws(NTAG424Error) {
      try SwiftCryptoAES.mapped { () throws(EV2Error) in try shared.secondCommand() }
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
    SecureMessagingSession(try SwiftCryptoAES.mapped { () throws(EV2Error) in try shared.finish(response: response) })
  }

  /// The session vector SV1 (label A55Ah) or SV2 (5AA5h) of NT4H2421Gx datasheet §9.1.7
  /// (``EV2Frames/sessionVector(label:rndA:rndB:)``).
  static func sessionVector(label: (UInt8, UInt8), rndA: [UInt8], rndB: [UInt8]) -> [UInt8] {
    EV2Frames.sessionVector(label: label, rndA: rndA, rndB: rndB)
  }

  /// The zero IV of the authentication cryptograms and of SDM's PICCData (``EV2Frames/zeroIV``).
  static let zeroIV = EV2Frames.zeroIV

  /// A challenge rotated left by one byte (``EV2Frames/rotateLeft(_:)``).
  static func rotateLeft(_ bytes: [UInt8]) -> [UInt8] { EV2Frames.rotateLeft(bytes) }
}

/// The two keys of an AES secure-messaging session (NT4H2421Gx datasheet §9.1.7), as
/// ``AESKey``s: the shared ``EV2SessionKeys`` in the 424 DNA's key type.
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

  /// SesAuthENCKey and SesAuthMACKey from the authentication key and both challenges
  /// (``EV2SessionKeys/init(_:key:rndA:rndB:)``).
  init(key: AESKey, rndA: [UInt8], rndB: [UInt8]) throws(NTAG424Error) {
    self.init(try SwiftCryptoAES.mapped { () throws(EV2Error) in
      try EV2SessionKeys(SwiftCryptoAES.self, key: key.bytes, rndA: rndA, rndB: rndB)
    })
  }

  /// The shared module's keys, both 16 bytes.
  init(_ shared: EV2SessionKeys) {
    self.init(encryption: AESKey(unchecked: shared.encryption), mac: AESKey(unchecked: shared.mac))
  }

  /// The keys as the shared module takes them.
  var shared: EV2SessionKeys {
    get throws(NTAG424Error) {
      try SwiftCryptoAES.mapped { () throws(EV2Error) in try EV2SessionKeys(encryption: encryption.bytes, mac: mac.bytes) }
    }
  }
}
