import NFCTestSupport
import NFCTransport
import Testing
@testable import NTAG424
@testable import NTAG424Tag

/// A key from a transcript's 32 hex digits.
func key(_ text: String) -> AESKey {
  do { return try AESKey(bytes: hex(text)) } catch { fatalError("bad key in a test: \(error)") }
}

let ok = hex("90 00")
let selectApplication = hex("00 A4 04 0C 07 D2760000850101 00")

/// A session known from a transcript.
func session(ti: String, enc: String, mac: String, keyNumber: UInt8 = 0, counter: UInt16) throws -> SecureMessagingSession {
  try SecureMessagingSession(transactionIdentifier: hex(ti), keys: SessionKeys(encryption: key(enc), mac: key(mac)),
                             keyNumber: keyNumber, commandCounter: counter)
}

/// NTAG424DNA against NXP AN12196 rev 2.0's transcripts: the host's commands byte for byte, the
/// tag's recorded answers replayed, every response MAC checked.
@Suite struct NTAG424DNATranscriptTests {
  /// AN12196 §5.6: SELECT, then AuthenticateEV2First with key 0 (factory), RndA fixed.
  @Test func authenticatesWithKey0() throws {
    let link = EmbeddedTransceiver([
      (selectApplication, .success(ok)),                                                  // SELECT by DF name → 90 00
      (hex("90 71 00 00 02 00 00 00"), .success(hex("A04C124213C186F22399D33AC2A30215 91AF"))),  // part 1 → E(K0, RndB)
      (hex("90AF000020 35C3E05A752E0144BAC0DE51C1F22C56B34408A23D8AEA266CAB947EA8E0118D 00"),
       .success(hex("3FA64DB5446D1F34CD6EA311167F5E4985B89690C04A05F17FA7AB2F08120663 9100"))),  // part 2 → E(K0, TI||RndA'||caps)
    ])
    let tag = NTAG424DNA(link: link)
    try tag.selectApplication()
    try tag.authenticate(keyNumber: 0, key: .factory, rndA: hex("13C5DB8A5930439FC3DEF9A4C675360F"))
    let session = try #require(tag.session)
    #expect(session.transactionIdentifier == hex("9D00C4DF"))
    #expect(session.commandCounter == 0)
    #expect(session.keys.encryption.bytes == hex("1309C877509E5A215007FF0ED19CA564"))
    #expect(session.keys.mac.bytes == hex("4C6626F5E72EA694202139295C7A7FC7"))
    #expect(tag.isAuthenticated)
    #expect(link.finish() == .clean)
  }

  /// AN12196 §5.9: ChangeFileSettings of file 02 in CommMode.Full at CmdCtr 1, from a typed value.
  @Test func changesFileSettings() throws {
    let link = EmbeddedTransceiver([
      (hex("905F000019 02 61B6D97903566E84C3AE5274467E89EA D799B7C1A0EF7A04 00"), .success(hex("57BFF87B1241E93D 9100"))),
    ])
    let tag = NTAG424DNA(link: link, session: try session(ti: "9D00C4DF", enc: "1309C877509E5A215007FF0ED19CA564",
                                                          mac: "4C6626F5E72EA694202139295C7A7FC7", counter: 1))
    let plan = try SDMPlan.plan(template: "https://choose.url.com/ntag424?e={picc}&c={cmac}")
    try tag.changeFileSettings(file: NativeCommand.ndefFile, to: plan.settings)
    #expect(tag.session?.commandCounter == 2)
    #expect(link.finish() == .clean)
  }

  /// AN12196 §5.16: ChangeKey of key 2 (CmdCtr 2), then of key 0, which ends the session.
  @Test func changesKey2ThenKey0() throws {
    let link = EmbeddedTransceiver([
      (hex("90C4000029 02 2CF362B7BF4311FF3BE1DAA295E8C68DE09050560D19B9E16C2393AE9CD1FAC7 5D0CE20BCD1D06E6 00"),
       .success(hex("203BB55D1089D587 9100"))),                                            // key 2: answer MACed
      (hex("90C4000029 00 C0EB4DEEFEDDF0B513A03A95A75491818580503190D4D05053FF75668A01D6FD A6610234BDED6432 00"),
       .success(hex("9100"))),                                                              // key 0: no MAC, session over
    ])
    let tag = NTAG424DNA(link: link, session: try session(ti: "7614281A", enc: "4CF3CB41A22583A61E89B158D252FC53",
                                                          mac: "5529860B2FC5FB6154B7F28361D30BF9", counter: 2))
    try tag.changeKey(keyNumber: 2, to: key("F3847D627727ED3BC9C4CC050489B966"), version: 1, oldKey: .factory)
    #expect(tag.session?.commandCounter == 3)
    try tag.changeKey(keyNumber: 0, to: key("5004BF991F408672B1EF00F08F9E8647"), version: 1)
    #expect(!tag.isAuthenticated)
    #expect(throws: NTAG424DNAError.notAuthenticated(command: "GetCardUID")) { try tag.cardUID() }
    #expect(link.finish() == .clean)
  }

