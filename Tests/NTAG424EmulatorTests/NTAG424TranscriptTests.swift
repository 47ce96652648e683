import NTAG424
import Testing
import NFCEmulator
@testable import NTAG424Emulator

/// The virtual NTAG 424 DNA against NXP AN12196 rev 2.0's recorded commands: with the transcript's
/// RndB and TI fixed, or its session installed where the transcript does not show how it began, the
/// tag answers the recorded bytes.
@Suite struct NTAG424TranscriptTests {
  /// AN12196 §5.6 then §5.9: AuthenticateEV2First with key 0, one command (CmdCtr 0 → 1), then
  /// ChangeFileSettings of the NDEF file in CommMode.Full at CmdCtr 1.
  @Test func authenticateKey0ThenChangeFileSettings() throws {
    let tag = try NTAG424DNAVirtualTag()
    tag.testRandomness = .init(rndB: hex424("B9E2FC789B64BF237CCCAA20EC7E6E48"), transactionIdentifier: hex424("9D00C4DF"))
    #expect(tag.selectApplication() == hex424("9000"))
    #expect(tag.send("9071000002000000") == hex424("A04C124213C186F22399D33AC2A30215 91AF"))
    #expect(tag.send("90AF000020 35C3E05A752E0144BAC0DE51C1F22C56B34408A23D8AEA266CAB947EA8E0118D 00")
            == hex424("3FA64DB5446D1F34CD6EA311167F5E4985B89690C04A05F17FA7AB2F08120663 9100"))
    // CmdCtr 0: GetKeyVersion of key 0 in CommMode.MAC, built by the host from the session keys.
    var host = try SecureMessagingSession(
      transactionIdentifier: hex424("9D00C4DF"),
      keys: SessionKeys(encryption: key424("1309C877509E5A215007FF0ED19CA564"), mac: key424("4C6626F5E72EA694202139295C7A7FC7")),
      keyNumber: 0)
    #expect(try exchange(tag, &host, 0x64, header: [0x00], mode: .mac) == [0x00])
    // CmdCtr 1: the recorded ChangeFileSettings (plain 40 00E0 C1 F121 200000 430000 430000).
    #expect(tag.send("905F0000190261B6D97903566E84C3AE5274467E89EAD799B7C1A0EF7A0400") == hex424("57BFF87B1241E93D 9100"))
    // The settings took: GetFileSettings, plain after a new selection, reports them.
    #expect(tag.selectApplication() == hex424("9000"))
    #expect(tag.send("90F50000010200") == hex424("00 40 00E0 000100 C1 F121 200000 430000 430000 9100"))
  }

  /// AN12196 §5.10 then §5.8.2: AuthenticateEV2First with key 3, then WriteData to file 03 in
  /// CommMode.Full at CmdCtr 0.
  @Test func authenticateKey3ThenWriteData() throws {
    let tag = try NTAG424DNAVirtualTag()
    tag.testRandomness = .init(rndB: hex424("91517975190DCEA6104948EFA3085C1B"), transactionIdentifier: hex424("7614281A"))
    tag.selectApplication()
    #expect(tag.send("9071000002030000") == hex424("B875CEB0E66A6C5CD00898DC371F92D1 91AF"))
    #expect(tag.send("90AF000020FF0306E47DFBC50087C4D8A78E88E62DE1E8BE457AA477C707E2F0874916A8B100")
            == hex424("0CC9A8094A8EEA683ECAAC5C7BF20584206D0608D477110FC6B3D5D3F65C3A6A 9100"))
    #expect(tag.send("908D00001F030000000A00006B5E6804909962FC4E3FF5522CF0F8436C0C53315B9C73AA00")
            == hex424("C26D236E4A7C046D 9100"))
    #expect(tag.files[2].prefix(10) == hex424("0102030405060708090A")[...])
    #expect(tag.files[2][10...].allSatisfy { $0 == 0 })
  }

  /// AN12196 §5.16: ChangeKey of key 2 at CmdCtr 2, then of key 0 at CmdCtr 3 (the transcript's
  /// session is installed: its authentication is not in the note).
  @Test func changeKey2ThenKey0() throws {
    let tag = try NTAG424DNAVirtualTag()
    tag.selectApplication()
    tag.install(try PICCSession(
      transactionIdentifier: hex424("7614281A"),
      keys: SessionKeys(encryption: key424("4CF3CB41A22583A61E89B158D252FC53"), mac: key424("5529860B2FC5FB6154B7F28361D30BF9")),
      keyNumber: 0, commandCounter: 2))
    #expect(tag.send("90C4000029022CF362B7BF4311FF3BE1DAA295E8C68DE09050560D19B9E16C2393AE9CD1FAC75D0CE20BCD1D06E600")
            == hex424("203BB55D1089D587 9100"))
    #expect(tag.keyEquals(2, hex424("F3847D627727ED3BC9C4CC050489B966")))
    #expect(tag.keyVersion(2) == 0x01)
    #expect(tag.send("90C400002900C0EB4DEEFEDDF0B513A03A95A75491818580503190D4D05053FF75668A01D6FDA6610234BDED643200")
            == hex424("9100"))
    #expect(tag.keyEquals(0, hex424("5004BF991F408672B1EF00F08F9E8647")))
    #expect(tag.keyVersion(0) == 0x01)
    #expect(tag.session == nil)                                                   // the session's own key: it ended
    #expect(tag.send("90640000010000") == hex424("01 9100"))                     // GetKeyVersion, plain now
    // The old key 0 no longer authenticates; the new one does.
    #expect(throws: NTAG424Error.self) { try authenticate(tag, keyNumber: 0) }
    _ = try authenticate(tag, keyNumber: 0, key: key424("5004BF991F408672B1EF00F08F9E8647"))
  }

  /// AN12196 §5.4: GetFileSettings of file 02 in CommMode.MAC (SesAuthMACKey 8248…, TI 7A21085E,
  /// CmdCtr 0), after the transcript's SDM settings were set by ChangeFileSettings.
  @Test func getFileSettingsInMACMode() throws {
    let tag = try NTAG424DNAVirtualTag()
    tag.selectApplication()
    var setup = try authenticate(tag, keyNumber: 0)
    let settings = hex424("40 EEEE D1 FE00 1F0000 440000 440000 200000 6A0000")
    #expect(try exchange(tag, &setup, 0x5F, header: [0x02], data: settings, mode: .full) == [])
    tag.selectApplication()
    tag.install(try PICCSession(
      transactionIdentifier: hex424("7A21085E"),
      keys: SessionKeys(encryption: .factory, mac: key424("8248134A386E86EB7FAF54A52E536CB6")), keyNumber: 0))
    #expect(tag.send("90F5000009026597A457C8CD442C00")
            == hex424("0040EEEE000100D1FE001F00004400004400002000006A0000 2A474282E7A47986 9100"))
  }

  /// AN12196 §6.3: GetCardUID in CommMode.Full (TI DF055522, CmdCtr 0) on a tag with the note's UID.
  @Test func getCardUIDInFullMode() throws {
    let tag = try NTAG424DNAVirtualTag(uid: hex424("04958CAA5C5E80"))
    tag.selectApplication()
    #expect(tag.send("9051000000") == hex424("91AE"))                            // no authentication
    tag.install(try PICCSession(
      transactionIdentifier: hex424("DF055522"),
      keys: SessionKeys(encryption: key424("2B4D963C014DC36F24F69A50A394F875"), mac: key424("379D32130CE61705DD5FD8C36B95D764")),
      keyNumber: 0))
    #expect(tag.send("90510000088E2C155ADDA99BE300")
            == hex424("70756055688505B52A5E26E59E329CD6 595F672298EA41B7 9100"))
  }
}
