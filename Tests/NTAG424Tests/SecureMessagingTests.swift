import Testing
@testable import NTAG424

/// Secure messaging, host side, against NXP AN12196 rev 2.0's transcripts: each command built byte
/// for byte from the plain data, each answer's MAC checked and its data decrypted.
@Suite struct SecureMessagingTests {
  /// The key-0 session of AN12196 §5.6.
  func key0Session(commandCounter: UInt16) throws -> SecureMessagingSession {
    try SecureMessagingSession(
      transactionIdentifier: bytes("9D00C4DF"),
      keys: SessionKeys(encryption: key("1309C877509E5A215007FF0ED19CA564"), mac: key("4C6626F5E72EA694202139295C7A7FC7")),
      keyNumber: 0, commandCounter: commandCounter)
  }

  /// AN12196 §5.9: ChangeFileSettings of the NDEF file (02) in CommMode.Full, CmdCtr 1.
  @Test func changeFileSettingsFull() throws {
    var session = try key0Session(commandCounter: 1)
    let command = try session.command(0x5F, header: [0x02], data: bytes("4000E0C1F121200000430000430000"), mode: .full)
    #expect(command == bytes("905F000019 02 61B6D97903566E84C3AE5274467E89EA D799B7C1A0EF7A04 00"))
    #expect(try session.response(to: 0x5F, bytes("57BFF87B1241E93D 9100"), mode: .full) == [])
    #expect(session.commandCounter == 2)
  }

  /// AN12196 §5.10 then §5.8.2: authenticate with key 3, then WriteData in CommMode.Full, CmdCtr 0.
  @Test func writeDataFullAfterKey3Authentication() throws {
    let auth = try EV2Authentication(
      key: .factory, keyNumber: 3, encryptedRndB: bytes("B875CEB0E66A6C5CD00898DC371F92D1"),
      rndA: bytes("B98F4C50CF1C2E084FD150E33992B048"))
    var session = try auth.finish(response: bytes("0CC9A8094A8EEA683ECAAC5C7BF20584206D0608D477110FC6B3D5D3F65C3A6A 9100"))
    // Plain: 90 8D 00 00 11 | 03 000000 0A0000 | 0102030405060708090A | 00
    let command = try session.command(0x8D, header: bytes("03 000000 0A0000"), data: bytes("0102030405060708090A"), mode: .full)
    #expect(command == bytes("908D00001F 030000000A0000 6B5E6804909962FC4E3FF5522CF0F843 6C0C53315B9C73AA 00"))
    #expect(try session.response(to: 0x8D, bytes("C26D236E4A7C046D 9100"), mode: .full) == [])
    #expect(session.commandCounter == 1)
  }

  /// AN12196 §5.4: GetFileSettings of file 02 in CommMode.MAC.
  @Test func getFileSettingsMAC() throws {
    var session = try SecureMessagingSession(
      transactionIdentifier: bytes("7A21085E"),
      keys: SessionKeys(encryption: .factory, mac: key("8248134A386E86EB7FAF54A52E536CB6")), keyNumber: 0)
    #expect(try session.command(0xF5, header: [0x02], mode: .mac) == bytes("90F5000009 02 6597A457C8CD442C 00"))
    let settings = try session.response(
      to: 0xF5, bytes("0040EEEE000100D1FE001F00004400004400002000006A0000 2A474282E7A47986 9100"), mode: .mac)
    #expect(settings == bytes("0040EEEE000100D1FE001F00004400004400002000006A0000"))
    #expect(session.commandCounter == 1)
  }

  /// AN12196 §6.3: GetCardUID, the response in CommMode.Full.
  @Test func getCardUIDFull() throws {
    var session = try SecureMessagingSession(
      transactionIdentifier: bytes("DF055522"),
      keys: SessionKeys(encryption: key("2B4D963C014DC36F24F69A50A394F875"), mac: key("379D32130CE61705DD5FD8C36B95D764")),
      keyNumber: 0)
    #expect(try session.command(0x51, mode: .mac) == bytes("9051000008 8E2C155ADDA99BE3 00"))
    let uid = try session.response(to: 0x51, bytes("70756055688505B52A5E26E59E329CD6 595F672298EA41B7 9100"), mode: .full)
    #expect(uid == bytes("04958CAA5C5E80"))
  }

