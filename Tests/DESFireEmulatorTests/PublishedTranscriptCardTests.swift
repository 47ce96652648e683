import DESFire
@testable import DESFireEmulator
import EV2SecureMessaging
@testable import NFCEmulator
import Testing

/// The virtual MIFARE DESFire Light against the commands of NXP's published EV2 examples (AN12343
/// "MIFARE DESFire Light features and hints" rev 1.1): each recorded command APDU sent as it is,
/// each answer compared with the recorded one byte for byte. The values and the public sources
/// that quote them are listed in DESFireTests' PublishedTranscriptTests (the host's side):
/// AuthenticateEV2First (table 16), GetCardUID in CommMode.Full (pp. 15–17), WriteData and
/// ReadData in CommMode.MAC (tables 23, 24; Proxmark3's desfiretest.c `TestEV2MAC`) and in
/// CommMode.Full (tables 25, 26), GetKeyVersion's command (table 39) and ChangeKey of key 0
/// (table 40).
///
/// Except for the authentication, AN12343 gives the session keys, TI and CmdCtr but not the
/// authentication they came from, so the card is put in that session directly: the card's own
/// session type (DESFireEmulator's EV2Card.swift) over the shared module's `EV2CardSession` with
/// the published keys, and the published
/// commands' file 00 and its read&write key 3.
@Suite struct PublishedTranscriptCardTests {
  /// ISO SELECT of the Light's application by DF name (as AN12343's examples begin).
  static let selectDF = "00 A4 04 0C 10 A0 00 00 03 96 56 43 41 03 F0 15 40 00 00 00 0B"

  /// A factory virtual Light with DESFireEmulator's cryptography, its application selected.
  static func light(uid: [UInt8]? = nil) throws -> DESFireVirtualTag {
    let tag = try #require(try VirtualTagKind.desfireLight.makeTag(uid: uid) as? DESFireVirtualTag)
    tag.security = OpenSSLDESFireSecurity()
    #expect(tag.send(selectDF) == hex("90 00"))
    return tag
  }

  /// Puts `tag` in the published session: key `keyNumber` authenticated, CmdCtr 0.
  static func enterSession(_ tag: DESFireVirtualTag, ti: String, encryption: String, mac: String, keyNumber: UInt8) throws {
    let keys = try EV2SessionKeys(encryption: hex(encryption), mac: hex(mac))
    tag.ev2Session = EV2Session(try EV2CardSession(transactionIdentifier: hex(ti), keys: keys, keyNumber: keyNumber))
    tag.authenticatedKey = keyNumber
  }

  /// The card's whole answer to one command: the frames of a chained answer joined (`90 AF`
  /// fetches the next), then the last status.
  static func answer(_ tag: DESFireVirtualTag, _ command: [UInt8]) -> [UInt8] {
    var frame = tag.send(command), body: [UInt8] = []
    while frame.suffix(2) == [0x91, 0xAF] {
      body += frame.dropLast(2)
      frame = tag.send([0x90, 0xAF, 0x00, 0x00, 0x00])
    }
    return body + frame
  }

