import DESFire
import EV2SecureMessaging
import Testing

/// NXP's published EV2 secure-messaging examples for the MIFARE DESFire Light, byte for byte, on
/// both sides of the shared module over DESFire's OpenSSL backend: the host against the recorded
/// answers, the card (`EV2CardAuthentication`, `EV2CardSession`) against the recorded commands.
/// The examples are NXP AN12343 "MIFARE DESFire Light features and hints" (rev 1.1); the DESFire
/// EV2/EV3 use the same scheme (MF2DLHX0 §9, NT4H2421Gx §9.1). AN12343's body is not searchable,
/// so each value is the one these public sources quote from it, with its table or page:
/// - AuthenticateEV2First, table 16 (pp. 33–35): GtechGovind/desfire-sdk,
///   tests/unit/ev3_security_test.cpp (`authentication_vectors`, every frame), its session keys
///   also in RfidResearchGroup/proxmark3 client/src/mifare/desfiretest.c (`TestEV2SessionKeys`);
/// - GetCardUID in CommMode.Full, pp. 15–17: MichaelsPlayground/TalkToYourDESFireCard,
///   app/src/main/java/de/androidcrypto/talktoyourdesfirecard/DesfireAuthenticateEv2.java
///   (`decryptDataTest`, `macOverCommandTest`, `truncateMACTest`);
/// - WriteData and ReadData in CommMode.Full, tables 25 and 26 (pp. 55–58): the same Java file
///   (`writeDataFullPart1Test`, `readDataFullPart1Test`: IV, ciphertext, MAC, both command APDUs)
///   and ev3_security_test.cpp (`messaging_vectors`: the same, and both answers);
/// - GetKeyVersion's command MAC, table 39, and ChangeKey of key 0, table 40 (IV, ciphertext,
///   MACt): drusifer/ntag424_sdm_provisioner, tests/test_an12343_getkeyversion.py and
///   tests/test_crypto_components.py (`TestAN12343Vectors`).
/// The MAC-mode example of tables 23 and 24 is EV2SecureMessagingTests'; the virtual DESFire
/// Light answers all four in DESFireEmulatorTests' PublishedTranscriptCardTests.
@Suite struct PublishedTranscriptTests {
  typealias Host = EV2HostSession<DESFireEV2Cipher>
  typealias Card = EV2CardSession<DESFireEV2Cipher>

  // MARK: AuthenticateEV2First, AN12343 table 16: key 0 = 00×16.

  static let zeroKey = [UInt8](repeating: 0, count: 16)
  static let rndA = hex("B0 4D 07 87 C9 3E E0 CC 8C AC C8 E8 6F 16 C6 FE")
  static let rndB = hex("FA 65 9A D0 DC A7 38 DD 65 DC 7D C3 86 12 AD 81")
  static let encryptedRndB = hex("24 67 7D DB D4 63 49 E6 23 79 8F D7 29 00 6E 79")
  static let partTwo = hex("90 AF 00 00 20 3B 50 44 5F 21 D2 1D 77 D5 00 79 4D EB 24 5E 5A"
                           + "75 4F 5F 90 18 44 25 9F 4C 9B 31 A5 C7 33 5A CD 00")
  static let partTwoAnswer = hex("04 C6 DB D6 74 17 ED 0D 31 DD DE 4D 2E 3F FA C2 B4 B0 74 F6 38 EE F7 FF F9 25 49 63 B6 5C 77 59")
  static let authenticationTI = hex("8C F1 41 F3")

  @Test func authenticateEV2FirstOnTheHost() throws {
    #expect(EV2HostAuthentication<DESFireEV2Cipher>.firstCommand(keyNumber: 0) == hex("90 71 00 00 02 00 00 00"))
    let host = try EV2HostAuthentication<DESFireEV2Cipher>(key: Self.zeroKey, keyNumber: 0,
                                                            encryptedRndB: Self.encryptedRndB, rndA: Self.rndA)
    #expect(try host.secondCommand() == Self.partTwo)
    let session = try host.finish(response: Self.partTwoAnswer + [0x91, 0x00])
    #expect(session.transactionIdentifier == Self.authenticationTI && session.commandCounter == 0)
    #expect(session.capabilities == AuthenticationCapabilities(pdCap2: [0, 0, 0, 0, 0, 0], pcdCap2: [0, 0, 0, 0, 0, 0]))
    #expect(session.keys.encryption == hex("63 DC 07 28 62 89 A7 A6 C0 33 4C A3 1C 31 4A 04"))
    #expect(session.keys.mac == hex("77 4F 26 74 3E CE 6A F5 03 3B 6A E8 52 29 46 F6"))
    // The same answer with one bit flipped is not the card's: RndA' does not check.
    var forged = Self.partTwoAnswer
    forged[5] ^= 0x01
    #expect(throws: EV2Error.authenticationFailed) { try host.finish(response: forged + [0x91, 0x00]) }
  }

