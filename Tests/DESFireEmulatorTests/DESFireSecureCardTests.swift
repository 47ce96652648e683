import DESFire
import DESFireEmulator
import NFCEmulator
import Testing

extension DESFireVirtualTag {
  /// The card's next RndB is `rndB`.
  fileprivate func nextRndB(_ rndB: [UInt8]) { security = OpenSSLDESFireSecurity(random: { _ in rndB }) }
}

/// The host's side, written here from the data sheet's rules on the DESFire module's ciphers.
private struct Host {
  /// Authenticates natively with `key` and returns the EV1 channel.
  static func authenticate(_ tag: DESFireVirtualTag, command: UInt8, keyNumber: UInt8, key: DESFireKeyMaterial) throws -> DESFireEV1Channel {
    let cipher = try key.cipher()
    let first = tag.send([command, keyNumber])
    try #require(first.first == 0xAF)
    let challenge = Array(first.dropFirst())
    let rndB = try cipher.decrypt(challenge, iv: [UInt8](repeating: 0, count: cipher.blockLength))
    let rndA = try DESFireCipher.random(count: key.randomLength)
    let token = try cipher.encrypt(rndA + rndB.dropFirst() + rndB.prefix(1), iv: Array(challenge.suffix(cipher.blockLength)))
    let last = tag.send([0xAF] + token)
    try #require(last.first == 0x00)
    let rotated = try cipher.decrypt(Array(last.dropFirst()), iv: Array(token.suffix(cipher.blockLength)))
    #expect(rotated == Array(rndA.dropFirst()) + rndA.prefix(1))
    return try DESFireEV1Channel(sessionKey: DESFireCardAuthentication.sessionKey(rndA: rndA, rndB: rndB, key: key))
  }

  /// Sends a plain-mode native command and checks the answer's CMAC; returns the data.
  static func command(_ tag: DESFireVirtualTag, _ channel: DESFireEV1Channel, _ bytes: [UInt8]) throws -> [UInt8] {
    try channel.mac(bytes)
    let answer = tag.send(bytes)
    try #require(answer.first == 0x00 && answer.count >= 9, "\(answer)")
    let data = Array(answer.dropFirst().dropLast(8))
    #expect(try channel.mac(data + [0x00]) == Array(answer.suffix(8)))
    return data
  }
}

@Suite struct DESFireSecureCardTests {
  @Test func authenticateISOAndFormatPICCAsARealCardAnswered() throws {
    // https://github.com/RfidResearchGroup/proxmark3/issues/2961, byte for byte: 1A with the
    // factory DES key, then FormatPICC.
    let tag = try DESFireVirtualTag(chip: .ev1With4K)
    _ = tag.send("90 CA 00 00 05 01 00 00 0F 01 00")
    tag.nextRndB(hex("99 D2 F4 FF 53 EF 2D 54"))
    #expect(tag.send("90 1A 00 00 01 00 00") == hex("83 B8 79 40 92 32 72 59 91 AF"))
    #expect(tag.send("90 AF 00 00 10 CC 45 06 66 5C 22 9B 49 BB D7 B6 71 13 A9 42 F3 00") == hex("03 FB 11 80 0B 82 04 95 91 00"))
    #expect(tag.send("90 FC 00 00 00") == hex("0A 28 19 F8 0B A0 56 A0 91 00"))
    #expect(tag.applications.isEmpty)
  }

  @Test func wrongTokensAndKeyTypesAreRefused() throws {
    let tag = try DESFireVirtualTag(chip: .ev1With2K)
    tag.nextRndB(hex("99 D2 F4 FF 53 EF 2D 54"))
    #expect(tag.send("90 AA 00 00 01 00 00") == hex("91 AE"))                 // the PICC key is DES
    #expect(tag.send("90 1A 00 00 01 01 00") == hex("91 40"))                 // one key only
    #expect(tag.send("90 1A 00 00 01 00 00").suffix(2) == [0x91, 0xAF])
    #expect(tag.send("90 AF 00 00 10 CC 45 06 66 5C 22 9B 49 BB D7 B6 71 13 A9 42 F4 00") == hex("91 AE"))
    #expect(tag.send("90 FC 00 00 00") == hex("91 AE"))                       // still not authenticated
    tag.security = nil
    #expect(tag.send("90 1A 00 00 01 00 00") == hex("91 1C"))
  }