  /// AN12196 §5.16: ChangeKey of key 2 (XOR with the old key, CRC32 of the new), CmdCtr 2, then of
  /// key 0 (the session's own: no MAC in the answer, the session ends), CmdCtr 3.
  @Test func changeKeys() throws {
    var session = try SecureMessagingSession(
      transactionIdentifier: bytes("7614281A"),
      keys: SessionKeys(encryption: key("4CF3CB41A22583A61E89B158D252FC53"), mac: key("5529860B2FC5FB6154B7F28361D30BF9")),
      keyNumber: 0, commandCounter: 2)
    let change2 = try session.changeKeyCommand(
      keyNumber: 2, newKey: key("F3847D627727ED3BC9C4CC050489B966"), newVersion: 0x01, oldKey: .factory)
    #expect(change2 == bytes(
      "90C4000029 02 2CF362B7BF4311FF3BE1DAA295E8C68DE09050560D19B9E16C2393AE9CD1FAC7 5D0CE20BCD1D06E6 00"))
    try session.changeKeyResponse(keyNumber: 2, bytes("203BB55D1089D587 9100"))
    #expect(session.commandCounter == 3)
    let change0 = try session.changeKeyCommand(keyNumber: 0, newKey: key("5004BF991F408672B1EF00F08F9E8647"), newVersion: 0x01)
    #expect(change0 == bytes(
      "90C4000029 00 C0EB4DEEFEDDF0B513A03A95A75491818580503190D4D05053FF75668A01D6FD A6610234BDED6432 00"))
    try session.changeKeyResponse(keyNumber: 0, bytes("9100"))
    #expect(session.hasEnded)
    #expect(throws: NTAG424Error.sessionEnded) { try session.command(0x51, mode: .mac) }
  }

  @Test func aWrongResponseMACIsAnErrorNotData() throws {
    var session = try SecureMessagingSession(
      transactionIdentifier: bytes("DF055522"),
      keys: SessionKeys(encryption: key("2B4D963C014DC36F24F69A50A394F875"), mac: key("379D32130CE61705DD5FD8C36B95D764")),
      keyNumber: 0)
    _ = try session.command(0x51, mode: .mac)
    #expect(throws: NTAG424Error.responseMACMismatch(command: 0x51)) {
      try session.response(to: 0x51, bytes("70756055688505B52A5E26E59E329CD6 595F672298EA41B6 9100"), mode: .full)
    }
    #expect(session.hasEnded)
  }

  @Test func aMACOverOtherDataIsRefused() throws {
    let session = try key0Session(commandCounter: 1)
    _ = try session.command(0x5F, header: [0x02], data: bytes("4000E0C1F121200000430000430000"), mode: .full)
    // The right MAC, answered at another CmdCtr (a replayed answer): refused.
    var replay = try key0Session(commandCounter: 2)
    #expect(throws: NTAG424Error.responseMACMismatch(command: 0x5F)) {
      try replay.response(to: 0x5F, bytes("57BFF87B1241E93D 9100"), mode: .full)
    }
  }

  @Test func anErrorStatusEndsTheSession() throws {
    var session = try key0Session(commandCounter: 1)
    #expect(throws: NTAG424Error.status(command: 0x5F, sw1: 0x91, sw2: 0x1E)) {
      try session.response(to: 0x5F, bytes("911E"), mode: .full)
    }
    #expect(session.hasEnded)
    #expect(throws: NTAG424Error.invalidLength(field: "response with MAC", expected: 8, actual: 3)) {
      var other = try key0Session(commandCounter: 1)
      _ = try other.response(to: 0x5F, bytes("010203 9100"), mode: .mac)
    }
  }

  @Test func plainModeAdvancesTheCounter() throws {
    var session = try key0Session(commandCounter: 7)
    #expect(try session.command(0x60, mode: .plain) == bytes("90 60 00 00 00"))
    #expect(try session.response(to: 0x60, bytes("0102 9100"), mode: .plain) == bytes("0102"))
    #expect(session.commandCounter == 8)
  }

  @Test func theCounterStopsAtItsLastValue() throws {
    var session = try key0Session(commandCounter: 0xFFFE)
    _ = try session.response(to: 0x60, bytes("9100"), mode: .plain)
    #expect(throws: NTAG424Error.sessionEnded) { try session.command(0x60, mode: .plain) }
  }

  @Test func paddingIsISO9797Method2() throws {
    #expect(AESPrimitives.pad([]) == bytes("80000000000000000000000000000000"))
    #expect(AESPrimitives.pad([UInt8](repeating: 1, count: 16)).count == 32)
    #expect(try AESPrimitives.unpad(bytes("0102 80 0000000000000000000000000000")) == bytes("0102"))
    #expect(throws: NTAG424Error.invalidPadding) { try AESPrimitives.unpad(bytes("01020000000000000000000000000000")) }
    #expect(throws: NTAG424Error.invalidPadding) { try AESPrimitives.unpad([]) }
  }

  @Test func crc32OfChangeKeyIsJAMCRC() {
    #expect(JAMCRC32.checksum(Array("123456789".utf8)) == 0x340B_C6D9)   // CRC-32 CBF43926h, not complemented
    #expect(JAMCRC32.checksum([]) == 0xFFFF_FFFF)
  }
}