  @Test func authenticateEV2FirstOnTheCard() throws {
    let card = try EV2CardAuthentication<DESFireEV2Cipher>(key: Self.zeroKey, keyNumber: 0, rndB: Self.rndB)
    #expect(card.encryptedRndB == Self.encryptedRndB)
    let token = Self.partTwo[5..<37]
    let (answer, session) = try card.answerFirst(token, transactionIdentifier: Self.authenticationTI)
    #expect(answer == Self.partTwoAnswer)
    #expect(session.transactionIdentifier == Self.authenticationTI && session.commandCounter == 0)
  }

  // MARK: GetCardUID in CommMode.Full, AN12343 pp. 15–17.

  static let uidTI = hex("56 9D 4B 24")
  static func uidKeys() throws -> EV2SessionKeys {
    try EV2SessionKeys(encryption: hex("C1 D7 BD 9F 60 03 4D 84 32 F9 AF 34 03 D5 73 D0"),
                       mac: hex("FD 9E 26 C9 76 6F 07 C1 D0 71 06 C0 F8 F3 67 1F"))
  }
  static let uid = hex("04 DE 5F 1E AC C0 40")
  static let uidAnswer = hex("CD FF BF 6D 34 23 1D A2 78 9D A9 D3 AB 15 D5 60 CE 75 E3 9E DB E9 4C 2F")

  @Test func getCardUIDOnTheHost() throws {
    let keys = try Self.uidKeys()
    // The command's whole CMAC and MACt (p. 16): the bytes at odd indices.
    let cmac = try DESFireEV2Cipher.cmac(EV2Frames.commandMACInput(code: 0x51, counter: 0, transactionIdentifier: Self.uidTI,
                                                                   header: [], data: []), key: keys.mac)
    #expect(cmac == hex("ED 5C B7 A9 32 EF 8D 7C 2E 91 B4 2A 11 39 F1 1B"))
    #expect(EV2Frames.truncate(cmac) == hex("5C A9 EF 7C 91 2A 39 1B"))
    var host = try Host(transactionIdentifier: Self.uidTI, keys: keys, keyNumber: 0)
    #expect(try host.command(0x51, mode: .full) == hex("90 51 00 00 08 5C A9 EF 7C 91 2A 39 1B 00"))
    // The answer's IV (p. 17) and its data: the UID, then padding 80 00….
    let iv = try DESFireEV2Cipher.encryptBlock(
      EV2Frames.ivInput(label: (0x5A, 0xA5), transactionIdentifier: Self.uidTI, counter: 1), key: keys.encryption)
    #expect(iv == hex("5A 42 EC B2 11 1A 92 67 FA 5F 26 82 52 32 29 AC"))
    #expect(try host.response(to: 0x51, Self.uidAnswer + [0x91, 0x00], mode: .full) == Self.uid)
    #expect(host.commandCounter == 1)
  }

  @Test func getCardUIDOnTheCard() throws {
    var card = try Card(transactionIdentifier: Self.uidTI, keys: Self.uidKeys(), keyNumber: 0)
    #expect(try card.unwrapCommand(0x51, header: [], body: hex("5C A9 EF 7C 91 2A 39 1B"), mode: .full) == [])
    #expect(try card.wrapResponse(Self.uid, mode: .full) == Self.uidAnswer)
    #expect(card.commandCounter == 1)
  }

  // MARK: WriteData and ReadData in CommMode.Full, AN12343 tables 25 and 26 (pp. 55–58).