  @Test func thePICCMasterKeyBecomesAESAndAuthenticatesAsRevkShows() throws {
    let tag = try DESFireVirtualTag(chip: .ev1With8K)
    tag.nextRndB(hex("8A 9D 09 A4 3D 2D D3 92"))
    #expect(tag.send("1A 00") == hex("AF C3 27 E0 B3 AE 78 4F 04"))
    #expect(tag.send("AF DC C7 FB 9A 26 1C 7D FC 01 20 14 A9 2B BB CD CB") == hex("00 75 FD A7 DC 10 07 12 A4"))
    // ChangeKey 80: key 0 becomes AES 00…00 version 01; the authenticated key: a bare 00.
    #expect(tag.send("C4 80 61 59 2D C4 0A D3 58 95 16 52 D8 38 31 A2 73 CC E3 EA 31 34 17 83 C4 1E") == hex("00"))
    #expect(tag.picc.keys == [DESFireKey(type: .aes, value: [UInt8](repeating: 0, count: 16), version: 1)])
    #expect(tag.send("45") == hex("00 0F 81"))                                 // no session: no CMAC
    #expect(tag.send("64 00") == hex("00 01"))
    tag.nextRndB(hex("C0 5D DD 71 4F D7 88 A6 B7 B7 54 F3 C4 D0 66 E8"))
    #expect(tag.send("AA 00") == hex("AF B9 69 FD FE 56 FD 91 FC 9D E6 F6 F2 13 B8 FD 1E"))
    #expect(tag.send("AF 36 AA D7 DF 6E 43 6B A0 8D 18 61 38 30 A7 0D 5A D4 3E 3D 3F 4A 8D 47 54 1E EE 62 3A 93 4E 47 74")
            == hex("00 80 0D B6 80 BC 14 6B D1 21 D6 57 8F 2D 2E 20 59"))
    let host = try DESFireEV1Channel(sessionKey: DESFireKeyMaterial(.aes, hex("F4 4B 26 F5 C0 5D DD 71 10 77 22 81 C4 D0 66 E8")))
    #expect(try Host.command(tag, host, [0x6E]) == hex("00 20 00"))
  }

  @Test func filesInMACAndFullModeAndAnotherKeyChanged() throws {
    let tag = try DESFireVirtualTag(chip: .ev1With4K)
    tag.security = OpenSSLDESFireSecurity()
    #expect(tag.send("CA 01 00 00 0F 82") == hex("00"))                       // two AES keys
    #expect(tag.send("5A 01 00 00") == hex("00"))
    let zero = try DESFireKeyMaterial(.aes, [UInt8](repeating: 0, count: 16))
    let host = try Host.authenticate(tag, command: 0xAA, keyNumber: 0, key: zero)
    _ = try Host.command(tag, host, hex("CD 01 03 00 00 20 00 00"))           // full mode, every right key 0
    _ = try Host.command(tag, host, hex("CD 02 01 00 00 20 00 00"))           // MAC mode
    // WriteData in full mode: data ‖ CRC32(cmd ‖ header ‖ data), enciphered.
    let header = hex("01 00 00 00 05 00 00"), data = Array("Hello".utf8)
    let sent = try host.encipher(data + DESFireCRC.crc32([0x3D] + header + data))
    let written = tag.send([0x3D] + header + sent)
    let writtenMAC = try host.mac([0x00])
    #expect(written.first == 0x00 && Array(written.dropFirst()) == writtenMAC)
    #expect(tag.applications.first?.files[1]?.data.prefix(5) == data[...])
    // ReadData in full mode: the answer enciphered with CRC32(data ‖ 00).
    try host.mac(hex("BD 01 00 00 00 05 00 00"))
    let read = tag.send(hex("BD 01 00 00 00 05 00 00"))
    #expect(read.first == 0x00 && read.count == 1 + 16)
    let plain = try host.cipher.decrypt(Array(read.dropFirst()), iv: host.iv)
    #expect(Array(plain.prefix(9)) == data + DESFireCRC.crc32(data + [0x00]))
    // WriteData in MAC mode: the CMAC of the whole command follows the data.
    let macHost = try Host.authenticate(tag, command: 0xAA, keyNumber: 0, key: zero)
    let macHeader = hex("02 00 00 00 02 00 00")
    let mac = try macHost.mac([0x3D] + macHeader + [0x0A, 0x0B])
    let answer = tag.send([0x3D] + macHeader + [0x0A, 0x0B] + mac)
    let answerMAC = try macHost.mac([0x00])
    #expect(answer.first == 0x00 && Array(answer.dropFirst()) == answerMAC)
    #expect(tag.applications.first?.files[2]?.data.prefix(2) == [0x0A, 0x0B])
    #expect(tag.send([0x3D] + macHeader + [0x0C, 0x0D] + mac) == hex("1E"))  // a wrong MAC; the session ends
    #expect(tag.send(hex("BD 02 00 00 00 02 00 00")) == hex("AE"))
    // ChangeKey of key 1 with key 0: (new ⊕ old) ‖ version ‖ CRC32(C4 01 ‖ …) ‖ CRC32(new), enciphered.
    let session = try Host.authenticate(tag, command: 0xAA, keyNumber: 0, key: zero)
    let newKey = Array(1...16).map(UInt8.init)
    let body = newKey + [0x05]
    let cryptogram = try session.encipher(body + DESFireCRC.crc32([0xC4, 0x01] + body) + DESFireCRC.crc32(newKey))
    let changed = tag.send([0xC4, 0x01] + cryptogram)
    let changedMAC = try session.mac([0x00])
    #expect(changed.first == 0x00 && Array(changed.dropFirst()) == changedMAC)
    #expect(try Host.command(tag, session, [0x64, 0x01]) == [0x05])
    _ = try Host.authenticate(tag, command: 0xAA, keyNumber: 1, key: DESFireKeyMaterial(.aes, newKey))
    #expect(tag.send(hex("C4 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00")) == hex("AE"))  // key 1 cannot change key 1
  }

  @Test func registerInstallsTheSecurityForEveryNewCard() throws {
    DESFireEmulator.register()
    DESFireEmulator.register()                                                  // idempotent
    let tag = try #require(try VirtualTagKind.desfireEV1With2K.makeTag(uid: nil) as? DESFireVirtualTag)
    #expect(tag.security != nil)
    #expect(tag.send("1A 00").first == 0xAF)
  }

  @Test func hostileFramesInASessionGetAnAnswerAndNeverATrap() throws {
    var generator = SystemRandomNumberGenerator()
    let zero = try DESFireKeyMaterial(.aes, [UInt8](repeating: 0, count: 16))
    for command: UInt8 in [0xC4, 0x3D, 0xBD, 0xAF, 0xCD, 0x6E, 0xAA, 0x1A, 0x0A] {
      for length in 0...40 {
        let tag = try DESFireVirtualTag(chip: .ev1With2K)
        tag.security = OpenSSLDESFireSecurity()
        _ = tag.send("CA 01 00 00 0F 82")
        _ = tag.send("5A 01 00 00")
        _ = try Host.authenticate(tag, command: 0xAA, keyNumber: 0, key: zero)
        _ = tag.send("CD 01 03 00 00 20 00 00")
        let data = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
        #expect(!tag.send([command] + data).isEmpty)
        #expect(!tag.send([0xAF] + data).isEmpty)
      }
    }
  }

  @Test func legacyAuthenticationAsTagInfoSawARealEV3Answer() throws {
    // BdF-LabSec/kpn532's relay trace of NXP TagInfo: 0A with the factory key, then
    // GetKeySettings answered without a MAC (the legacy scheme MACs only file data).
    let tag = try DESFireVirtualTag(chip: .ev1With8K)
    tag.nextRndB(hex("97 64 21 DC F9 AE DC C0"))
    #expect(tag.send("90 0A 00 00 01 00 00") == hex("53 AE 95 45 7A 7F DF 83 91 AF"))
    #expect(tag.send("90 AF 00 00 10 00 00 00 00 00 00 00 00 FB F9 68 23 32 1C 6E 5C 00") == hex("CC 0B 2E 25 55 EA 03 3D 91 00"))
    #expect(tag.send("90 45 00 00 00") == hex("0F 01 91 00"))
    #expect(tag.send("90 6A 00 00 00") == hex("91 00"))
  }

  @Test func aChainedAnswerCarriesOneCMACInItsLastFrame() throws {
    let tag = try DESFireVirtualTag(chip: .ev1With2K)
    tag.security = OpenSSLDESFireSecurity()
    let host = try Host.authenticate(tag, command: 0x1A, keyNumber: 0, key: DESFireKeyMaterial(.des, [UInt8](repeating: 0, count: 8)))
    try host.mac([0x60])
    let first = tag.send("60"), second = tag.send("AF"), third = tag.send("AF")
    #expect(first.first == 0xAF && second.first == 0xAF && third.first == 0x00 && third.count == 1 + 14 + 8)
    let data = Array(first.dropFirst()) + second.dropFirst() + third.dropFirst().prefix(14)
    #expect(data.prefix(7) == [0x04, 0x01, 0x01, 0x01, 0x00, 0x16, 0x05])
    let mac = try host.mac(data + [0x00])
    #expect(Array(third.suffix(8)) == mac)
  }
}

