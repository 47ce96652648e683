import EV2SecureMessaging

/// The host side of AuthenticateEV2NonFirst (AES): a new key inside a running session, without I/O.
///
/// The same two steps as ``EV2Authentication`` (command code 77h instead of 71h, no capabilities),
/// but the tag's second answer is only E(Kx, RndA'), and the session that follows keeps the
/// transaction identifier and the command counter of the one it continues: only the session keys
/// are derived anew, from the new key and both new challenges (NT4H2421Gx datasheet §9.1.6,
/// "AuthenticateEV2NonFirst", §9.1.7 for the keys, §10.4.2 for the frames). The shared
/// ``EV2HostAuthentication`` does the work; this type keeps the 424 DNA's key numbers and errors.
///
/// ```swift
/// let answer1 = try transmit(EV2NonFirstAuthentication.firstCommand(keyNumber: 2))   // … 91 AF
/// let auth = try EV2NonFirstAuthentication(key: key2, keyNumber: 2, encryptedRndB: answer1.dropLast(2))
/// session = try auth.finish(response: try transmit(auth.secondCommand), continuing: session)
/// ```
public struct EV2NonFirstAuthentication: Sendable, CustomStringConvertible, CustomReflectable {
  /// The authentication, as AuthenticateEV2NonFirst.
  let authentication: EV2Authentication

  /// The key number authenticated with, 00h–04h.
  public var keyNumber: UInt8 { authentication.keyNumber }
  /// The host's challenge.
  var rndA: [UInt8] { authentication.rndA }
  /// The tag's challenge, decrypted.
  var rndB: [UInt8] { authentication.rndB }

  /// "AuthenticateEV2NonFirst with key N": never the key or the challenges.
  public var description: String { "AuthenticateEV2NonFirst with key \(keyNumber)" }

  /// A mirror without the key or the challenges, for `dump(_:)`.
  public var customMirror: Mirror { Mirror(self, children: ["keyNumber": keyNumber]) }

  /// AuthenticateEV2NonFirst part 1: `90 77 00 00 01 KeyNo 00` (NT4H2421Gx datasheet §10.4.2).
  ///
  /// - Parameter keyNumber: the key to authenticate with, 00h–04h.
  /// - Throws: ``NTAG424Error/invalidKeyNumber(_:)`` for a number above 04h.
  public static func firstCommand(keyNumber: UInt8) throws(NTAG424Error) -> [UInt8] {
    guard keyNumber <= 4 else { throw .invalidKeyNumber(keyNumber) }
    return EV2HostAuthentication<SwiftCryptoAES>.firstCommand(keyNumber: keyNumber, nonFirst: true)
  }

  /// Takes the tag's answer to part 1 and prepares part 2.
  ///
  /// - Parameters:
  ///   - key: the key numbered `keyNumber`.
  ///   - keyNumber: the key the first command named.
  ///   - encryptedRndB: the answer's data, without its `91 AF`: E(Kx, RndB), 16 bytes.
  ///   - rndA: the host's 16-byte challenge; nil draws one from the system's random source.
  /// - Throws: ``NTAG424Error/invalidLength(field:expected:actual:)``, ``NTAG424Error/invalidKeyNumber(_:)``.
  public init(key: AESKey, keyNumber: UInt8, encryptedRndB: some Collection<UInt8>,
              rndA: [UInt8]? = nil) throws(NTAG424Error) {
    authentication = try EV2Authentication(key: key, keyNumber: keyNumber, nonFirst: true, encryptedRndB: encryptedRndB, rndA: rndA)
  }

  /// AuthenticateEV2NonFirst part 2: `90 AF 00 00 20 E(Kx, RndA || RndB') 00`, as for
  /// AuthenticateEV2First (NT4H2421Gx datasheet §9.1.6).
  public var secondCommand: [UInt8] {
    get throws(NTAG424Error) { try authentication.secondCommand }
  }

  /// Checks the tag's answer to part 2 and derives the continued session.
  ///
  /// - Parameters:
  ///   - response: the whole answer: 16 bytes E(Kx, RndA'), then `91 00`.
  ///   - session: the session this authentication continues: its TI and CmdCtr are kept.
  /// - Returns: the session with the new keys and key number, TI and CmdCtr unchanged.
  /// - Throws: ``NTAG424Error/sessionEnded`` when `session` has ended (the tag is no longer
  ///   authenticated: AuthenticateEV2First is needed), ``NTAG424Error/status(command:sw1:sw2:)``,
  ///   ``NTAG424Error/invalidLength(field:expected:actual:)``, ``NTAG424Error/authenticationFailed``.
  public func finish(response: some Collection<UInt8>,
                     continuing session: SecureMessagingSession) throws(NTAG424Error) -> SecureMessagingSession {
    SecureMessagingSession(try SwiftCryptoAES.mapped { () throws(EV2Error) in
      try authentication.shared.finish(response: response, continuing: session.shared)
    })
  }
}
