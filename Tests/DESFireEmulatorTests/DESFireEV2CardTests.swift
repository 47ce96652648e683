import DESFire
import DESFireEmulator
import EV2SecureMessaging
@testable import NFCEmulator
import Testing

/// DESFire's CRC32 (JAMCRC) as the value EV2's ChangeKey wants.
private func jamcrc(_ bytes: [UInt8]) -> UInt32 {
  DESFireCRC.crc32(bytes).enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
}

extension DESFireVirtualTag {
  /// An EV2 with an AES PICC master key (00…00), application 000001 of three AES keys (00…00)
  /// and application 000002 of one DES key.
  fileprivate static func ev2Card(_ chip: DESFireChip = .ev2With4K) throws -> DESFireVirtualTag {
    let tag = try DESFireVirtualTag(chip: chip)
    tag.security = OpenSSLDESFireSecurity()
    tag.picc.keys[0] = DESFireKey(type: .aes, value: zeroKey, version: 0)
    #expect(tag.send("90 CA 00 00 05 01 00 00 0F 83 00") == hex("91 00"))
    #expect(tag.send("90 CA 00 00 05 02 00 00 0F 01 00") == hex("91 00"))
    return tag
  }
}

@Suite struct DESFireEV2CardTests {
  @Test func partOneAnswersAN12343sEncryptedRndB() throws {
    let tag = try DESFireVirtualTag.ev2Card()
    let rndB = hex("FA 65 9A D0 DC A7 38 DD 65 DC 7D C3 86 12 AD 81")
    tag.security = OpenSSLDESFireSecurity(random: { _ in rndB })
    #expect(tag.send("90 71 00 00 02 00 00 00") == hex("24 67 7D DB D4 63 49 E6 23 79 8F D7 29 00 6E 79 91 AF"))
  }

  @Test func authenticatesAtThePICCLevelAndInAnAESApplication() throws {
    let tag = try DESFireVirtualTag.ev2Card(.ev3With8K)
    var picc = try authenticate(tag, keyNumber: 0)
    #expect(try exchange(tag, &picc, 0x6E, mode: .mac) == DESFireBytes.uint24(tag.freeMemory))
    #expect(try exchange(tag, &picc, 0x6A, mode: .mac) == hex("01 00 00 02 00 00"))
    #expect(try exchange(tag, &picc, 0x60, mode: .mac).count == 28)          // three frames, one MAC
    #expect(tag.send("90 5A 00 00 03 01 00 00 00") == hex("91 00"))          // plain; the session ends
    #expect(tag.ev2Session == nil)
    var application = try authenticate(tag, keyNumber: 2)
    #expect(try exchange(tag, &application, 0x45, mode: .mac) == hex("0F 83"))
    #expect(try exchange(tag, &application, 0x64, header: [0x01], mode: .mac) == [0x00])
    #expect(tag.ev2Session?.commandCounter == 2)
  }

  @Test func readsAndWritesStandardFilesInPlainMACAndFull() throws {
    let tag = try DESFireVirtualTag.ev2Card()
    #expect(tag.send("90 5A 00 00 03 01 00 00 00") == hex("91 00"))
    var session = try authenticate(tag, keyNumber: 0)
    for (number, option) in [(UInt8(1), UInt8(0x00)), (2, 0x01), (3, 0x03)] {
      _ = try exchange(tag, &session, 0xCD, data: [number, option, 0x00, 0x00, 0x64, 0x00, 0x00], mode: .mac)
    }
    let bytes = (0..<100).map { UInt8($0) }
    for (number, mode) in [(UInt8(1), CommunicationMode.plain), (2, .mac), (3, .full)] {
      let header = [number, 0, 0, 0, 100, 0, 0]
      #expect(try exchange(tag, &session, 0x3D, header: header, data: bytes, mode: mode).isEmpty)
      #expect(tag.applications.first?.files[number]?.data == bytes)
      #expect(try exchange(tag, &session, 0xBD, header: header, mode: mode) == bytes)  // chained answers
    }
    // WriteData in two frames: the MAC covers the whole command.
    let apdu = try session.command(0x3D, header: [2, 0, 0, 0, 4, 0, 0], data: [9, 8, 7, 6], mode: .mac)
    let field = Array(apdu[5..<(apdu.count - 1)])
    #expect(tag.send([0x90, 0x3D, 0, 0, 9] + field.prefix(9) + [0]) == hex("91 AF"))
    let answer = tag.send([0x90, 0xAF, 0, 0, UInt8(field.count - 9)] + field.dropFirst(9) + [0])
    #expect(try session.response(to: 0x3D, answer, mode: .mac).isEmpty)
    #expect(tag.applications.first?.files[2]?.data.prefix(4) == [9, 8, 7, 6])
  }

