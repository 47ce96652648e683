import EV2SecureMessaging

/// The card's (PICC's) side of AuthenticateEV2First and AuthenticateEV2NonFirst (AES), without I/O:
/// what a virtual 424 DNA computes. The host's side is ``EV2Authentication``. The shared
/// ``EV2CardAuthentication`` over swift-crypto does the work; this type keeps the 424 DNA's key
/// numbers (00h–04h), ``AESKey`` and ``NTAG424Error``.
///
/// Part 1 draws RndB and answers `E(Kx, RndB)` (``encryptedRndB``); part 2 decrypts
/// `E(Kx, RndA || RndB')`, checks RndB', and answers `E(Kx, TI || RndA' || PDcap2 || PCDcap2)`
/// (First) or `E(Kx, RndA')` (NonFirst), deriving the same SesAuthENCKey and SesAuthMACKey as the
/// host. NT4H2421Gx datasheet §9.1.5 (protocol), §9.1.7 (session keys), §10.4.1 and §10.4.2 (frames,
/// Tables 25–36); reproduced from the card's side against NXP AN12196 rev 2.0 §5.6 (key 0) and
/// §5.10 (key 3).
///
/// ```swift
/// let challenge = try PICCAuthentication(key: keys[0], keyNumber: 0, rndB: random(16))
/// send(challenge.encryptedRndB + [0x91, 0xAF])
/// let (answer, session) = try challenge.answerFirst(part2Data, transactionIdentifier: random(4))
/// send(answer + [0x91, 0x00])
/// ```
public struct PICCAuthentication: Sendable, CustomStringConvertible, CustomReflectable {
  /// The shared card side.
  let shared: EV2CardAuthentication<SwiftCryptoAES>

  /// The key number part 1 named, 00h–04h.
  public var keyNumber: UInt8 { shared.keyNumber }
  /// Part 1's answer data: `E(Kx, RndB)`, AES-CBC with a zero IV (16 bytes).
  public var encryptedRndB: [UInt8] { shared.encryptedRndB }

  /// "AuthenticateEV2 (card side) with key N": never the key or RndB.
  public var description: String { "AuthenticateEV2 (card side) with key \(keyNumber)" }

  /// A mirror without the key or the challenge.
  public var customMirror: Mirror { Mirror(self, children: ["keyNumber": keyNumber]) }

  /// Part 1: the card's challenge.
  ///
  /// - Parameters:
  ///   - key: the key numbered `keyNumber`, as the card holds it.
  ///   - keyNumber: 00h–04h.
  ///   - rndB: the card's 16-byte random challenge (a test passes a transcript's).
  /// - Throws: ``NTAG424Error/invalidKeyNumber(_:)``, ``NTAG424Error/invalidLength(field:expected:actual:)``.
  public init(key: AESKey, keyNumber: UInt8, rndB: [UInt8]) throws(NTAG424Error) {
    guard keyNumber <= 4 else { throw .invalidKeyNumber(keyNumber) }
    shared = try SwiftCryptoAES.mapped { () throws(EV2Error) in
      try EV2CardAuthentication(key: key.bytes, keyNumber: keyNumber, rndB: rndB)
    }
  }

  /// Part 2 of AuthenticateEV2First: checks the host's proof and answers with the new transaction.
  ///
  /// - Parameters:
  ///   - encrypted: part 2's data, `E(Kx, RndA || RndB')`, 32 bytes.
  ///   - transactionIdentifier: the new TI, 4 random bytes (a test passes a transcript's).
  ///   - pdCap2: the card's 6 capability bytes (all zero: EV2 secure messaging, no LRP).
  ///   - pcdCap2: the host's capabilities as part 1 carried them, echoed padded or cut to 6 bytes.
  /// - Returns: the 32-byte answer `E(Kx, TI || RndA' || PDcap2 || PCDcap2)` and the session,
  ///   with CmdCtr 0.
  /// - Throws: ``NTAG424Error/invalidLength(field:expected:actual:)`` (the card answers `91 7E`),
  ///   ``NTAG424Error/authenticationFailed`` when RndB' is not RndB rotated left (`91 AE`).
  public func answerFirst(_ encrypted: some Collection<UInt8>, transactionIdentifier: [UInt8],
                          pdCap2: [UInt8] = [0, 0, 0, 0, 0, 0],
                          pcdCap2: [UInt8] = []) throws(NTAG424Error) -> (response: [UInt8], session: PICCSession) {
    let answer = try SwiftCryptoAES.mapped { () throws(EV2Error) in
      try shared.answerFirst(encrypted, transactionIdentifier: transactionIdentifier, pdCap2: pdCap2, pcdCap2: pcdCap2)
    }
    return (answer.response, PICCSession(answer.session))
  }

  /// Part 2 of AuthenticateEV2NonFirst: checks the host's proof and continues `transaction`.
  ///
  /// The TI and CmdCtr of the transaction stay; the session keys are new (NT4H2421Gx datasheet
  /// §10.4.2: NonFirst "continues the transaction" and "starts a new session").
  ///
  /// - Returns: the 16-byte answer `E(Kx, RndA')` and the session.
  /// - Throws: as ``answerFirst(_:transactionIdentifier:pdCap2:pcdCap2:)``.
  public func answerNonFirst(_ encrypted: some Collection<UInt8>,
                             continuing transaction: PICCSession) throws(NTAG424Error) -> (response: [UInt8], session: PICCSession) {
    let answer = try SwiftCryptoAES.mapped { () throws(EV2Error) in
      try shared.answerNonFirst(encrypted, continuing: transaction.shared)
    }
    return (answer.response, PICCSession(answer.session))
  }
}
