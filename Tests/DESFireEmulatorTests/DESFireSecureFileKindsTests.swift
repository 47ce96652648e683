import DESFire
import DESFireEmulator
import NFCEmulator
import Testing

extension DESFireVirtualTag {
  fileprivate func answer(_ bytes: [UInt8]) -> [UInt8] {
    guard case .data(let answer) = respond(to: bytes) else { return [] }
    return answer
  }
}

/// The host's side of AuthenticateAES and of plain commands in an EV1 session, written here from
/// the data sheet's rules on the DESFire module's ciphers.
private enum SessionHost {
  static func authenticate(_ tag: DESFireVirtualTag, keyNumber: UInt8) throws -> DESFireEV1Channel {
    let key = try DESFireKeyMaterial(.aes, [UInt8](repeating: 0, count: 16))
    let cipher = try key.cipher()
    let first = tag.answer([0xAA, keyNumber])
    try #require(first.first == 0xAF)
    let challenge = Array(first.dropFirst())
    let rndB = try cipher.decrypt(challenge, iv: [UInt8](repeating: 0, count: 16))
    let rndA = try DESFireCipher.random(count: key.randomLength)
    let token = try cipher.encrypt(rndA + rndB.dropFirst() + rndB.prefix(1), iv: Array(challenge.suffix(16)))
    let last = tag.answer([0xAF] + token)
    try #require(last.first == 0x00)
    return try DESFireEV1Channel(sessionKey: DESFireCardAuthentication.sessionKey(rndA: rndA, rndB: rndB, key: key))
  }

  /// A plain-mode command; the answer's CMAC checked; its data.
  static func command(_ tag: DESFireVirtualTag, _ channel: DESFireEV1Channel, _ bytes: [UInt8]) throws -> [UInt8] {
    try channel.mac(bytes)
    let answer = tag.answer(bytes)
    try #require(answer.first == 0x00 && answer.count >= 9, "\(answer)")
    #expect(try channel.mac(Array(answer.dropFirst().dropLast(8)) + [0x00]) == Array(answer.suffix(8)))
    return Array(answer.dropFirst().dropLast(8))
  }
}

/// Value and record files and ChangeFileSettings in MAC and full mode, under an EV1 (AES) session.
@Suite struct DESFireSecureFileKindsTests {
  private func card() throws -> DESFireVirtualTag {
    let tag = try DESFireVirtualTag(chip: .ev1With4K)
    tag.security = OpenSSLDESFireSecurity()
    #expect(tag.answer(hex("CA 01 00 00 0F 82")) == hex("00"))                 // two AES keys
    #expect(tag.answer(hex("5A 01 00 00")) == hex("00"))
    return tag
  }

  @Test func valueFilesInFullAndMACMode() throws {
    let tag = try card()
    let host = try SessionHost.authenticate(tag, keyNumber: 0)
    // File 1 full mode, file 2 MAC mode; every right key 0; 0…1000, value 100.
    _ = try SessionHost.command(tag, host, hex("CC 01 03 00 00 00 00 00 00 E8 03 00 00 64 00 00 00 00"))
    _ = try SessionHost.command(tag, host, hex("CC 02 01 00 00 00 00 00 00 E8 03 00 00 64 00 00 00 00"))
    // Credit 50 in full mode: amount ‖ CRC32(0C 01 ‖ amount), enciphered.
    let amount = hex("32 00 00 00")
    let credited = tag.answer([0x0C, 0x01] + (try host.encipher(amount + DESFireCRC.crc32([0x0C, 0x01] + amount))))
    #expect(credited == [0x00] + (try host.mac([0x00])))
    // Debit 10 in MAC mode: the CMAC of the whole command after the amount.
    let debit = hex("DC 02 0A 00 00 00")
    #expect(tag.answer(debit + (try host.mac(debit))) == [0x00] + (try host.mac([0x00])))
    #expect(try SessionHost.command(tag, host, [0xC7]) == [])
    // GetValue in MAC mode: the value and the answer's CMAC.
    #expect(try SessionHost.command(tag, host, [0x6C, 0x02]) == hex("5A 00 00 00"))
    // GetValue in full mode: value ‖ CRC32(value ‖ 00), enciphered.
    try host.mac([0x6C, 0x01])
    let read = tag.answer([0x6C, 0x01])
    #expect(read.first == 0x00 && read.count == 1 + 16)
    let plain = try host.cipher.decrypt(Array(read.dropFirst()), iv: host.iv)
    #expect(Array(plain.prefix(8)) == hex("96 00 00 00") + DESFireCRC.crc32(hex("96 00 00 00 00")))
    // A wrong MAC: 1E, and the session ends.
    let again = try SessionHost.authenticate(tag, keyNumber: 0)
    #expect(tag.answer(debit + [UInt8](repeating: 0, count: 8)) == hex("1E"))
    _ = again
    #expect(tag.answer(hex("6C 02")) == hex("AE"))
  }