  /// AN12196 §5.10 then §5.8.2: AuthenticateEV2First with key 3, then WriteData in CommMode.Full.
  @Test func authenticatesWithKey3AndWritesData() throws {
    let link = EmbeddedTransceiver([
      (hex("9071000002 03 0000"), .success(hex("B875CEB0E66A6C5CD00898DC371F92D1 91AF"))),
      (hex("90AF000020 FF0306E47DFBC50087C4D8A78E88E62DE1E8BE457AA477C707E2F0874916A8B1 00"),
       .success(hex("0CC9A8094A8EEA683ECAAC5C7BF20584206D0608D477110FC6B3D5D3F65C3A6A 9100"))),
      (hex("908D00001F 030000000A0000 6B5E6804909962FC4E3FF5522CF0F843 6C0C53315B9C73AA 00"),
       .success(hex("C26D236E4A7C046D 9100"))),                                             // WriteData → MACt, 91 00
    ])
    let tag = NTAG424DNA(link: link)
    try tag.authenticate(keyNumber: 3, key: .factory, rndA: hex("B98F4C50CF1C2E084FD150E33992B048"))
    try tag.writeData(file: 3, data: hex("0102030405060708090A"), mode: .full)
    #expect(tag.session?.commandCounter == 1)
    #expect(link.finish() == .clean)
  }

  /// AN12196 §5.4: GetFileSettings of file 02 in CommMode.MAC, parsed.
  @Test func readsFileSettingsInMACMode() throws {
    let link = EmbeddedTransceiver([
      (hex("90F5000009 02 6597A457C8CD442C 00"),
       .success(hex("0040EEEE000100D1FE001F00004400004400002000006A0000 2A474282E7A47986 9100"))),
    ])
    let tag = NTAG424DNA(link: link, session: try session(ti: "7A21085E", enc: "00000000000000000000000000000000",
                                                          mac: "8248134A386E86EB7FAF54A52E536CB6", counter: 0))
    let file = try tag.fileSettings(file: 2)
    #expect(file.fileSize == 256)
    #expect(file.settings.sdm?.macOffset == 0x6A)
    #expect(file.settings.sdm?.piccDataOffset == 0x1F)
    #expect(link.finish() == .clean)
  }

  /// AN12196 §6.3: GetCardUID, the answer in CommMode.Full.
  @Test func readsTheCardUID() throws {
    let link = EmbeddedTransceiver([
      (hex("9051000008 8E2C155ADDA99BE3 00"), .success(hex("70756055688505B52A5E26E59E329CD6 595F672298EA41B7 9100"))),
    ])
    let tag = NTAG424DNA(link: link, session: try session(ti: "DF055522", enc: "2B4D963C014DC36F24F69A50A394F875",
                                                          mac: "379D32130CE61705DD5FD8C36B95D764", counter: 0))
    #expect(try tag.cardUID() == hex("04958CAA5C5E80"))
    #expect(link.finish() == .clean)
  }
}

@Suite struct NTAG424DNAFailureTests {
  @Test func aWrongResponseMACIsItsOwnErrorAndEndsTheSession() throws {
    let link = EmbeddedTransceiver([
      (hex("9051000008 8E2C155ADDA99BE3 00"), .success(hex("70756055688505B52A5E26E59E329CD6 595F672298EA41B6 9100"))),
    ])
    let tag = NTAG424DNA(link: link, session: try session(ti: "DF055522", enc: "2B4D963C014DC36F24F69A50A394F875",
                                                          mac: "379D32130CE61705DD5FD8C36B95D764", counter: 0))
    #expect(throws: NTAG424DNAError.tag(.responseMACMismatch(command: 0x51), command: "GetCardUID")) { try tag.cardUID() }
    #expect(!tag.isAuthenticated)
    #expect(throws: NTAG424DNAError.notAuthenticated(command: "GetCardUID")) { try tag.cardUID() }
  }

  @Test func aWrongKeyIs91AE() throws {
    let link = EmbeddedTransceiver([(hex("9071000002 01 0000"), .success(hex("91AE")))])
    let tag = NTAG424DNA(link: link)
    #expect(throws: NTAG424DNAError.tag(.status(command: 0x71, sw1: 0x91, sw2: 0xAE), command: "AuthenticateEV2First (key 1)")) {
      try tag.authenticate(keyNumber: 1, key: .factory)
    }
    #expect(tag.session == nil)
  }

  @Test func anotherTagHasNoApplication() {
    let link = EmbeddedTransceiver([(selectApplication, .success(hex("6A 82")))])
    #expect(throws: NTAG424DNAError.applicationNotFound(StatusWord(0x6A, 0x82))) { try NTAG424DNA(link: link).selectApplication() }
  }

  @Test func aRemovedTagIsATransceiveError() {
    let link = EmbeddedTransceiver([(hex("90 60 00 00 00"), .failure(.tagRemoved))])
    #expect(throws: NTAG424DNAError.transceive(.tagRemoved, command: "GetVersion")) { try NTAG424DNA(link: link).version() }
  }

  @Test func commandsThatNeedASessionSayso() {
    let tag = NTAG424DNA(link: EmbeddedTransceiver([]))
    #expect(throws: NTAG424DNAError.notAuthenticated(command: "ChangeFileSettings (file 2)")) {
      try tag.changeFileSettings(file: 2, to: FileSettings(
        communicationMode: .plain, accessRights: AccessRights(read: .free, write: .free, readWrite: .free, change: .free)))
    }
    #expect(throws: NTAG424DNAError.notAuthenticated(command: "ReadData (file 3)")) { try tag.readData(file: 3, length: 1, mode: .full) }
  }
}

