/// The card's side of AuthenticateEV2First/NonFirst (AES), without I/O: the virtual NTAG 424 DNA's
/// and the virtual DESFire EV2/EV3's. The frames are ``EV2HostAuthentication``'s, seen from the card.
///
/// The card draws RndB, answers part 1 with ``encryptedRndB``, checks part 2's RndB' and answers
/// with ``answerFirst(_:transactionIdentifier:pdCap2:pcdCap2:)`` or ``answerNonFirst(_:continuing:)``.
public struct EV2CardAuthentication<Cipher: EV2Cipher>: Sendable, CustomStringConvertible, CustomReflectable {
  let key: [UInt8]
  /// The key number the host named.
  public let keyNumber: UInt8
  let rndB: [UInt8]
  /// Part 1's answer data: E(Kx, RndB), zero IV.
  public let encryptedRndB: [UInt8]

  /// "AuthenticateEV2 (card side) with key N": never the key or the challenge.
  public var description: String { "AuthenticateEV2 (card side) with key \(keyNumber)" }
  /// A mirror without the key or the challenge.
  public var customMirror: Mirror { Mirror(self, children: ["keyNumber": keyNumber]) }

  /// Part 1 on the card.
  ///
  /// - Parameters:
  ///   - key: the 16-byte AES key numbered `keyNumber`.
  ///   - rndB: the card's 16-byte challenge.
  /// - Throws: ``EV2Error/invalidLength(field:expected:actual:)``.
  public init(key: [UInt8], keyNumber: UInt8, rndB: [UInt8]) throws(EV2Error) {
    guard key.count == 16 else { throw .invalidLength(field: "AES key", expected: 16, actual: key.count) }
    guard rndB.count == 16 else { throw .invalidLength(field: "RndB", expected: 16, actual: rndB.count) }
    self.key = key
    self.keyNumber = keyNumber
    self.rndB = rndB
    self.encryptedRndB = try Cipher.cbcEncrypt(rndB, key: key, iv: EV2Frames.zeroIV)
  }

  /// Part 2 of AuthenticateEV2First: checks E(Kx, RndA || RndB'), answers E(Kx, TI || RndA' ||
  /// PDcap2 || PCDcap2) and starts a session with CmdCtr 0.
  ///
  /// - Throws: ``EV2Error/authenticationFailed`` when RndB' is wrong (the card answers `91 AE`),
  ///   ``EV2Error/invalidLength(field:expected:actual:)``.
  public func answerFirst(_ encrypted: some Collection<UInt8>, transactionIdentifier: [UInt8],
                          pdCap2: [UInt8] = [0, 0, 0, 0, 0, 0],
                          pcdCap2: [UInt8] = []) throws(EV2Error) -> (response: [UInt8], session: EV2CardSession<Cipher>) {
    guard transactionIdentifier.count == 4 else {
      throw .invalidLength(field: "TI", expected: 4, actual: transactionIdentifier.count)
    }
    let rndA = try checkedRndA(encrypted)
    let plain = transactionIdentifier + EV2Frames.rotateLeft(rndA) + Self.sixBytes(pdCap2) + Self.sixBytes(pcdCap2)
    let response = try Cipher.cbcEncrypt(plain, key: key, iv: EV2Frames.zeroIV)
    let keys = try EV2SessionKeys(Cipher.self, key: key, rndA: rndA, rndB: rndB)
    return (response, EV2CardSession(unchecked: transactionIdentifier, keys: keys, keyNumber: keyNumber, commandCounter: 0))
  }

  /// Part 2 of AuthenticateEV2NonFirst: answers E(Kx, RndA'); TI and CmdCtr carry on.
  ///
  /// - Throws: as ``answerFirst(_:transactionIdentifier:pdCap2:pcdCap2:)``.
  public func answerNonFirst(_ encrypted: some Collection<UInt8>,
                             continuing session: EV2CardSession<Cipher>) throws(EV2Error) -> (response: [UInt8], session: EV2CardSession<Cipher>) {
    let rndA = try checkedRndA(encrypted)
    let response = try Cipher.cbcEncrypt(EV2Frames.rotateLeft(rndA), key: key, iv: EV2Frames.zeroIV)
    let keys = try EV2SessionKeys(Cipher.self, key: key, rndA: rndA, rndB: rndB)
    return (response, EV2CardSession(unchecked: session.transactionIdentifier, keys: keys, keyNumber: keyNumber,
                                     commandCounter: session.commandCounter))
  }

  private func checkedRndA(_ encrypted: some Collection<UInt8>) throws(EV2Error) -> [UInt8] {
    guard encrypted.count == 32 else {
      throw .invalidLength(field: "E(Kx, RndA || RndB')", expected: 32, actual: encrypted.count)
    }
    let plain = try Cipher.cbcDecrypt(Array(encrypted), key: key, iv: EV2Frames.zeroIV)
    guard EV2Frames.macsMatch(Array(plain[16..<32]), EV2Frames.rotateLeft(rndB)[...]) else { throw .authenticationFailed }
    return Array(plain[0..<16])
  }

  private static func sixBytes(_ bytes: [UInt8]) -> [UInt8] {
    Array((bytes + [UInt8](repeating: 0, count: 6)).prefix(6))
  }
}
