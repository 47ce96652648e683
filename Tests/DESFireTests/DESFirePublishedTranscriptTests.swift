import DESFire
import Testing

/// The intermediate values of Elmue's published DESFire EV1 exchanges ("DESFire EV1 Communication
/// Examples", https://github.com/sotechcllc/RFDoorLock/blob/b57097cf6e524c05f5b0ae957d84b6ca40a1dbfe/Desfire%20EV1%20Communication%20Examples.htm,
/// a real EV1 behind a PN532), each side's cryptography against them: the session key of 1Ah
/// with a 2K3DES and a 3K3DES key and of AAh (the transcript prints the DES-family ones with
/// their parity bits cleared), GetKeyVersion's whole CMACs (command and answer), then ChangeKey
/// of the authenticated key from the IV the answer's CMAC left, and ChangeKey of another key
/// (new ⊕ old, CRC32 of the cryptogram and of the new key). The exchanges themselves, frame by
/// frame through the host and the virtual card, are DESFireTagTests' DESFirePublishedTranscriptTests.
@Suite struct DESFirePublishedTranscriptTests {
  struct Session {
    let type: DESFireKeyMaterial.KeyType, key: String, rndA: String, rndB: String, sessionKey: String
    let commandCMAC: String, answerCMAC: String, newKey: String, version: UInt8, cryptogram: String
  }

  static let sessions = [
    // 2K3DES: application 00DE16, key 0 = 10 18 20 29 … 80 88 (version 10h in its parity bits).
    Session(type: .des, key: "10 18 20 29 30 38 40 48 50 58 60 68 70 78 80 88", rndA: "DD B0 97 C2 A1 E4 7B 96",
            rndB: "A4 0E 79 E0 F5 2F 63 AF", sessionKey: "DC B0 96 C2 A4 0E 78 E0 A0 E4 7A 96 F4 2E 62 AE",
            commandCMAC: "8C B2 4F 61 B8 14 A9 56", answerCMAC: "33 45 AA 95 F2 D9 56 CF",
            newKey: "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00", version: 0,
            cryptogram: "FC 9E 20 FD 77 19 1E 2A AB 0C FD 53 D9 99 99 84 BC 59 E8 86 BF EB 42 D0"),
    // 3K3DES: application 00DE24.
    Session(type: .tripleDES3K, key: "10 18 20 29 30 38 40 48 50 58 60 68 70 78 80 88 90 98 A0 A8 B0 B8 C0 C8",
            rndA: "D1 54 2B 86 D5 C8 4F 9A 19 7C B3 EE 9D 70 57 82", rndB: "58 14 D2 51 3D 9E C0 66 68 C0 CC 1B 59 23 7A FD",
            sessionKey: "D0 54 2A 86 58 14 D2 50 4E 9A 18 7C C0 66 68 C0 9C 70 56 82 58 22 7A FC",
            commandCMAC: "54 BF 79 31 E5 18 1A 08", answerCMAC: "AD 4A 52 B1 E3 1C C7 41",
            newKey: String(repeating: "00 ", count: 24), version: 0,
            cryptogram: "E6 D4 F3 40 95 49 F6 38 36 4D 6E 64 69 4E C0 51 D6 08 47 15 9E 10 40 C1 6B 61 36 18 C7 97 F7 07"),
    // AES: application 00AE16 (the AES CMACs whole, 16 bytes).
    Session(type: .aes, key: "10 18 20 28 30 38 40 48 50 58 60 68 70 78 80 88",
            rndA: "90 F7 A2 01 C4 DB 76 05 38 FF 8A 49 EC 63 DE CD", rndB: "91 03 68 45 7E 2E 9A A1 67 35 5B FB 54 4B 99 31",
            sessionKey: "90 F7 A2 01 91 03 68 45 EC 63 DE CD 54 4B 99 31",
            commandCMAC: "25 7F C5 38 61 8A 94 4A 3A 20 96 7B 6F 31 43 48", answerCMAC: "8A 8F A3 6F 55 CD 21 0D D8 05 46 58 AC 70 D9 9A",
            newKey: String(repeating: "00 ", count: 16), version: 0,
            cryptogram: "63 53 75 E4 91 9F 8A F2 E9 E8 6B 1C 1B A5 5B 0C 08 07 EA F4 84 D7 A7 EF 6E 0C 30 84 16 0F 5A 61"),
  ]