@Suite struct DESFireSecureCardMoreTests {
  @Test func getCardUIDChangeKeySettingsAndGetDFNames() throws {
    let tag = try DESFireVirtualTag(chip: .ev1With4K, uid: hex("04 95 91 0A 5D 6D 80"))
    tag.security = OpenSSLDESFireSecurity()
    #expect(tag.send("6D") == hex("00"))                                       // no DF names yet
    _ = tag.send("CA 01 00 00 0F 21 05 E1 D2 76 00 00 85 01 01")
    _ = tag.send("CA 02 00 00 0F 01")
    #expect(tag.send("6D") == hex("00 01 00 00 05 E1 D2 76 00 00 85 01 01"))
    #expect(tag.send("51") == hex("AE"))
    let key = try DESFireKeyMaterial(.des, [UInt8](repeating: 0, count: 8))
    let host = try Host.authenticate(tag, command: 0x1A, keyNumber: 0, key: key)
    try host.mac([0x51])
    let uid = tag.send("51")
    #expect(uid.first == 0x00 && uid.count == 1 + 16)
    let plain = try host.cipher.decrypt(Array(uid.dropFirst()), iv: host.iv)
    #expect(Array(plain.prefix(11)) == hex("04 95 91 0A 5D 6D 80") + DESFireCRC.crc32(hex("04 95 91 0A 5D 6D 80 00")))
    // ChangeKeySettings to 09 (no free listing): KS1 ‖ CRC32(54 ‖ KS1), enciphered.
    let session = try Host.authenticate(tag, command: 0x1A, keyNumber: 0, key: key)
    let sent = try session.encipher([0x09] + DESFireCRC.crc32([0x54, 0x09]))
    let answer = tag.send([0x54] + sent)
    let mac = try session.mac([0x00])
    #expect(answer == [0x00] + mac)
    #expect(tag.picc.keySettings == 0x09)
    tag.reset()
    #expect(tag.send("6A") == hex("AE"))                                       // listing needs the key now
    #expect(tag.send("6D") == hex("AE"))
  }
}
