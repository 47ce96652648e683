import DESFire
import EV2SecureMessaging
import Testing

/// EV2 secure messaging on the DESFire side (libcrypto's AES), checked against the values NXP
/// publishes in AN12343 "MIFARE DESFire Light features and hints" (the DESFire Light, whose scheme
/// the DESFire EV2/EV3 share), as Proxmark3 quotes them in client/src/mifare/desfiretest.c (the
/// page numbers are AN12343's): the host against the recorded answers, the card against the
/// recorded commands.
@Suite struct EV2SecureMessagingTests {
  typealias Host = EV2HostSession<DESFireEV2Cipher>
  typealias Card = EV2CardSession<DESFireEV2Cipher>

  /// AN12343 pp. 33-34: AuthenticateEV2First with key 0 = 00×16.
  let rndA = hex("B0 4D 07 87 C9 3E E0 CC 8C AC C8 E8 6F 16 C6 FE")
  let rndB = hex("FA 65 9A D0 DC A7 38 DD 65 DC 7D C3 86 12 AD 81")

  @Test func sessionKeysOfAN12343() throws {
    #expect(EV2Frames.sessionVector(label: (0xA5, 0x5A), rndA: rndA, rndB: rndB)
      == hex("A5 5A 00 01 00 80 B0 4D FD E2 53 EE 3C 6B 38 DD 65 DC 7D C3 86 12 AD 81 8C AC C8 E8 6F 16 C6 FE"))
    let keys = try EV2SessionKeys(DESFireEV2Cipher.self, key: [UInt8](repeating: 0, count: 16), rndA: rndA, rndB: rndB)
    #expect(keys.encryption == hex("63 DC 07 28 62 89 A7 A6 C0 33 4C A3 1C 31 4A 04"))
    #expect(keys.mac == hex("77 4F 26 74 3E CE 6A F5 03 3B 6A E8 52 29 46 F6"))
  }

  /// Host and card run AuthenticateEV2First against each other with AN12343's challenges and end
  /// with AN12343's session keys on both sides.
  @Test func hostAndCardAuthenticateToAN12343sKeys() throws {
    let key = [UInt8](repeating: 0, count: 16)
    let card = try EV2CardAuthentication<DESFireEV2Cipher>(key: key, keyNumber: 0, rndB: rndB)
    #expect(EV2HostAuthentication<DESFireEV2Cipher>.firstCommand(keyNumber: 0) == hex("90 71 00 00 02 00 00 00"))
    let host = try EV2HostAuthentication<DESFireEV2Cipher>(key: key, keyNumber: 0, encryptedRndB: card.encryptedRndB, rndA: rndA)
    let second = try host.secondCommand()
    #expect(second.prefix(5) == [0x90, 0xAF, 0x00, 0x00, 0x20] && second.count == 38)
    let answer = try card.answerFirst(second[5..<37], transactionIdentifier: hex("E2 D3 AF 69"))
    let session = try host.finish(response: answer.response + [0x91, 0x00])
    #expect(session.transactionIdentifier == hex("E2 D3 AF 69") && session.commandCounter == 0)
    #expect(session.keys.mac == hex("77 4F 26 74 3E CE 6A F5 03 3B 6A E8 52 29 46 F6"))
    // A wrong RndB' (another key on the host) is refused by the card.
    let wrong = try EV2HostAuthentication<DESFireEV2Cipher>(key: [UInt8](repeating: 1, count: 16), keyNumber: 0,
                                                              encryptedRndB: card.encryptedRndB, rndA: rndA)
    #expect(throws: EV2Error.authenticationFailed) { try card.answerFirst(try wrong.secondCommand()[5..<37], transactionIdentifier: [1, 2, 3, 4]) }
  }

  /// AN12343 p. 54: WriteData then ReadData in CommMode.MAC, SesAuthMACKey 9366…3002, TI E2D3AF69.
  let macKey = hex("93 66 FA 19 5E B5 66 F5 BD 2B AD 40 20 B8 30 02")
  let ti = hex("E2 D3 AF 69")
  let written = [UInt8](repeating: 0x22, count: 25)

  @Test func macModeTranscriptOnTheHost() throws {
    var host = try Host(transactionIdentifier: ti, keys: EV2SessionKeys(encryption: macKey, mac: macKey), keyNumber: 0)
    let write = try host.command(0x8D, header: hex("00 000000 190000"), data: written, mode: .mac)
    #expect(Array(write.suffix(9).prefix(8)) == hex("68 F2 C2 8C 57 5A 16 28"))
    #expect(try host.response(to: 0x8D, hex("08 20 F6 88 98 C2 A7 F1 91 00"), mode: .mac) == [])
    let read = try host.command(0xAD, header: hex("00 000000 300000"), mode: .mac)
    #expect(Array(read.suffix(9).prefix(8)) == hex("0D 9B E1 91 D5 96 08 34"))
    let data = written + [UInt8](repeating: 0, count: 23)
    #expect(try host.response(to: 0xAD, data + hex("A4 9A 44 22 2D 92 66 66 91 00"), mode: .mac) == data)
    #expect(host.commandCounter == 2)
  }

  @Test func macModeTranscriptOnTheCard() throws {
    var card = try Card(transactionIdentifier: ti, keys: EV2SessionKeys(encryption: macKey, mac: macKey), keyNumber: 0)
    #expect(try card.unwrapCommand(0x8D, header: hex("00 000000 190000"), body: written + hex("68 F2 C2 8C 57 5A 16 28"), mode: .mac) == written)
    #expect(try card.wrapResponse([], mode: .mac) == hex("08 20 F6 88 98 C2 A7 F1"))
    #expect(try card.unwrapCommand(0xAD, header: hex("00 000000 300000"), body: hex("0D 9B E1 91 D5 96 08 34"), mode: .mac) == [])
    let data = written + [UInt8](repeating: 0, count: 23)
    #expect(try card.wrapResponse(data, mode: .mac) == data + hex("A4 9A 44 22 2D 92 66 66"))
    // One flipped MAC bit is an integrity error (91 1E), never data.
    #expect(throws: EV2CardError.integrity) {
      try card.unwrapCommand(0xAD, header: hex("00 000000 300000"), body: hex("0D 9B E1 91 D5 96 08 35"), mode: .mac)
    }
  }

  @Test func answerWithAFlippedMACEndsTheHostSession() throws {
    var host = try Host(transactionIdentifier: ti, keys: EV2SessionKeys(encryption: macKey, mac: macKey), keyNumber: 0)
    _ = try host.command(0x8D, header: hex("00 000000 190000"), data: written, mode: .mac)
    #expect(throws: EV2Error.responseMACMismatch(command: 0x8D)) {
      try host.response(to: 0x8D, hex("08 20 F6 88 98 C2 A7 F0 91 00"), mode: .mac)
    }
    #expect(host.hasEnded)
  }

  /// Full mode's command IV: Proxmark3's desfiretest.c (SesAuthENCKey 66A8…697B, TI ED56F6E6,
  /// CmdCtr 0), and its cross-check vector (CmdCtr 5).
  @Test func fullModeIVs() throws {
    let iv = try DESFireEV2Cipher.encryptBlock(
      EV2Frames.ivInput(label: (0xA5, 0x5A), transactionIdentifier: hex("ED 56 F6 E6"), counter: 0),
      key: hex("66 A8 CB 93 26 9D C9 BC 28 85 B7 A9 1B 9C 69 7B"))
    #expect(iv == hex("DA 0F 64 4A 49 86 27 59 57 CF 1E C3 AF 4C CE 53"))
    let iv5 = try DESFireEV2Cipher.encryptBlock(
      EV2Frames.ivInput(label: (0xA5, 0x5A), transactionIdentifier: hex("11 22 33 44"), counter: 5),
      key: hex("44 5A 86 26 B3 33 84 59 32 12 32 FA DF 6A DE 2B"))
    #expect(iv5 == hex("17 74 94 FC C4 F1 DA B2 AF BE 8F AE 20 57 A9 D2"))
  }

  /// Full mode both ways: what the host enciphers the card opens, and back, with CmdCtr in step.
  @Test func fullModeRoundTrip() throws {
    let keys = try EV2SessionKeys(DESFireEV2Cipher.self, key: hex("00 11 22 33 44 55 66 77 88 99 AA BB CC DD EE FF"),
                                  rndA: hex("01 23 45 67 89 AB CD EF 01 23 45 67 89 AB CD EF"),
                                  rndB: hex("FE DC BA 98 76 54 32 10 FE DC BA 98 76 54 32 10"))
    // Proxmark3's cross-check of the session keys (desfiretest.c).
    #expect(keys.encryption == hex("19 54 28 11 9C 85 28 D5 95 80 A7 3C 7C 96 C6 A3"))
    #expect(keys.mac == hex("0A F0 0F 6E 39 F9 04 C4 A6 38 8C 81 2D 53 DC 94"))
    var host = try Host(transactionIdentifier: [9, 8, 7, 6], keys: keys, keyNumber: 1)
    var card = try Card(transactionIdentifier: [9, 8, 7, 6], keys: keys, keyNumber: 1)
    for length in [0, 1, 15, 16, 17, 100] {
      let data = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7) }
      let apdu = try host.command(0x3D, header: [0x02, 0, 0, 0, UInt8(length), 0, 0], data: data, mode: .full)
      let body = Array(apdu[12..<(apdu.count - 1)])
      #expect(try card.unwrapCommand(0x3D, header: [0x02, 0, 0, 0, UInt8(length), 0, 0], body: body, mode: .full) == data)
      let answer = try card.wrapResponse(data, mode: .full)
      #expect(try host.response(to: 0x3D, answer + [0x91, 0x00], mode: .full) == data)
    }
    #expect(host.commandCounter == 6 && card.commandCounter == 6)
  }
}