  @Test func recordsInMACModeAndChangeFileSettingsEnciphered() throws {
    let tag = try card()
    let host = try SessionHost.authenticate(tag, keyNumber: 0)
    // Linear file 3, MAC mode, rights 0000, records of 4 bytes, at most 2.
    _ = try SessionHost.command(tag, host, hex("C1 03 01 00 00 04 00 00 02 00 00"))
    let write = hex("3B 03 00 00 00 04 00 00 01 02 03 04")
    #expect(tag.answer(write + (try host.mac(write))) == [0x00] + (try host.mac([0x00])))
    #expect(try SessionHost.command(tag, host, [0xC7]) == [])
    #expect(try SessionHost.command(tag, host, hex("BB 03 00 00 00 00 00 00")) == hex("01 02 03 04"))
    // ChangeFileSettings of file 3 (change right key 0): option ‖ AR ‖ CRC32(5F 03 ‖ option ‖ AR), enciphered.
    let settings = hex("00 EE EE")
    let sent = try host.encipher(settings + DESFireCRC.crc32([0x5F, 0x03] + settings))
    #expect(tag.answer([0x5F, 0x03] + sent) == [0x00] + (try host.mac([0x00])))
    #expect(try SessionHost.command(tag, host, [0xF5, 0x03]) == hex("03 00 EE EE 04 00 00 02 00 00 01 00 00"))
    // Now the change right is free: the command goes plain, its CMAC moving the IV.
    #expect(try SessionHost.command(tag, host, hex("5F 03 03 E1 EE")) == [])
    #expect(try SessionHost.command(tag, host, [0xF5, 0x03]).prefix(4) == hex("03 03 E1 EE")[...])
    // Change right key 1: key 0 is refused (9D), an unauthenticated host too (AE).
    #expect(tag.answer(hex("5F 03 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00")) == hex("9D"))
    #expect(tag.answer(hex("5F 03 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00")) == hex("AE"))
    let keyOne = try SessionHost.authenticate(tag, keyNumber: 1)
    let back = hex("00 E1 EE")
    let cryptogram = try keyOne.encipher(back + DESFireCRC.crc32([0x5F, 0x03] + back))
    #expect(tag.answer([0x5F, 0x03] + cryptogram) == [0x00] + (try keyOne.mac([0x00])))
    #expect(tag.applications.first?.files[3]?.access == DESFireAccessRights(word: 0xEEE1))
    let bad = try keyOne.encipher(back + DESFireCRC.crc32([0x5F, 0x04] + back))   // a CRC of another command
    #expect(tag.answer([0x5F, 0x03] + bad) == hex("1E"))
  }

  @Test func hostileFramesToTheNewCommandsGetAnAnswerAndNeverATrap() throws {
    var generator = SystemRandomNumberGenerator()
    for command: UInt8 in [0x0C, 0xDC, 0x1C, 0x6C, 0x3B, 0xBB, 0xEB, 0x5F, 0xC7, 0xA7, 0xCB, 0xCC, 0xC1, 0xC0] {
      for length in 0...40 {
        let tag = try card()
        _ = try SessionHost.authenticate(tag, keyNumber: 0)
        for create in ["CC 01 03 00 00 00 00 00 00 E8 03 00 00 64 00 00 00 01", "C0 02 01 00 00 04 00 00 03 00 00",
                       "C1 03 03 00 00 02 00 00 02 00 00", "CB 04 03 00 00 10 00 00"] {
          _ = tag.answer(hex(create))
        }
        let data = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
        #expect(!tag.answer([command] + data).isEmpty)
        #expect(!tag.answer([0xAF] + data).isEmpty)
        #expect(!tag.answer([command, UInt8.random(in: 1...4, using: &generator)] + data).isEmpty)
        let image = tag.memoryImage
        #expect(try DESFireImage.decode(image, chip: .ev1With4K).memoryImage == image)
      }
    }
  }
}