  static let fullTI = hex("CD 73 D8 E5")
  static func fullKeys() throws -> EV2SessionKeys {
    try EV2SessionKeys(encryption: hex("FF BC FE 1F 41 84 0A 09 C9 A8 8D 0A 4B 10 DF 05"),
                       mac: hex("37 E7 23 4B 11 BE BE FD E4 1A 8F 29 00 90 EF 80"))
  }
  static let written = [UInt8](repeating: 0x22, count: 25)
  static let writeHeader = hex("00 000000 190000")
  static let writeBody = hex("D7 44 6F BC 91 25 80 C0 A6 5E 73 8D 28 B6 09 E4 3A DB B8 FB 2B 4C A6 87 44 D1 BB EB B3 7E BD 32"
                             + "70 0A DF 7B B9 F6 2A 6C")
  static let writeAnswer = hex("B9 A5 34 A7 A7 3E E0 DD")
  static let readHeader = hex("00 000000 300000")
  static let readMAC = hex("7C F9 4F 12 2B 3D B0 5F")
  static let readAnswer = hex("88 48 D0 F9 B9 FD 44 95 77 0C 89 92 5B 2A 85 C7 27 4D 35 0F A9 02 9C 48 4D 43 80 48 86 66 2D C4"
                              + "2D 7F 40 A6 D7 A4 15 E4 A7 1E FF 79 EB 8E 57 21 AC 3B F1 CA AF E8 EB 2C AA 2D C1 62 E6 7A 97 A3"
                              + "8E D7 88 8F 22 B3 A5 87")
  /// The file's first 48 bytes after the write: 25 × 22h, then the factory's zeros.
  static let read = [UInt8](repeating: 0x22, count: 25) + [UInt8](repeating: 0, count: 23)