  @Test(arguments: sessions) func sessionKeyCMACsAndChangeKeyOfTheAuthenticatedKey(_ s: Session) throws {
    let key = try DESFireKeyMaterial(s.type, hex(s.key))
    let session = try DESFireCardAuthentication.sessionKey(rndA: hex(s.rndA), rndB: hex(s.rndB), key: key)
    // The host's channel on the recorded session key (DES ignores the parity bits the transcript
    // cleared), the card's on the one derived from the randoms: both give the recorded CMACs.
    let host = try DESFireEV1Channel(sessionKey: DESFireKeyMaterial(s.type, hex(s.sessionKey)))
    let cmacLength = hex(s.commandCMAC).count
    try host.mac([0x64, 0x00])
    #expect(Array(host.iv.prefix(cmacLength)) == hex(s.commandCMAC))
    let answer = try DESFireEV1Channel(sessionKey: session)
    try answer.mac([0x64, 0x00])
    #expect(try answer.macAnswer([0x10], status: 0x00) == [0x10] + hex(s.answerCMAC).prefix(8))
    #expect(Array(answer.iv.prefix(cmacLength)) == hex(s.answerCMAC))
    try host.mac([0x10, 0x00])
    // ChangeKey of key 0 (the authenticated one) from that IV.
    let newKey = try DESFireKeyMaterial(s.type, hex(s.newKey))
    let sent = try host.changeKeyCryptogram(keyNumber: 0, newKey: newKey, version: s.version, oldKey: nil)
    #expect(sent == hex(s.cryptogram))
    let changed = try #require(try answer.decipherChangeKey(keyNumber: 0, sent, keyLength: hex(s.newKey).count,
                                                        withVersion: s.type == .aes, oldKey: nil))
    #expect(changed.key == hex(s.newKey))
  }

  @Test func changeKeyOfAnotherAESKeyHasTwoCRC32s() throws {
    // 00AE16 after AAh with key 0 = 00…00: key 1 from 00…00 to 00 10 20 30 … 90 80, version 10h.
    let key = try DESFireKeyMaterial(.aes, [UInt8](repeating: 0, count: 16))
    let session = try DESFireCardAuthentication.sessionKey(rndA: hex("C2 A1 E4 7B 96 A5 58 9F AA E9 0C 03 FE 6D 00 A7"),
                                                           rndB: hex("D8 10 00 44 4B 97 6F 48 34 0D CD E3 4D 7A B1 7C"), key: key)
    let newBytes = hex("00 10 20 30 40 50 60 70 80 90 A0 B0 B0 A0 90 80"), newKey = try DESFireKeyMaterial(.aes, newBytes)
    #expect(DESFireCRC.crc32([0xC4, 0x01] + newBytes + [0x10]) == hex("33 70 B4 84"))   // "CRC Crypto: 0x84B47033"
    #expect(DESFireCRC.crc32(newBytes) == hex("BF E3 79 19"))                            // "CRC New Key: 0x1979E3BF"
    // The host on the recorded session key, the card on the one derived from the randoms.
    let host = try DESFireEV1Channel(sessionKey: DESFireKeyMaterial(.aes, hex("C2 A1 E4 7B D8 10 00 44 FE 6D 00 A7 4D 7A B1 7C")))
    let card = try DESFireEV1Channel(sessionKey: session)
    let sent = try host.changeKeyCryptogram(keyNumber: 0x01, newKey: newKey, version: 0x10, oldKey: key)
    #expect(sent == hex("E7 EC CB 6B D1 CA 64 BC 16 1A 12 B1 C0 24 F7 14 30 33 74 08 C8 A8 7E AC AB 7A 1F F1 89 51 FC A3"))
    let changed = try #require(try card.decipherChangeKey(keyNumber: 0x01, sent, keyLength: 16, withVersion: true,
                                                      oldKey: [UInt8](repeating: 0, count: 16)))
    #expect(changed.key == newBytes && changed.version == 0x10)
    // The card's `00` carries the CMAC of `00` from the cryptogram's last block.
    #expect(try card.macAnswer([], status: 0x00) == hex("21 28 D3 CD 9C 9A CF FF"))
    #expect(card.iv == hex("21 28 D3 CD 9C 9A CF FF F6 EB 95 46 AD F3 5E 17"))
  }
}