  @Test func creditsAndCommitsAValueFileInFullMode() throws {
    let tag = try DESFireVirtualTag.ev2Card()
    #expect(tag.send("90 5A 00 00 03 01 00 00 00") == hex("91 00"))
    var session = try authenticate(tag, keyNumber: 0)
    _ = try exchange(tag, &session, 0xCC, data: hex("04 03 00 00 00 00 00 00 E8 03 00 00 64 00 00 00 00"), mode: .mac)
    #expect(try exchange(tag, &session, 0x0C, header: [4], data: hex("0A 00 00 00"), mode: .full).isEmpty)
    #expect(try exchange(tag, &session, 0xC7, mode: .mac).isEmpty)
    #expect(try exchange(tag, &session, 0x6C, header: [4], mode: .full) == hex("6E 00 00 00"))
  }

  @Test func getCardUIDInFullMode() throws {
    let tag = try DESFireVirtualTag.ev2Card()
    var session = try authenticate(tag, keyNumber: 0)
    #expect(try exchange(tag, &session, 0x51, mode: .full) == tag.uid)
  }

  /// SetConfiguration option 00 in Full mode (option as the one-byte header): random ID on, and
  /// GetCardUID in the same session still the real UID.
  @Test func setConfigurationInFullModeTurnsOnRandomID() throws {
    let tag = try DESFireVirtualTag.ev2Card(.ev3With8K)
    var session = try authenticate(tag, keyNumber: 0)
    #expect(try exchange(tag, &session, 0x5C, header: [0x00], data: [0x02], mode: .full) == [])
    #expect(try exchange(tag, &session, 0x51, mode: .full) == tag.uid)
    // Another option is a parameter error, after its MAC checked.
    #expect(throws: EV2Error.status(command: 0x5C, sw1: 0x91, sw2: 0x9E)) {
      try session.response(to: 0x5C, tag.send(try session.command(0x5C, header: [0x07], data: [0x01], mode: .full)), mode: .full)
    }
  }

  @Test func changesAnotherKeyThenAuthenticatesWithIt() throws {
    let tag = try DESFireVirtualTag.ev2Card()
    #expect(tag.send("90 5A 00 00 03 01 00 00 00") == hex("91 00"))
    var session = try authenticate(tag, keyNumber: 0)
    let newKey = (1...16).map { UInt8($0) }
    let plain = HostSession.changeKeyPlaintext(newKey: newKey, newVersion: 0x07, oldKey: zeroKey, crc32: jamcrc)
    let answer = tag.send(try session.command(0xC4, header: [0x01], data: plain, mode: .full))
    try session.changeKeyResponse(keyNumber: 1, answer)
    #expect(try exchange(tag, &session, 0x64, header: [0x01], mode: .mac) == [0x07])
    _ = try authenticate(tag, keyNumber: 1, key: newKey)
    #expect(tag.authenticatedKey == 1)
  }

  @Test func changingTheSessionsOwnKeyEndsTheSession() throws {
    let tag = try DESFireVirtualTag.ev2Card()
    var session = try authenticate(tag, keyNumber: 0)
    let newKey = [UInt8](repeating: 0x5A, count: 16)
    let plain = HostSession.changeKeyPlaintext(newKey: newKey, newVersion: 0x02, oldKey: nil, crc32: jamcrc)
    let answer = tag.send(try session.command(0xC4, header: [0x80], data: plain, mode: .full))
    #expect(answer == hex("91 00"))                                              // no MAC
    try session.changeKeyResponse(keyNumber: 0, answer)
    #expect(tag.ev2Session == nil && tag.authenticatedKey == nil)
    #expect(tag.picc.keys[0] == DESFireKey(type: .aes, value: newKey, version: 0x02))
    _ = try authenticate(tag, keyNumber: 0, key: newKey)
  }

  @Test func aFlippedMACBitEndsTheSession() throws {
    let tag = try DESFireVirtualTag.ev2Card()
    var session = try authenticate(tag, keyNumber: 0)
    let correct = try session.command(0x45, mode: .mac)
    var apdu = correct
    apdu[apdu.count - 2] ^= 0x01
    let answer = tag.send(apdu)
    #expect(answer == hex("91 1E"))
    #expect(tag.ev2Session == nil && tag.authenticatedKey == nil)
    #expect(throws: EV2Error.self) { _ = try session.response(to: 0x45, answer, mode: .mac) }
    #expect(session.hasEnded)
    #expect(tag.send(correct) == hex("91 7E"))                                  // no session to check it
  }

  @Test func nonFirstKeepsTIAndCommandCounter() throws {
    let tag = try DESFireVirtualTag.ev2Card()
    #expect(tag.send("90 5A 00 00 03 01 00 00 00") == hex("91 00"))
    var first = try authenticate(tag, keyNumber: 0)
    _ = try exchange(tag, &first, 0x45, mode: .mac)
    _ = try exchange(tag, &first, 0x6F, mode: .mac)
    var next = try authenticate(tag, keyNumber: 1, continuing: first)
    #expect(next.transactionIdentifier == first.transactionIdentifier && next.commandCounter == 2)
    #expect(tag.ev2Session?.transactionIdentifier == first.transactionIdentifier && tag.ev2Session?.commandCounter == 2)
    #expect(try exchange(tag, &next, 0x45, mode: .mac) == hex("0F 83"))
    #expect(tag.authenticatedKey == 1)
  }

  @Test func refusals() throws {
    let tag = try DESFireVirtualTag.ev2Card()
    #expect(tag.send("90 77 00 00 01 00 00") == hex("91 AE"))                  // NonFirst without a session
    #expect(tag.send("90 71 00 00 02 01 00 00") == hex("91 40"))               // the PICC has one key
    #expect(tag.send("90 71 00 00 01 00 00") == hex("91 7E"))                  // no LenCap
    #expect(tag.send("90 71 00 00 03 00 02 01 00") == hex("91 7E"))            // LenCap 2, one byte
    #expect(tag.send("90 71 00 00 03 00 01 02 00").suffix(2) == [0x91, 0xAF])  // LenCap 1: PCDcap2 02
    #expect(tag.send("90 AF 00 00 10 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00") == hex("91 7E"))
    #expect(tag.send("90 71 00 00 02 00 00 00").suffix(2) == [0x91, 0xAF])
    #expect(tag.send([0x90, 0xAF, 0, 0, 0x20] + [UInt8](repeating: 0, count: 32) + [0]) == hex("91 AE"))
    #expect(tag.ev2Session == nil && tag.authenticatedKey == nil)
    #expect(tag.send("90 5A 00 00 03 02 00 00 00") == hex("91 00"))
    #expect(tag.send("90 71 00 00 02 00 00 00") == hex("91 AE"))               // a DES key
    let ev1 = try DESFireVirtualTag(chip: .ev1With4K)
    ev1.security = OpenSSLDESFireSecurity()
    ev1.picc.keys[0] = DESFireKey(type: .aes, value: zeroKey, version: 0)
    #expect(ev1.send("90 71 00 00 02 00 00 00") == hex("91 1C"))
    #expect(ev1.send("90 77 00 00 01 00 00") == hex("91 1C"))
  }

  @Test func settingsChangeInFullModeAndAnErrorEndsTheSession() throws {
    let tag = try DESFireVirtualTag.ev2Card()
    #expect(tag.send("90 5A 00 00 03 01 00 00 00") == hex("91 00"))
    var session = try authenticate(tag, keyNumber: 0)
    _ = try exchange(tag, &session, 0xCD, data: [0x05, 0x03, 0x00, 0x00, 0x10, 0x00, 0x00], mode: .mac)
    #expect(try exchange(tag, &session, 0x5F, header: [0x05], data: [0x01, 0xE0, 0xEE], mode: .full).isEmpty)
    #expect(tag.applications.first?.files[5]?.communication == .mac)
    #expect(try exchange(tag, &session, 0x54, data: [0x0B], mode: .full).isEmpty)
    #expect(try exchange(tag, &session, 0x45, mode: .mac) == hex("0B 83"))
    let missing = tag.send(try session.command(0xBD, header: [0x09, 0, 0, 0, 1, 0, 0], mode: .plain))
    #expect(missing == hex("91 F0"))                                            // no file 9: no MAC, session over
    #expect(tag.ev2Session == nil && tag.authenticatedKey == nil)
  }

  @Test func pcdCap2IsEchoed() throws {
    let tag = try DESFireVirtualTag.ev2Card()
    let first = tag.send("90 71 00 00 04 00 02 AB CD 00")
    let host = try HostAuthentication(key: zeroKey, keyNumber: 0, encryptedRndB: first.dropLast(2))
    let session = try host.finish(response: tag.send(try host.secondCommand()))
    #expect(session.capabilities?.pcdCap2 == hex("AB CD 00 00 00 00"))
  }
}
