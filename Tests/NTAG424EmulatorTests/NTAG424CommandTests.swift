import Foundation
import NFCTransport
@testable import NTAG424
import Testing
import NFCEmulator
@testable import NTAG424Emulator
import NTAG424Originality

private func direct(_ pn532: [UInt8]) -> [UInt8] { [0xFF, 0x00, 0x00, 0x00, UInt8(pn532.count + 1), 0xD4] + pn532 }
private func answer(_ command: UInt8, _ data: [UInt8] = []) -> [UInt8] { [0xD5, command + 1] + data + [0x90, 0x00] }

/// The virtual NTAG 424 DNA's commands beyond the published transcripts: the host's own code
/// (EV2Authentication, SecureMessagingSession) against the tag, wrong keys and MACs, access rights,
/// the ISO layer, GetVersion and Read_Sig, ChangeFileSettings' checks, the reader faces, the image.
@Suite struct NTAG424CommandTests {
  /// The key-0 AuthenticateEV2First answered `91 AE` for a wrong key: TotFailCtr rises by one per
  /// failure and falls by TotFailCtrDecr (10) at a success; at TotFailCtrLimit the key is locked
  /// (`91 9D`). SetConfiguration 0Ah sets the limit.
  @Test func wrongKeysAndTheFailedAuthenticationCounter() throws {
    let tag = try NTAG424DNAVirtualTag()
    tag.selectApplication()
    let wrong = key424("00112233445566778899AABBCCDDEEFF")
    for attempt in 1...3 as ClosedRange<UInt16> {
      let first = tag.send("9071000002010000")
      #expect(first.suffix(2) == [0x91, 0xAF])
      let auth = try EV2Authentication(key: wrong, keyNumber: 1, encryptedRndB: first.dropLast(2))
      #expect(tag.send(try auth.secondCommand) == hex424("91AE"))
      #expect(tag.failedAuthenticationCounter(key: 1) == attempt)
    }
    #expect(tag.failedAuthenticationCounter(key: 0) == 0)
    _ = try authenticate(tag, keyNumber: 1)
    #expect(tag.failedAuthenticationCounter(key: 1) == 0)                        // 3 − min(3, 10)

    var session = try authenticate(tag, keyNumber: 0)
    // FailedCtrOption 01 (enabled), TotFailCtrLimit 0002, TotFailCtrDecr 0001, LSB first.
    #expect(try exchange(tag, &session, 0x5C, header: [0x0A], data: hex424("01 0200 0100"), mode: .full) == [])
    tag.selectApplication()
    for _ in 0..<2 {
      let first = tag.send("9071000002010000")
      let auth = try EV2Authentication(key: wrong, keyNumber: 1, encryptedRndB: first.dropLast(2))
      #expect(tag.send(try auth.secondCommand) == hex424("91AE"))
    }
    #expect(tag.send("9071000002010000") == hex424("919D"))                      // locked
    #expect(throws: NTAG424Error.self) { try authenticate(tag, keyNumber: 1) }   // even with the right key
    _ = try authenticate(tag, keyNumber: 2)                                       // other keys are not
    #expect(tag.send("9071000002050000") == hex424("9140"))                      // no key 5
    #expect(tag.send("907100000100 00") == hex424("917E"))                      // no LenCap
  }

  /// A command MAC with one bit changed: `91 1E`, and the authentication ends.
  @Test func aWrongMACIsAnIntegrityErrorAndEndsTheSession() throws {
    let tag = try NTAG424DNAVirtualTag()
    tag.selectApplication()
    let session = try authenticate(tag, keyNumber: 0)
    var command = try session.command(0xF5, header: [0x02], mode: .mac)
    command[command.count - 2] ^= 0x01
    #expect(tag.send(command) == hex424("911E"))
    #expect(tag.session == nil)
    // The session the host still holds gets no more answers with a MAC.
    #expect(tag.send(try session.command(0xF5, header: [0x02], mode: .mac)) == hex424("917E"))
    #expect(tag.send("90F50000010200").suffix(2) == [0x91, 0x00])                // plain again
  }

