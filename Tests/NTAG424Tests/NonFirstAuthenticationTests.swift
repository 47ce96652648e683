import Testing
@testable import NTAG424

/// AuthenticateEV2NonFirst. NXP publishes no NonFirst transcript; the frames are AuthenticateEV2First's
/// but for the code (77h) and the answer (E(Kx, RndA') only), and the session keys are derived the
/// same way (NT4H2421Gx datasheet §9.1.6, §9.1.7). So with AN12196 §5.10's key 3 challenges the
/// keys must be §5.10's, while TI and CmdCtr stay the running session's.
@Suite struct NonFirstAuthenticationTests {
  static let rndA = bytes("B98F4C50CF1C2E084FD150E33992B048")
  static let rndB = bytes("91517975190DCEA6104948EFA3085C1B")

  func runningSession() throws -> SecureMessagingSession {
    try SecureMessagingSession(
      transactionIdentifier: bytes("9D00C4DF"),
      keys: SessionKeys(encryption: key("1309C877509E5A215007FF0ED19CA564"), mac: key("4C6626F5E72EA694202139295C7A7FC7")),
      keyNumber: 0, commandCounter: 5)
  }

  @Test func keepsTIAndCounterAndDerivesNewKeys() throws {
    #expect(try EV2NonFirstAuthentication.firstCommand(keyNumber: 3) == bytes("90 77 00 00 01 03 00"))
    let auth = try EV2NonFirstAuthentication(key: .factory, keyNumber: 3,
                                             encryptedRndB: bytes("B875CEB0E66A6C5CD00898DC371F92D1"), rndA: Self.rndA)
    #expect(auth.rndB == Self.rndB)
    #expect(try auth.secondCommand == bytes(
      "90AF000020 FF0306E47DFBC50087C4D8A78E88E62DE1E8BE457AA477C707E2F0874916A8B1 00"))
    let answer = try AESPrimitives.cbcEncrypt(EV2Authentication.rotateLeft(Self.rndA), key: .factory, iv: EV2Authentication.zeroIV)
    let session = try auth.finish(response: answer + [0x91, 0x00], continuing: try runningSession())
    #expect(session.transactionIdentifier == bytes("9D00C4DF"))
    #expect(session.commandCounter == 5)
    #expect(session.keyNumber == 3)
    #expect(session.keys.encryption.bytes == bytes("7A93D6571E4B180FCA6AC90C9A7488D4"))
    #expect(session.keys.mac.bytes == bytes("FC4AF159B62E549B5812394CAB1918CC"))
    #expect(auth.description == "AuthenticateEV2NonFirst with key 3")
  }

  @Test func refusesAWrongRndAndAnEndedSession() throws {
    let auth = try EV2NonFirstAuthentication(key: .factory, keyNumber: 3,
                                             encryptedRndB: bytes("B875CEB0E66A6C5CD00898DC371F92D1"), rndA: Self.rndA)
    let wrong = try AESPrimitives.cbcEncrypt(Self.rndA, key: .factory, iv: EV2Authentication.zeroIV)   // not rotated
    #expect(throws: NTAG424Error.authenticationFailed) {
      try auth.finish(response: wrong + [0x91, 0x00], continuing: try runningSession())
    }
    #expect(throws: NTAG424Error.status(command: 0xAF, sw1: 0x91, sw2: 0xAE)) {
      try auth.finish(response: [0x91, 0xAE], continuing: try runningSession())
    }
    var ended = try runningSession()
    _ = try? ended.response(to: 0x51, [0x91, 0x9D], mode: .full)
    #expect(throws: NTAG424Error.sessionEnded) { try auth.finish(response: wrong + [0x91, 0x00], continuing: ended) }
    #expect(throws: NTAG424Error.invalidKeyNumber(5)) { try EV2NonFirstAuthentication.firstCommand(keyNumber: 5) }
  }
}