@Suite struct NTAG424DNAPlainTests {
  @Test func joinsTheThreeGetVersionFrames() throws {
    let link = EmbeddedTransceiver([
      (hex("90 60 00 00 00"), .success(hex("04 04 08 30 00 11 05 91AF"))),                 // hardware
      (hex("90 AF 00 00 00"), .success(hex("04 04 02 01 02 11 05 91AF"))),                 // software
      (hex("90 AF 00 00 00"), .success(hex("04 11 22 33 44 55 66 A1B2C3D4E0 21 24 9100"))), // production
    ])
    let version = try NTAG424DNA(link: link).version()
    #expect(version.chip == .ntag424DNATagTamper)
    #expect(version.uid == hex("04 11 22 33 44 55 66"))
    #expect(link.finish() == .clean)
  }

  @Test func plainCommandsOutsideASession() throws {
    let link = EmbeddedTransceiver([
      (hex("90 F5 00 00 01 02 00"), .success(hex("00 00 E0EE 000100 9100"))),                 // GetFileSettings, factory file 02
      (hex("90 AD 00 00 07 02 000000 040000 00"), .success(hex("0017D101 9100"))),           // ReadData 4 bytes
      (hex("90 64 00 00 01 00 00"), .success(hex("00 9100"))),                                // GetKeyVersion of key 0
      (hex("90 F6 00 00 01 02 00"), .success(hex("2A0000 0000 9100"))),                       // GetFileCounters
      (hex("90 3C 00 00 01 00 00"), .success([UInt8](repeating: 0x5A, count: 56) + hex("9100"))), // Read_Sig
      (hex("90 8D 00 00 09 02 000000 020000 0102 00"), .success(hex("9100"))),               // WriteData, free access
    ])
    let tag = NTAG424DNA(link: link)
    let file = try tag.fileSettings(file: 2)
    #expect(file.settings.sdm == nil)
    #expect(file.settings.accessRights == AccessRights(read: .free, write: .free, readWrite: .free, change: .key(0)))
    #expect(try tag.readData(file: 2, length: 4, mode: .plain) == hex("0017D101"))
    #expect(try tag.keyVersion(keyNumber: 0) == 0)
    #expect(try tag.fileCounter(file: 2) == 42)
    #expect(try tag.readSignature().count == 56)
    try tag.writeData(file: 2, data: hex("0102"), mode: .plain)
    #expect(link.finish() == .clean)
  }

  /// Data longer than one APDU carries goes in several WriteData commands, each at its offset.
  @Test func longDataIsWrittenInSeveralCommands() throws {
    let data = (0..<300).map { UInt8(truncatingIfNeeded: $0) }
    let link = EmbeddedTransceiver([
      (hex("90 8D 00 00 FF 02 000000 F80000") + Array(data[0..<248]) + [0x00], .success(hex("9100"))),   // 248 bytes at 0
      (hex("90 8D 00 00 3B 02 F80000 340000") + Array(data[248...]) + [0x00], .success(hex("9100"))),    // 52 bytes at 248
    ], capabilities: LinkCapabilities(maxResponseLength: 256, maxCommandLength: 261, rawCommands: true))
    try NTAG424DNA(link: link).writeData(file: 2, data: data, mode: .plain)
    #expect(link.finish() == .clean)
  }

  @Test func aChainedAnswerIsJoined() throws {
    let link = EmbeddedTransceiver([
      (hex("90 AD 00 00 07 02 000000 000000 00"), .success(hex("0102 91AF"))),
      (hex("90 AF 00 00 00"), .success(hex("0304 9100"))),
    ])
    #expect(try NTAG424DNA(link: link).readData(file: 2, length: 0, mode: .plain) == hex("01020304"))
  }

  @Test func anErrorStatusIsTheTagsRefusal() {
    let link = EmbeddedTransceiver([(hex("90 AD 00 00 07 03 000000 010000 00"), .success(hex("919D")))])
    #expect(throws: NTAG424DNAError.tag(.status(command: 0xAD, sw1: 0x91, sw2: 0x9D), command: "ReadData (file 3)")) {
      try NTAG424DNA(link: link).readData(file: 3, length: 1, mode: .plain)
    }
  }
}