  /// The host's own code against the tag: ChangeKey of key 2, AuthenticateEV2NonFirst with it in
  /// the same transaction (TI and CmdCtr kept), ReadData and WriteData of file 03 in CommMode.Full,
  /// and the access rights of file 03 (read key 2, write key 3) and of the CC file.
  @Test func hostRoundTripWithNonFirstAndAccessRights() throws {
    let tag = try NTAG424DNAVirtualTag()
    tag.selectApplication()
    #expect(tag.send("90AD0000070300000010000000") == hex424("91AE"))           // file 03 without a key
    #expect(tag.send("00A4000C02E105") == hex424("9000"))
    #expect(tag.send("00B0000010") == hex424("6982"))                            // ISOReadBinary: not free
    #expect(tag.send("00D6000001FF") == hex424("6982"))
    #expect(tag.send("00A4000C02E103") == hex424("9000"))
    #expect(tag.send("00D6000001FF") == hex424("6982"))                          // the CC: write key 0

    var session = try authenticate(tag, keyNumber: 0)
    let key2 = key424("F3847D627727ED3BC9C4CC050489B966")
    try session.changeKeyResponse(keyNumber: 2, tag.send(try session.changeKeyCommand(keyNumber: 2, newKey: key2, newVersion: 7)))
    #expect(try exchange(tag, &session, 0x64, header: [0x02], mode: .mac) == [0x07])
    #expect(tag.send("00B0000002") == hex424("6982"))                            // no ISOReadBinary while authenticated
    let ti = session.transactionIdentifier, counter = session.commandCounter

    // AuthenticateEV2NonFirst with key 2: part 2's answer is E(K2, RndA') alone.
    let first = tag.send("907700000102 00")
    #expect(first.suffix(2) == [0x91, 0xAF])
    let rndA = [UInt8](repeating: 0xA5, count: 16)
    let auth = try EV2Authentication(key: key2, keyNumber: 2, encryptedRndB: first.dropLast(2), rndA: rndA)
    let second = tag.send(try auth.secondCommand)
    #expect(second.count == 18 && second.suffix(2) == [0x91, 0x00])
    #expect(try AESPrimitives.cbcDecrypt(Array(second.prefix(16)), key: key2, iv: EV2Authentication.zeroIV)
            == EV2Authentication.rotateLeft(rndA))
    var nonFirst = try SecureMessagingSession(
      transactionIdentifier: ti, keys: try SessionKeys(key: key2, rndA: rndA, rndB: auth.rndB), keyNumber: 2, commandCounter: counter)
    #expect(tag.session?.transactionIdentifier == ti)
    let read = try exchange(tag, &nonFirst, 0xAD, header: hex424("03 000000 100000"), mode: .mac, responseMode: .full)
    #expect(read == [UInt8](repeating: 0, count: 16))
    #expect(throws: NTAG424Error.status(command: 0x8D, sw1: 0x91, sw2: 0xAE)) {  // key 2 may not write file 03
      try exchange(tag, &nonFirst, 0x8D, header: hex424("03 000000 020000"), data: [1, 2], mode: .full)
    }
    var key3 = try authenticate(tag, keyNumber: 3)
    #expect(try exchange(tag, &key3, 0x8D, header: hex424("03 040000 030000"), data: [7, 8, 9], mode: .full) == [])
    #expect(try exchange(tag, &key3, 0xAD, header: hex424("03 030000 050000"), mode: .mac, responseMode: .full)
            == [0, 7, 8, 9, 0])                                                  // key 3 is ReadWrite
    #expect(try exchange(tag, &key3, 0x51, mode: .mac, responseMode: .full) == tag.identifier)
    #expect(throws: NTAG424Error.status(command: 0xAD, sw1: 0x91, sw2: 0xBE)) {  // past the 128-byte file
      try exchange(tag, &key3, 0xAD, header: hex424("03 7F0000 020000"), mode: .mac, responseMode: .full)
    }
  }

  /// ReadData past the file is `91 BE`, which ends the session; WriteData's length must match.
  @Test func boundariesAndLengths() throws {
    let tag = try NTAG424DNAVirtualTag()
    tag.selectApplication()
    #expect(tag.send("90AD0000070200FF00020000 00") == hex424("91BE"))           // offset 255 + 2 > 256
    #expect(tag.send("90AD0000070400000001000000") == hex424("91F0"))           // no file 04
    #expect(tag.send("908D0000080200000002000041 00") == hex424("917E"))        // Length 2, one byte
    #expect(tag.send("908D000009020000000200004142 00") == hex424("9100"))
    #expect(tag.send("90AD0000070200000002000000") == hex424("4142 9100"))
    #expect(tag.send("90AD000007010000000000 0000").count == 32 + 2)            // the whole CC file
    #expect(tag.send("90FF000000") == hex424("911C"))                           // unknown command
    #expect(tag.send("90AF000000") == hex424("911C"))                           // nothing to continue
    tag.reset()
    #expect(tag.send("90F50000010200") == hex424("919D"))                        // the PICC level: no files
  }

  /// ChangeFileSettings refuses what Table 71 refuses.
  @Test func changeFileSettingsChecks() throws {
    let tag = try NTAG424DNAVirtualTag()
    tag.selectApplication()
    #expect(tag.send("905F0000040240E0EE00") == hex424("91AE"))                  // Change is key 0
    func change(_ file: UInt8, _ data: String) throws -> [UInt8] {
      tag.selectApplication()
      let session = try authenticate(tag, keyNumber: 0)
      return tag.send(try session.command(0x5F, header: [file], data: hex424(data), mode: .full)).suffix(2)
    }
    #expect(try change(0x01, "40 00E0 C1 F121 200000 430000 430000") == hex424("919D"))   // SDM on file 01
    #expect(try change(0x02, "40 00E0 C1 F121 200000 300000 300000") == hex424("919E"))   // MAC inside PICCData
    #expect(try change(0x02, "40 00E0 C1 F121 200000 430000") == hex424("917E"))          // SDMMACOffset missing
    #expect(try change(0x02, "40 00E0 C0 F121 200000 430000 430000") == hex424("919E"))   // not ASCII
    #expect(try change(0x02, "40 00E0 81 F121 200000 430000 430000") == hex424("919E"))   // SDMCtrRet without counter
    #expect(try change(0x02, "40 00E0 91 FF21 200000 430000 430000 200000 630000") == hex424("919E"))   // ENC without counter
    #expect(try change(0x02, "40 00E0 C1 F12E 200000 430000 430000") == hex424("919E"))   // SDMFileRead Eh
    #expect(try change(0x02, "40 00E0 C1 F121 F10000 430000 430000") == hex424("919E"))   // PICCData past the file
    #expect(try change(0x02, "00 00E5") == hex424("919E"))                                // key 5
    #expect(try change(0x04, "00 00E0") == hex424("91F0"))
    #expect(try change(0x02, "40 00E0 C1 F121 200000 430000 430000") == hex424("9100"))
    tag.selectApplication()
    #expect(tag.send("90F50000010200") == hex424("00 40 00E0 000100 C1 F121 200000 430000 430000 9100"))
    // Write right 0 now: ISOUpdateBinary refused, and the change right too without key 0.
    #expect(tag.send("00A4000C02E104") == hex424("9000"))
    #expect(tag.send("00D6000001FF") == hex424("6982"))
  }

  /// GetVersion's three frames (NT4H2421Gx datasheet §10.5.2), Read_Sig's test value in plain and in
  /// CommMode.Full, GetKeyVersion, SetConfiguration's refusals.
  @Test func versionSignatureAndConfiguration() throws {
    let tag = try NTAG424DNAVirtualTag()
    #expect(tag.send("9060000000") == hex424("04 04 02 30 00 11 05 91AF"))
    #expect(tag.send("90AF000000") == hex424("04 04 02 01 02 11 05 91AF"))
    // Production: UID, batch, CWProd and YearProd in BCD (week 26 of 2021).
    #expect(tag.send("90AF000000") == tag.identifier + hex424("CF394144 40 26 21 9100"))
    let signature = tag.send("903C0000010000")
    #expect(signature.count == 58 && signature.suffix(2) == [0x91, 0x00])
    #expect(OriginalitySignature.check(uid: tag.identifier, signature: Array(signature.prefix(56))) == .testKey)
    #expect(tag.send("903C0000010000") == signature)  // the same bytes at every read
    tag.selectApplication()
    var session = try authenticate(tag, keyNumber: 0)
    #expect(try exchange(tag, &session, 0x3C, header: [0x00], mode: .mac, responseMode: .full) == Array(signature.prefix(56)))
    #expect(try exchange(tag, &session, 0x5C, header: [0x0B], data: [0x00], mode: .full) == [])   // standard back modulation
    #expect(throws: NTAG424Error.status(command: 0x5C, sw1: 0x91, sw2: 0x9E)) {                    // Random ID: not modelled
      try exchange(tag, &session, 0x5C, header: [0x00], data: [0x02], mode: .full)
    }
    tag.selectApplication()
    #expect(Array(tag.send("9060000000").prefix(3)) == hex424("04 04 82"))
    var key1 = try authenticate(tag, keyNumber: 1)
    #expect(throws: NTAG424Error.status(command: 0x5C, sw1: 0x91, sw2: 0xAE)) {                    // key 0 only
      try exchange(tag, &key1, 0x5C, header: [0x0B], data: [0x01], mode: .full)
    }
  }

  /// Inside an authentication GetVersion's command carries a MAC and its last frame the MAC over
  /// all three frames (Table 22, note 1); GetFileCounters with SDMCtrRet key 1 answers in
  /// CommMode.Full to key 1 only.
  @Test func authenticatedGetVersionAndKeyedFileCounters() throws {
    let tag = try NTAG424DNAVirtualTag()
    tag.selectApplication()
    var session = try authenticate(tag, keyNumber: 0)
    let part1 = tag.send(try session.command(0x60, mode: .mac))
    let part2 = tag.send("90AF000000")
    let part3 = tag.send("90AF000000")
    #expect(part1.suffix(2) == [0x91, 0xAF] && part2.suffix(2) == [0x91, 0xAF])
    let joined = part1.dropLast(2) + part2.dropLast(2) + part3
    let version = try session.response(to: 0x60, joined, mode: .mac)              // the MAC over all three verifies
    #expect(version == tag.versionFrames.flatMap { $0 })
    var tampered = Array(joined)
    tampered[0] ^= 0x01
    var other = try authenticate(tag, keyNumber: 0)
    _ = tag.send(try other.command(0x60, mode: .mac))
    _ = tag.send("90AF000000")
    let last = tag.send("90AF000000")
    #expect(throws: NTAG424Error.responseMACMismatch(command: 0x60)) {
      try other.response(to: 0x60, tampered.prefix(14) + last, mode: .mac)
    }

    // SDM with the counter in plain (SDMMetaRead Eh), SDMCtrRet key 1, no SDMMAC.
    var setup = try authenticate(tag, keyNumber: 0)
    #expect(try exchange(tag, &setup, 0x5F, header: [0x02], data: hex424("40 E0EE 41 F1EF 000000"), mode: .full) == [])
    tag.selectApplication()
    #expect(tag.send("90AD0000070200000006000000") == Array("000001".utf8) + hex424("9100"))
    #expect(tag.send("90F60000010200") == hex424("91AE"))                        // SDMCtrRet is key 1
    var key1 = try authenticate(tag, keyNumber: 1)
    #expect(try exchange(tag, &key1, 0xF6, header: [0x02], mode: .mac, responseMode: .full) == hex424("010000 0000"))
    #expect(tag.send("90F60000010100") == hex424("919D"))                        // file 01 has no SDM
  }

  /// The ACR122U face: InDataExchange carries the native APDUs, InCommunicateThru ISO-DEP blocks;
  /// the Part 3 face passes them on; the ATR carries the ATS's historical byte.
  @Test func throughTheReaderFaces() throws {
    let tag = try NTAG424DNAVirtualTag()
    tag.testRandomness = .init(rndB: hex424("B9E2FC789B64BF237CCCAA20EC7E6E48"), transactionIdentifier: hex424("9D00C4DF"))
    let face = ACR122UFace(tag: tag)
    #expect(face.transmit(direct(hex424("40 01 00A4040C07D2760000850101 00"))) == answer(0x40, hex424("00 9000")))
    #expect(face.transmit(direct(hex424("40 01 9071000002000000"))) == answer(0x40, hex424("00 A04C124213C186F22399D33AC2A30215 91AF")))
    let part2 = hex424("90AF000020 35C3E05A752E0144BAC0DE51C1F22C56B34408A23D8AEA266CAB947EA8E0118D 00")
    #expect(face.transmit(direct([0x42, 0x02] + part2))
            == answer(0x42, hex424("00 02 3FA64DB5446D1F34CD6EA311167F5E4985B89690C04A05F17FA7AB2F08120663 9100")))
    // Authenticated now, GetVersion needs a MAC: the Part 3 face's power-on resets the tag first.
    #expect(face.transmit(direct(hex424("40 01 9060000000"))) == answer(0x40, hex424("00 917E")))
    let part3 = try PartThreeFace(tag: tag)
    part3.powerOn()
    #expect(part3.atr.contains(0x80))
    #expect(part3.transmit(hex424("9060000000")) == hex424("04 04 02 30 00 11 05 91AF"))
    #expect(part3.transmit(hex424("FFCA000000")) == tag.identifier + hex424("9000"))
  }

  /// `sim:ntag424dna`, the feeder's distinct UIDs, and the kind's name on the command line.
  @Test func simulatorFeederAndKind() throws {
    registerVirtualNTAG424()
    let spec = try SimulatorSpec(parsing: "sim:ntag424dna")
    #expect(spec.kind == .ntag424dna && spec.face == .acr122u)
    #expect(try SimulatorSpec(parsing: "sim:ntag424dna@part3").face == .part3)
    #expect(VirtualTagKind.names.contains("ntag424dna"))
    let feeder = try TagFeeder(settings: FeedSettings(kinds: [.ntag424dna], count: 3, seed: 7))
    var uids: Set<[UInt8]> = []
    while let fed = try feeder.next() {
      #expect(fed.tag is NTAG424DNAVirtualTag)
      #expect(fed.tag.identifier.first == 0x04)
      uids.insert(fed.tag.identifier)
    }
    #expect(uids.count == 3)
  }

  /// An image file keeps keys, key versions, file settings, SDMReadCtr and the failed-authentication
  /// counters: the tag reloaded from it authenticates with the changed key and reports the same.
  @Test func imageFileKeepsKeysSettingsAndCounters() throws {
    registerVirtualNTAG424()
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("ntag424-\(UUID().uuidString).bin").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let (file, opened) = try ImageFile.open(path: path, kind: .ntag424dna, uid: hex424("04112233445566"))
    let tag = try #require(opened as? NTAG424DNAVirtualTag)
    #expect(opened.memoryImage.count == NTAG424DNAVirtualTag.imageSize)
    tag.selectApplication()
    var session = try authenticate(tag, keyNumber: 0)
    let newKey = key424("5004BF991F408672B1EF00F08F9E8647")
    try session.changeKeyResponse(keyNumber: 3, tag.send(try session.changeKeyCommand(keyNumber: 3, newKey: newKey, newVersion: 0x42)))
    // Plain UID and counter mirrors at 10h and 20h, the SDMMAC (key 0) at 40h over nothing.
    let settings = hex424("40 E0EE C1 FEE0 100000 200000 400000 400000")
    #expect(try exchange(tag, &session, 0x5F, header: [0x02], data: settings, mode: .full) == [])
    tag.selectApplication()
    #expect(tag.send("90AD0000070200000001000000").suffix(2) == [0x91, 0x00])    // SDMReadCtr 1
    let first = tag.send("9071000002010000")
    let wrong = try EV2Authentication(key: newKey, keyNumber: 1, encryptedRndB: first.dropLast(2))
    #expect(tag.send(try wrong.secondCommand) == hex424("91AE"))                 // TotFailCtr of key 1: 1
    try file.saveIfChanged(tag)

    let (_, reopened) = try ImageFile.open(path: path, kind: .ntag424dna, uid: hex424("04112233445566"))
    let again = try #require(reopened as? NTAG424DNAVirtualTag)
    #expect(again.memoryImage == tag.memoryImage)
    #expect(again.keyVersion(3) == 0x42)
    #expect(again.readCounter(file: 2) == 1)
    #expect(again.failedAuthenticationCounter(key: 1) == 1)
    again.selectApplication()
    #expect(again.send("90F50000010200") == tag.send("90F50000010200"))
    _ = try authenticate(again, keyNumber: 3, key: newKey)
    again.selectApplication()
    let mirrored = again.send("90AD0000070200000030000000")
    #expect(Array(mirrored[0x20..<0x26]) == Array("000002".utf8))                // the counter goes on from 1
    #expect(Array(mirrored[0x10..<0x1E]) == Array("04112233445566".utf8))
  }
}