  @Test func fullModeWriteAndReadOnTheHost() throws {
    let keys = try Self.fullKeys()
    let iv = try DESFireEV2Cipher.encryptBlock(
      EV2Frames.ivInput(label: (0xA5, 0x5A), transactionIdentifier: Self.fullTI, counter: 0), key: keys.encryption)
    #expect(iv == hex("87 17 47 AF 36 D7 21 64 A4 18 BB FE CC EC D9 11"))
    var host = try Host(transactionIdentifier: Self.fullTI, keys: keys, keyNumber: 0)
    #expect(try host.command(0x8D, header: Self.writeHeader, data: Self.written, mode: .full)
      == hex("90 8D 00 00 2F") + Self.writeHeader + Self.writeBody + [0x00])
    #expect(try host.response(to: 0x8D, Self.writeAnswer + [0x91, 0x00], mode: .full) == [])
    #expect(try host.command(0xAD, header: Self.readHeader, mode: .full)
      == hex("90 AD 00 00 0F 00 00 00 00 30 00 00 7C F9 4F 12 2B 3D B0 5F 00"))
    // 48 bytes are three whole blocks: the card padded a fourth, all padding.
    #expect(try host.response(to: 0xAD, Self.readAnswer + [0x91, 0x00], mode: .full) == Self.read)
    #expect(host.commandCounter == 2)
  }

  @Test func fullModeWriteAndReadOnTheCard() throws {
    var card = try Card(transactionIdentifier: Self.fullTI, keys: Self.fullKeys(), keyNumber: 0)
    #expect(try card.unwrapCommand(0x8D, header: Self.writeHeader, body: Self.writeBody, mode: .full) == Self.written)
    #expect(try card.wrapResponse([], mode: .full) == Self.writeAnswer)
    #expect(try card.unwrapCommand(0xAD, header: Self.readHeader, body: Self.readMAC, mode: .full) == [])
    #expect(try card.wrapResponse(Self.read, mode: .full) == Self.readAnswer)
    #expect(card.commandCounter == 2)
  }

  // MARK: GetKeyVersion in CommMode.MAC (table 39) and ChangeKey of the session's key (table 40).

  static let keyVersionTI = hex("50 84 A1 A3")
  static let keyVersionMAC = hex("AA B7 99 EB B2 B2 2A C7 9D 7F 3E B0 E1 CF D4 9E")
  static let changeKeyTI = hex("94 29 7F 4D")
  static func changeKeyKeys() throws -> EV2SessionKeys {
    try EV2SessionKeys(encryption: hex("E1 56 C8 52 2F 7C 8D C8 2B 0C 99 BA 84 7D E7 23"),
                       mac: hex("45 D5 0C 15 70 00 0D 2F 17 3D F9 49 28 8E 3C AD"))
  }
  static let newKey = hex("01 23 45 67 89 01 23 45 67 89 01 23 45 67 89 01")
  static let changeKeyBody = hex("BF 54 00 DC 97 A1 FB D6 5B E8 70 71 6D 6F 11 F8 16 1B B4 CA 47 28 56 DB 94 AB 94 B2 EC 1A 13 E6"
                                 + "27 CE 07 CF 56 C1 10 91")

  /// Only the command is quoted: MACt over `64 0000 TI 00`, the key number the header.
  @Test func getKeyVersionCommand() throws {
    // MAC mode needs no encryption key; the MAC key stands in for it.
    let keys = try EV2SessionKeys(encryption: Self.keyVersionMAC, mac: Self.keyVersionMAC)
    let host = try Host(transactionIdentifier: Self.keyVersionTI, keys: keys, keyNumber: 0)
    #expect(try host.command(0x64, header: [0x00], mode: .mac) == hex("90 64 00 00 09 00 7F 0A 6E AB C1 74 B6 DF 00"))
    let card = try Card(transactionIdentifier: Self.keyVersionTI, keys: keys, keyNumber: 0)
    #expect(try card.unwrapCommand(0x64, header: [0x00], body: hex("7F 0A 6E AB C1 74 B6 DF"), mode: .mac) == [])
  }

  /// Key 0, the session's own, to 0123…01 version 00: `NewKey ‖ KeyVer` padded, the IV of CmdCtr 0.
  @Test func changeKeyOfTheSessionKey() throws {
    let keys = try Self.changeKeyKeys()
    let iv = try DESFireEV2Cipher.encryptBlock(
      EV2Frames.ivInput(label: (0xA5, 0x5A), transactionIdentifier: Self.changeKeyTI, counter: 0), key: keys.encryption)
    #expect(iv == hex("BF 4A 2F B8 93 11 ED 58 E9 DC BE 56 FC 17 79 4C"))
    let plaintext = Host.changeKeyPlaintext(newKey: Self.newKey, newVersion: 0x00, oldKey: nil) { _ in 0 }
    #expect(EV2Frames.pad(plaintext) == Self.newKey + hex("00 80") + [UInt8](repeating: 0, count: 14))
    var host = try Host(transactionIdentifier: Self.changeKeyTI, keys: keys, keyNumber: 0)
    #expect(try host.command(0xC4, header: [0x00], data: plaintext, mode: .full)
      == hex("90 C4 00 00 29 00") + Self.changeKeyBody + [0x00])
    // The card answers 91 00 without a MAC and the session ends (AN12196 §5.16, the same scheme).
    try host.changeKeyResponse(keyNumber: 0, [0x91, 0x00])
    #expect(host.hasEnded)
    var card = try Card(transactionIdentifier: Self.changeKeyTI, keys: keys, keyNumber: 0)
    let opened = try card.unwrapCommand(0xC4, header: [0x00], body: Self.changeKeyBody, mode: .full)
    let changed = try Card.openChangeKey(opened, oldKey: nil) { _ in 0 }
    #expect(changed.newKey == Self.newKey && changed.version == 0x00)
    card.countUnMACedResponse()
    #expect(card.commandCounter == 1)
  }

  /// One flipped bit anywhere in the recorded ciphertext is refused before any data: the host
  /// ends its session, the card answers an integrity error (91 1E).
  @Test func aFlippedBitInTheRecordedFullModeBytesIsRefused() throws {
    var host = try Host(transactionIdentifier: Self.fullTI, keys: Self.fullKeys(), keyNumber: 0)
    _ = try host.command(0x8D, header: Self.writeHeader, data: Self.written, mode: .full)
    _ = try host.response(to: 0x8D, Self.writeAnswer + [0x91, 0x00], mode: .full)
    _ = try host.command(0xAD, header: Self.readHeader, mode: .full)
    var answer = Self.readAnswer
    answer[20] ^= 0x80
    #expect(throws: EV2Error.responseMACMismatch(command: 0xAD)) { try host.response(to: 0xAD, answer + [0x91, 0x00], mode: .full) }
    #expect(host.hasEnded)
    let card = try Card(transactionIdentifier: Self.fullTI, keys: Self.fullKeys(), keyNumber: 0)
    var body = Self.writeBody
    body[3] ^= 0x01
    #expect(throws: EV2CardError.integrity) { try card.unwrapCommand(0x8D, header: Self.writeHeader, body: body, mode: .full) }
  }
}
