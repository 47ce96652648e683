import Testing
@testable import NTAG424

/// The card's side of authentication, secure messaging and SUN generation, against NXP AN12196
/// rev 2.0's transcripts: with the transcript's RndB and TI the card produces the recorded answers
/// byte for byte, and accepts the recorded commands.
@Suite struct PICCSideTests {
  /// AN12196 §5.6: AuthenticateEV2First with key 0 (00…00).
  @Test func authenticateKey0() throws {
    let challenge = try PICCAuthentication(key: .factory, keyNumber: 0, rndB: bytes("B9E2FC789B64BF237CCCAA20EC7E6E48"))
    #expect(challenge.encryptedRndB == bytes("A04C124213C186F22399D33AC2A30215"))                  // R1 before 91 AF
    let (answer, session) = try challenge.answerFirst(
      bytes("35C3E05A752E0144BAC0DE51C1F22C56B34408A23D8AEA266CAB947EA8E0118D"), transactionIdentifier: bytes("9D00C4DF"))
    #expect(answer == bytes("3FA64DB5446D1F34CD6EA311167F5E4985B89690C04A05F17FA7AB2F08120663"))   // R2 before 91 00
    #expect(session.transactionIdentifier == bytes("9D00C4DF"))
    #expect(session.commandCounter == 0)
    #expect(session.keys.encryption.bytes == bytes("1309C877509E5A215007FF0ED19CA564"))
    #expect(session.keys.mac.bytes == bytes("4C6626F5E72EA694202139295C7A7FC7"))
  }

  /// AN12196 §5.10: AuthenticateEV2First with key 3; a wrong RndB' is refused.
  @Test func authenticateKey3AndRefuseAWrongProof() throws {
    let challenge = try PICCAuthentication(key: .factory, keyNumber: 3, rndB: bytes("91517975190DCEA6104948EFA3085C1B"))
    #expect(challenge.encryptedRndB == bytes("B875CEB0E66A6C5CD00898DC371F92D1"))
    let part2 = bytes("FF0306E47DFBC50087C4D8A78E88E62DE1E8BE457AA477C707E2F0874916A8B1")
    let (answer, session) = try challenge.answerFirst(part2, transactionIdentifier: bytes("7614281A"))
    #expect(answer == bytes("0CC9A8094A8EEA683ECAAC5C7BF20584206D0608D477110FC6B3D5D3F65C3A6A"))
    #expect(session.keys.encryption.bytes == bytes("7A93D6571E4B180FCA6AC90C9A7488D4"))
    #expect(session.keys.mac.bytes == bytes("FC4AF159B62E549B5812394CAB1918CC"))
    var forged = part2
    forged[31] ^= 0x01
    #expect(throws: NTAG424Error.authenticationFailed) { try challenge.answerFirst(forged, transactionIdentifier: bytes("7614281A")) }
    // The same proof under another key fails too: the card does not hold the host's key.
    let other = try PICCAuthentication(key: key("00000000000000000000000000000001"), keyNumber: 3,
                                       rndB: bytes("91517975190DCEA6104948EFA3085C1B"))
    #expect(throws: NTAG424Error.authenticationFailed) { try other.answerFirst(part2, transactionIdentifier: bytes("7614281A")) }
  }

  /// The host's EV2Authentication and the card's side agree on NonFirst's session keys, and the
  /// transaction (TI, CmdCtr) carries on.
  @Test func nonFirstKeepsTheTransaction() throws {
    let first = try PICCAuthentication(key: .factory, keyNumber: 0, rndB: [UInt8](repeating: 0x11, count: 16))
    let host = try EV2Authentication(key: .factory, keyNumber: 0, encryptedRndB: first.encryptedRndB,
                                     rndA: [UInt8](repeating: 0x22, count: 16))
    var (_, session) = try first.answerFirst(try host.secondCommand.dropFirst(5).dropLast(), transactionIdentifier: bytes("01020304"))
    _ = try session.wrapResponse([], mode: .mac)
    let key2 = key("F3847D627727ED3BC9C4CC050489B966")
    let next = try PICCAuthentication(key: key2, keyNumber: 2, rndB: [UInt8](repeating: 0x33, count: 16))
    let host2 = try EV2Authentication(key: key2, keyNumber: 2, encryptedRndB: next.encryptedRndB,
                                      rndA: [UInt8](repeating: 0x44, count: 16))
    let (answer, continued) = try next.answerNonFirst(try host2.secondCommand.dropFirst(5).dropLast(), continuing: session)
    #expect(answer.count == 16)
    #expect(continued.transactionIdentifier == bytes("01020304"))
    #expect(continued.commandCounter == 1)
    #expect(continued.keyNumber == 2)
    let expectedKeys = try SessionKeys(key: key2, rndA: [UInt8](repeating: 0x44, count: 16), rndB: [UInt8](repeating: 0x33, count: 16))
    #expect(continued.keys.mac.bytes == expectedKeys.mac.bytes)
  }

