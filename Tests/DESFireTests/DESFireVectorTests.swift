import DESFire
import Testing

/// DESFire's cryptography against published values: NIST SP 800-38B, ISO/IEC 14443-3 Annex B,
/// exchanges recorded from real cards (https://github.com/RfidResearchGroup/proxmark3/issues/2961,
/// NXP TagInfo through a relay in BdF-LabSec/kpn532, https://github.com/pokusew/nfc-pcsc/issues/17)
/// and the worked examples of revk/DESFireAES's "DESFire EV1 protocol" (pp. 17-23), each with every
/// intermediate value.
@Suite struct DESFireVectorTests {
  @Test func checksums() {
    #expect(DESFireCRC.crc32(hex("00 10 20 30 40 50 60 70 80 90 A0 B0 B0 A0 90 80")) == hex("BF E3 79 19"))
    #expect(DESFireCRC.crc32(Array("123456789".utf8)) == hex("D9 C6 0B 34"))   // NOT of CRC-32's CBF43926
    #expect(DESFireCRC.crc16([0x00, 0x00]) == hex("A0 1E"))                     // ISO/IEC 14443-3 Annex B
  }

  @Test func cmacFromAZeroIVIsNISTs() throws {
    // NIST SP 800-38B, D.1 AES-128 example 2 (one block) and example 3 (40 bytes).
    let aes = try DESFireCipher.aes(hex("2b7e1516 28aed2a6 abf71588 09cf4f3c"))
    let zero = [UInt8](repeating: 0, count: 16)
    #expect(try aes.cmac(hex("6bc1bee2 2e409f96 e93d7e11 7393172a"), iv: zero) == hex("070a16b4 6b4d4144 f79bdd9d d04a287c"))
    #expect(try aes.cmac(hex("6bc1bee2 2e409f96 e93d7e11 7393172a ae2d8a57 1e03ac9c 9eb76fac 45af8e51 30c81c46 a35ce411"),
                         iv: zero) == hex("dfa66747 de9ae630 30ca3261 1497c827"))
    #expect(throws: DESFireCryptoError.self) { try aes.cmac([], iv: zero) }
    #expect(throws: DESFireCryptoError.self) { try DESFireCipher.aes(hex("00 11")) }
    #expect(!String(describing: aes).contains("2b"))
  }

  @Test func authenticateISOWithDESThenFormatPICCAsARealCardAnswered() throws {
    // https://github.com/RfidResearchGroup/proxmark3/issues/2961: 1A with the factory DES key,
    // RndB 99D2F4FF53EF2D54, RndA 0102…08.
    let key = try DESFireKeyMaterial(.des, [UInt8](repeating: 0, count: 8))
    let card = try DESFireCardAuthentication(command: .iso, key: key, rndB: hex("99 D2 F4 FF 53 EF 2D 54"))
    #expect(card.challenge == hex("83 B8 79 40 92 32 72 59"))
    let finished = try #require(try card.finish(hex("CC 45 06 66 5C 22 9B 49 BB D7 B6 71 13 A9 42 F3")))
    #expect(finished.answer == hex("03 FB 11 80 0B 82 04 95"))
    let session = try DESFireCardAuthentication.sessionKey(rndA: hex("01 02 03 04 05 06 07 08"),
                                                           rndB: hex("99 D2 F4 FF 53 EF 2D 54"), key: key)
    #expect(session.isSingleDES)
    // FormatPICC: the command's CMAC (not sent) moves the IV; the card's `00` carries CMAC(00).
    let channel = try DESFireEV1Channel(sessionKey: finished.sessionKey)
    try channel.mac([0xFC])
    #expect(try channel.macAnswer([], status: 0x00) == hex("0A 28 19 F8 0B A0 56 A0"))
    #expect(try card.finish(hex("CC 45 06 66 5C 22 9B 49 BB D7 B6 71 13 A9 42 F4")) == nil)  // wrong RndB'
    #expect(try card.finish(hex("CC 45")) == nil)
  }

  @Test func authenticateAESAsRevkWorksItOut() throws {
    let key = try DESFireKeyMaterial(.aes, [UInt8](repeating: 0, count: 16))
    let card = try DESFireCardAuthentication(command: .aes, key: key, rndB: hex("C0 5D DD 71 4F D7 88 A6 B7 B7 54 F3 C4 D0 66 E8"))
    #expect(card.challenge == hex("B9 69 FD FE 56 FD 91 FC 9D E6 F6 F2 13 B8 FD 1E"))
    let finished = try #require(try card.finish(hex(
      "36 AA D7 DF 6E 43 6B A0 8D 18 61 38 30 A7 0D 5A D4 3E 3D 3F 4A 8D 47 54 1E EE 62 3A 93 4E 47 74")))
    #expect(finished.answer == hex("80 0D B6 80 BC 14 6B D1 21 D6 57 8F 2D 2E 20 59"))
    let session = try DESFireCardAuthentication.sessionKey(rndA: hex("F4 4B 26 F5 68 6F 3A 39 1C D3 8E BD 10 77 22 81"),
                                                           rndB: hex("C0 5D DD 71 4F D7 88 A6 B7 B7 54 F3 C4 D0 66 E8"), key: key)
    // Both channels agree, and the session key is revk's F44B26F5 C05DDD71 10772281 C4D066E8.
    let expected = try DESFireEV1Channel(sessionKey: DESFireKeyMaterial(.aes, hex("F4 4B 26 F5 C0 5D DD 71 10 77 22 81 C4 D0 66 E8")))
    let derived = try DESFireEV1Channel(sessionKey: session), fromCard = try DESFireEV1Channel(sessionKey: finished.sessionKey)
    let probe = try expected.mac([0x6E]), again = try derived.mac([0x6E]), third = try fromCard.mac([0x6E])
    #expect(probe == again && again == third)
    #expect(throws: DESFireCryptoError.wrongKeyType) { try DESFireCardAuthentication(command: .iso, key: key) }
  }

  @Test func changeKeyOfThePICCMasterKeyToAESAsRevkSendsIt() throws {
    // 1A with the DES key 00…00: RndB 8A9D09A43D2DD392, RndA 9F02178326DDE5A2; then ChangeKey 80
    // (key 0, becoming AES) to 00…00 version 01, the "same key" cryptogram.
    let key = try DESFireKeyMaterial(.des, [UInt8](repeating: 0, count: 16))
    let card = try DESFireCardAuthentication(command: .iso, key: key, rndB: hex("8A 9D 09 A4 3D 2D D3 92"))
    #expect(card.challenge == hex("C3 27 E0 B3 AE 78 4F 04"))
    let finished = try #require(try card.finish(hex("DC C7 FB 9A 26 1C 7D FC 01 20 14 A9 2B BB CD CB")))
    #expect(finished.answer == hex("75 FD A7 DC 10 07 12 A4"))
    let channel = try DESFireEV1Channel(sessionKey: finished.sessionKey)
    let cryptogram = hex("61 59 2D C4 0A D3 58 95 16 52 D8 38 31 A2 73 CC E3 EA 31 34 17 83 C4 1E")
    let changed = try #require(try channel.decipherChangeKey(keyNumber: 0x80, cryptogram, keyLength: 16, withVersion: true, oldKey: nil))
    #expect(changed.key == [UInt8](repeating: 0, count: 16) && changed.version == 0x01)
    let replay = try DESFireEV1Channel(sessionKey: finished.sessionKey)
    #expect(try replay.decipherChangeKey(keyNumber: 0x00, cryptogram, keyLength: 16, withVersion: true, oldKey: nil) == nil)
  }

  @Test func legacyAuthenticationAsRealCardsAnswered() throws {
    let key = try DESFireKeyMaterial(.des, [UInt8](repeating: 0, count: 8))
    // NXP TagInfo on an EV3 8K (kpn532's relay trace): its first token block is 00…00.
    let tagInfo = try DESFireCardAuthentication(command: .legacy, key: key, rndB: hex("97 64 21 DC F9 AE DC C0"))
    #expect(tagInfo.challenge == hex("53 AE 95 45 7A 7F DF 83"))
    #expect(try tagInfo.finish(hex("00 00 00 00 00 00 00 00 FB F9 68 23 32 1C 6E 5C"))?.answer == hex("CC 0B 2E 25 55 EA 03 3D"))
    // https://github.com/pokusew/nfc-pcsc/issues/17.
    let pcsc = try DESFireCardAuthentication(command: .legacy, key: key, rndB: hex("0E E3 A5 27 20 E8 13 64"))
    #expect(pcsc.challenge == hex("6B 58 43 85 E0 AD 5D 80"))
    #expect(try pcsc.finish(hex("D5 F5 58 DD 18 23 28 47 50 C0 B9 EC 75 EA 8D 6C"))?.answer == hex("BD 52 C8 3C F3 59 AC EB"))
  }

  @Test func fullModeRoundTripsAndRefusesABadCRC() throws {
    for key in [try DESFireKeyMaterial(.aes, Array(0..<16)), try DESFireKeyMaterial(.tripleDES3K, Array(0..<24)),
                try DESFireKeyMaterial(.des, Array(0..<16))] {
      let host = try DESFireEV1Channel(sessionKey: key), card = try DESFireEV1Channel(sessionKey: key)
      let prefix = hex("3D 01 00 00 00 05 00 00"), data = hex("48 65 6C 6C 6F")
      let sent = try host.encipher(data + DESFireCRC.crc32(prefix + data))
      #expect(try card.decipherCommand(prefix: prefix, sent, length: 5) == data)
      #expect(host.iv == card.iv)
      let other = try DESFireEV1Channel(sessionKey: key)
      #expect(try other.decipherCommand(prefix: hex("3D 02 00 00 00 05 00 00"), sent) == nil)
      let answer = try card.encipherAnswer(data, status: 0x00)
      let plain = try host.cipher.decrypt(answer, iv: host.iv)
      #expect(Array(plain.prefix(9)) == data + DESFireCRC.crc32(data + [0x00]))
    }
  }
}
