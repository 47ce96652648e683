/// The host side of AuthenticateEV2First and AuthenticateEV2NonFirst (AES), without I/O, for any
/// card of the scheme: NT4H2421Gx datasheet §9.1.5–§9.1.7 (NTAG 424 DNA), MF2DLHX0 §9.2 (DESFire
/// Light) and the DESFire EV2/EV3, whose frames are the same (NXP AN12343 §7.1).
///
/// Part 1 is `90 71 00 00 02 KeyNo 00 00` (First, LenCap 0) or `90 77 00 00 01 KeyNo 00`
/// (NonFirst); the card answers E(Kx, RndB) and `91 AF`. Part 2 is `90 AF 00 00 20 E(Kx, RndA ||
/// RndB') 00`; the card answers E(Kx, TI || RndA' || PDcap2 || PCDcap2) (First) or E(Kx, RndA')
/// (NonFirst) and `91 00`. Every cryptogram is AES-CBC with a zero IV.
public struct EV2HostAuthentication<Cipher: EV2Cipher>: Sendable, CustomStringConvertible, CustomReflectable {
  /// The key authenticated with.
  let key: [UInt8]
  /// The key number authenticated with.
  public let keyNumber: UInt8
  /// Whether this is AuthenticateEV2NonFirst (TI and CmdCtr kept).
  public let isNonFirst: Bool
  let rndA: [UInt8]
  let rndB: [UInt8]

  /// "AuthenticateEV2First with key N": never the key or the challenges.
  public var description: String { "AuthenticateEV2\(isNonFirst ? "NonFirst" : "First") with key \(keyNumber)" }
  /// A mirror without the key or the challenges.
  public var customMirror: Mirror { Mirror(self, children: ["keyNumber": keyNumber, "isNonFirst": isNonFirst]) }

  /// Part 1's command.
  public static func firstCommand(keyNumber: UInt8, nonFirst: Bool = false) -> [UInt8] {
    nonFirst ? [0x90, 0x77, 0x00, 0x00, 0x01, keyNumber, 0x00] : [0x90, 0x71, 0x00, 0x00, 0x02, keyNumber, 0x00, 0x00]
  }

  /// Takes the card's answer to part 1 and prepares part 2.
  ///
  /// - Parameters:
  ///   - key: the 16-byte AES key numbered `keyNumber`.
  ///   - encryptedRndB: the answer's data without its status: E(Kx, RndB), 16 bytes.
  ///   - rndA: the host's challenge; nil draws 16 bytes from the system's random source.
  /// - Throws: ``EV2Error/invalidLength(field:expected:actual:)``.
  public init(key: [UInt8], keyNumber: UInt8, nonFirst: Bool = false, encryptedRndB: some Collection<UInt8>,
              rndA: [UInt8]? = nil) throws(EV2Error) {
    guard key.count == 16 else { throw .invalidLength(field: "AES key", expected: 16, actual: key.count) }
    guard encryptedRndB.count == 16 else {
      throw .invalidLength(field: "E(Kx, RndB)", expected: 16, actual: encryptedRndB.count)
    }
    let challenge = rndA ?? (0..<16).map { _ in UInt8.random(in: .min ... .max) }
    guard challenge.count == 16 else { throw .invalidLength(field: "RndA", expected: 16, actual: challenge.count) }
    self.key = key
    self.keyNumber = keyNumber
    self.isNonFirst = nonFirst
    self.rndA = challenge
    self.rndB = try Cipher.cbcDecrypt(Array(encryptedRndB), key: key, iv: EV2Frames.zeroIV)
  }

  /// Part 2's command: `90 AF 00 00 20 E(Kx, RndA || RndB') 00`.
  public func secondCommand() throws(EV2Error) -> [UInt8] {
    let encrypted = try Cipher.cbcEncrypt(rndA + EV2Frames.rotateLeft(rndB), key: key, iv: EV2Frames.zeroIV)
    return [0x90, 0xAF, 0x00, 0x00, 0x20] + encrypted + [0x00]
  }

  /// Checks the answer to part 2 of AuthenticateEV2First and starts a session with CmdCtr 0.
  ///
  /// - Parameter response: the whole answer, `91 00` included (34 bytes).
  /// - Throws: ``EV2Error/status(command:sw1:sw2:)`` (`91 AE`: wrong key),
  ///   ``EV2Error/invalidLength(field:expected:actual:)``, ``EV2Error/authenticationFailed``.
  public func finish(response: some Collection<UInt8>) throws(EV2Error) -> EV2HostSession<Cipher> {
    let plain = try checkedAnswer(Array(response), length: 32)
    guard EV2Frames.macsMatch(Array(plain[4..<20]), EV2Frames.rotateLeft(rndA)[...]) else { throw .authenticationFailed }
    return EV2HostSession(
      unchecked: Array(plain[0..<4]), keys: try EV2SessionKeys(Cipher.self, key: key, rndA: rndA, rndB: rndB),
      keyNumber: keyNumber, capabilities: .init(pdCap2: Array(plain[20..<26]), pcdCap2: Array(plain[26..<32])))
  }

  /// Checks the answer to part 2 of AuthenticateEV2NonFirst: new session keys, the same TI and CmdCtr.
  ///
  /// - Throws: as ``finish(response:)``, and ``EV2Error/sessionEnded`` for an ended session.
  public func finish(response: some Collection<UInt8>,
                     continuing session: EV2HostSession<Cipher>) throws(EV2Error) -> EV2HostSession<Cipher> {
    guard !session.hasEnded else { throw .sessionEnded }
    let plain = try checkedAnswer(Array(response), length: 16)
    guard EV2Frames.macsMatch(plain, EV2Frames.rotateLeft(rndA)[...]) else { throw .authenticationFailed }
    return EV2HostSession(
      unchecked: session.transactionIdentifier, keys: try EV2SessionKeys(Cipher.self, key: key, rndA: rndA, rndB: rndB),
      keyNumber: keyNumber, capabilities: session.capabilities, commandCounter: session.commandCounter)
  }

  private func checkedAnswer(_ bytes: [UInt8], length: Int) throws(EV2Error) -> [UInt8] {
    let field = "AuthenticateEV2\(isNonFirst ? "NonFirst" : "First") part 2 answer"
    guard bytes.count >= 2 else { throw .invalidLength(field: field, expected: length + 2, actual: bytes.count) }
    let sw1 = bytes[bytes.count - 2], sw2 = bytes[bytes.count - 1]
    guard sw1 == 0x91, sw2 == 0x00 else { throw .status(command: 0xAF, sw1: sw1, sw2: sw2) }
    guard bytes.count == length + 2 else { throw .invalidLength(field: field, expected: length + 2, actual: bytes.count) }
    return try Cipher.cbcDecrypt(Array(bytes[0..<length]), key: key, iv: EV2Frames.zeroIV)
  }
}