  @Test func authenticateEV2FirstAnswersTable16() throws {
    let tag = try Self.light()
    let rndB = hex("FA 65 9A D0 DC A7 38 DD 65 DC 7D C3 86 12 AD 81"), ti = hex("8C F1 41 F3")
    tag.security = OpenSSLDESFireSecurity(random: { $0 == 4 ? ti : rndB })   // RndB, then TI
    #expect(tag.send("90 71 00 00 02 00 00 00") == hex("24 67 7D DB D4 63 49 E6 23 79 8F D7 29 00 6E 79 91 AF"))
    #expect(tag.send("90 AF 00 00 20 3B 50 44 5F 21 D2 1D 77 D5 00 79 4D EB 24 5E 5A"
                     + "75 4F 5F 90 18 44 25 9F 4C 9B 31 A5 C7 33 5A CD 00")
      == hex("04 C6 DB D6 74 17 ED 0D 31 DD DE 4D 2E 3F FA C2 B4 B0 74 F6 38 EE F7 FF F9 25 49 63 B6 5C 77 59 91 00"))
    #expect(tag.ev2Session?.transactionIdentifier == ti && tag.ev2Session?.commandCounter == 0)
  }

  @Test func getCardUIDAnswersPages15To17() throws {
    let tag = try Self.light(uid: hex("04 DE 5F 1E AC C0 40"))
    try Self.enterSession(tag, ti: "56 9D 4B 24", encryption: "C1 D7 BD 9F 60 03 4D 84 32 F9 AF 34 03 D5 73 D0",
                          mac: "FD 9E 26 C9 76 6F 07 C1 D0 71 06 C0 F8 F3 67 1F", keyNumber: 0)
    #expect(Self.answer(tag, hex("90 51 00 00 08 5C A9 EF 7C 91 2A 39 1B 00"))
      == hex("CD FF BF 6D 34 23 1D A2 78 9D A9 D3 AB 15 D5 60 CE 75 E3 9E DB E9 4C 2F 91 00"))
    #expect(tag.ev2Session?.commandCounter == 1)
  }

  @Test func macModeWriteAndReadAnswerTables23And24() throws {
    let tag = try Self.light()
    try #require(tag.applications.first?.files[0] != nil)
    tag.applications[0].files[0]?.communication = .mac     // the example's file is in CommMode.MAC
    try Self.enterSession(tag, ti: "E2 D3 AF 69", encryption: "C4 C9 F2 A7 34 F3 29 67 FA C8 0A 0F 37 C7 64 F0",
                          mac: "93 66 FA 19 5E B5 66 F5 BD 2B AD 40 20 B8 30 02", keyNumber: 3)
    let written = [UInt8](repeating: 0x22, count: 25)
    #expect(Self.answer(tag, hex("90 8D 00 00 28 00 00 00 00 19 00 00") + written + hex("68 F2 C2 8C 57 5A 16 28 00"))
      == hex("08 20 F6 88 98 C2 A7 F1 91 00"))
    #expect(tag.applications.first?.files[0]?.data.prefix(25) == written[...])
    #expect(Self.answer(tag, hex("90 AD 00 00 0F 00 00 00 00 30 00 00 0D 9B E1 91 D5 96 08 34 00"))
      == written + [UInt8](repeating: 0, count: 23) + hex("A4 9A 44 22 2D 92 66 66 91 00"))
    #expect(tag.ev2Session?.commandCounter == 2)
  }

  @Test func fullModeWriteAndReadAnswerTables25And26() throws {
    let tag = try Self.light()
    #expect(tag.applications.first?.files[0]?.communication == .full)   // the factory Light's file 00
    try Self.enterSession(tag, ti: "CD 73 D8 E5", encryption: "FF BC FE 1F 41 84 0A 09 C9 A8 8D 0A 4B 10 DF 05",
                          mac: "37 E7 23 4B 11 BE BE FD E4 1A 8F 29 00 90 EF 80", keyNumber: 3)
    #expect(Self.answer(tag, hex("90 8D 00 00 2F 00 00 00 00 19 00 00"
                                 + "D7 44 6F BC 91 25 80 C0 A6 5E 73 8D 28 B6 09 E4 3A DB B8 FB 2B 4C A6 87 44 D1 BB EB B3 7E BD 32"
                                 + "70 0A DF 7B B9 F6 2A 6C 00"))
      == hex("B9 A5 34 A7 A7 3E E0 DD 91 00"))
    #expect(tag.applications.first?.files[0]?.data.prefix(25) == [UInt8](repeating: 0x22, count: 25)[...])
    #expect(Self.answer(tag, hex("90 AD 00 00 0F 00 00 00 00 30 00 00 7C F9 4F 12 2B 3D B0 5F 00"))
      == hex("88 48 D0 F9 B9 FD 44 95 77 0C 89 92 5B 2A 85 C7 27 4D 35 0F A9 02 9C 48 4D 43 80 48 86 66 2D C4"
             + "2D 7F 40 A6 D7 A4 15 E4 A7 1E FF 79 EB 8E 57 21 AC 3B F1 CA AF E8 EB 2C AA 2D C1 62 E6 7A 97 A3"
             + "8E D7 88 8F 22 B3 A5 87 91 00"))
    #expect(tag.ev2Session?.commandCounter == 2)
  }

  /// Table 39 quotes GetKeyVersion's command only: the card takes its MACt and answers key 0's
  /// version under the same session, which the host's side of the module checks.
  @Test func getKeyVersionTakesTable39sCommand() throws {
    let tag = try Self.light()
    let mac = "AA B7 99 EB B2 B2 2A C7 9D 7F 3E B0 E1 CF D4 9E"
    try Self.enterSession(tag, ti: "50 84 A1 A3", encryption: mac, mac: mac, keyNumber: 0)
    let answer = Self.answer(tag, hex("90 64 00 00 09 00 7F 0A 6E AB C1 74 B6 DF 00"))
    var host = try HostSession(transactionIdentifier: hex("50 84 A1 A3"), keys: EV2SessionKeys(encryption: hex(mac), mac: hex(mac)),
                               keyNumber: 0)
    _ = try host.command(0x64, header: [0x00], mode: .mac)
    #expect(try host.response(to: 0x64, answer, mode: .mac) == [tag.applications.first?.keys.first?.version ?? 0xFF])
  }

  /// Table 40: key 0, the session's own, to 0123…01 version 00; `91 00` without a MAC, the
  /// session over.
  @Test func changeKeyOfKey0AnswersTable40() throws {
    let tag = try Self.light()
    try Self.enterSession(tag, ti: "94 29 7F 4D", encryption: "E1 56 C8 52 2F 7C 8D C8 2B 0C 99 BA 84 7D E7 23",
                          mac: "45 D5 0C 15 70 00 0D 2F 17 3D F9 49 28 8E 3C AD", keyNumber: 0)
    #expect(Self.answer(tag, hex("90 C4 00 00 29 00"
                                 + "BF 54 00 DC 97 A1 FB D6 5B E8 70 71 6D 6F 11 F8 16 1B B4 CA 47 28 56 DB 94 AB 94 B2 EC 1A 13 E6"
                                 + "27 CE 07 CF 56 C1 10 91 00"))
      == hex("91 00"))
    let key = try #require(tag.applications.first?.keys.first)
    #expect(key.value == hex("01 23 45 67 89 01 23 45 67 89 01 23 45 67 89 01") && key.version == 0x00)
    #expect(tag.ev2Session == nil)
  }

  /// The recorded Full-mode write with one ciphertext bit flipped: an integrity error (91 1E),
  /// the file unchanged and the session over.
  @Test func aFlippedBitInTheRecordedWriteIsAnIntegrityError() throws {
    let tag = try Self.light()
    try Self.enterSession(tag, ti: "CD 73 D8 E5", encryption: "FF BC FE 1F 41 84 0A 09 C9 A8 8D 0A 4B 10 DF 05",
                          mac: "37 E7 23 4B 11 BE BE FD E4 1A 8F 29 00 90 EF 80", keyNumber: 3)
    #expect(Self.answer(tag, hex("90 8D 00 00 2F 00 00 00 00 19 00 00"
                                 + "D7 44 6F BD 91 25 80 C0 A6 5E 73 8D 28 B6 09 E4 3A DB B8 FB 2B 4C A6 87 44 D1 BB EB B3 7E BD 32"
                                 + "70 0A DF 7B B9 F6 2A 6C 00"))
      == hex("91 1E"))
    #expect(tag.applications.first?.files[0]?.data.prefix(25) == [UInt8](repeating: 0, count: 25)[...])
    #expect(tag.ev2Session == nil)
  }
}
