import DESFire
import DESFireEmulator
import EV2SecureMessaging
@testable import NFCEmulator
import Testing

/// CreateTransactionMACFile (CEh) on the virtual DESFire EV2/EV3 (docs/desfire.md, "Transaction
/// MAC"): `FileNo ‖ FileOption ‖ AccessRights(2) ‖ TMKeyOption` plain, `TMKey ‖ TMKeyVer`
/// enciphered in the EV2 session (Full, Proxmark3 `client/src/mifare/desfiresecurechan.c`'s
/// header length 5); then the Light's TMC/TMV behaviour under that key; one per application,
/// DeleteFile removes it.
@Suite struct DESFireEV2TransactionMACFileTests {
  let tmKey: [UInt8] = (0..<16).map { UInt8(0xA0 | $0) }
  /// Read free, write (CommitReaderID) and read&write never, change key 0.
  let rights: [UInt8] = [0xF0, 0xEF]

  /// An EV3 with application 000001 of three AES keys, selected, and its standard file 01h
  /// (plain, free, 32 bytes).
  func card(_ chip: DESFireChip = .ev3With4K) throws -> DESFireVirtualTag {
    let tag = try DESFireVirtualTag(chip: chip)
    tag.security = OpenSSLDESFireSecurity()
    #expect(tag.send("90 CA 00 00 05 01 00 00 0F 83 00") == hex("91 00"))
    #expect(tag.send("90 5A 00 00 03 01 00 00 00") == hex("91 00"))
    #expect(tag.send("90 CD 00 00 07 01 00 EE EE 20 00 00 00") == hex("91 00"))
    return tag
  }

  func create(_ tag: DESFireVirtualTag, _ session: inout HostSession, file: UInt8 = 0x0F) throws -> [UInt8] {
    tag.send(try session.command(0xCE, header: [file, 0x00] + rights + [0x02], data: tmKey + [0x00], mode: .full))
  }

  @Test func aTransactionCommitsWithTheCreatedKeysTMV() throws {
    let tag = try card()
    var session = try authenticate(tag, keyNumber: 0)
    _ = try exchange(tag, &session, 0xCE, header: [0x0F, 0x00] + rights + [0x02], data: tmKey + [0x00], mode: .full)
    #expect(tag.currentApplication?.files[0x0F]?.data == [UInt8](repeating: 0, count: 12))
    let data = Array("ticket 7".utf8)
    _ = try exchange(tag, &session, 0x3D, header: [0x01, 0x00, 0x00, 0x00, UInt8(data.count), 0x00, 0x00], data: data, mode: .plain)
    let record = try DESFireTransactionMACRecord(bytes: try exchange(tag, &session, 0xC7, header: [0x01], mode: .mac))
    #expect(record.counter == 1)
    var input = DESFireTransactionMACInput()
    try input.writeData(file: 0x01, offset: 0, data: data)
    #expect(try DESFireTransactionMAC.verify(record, key: tmKey, uid: tag.uid, input: input))
    #expect(try !DESFireTransactionMAC.verify(record, key: zeroKey, uid: tag.uid, input: input))
    var changed = DESFireTransactionMACInput()
    try changed.writeData(file: 0x01, offset: 0, data: Array("ticket 8".utf8))
    #expect(try !DESFireTransactionMAC.verify(record, key: tmKey, uid: tag.uid, input: changed))
    // The file reads as TMC ‖ TMV (free read: plain); WriteData to it is refused.
    #expect(try exchange(tag, &session, 0xBD, header: [0x0F, 0, 0, 0, 0, 0, 0], mode: .plain) == record.bytes)
    #expect(tag.send("90 3D 00 00 08 0F 00 00 00 01 00 00 FF 00") == hex("91 9D"))
  }

  @Test func oneFilePerApplicationAndDeleteFileRemovesIt() throws {
    let tag = try card(.ev2With4K)
    var session = try authenticate(tag, keyNumber: 0)
    _ = try exchange(tag, &session, 0xCE, header: [0x0F, 0x00] + rights + [0x02], data: tmKey + [0x00], mode: .full)
    #expect(try create(tag, &session) == hex("91 DE"))          // the same number
    session = try authenticate(tag, keyNumber: 0)
    #expect(try create(tag, &session, file: 0x0E) == hex("91 DE"))  // another number: still one per application
    session = try authenticate(tag, keyNumber: 0)
    _ = try exchange(tag, &session, 0xDF, header: [0x0F], mode: .mac)
    #expect(tag.currentApplication?.files[0x0F] == nil)
    // Without the file, a commit of a write is the plain one again (no TMC ‖ TMV).
    _ = try exchange(tag, &session, 0x3D, header: [0x01, 0, 0, 0, 1, 0, 0], data: [0x55], mode: .plain)
    #expect(tag.send(try session.command(0xC7, header: [0x01], mode: .mac)).suffix(2) != [0x91, 0x00])
    session = try authenticate(tag, keyNumber: 0)
    _ = try exchange(tag, &session, 0xCE, header: [0x0E, 0x00] + rights + [0x02], data: tmKey + [0x00], mode: .full)
  }

  @Test func refusals() throws {
    let tag = try card()
    // No authentication: the key cannot travel (AEh).
    #expect(tag.send([0x90, 0xCE, 0, 0, 0x16, 0x0F, 0x00] + rights + [0x02] + tmKey + [0x00, 0x00]) == hex("91 AE"))
    #expect(tag.currentApplication?.files[0x0F] == nil)
    // Another key than the application master key (9Dh); a TMKeyOption that is not AES (9Eh).
    var session = try authenticate(tag, keyNumber: 1)
    #expect(try create(tag, &session) == hex("91 9D"))
    session = try authenticate(tag, keyNumber: 0)
    #expect(tag.send(try session.command(0xCE, header: [0x0F, 0x00] + rights + [0x00], data: tmKey + [0x00], mode: .full)) == hex("91 9E"))
    #expect(tag.currentApplication?.files[0x0F] == nil)
    // The EV1 has no CEh.
    let ev1 = try card(.ev1With4K)
    #expect(ev1.send([0x90, 0xCE, 0, 0, 0x16, 0x0F, 0x00] + rights + [0x02] + tmKey + [0x00, 0x00]) == hex("91 1C"))
  }
}