  /// AN12196 §5.9: the card takes ChangeFileSettings in CommMode.Full at CmdCtr 1 and answers the
  /// recorded MAC.
  @Test func changeFileSettingsFull() throws {
    var session = try PICCSession(
      transactionIdentifier: bytes("9D00C4DF"),
      keys: SessionKeys(encryption: key("1309C877509E5A215007FF0ED19CA564"), mac: key("4C6626F5E72EA694202139295C7A7FC7")),
      keyNumber: 0, commandCounter: 1)
    let plain = try session.unwrapCommand(
      0x5F, header: [0x02], body: bytes("61B6D97903566E84C3AE5274467E89EA D799B7C1A0EF7A04"), mode: .full)
    #expect(plain == bytes("4000E0C1F121200000430000430000"))
    #expect(try session.wrapResponse([], mode: .full) == bytes("57BFF87B1241E93D"))
    #expect(session.commandCounter == 2)
  }

  /// A command MAC with one bit changed is an integrity error (91 1E); a body shorter than the
  /// MAC is a length error (91 7E).
  @Test func wrongCommandMAC() throws {
    let session = try PICCSession(
      transactionIdentifier: bytes("9D00C4DF"),
      keys: SessionKeys(encryption: key("1309C877509E5A215007FF0ED19CA564"), mac: key("4C6626F5E72EA694202139295C7A7FC7")),
      keyNumber: 0, commandCounter: 1)
    #expect(throws: PICCMessagingError.integrity) {
      try session.unwrapCommand(0x5F, header: [0x02], body: bytes("61B6D97903566E84C3AE5274467E89EA D799B7C1A0EF7A05"), mode: .full)
    }
    #expect(throws: PICCMessagingError.length) { try session.unwrapCommand(0x5F, header: [0x02], body: [1, 2, 3], mode: .mac) }
    #expect(PICCMessagingError.integrity.statusByte == 0x1E)
  }

  /// AN12196 §5.8.2: WriteData in CommMode.Full after the key-3 authentication, CmdCtr 0.
  @Test func writeDataFull() throws {
    let challenge = try PICCAuthentication(key: .factory, keyNumber: 3, rndB: bytes("91517975190DCEA6104948EFA3085C1B"))
    var (_, session) = try challenge.answerFirst(
      bytes("FF0306E47DFBC50087C4D8A78E88E62DE1E8BE457AA477C707E2F0874916A8B1"), transactionIdentifier: bytes("7614281A"))
    let data = try session.unwrapCommand(
      0x8D, header: bytes("03 000000 0A0000"), body: bytes("6B5E6804909962FC4E3FF5522CF0F843 6C0C53315B9C73AA"), mode: .full)
    #expect(data == bytes("0102030405060708090A"))
    #expect(try session.wrapResponse([], mode: .full) == bytes("C26D236E4A7C046D"))
  }

  /// AN12196 §5.4: GetFileSettings in CommMode.MAC: the recorded command verifies, and the card's
  /// answer carries the recorded MAC.
  @Test func getFileSettingsMAC() throws {
    var session = try PICCSession(
      transactionIdentifier: bytes("7A21085E"),
      keys: SessionKeys(encryption: .factory, mac: key("8248134A386E86EB7FAF54A52E536CB6")), keyNumber: 0)
    #expect(try session.unwrapCommand(0xF5, header: [0x02], body: bytes("6597A457C8CD442C"), mode: .mac) == [])
    let settings = bytes("0040EEEE000100D1FE001F00004400004400002000006A0000")
    #expect(try session.wrapResponse(settings, mode: .mac) == settings + bytes("2A474282E7A47986"))
  }

  /// AN12196 §6.3: GetCardUID, the answer in CommMode.Full.
  @Test func getCardUIDFull() throws {
    var session = try PICCSession(
      transactionIdentifier: bytes("DF055522"),
      keys: SessionKeys(encryption: key("2B4D963C014DC36F24F69A50A394F875"), mac: key("379D32130CE61705DD5FD8C36B95D764")),
      keyNumber: 0)
    #expect(try session.unwrapCommand(0x51, header: [], body: bytes("8E2C155ADDA99BE3"), mode: .mac) == [])
    #expect(try session.wrapResponse(bytes("04958CAA5C5E80"), mode: .full)
            == bytes("70756055688505B52A5E26E59E329CD6 595F672298EA41B7"))
  }

  /// AN12196 §5.16: ChangeKey of key 2 (XOR and CRC32 checked) and of key 0, from the card's side.
  @Test func changeKeys() throws {
    var session = try PICCSession(
      transactionIdentifier: bytes("7614281A"),
      keys: SessionKeys(encryption: key("4CF3CB41A22583A61E89B158D252FC53"), mac: key("5529860B2FC5FB6154B7F28361D30BF9")),
      keyNumber: 0, commandCounter: 2)
    let data2 = try session.unwrapCommand(
      0xC4, header: [0x02], body: bytes("2CF362B7BF4311FF3BE1DAA295E8C68DE09050560D19B9E16C2393AE9CD1FAC7 5D0CE20BCD1D06E6"), mode: .full)
    let (new2, version2) = try PICCKeyChange.decode(data2, keyNumber: 2, oldKey: AESKey.factory.bytes)
    #expect(new2 == bytes("F3847D627727ED3BC9C4CC050489B966"))
    #expect(version2 == 0x01)
    #expect(try session.wrapResponse([], mode: .full) == bytes("203BB55D1089D587"))
    // The same key data with another old key: the CRC32 of the XORed result does not match.
    #expect(throws: PICCMessagingError.integrity) {
      try PICCKeyChange.decode(data2, keyNumber: 2, oldKey: [UInt8](repeating: 1, count: 16))
    }
    let data0 = try session.unwrapCommand(
      0xC4, header: [0x00], body: bytes("C0EB4DEEFEDDF0B513A03A95A75491818580503190D4D05053FF75668A01D6FD A6610234BDED6432"), mode: .full)
    let (new0, version0) = try PICCKeyChange.decode(data0, keyNumber: 0, oldKey: AESKey.factory.bytes)
    #expect(new0 == bytes("5004BF991F408672B1EF00F08F9E8647"))
    #expect(version0 == 0x01)
    session.countUnMACedResponse()
    #expect(session.commandCounter == 4)
  }

  /// AN12196 §3.4, SUN 1: PICCData for UID 04DE5F1EACC040 and SDMReadCtr 61 under the factory key,
  /// with the transcript's padding, and the SDMMAC over an empty input.
  @Test func sunWithoutFileData() throws {
    let picc = try SDMGeneration.encryptPICCData(
      uid: bytes("04DE5F1EACC040"), readCounter: 61, metaReadKey: .factory, padding: bytes("DA5CF60941"))
    #expect(picc == bytes("EF963FF7828658A599F3041510671E88"))
    let keys = try SDMSessionKeys(fileReadKey: .factory, uid: bytes("04DE5F1EACC040"), readCounter: 61)
    #expect(try SecureDynamicMessaging.mac(over: [], sessionKeys: keys) == bytes("94EED9EE65337086"))
  }

  /// AN12196 §3.4, SUN 2: SDMENCFileData for "xxxxxxxxxxxxxxxx", UID 04958CAA5C5E80, SDMReadCtr 8;
  /// the PICCData re-encrypted with the transcript's own padding, and the verifier accepts the result.
  @Test func sunWithFileData() throws {
    let uid = bytes("04958CAA5C5E80")
    let keys = try SDMSessionKeys(fileReadKey: .factory, uid: uid, readCounter: 8)
    let encrypted = try SDMGeneration.encryptFileData(Array("xxxxxxxxxxxxxxxx".utf8), readCounter: 8, sessionKeys: keys)
    #expect(encrypted == bytes("CEE9A53E3E463EF1F459635736738962"))
    let recorded = bytes("FD91EC264309878BE6345CBE53BADF40")
    let plain = try AESPrimitives.cbcDecrypt(recorded, key: .factory, iv: EV2Authentication.zeroIV)
    let picc = try SDMGeneration.encryptPICCData(uid: uid, readCounter: 8, metaReadKey: .factory, padding: Array(plain[11...]))
    #expect(picc == recorded)
    let macInput = Array("CEE9A53E3E463EF1F459635736738962&cmac=".utf8)
    #expect(try SecureDynamicMessaging.mac(over: macInput, sessionKeys: keys) == bytes("ECC1E7F6C6C73BF6"))
    let message = try SecureDynamicMessaging.verify(
      encryptedPICCData: picc, sdmMAC: bytes("ECC1E7F6C6C73BF6"), macInput: macInput, encryptedFileData: encrypted,
      metaReadKey: .factory, fileReadKey: .factory)
    #expect(message.fileData == Array("xxxxxxxxxxxxxxxx".utf8))
    #expect(throws: NTAG424Error.self) { try SDMGeneration.encryptPICCData(uid: uid, readCounter: 8, metaReadKey: .factory, padding: [1]) }
    #expect(throws: NTAG424Error.self) { try SDMGeneration.encryptFileData([1, 2, 3], readCounter: 8, sessionKeys: keys) }
  }
}
