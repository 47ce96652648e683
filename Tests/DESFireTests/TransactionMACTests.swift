import DESFire
import EV2SecureMessaging
import Testing

/// The Transaction MAC (MF2DL(H)x0 data sheet rev. 3.3, §10.3). The session keys against the one
/// independent vector found, Proxmark3's `TestTransSessionKeys` (client/src/mifare/desfiretest.c:
/// `DesfireGenTransSessionKeyEV2` with TMC 8, so SV1 carries 9); the TMI layouts against the data
/// sheet's table as NXP's reader library collects it, byte by byte; the TMV has no published
/// value, so it is checked for what it must do (a changed byte, key, UID or counter fails).
@Suite struct TransactionMACTests {
  let key = hex("66 A8 CB 93 26 9D C9 BC 28 85 B7 A9 1B 9C 69 7B")
  let uid = hex("04 01 02 03 04 05 06")

  @Test func sessionKeysOfProxmark3() throws {
    #expect(try DESFireTransactionMAC.sessionVector(label: 0x5A, committedCounter: 9, uid: uid)
      == hex("5A 00 01 00 80 09 00 00 00 04 01 02 03 04 05 06"))
    #expect(try DESFireTransactionMAC.sessionMACKey(key: key, committedCounter: 9, uid: uid)
      == hex("7C 1A D2 D9 C5 C0 81 54 A0 A4 91 4B 40 1A 65 98"))
    #expect(try DESFireTransactionMAC.sessionEncryptionKey(key: key, committedCounter: 9, uid: uid)
      == hex("11 9B 90 2A 07 B1 8A 86 5B 8E 1B 00 60 59 47 84"))
  }

  @Test func refusesWrongLengths() {
    #expect(throws: EV2Error.invalidLength(field: "UID", expected: 7, actual: 4)) {
      try DESFireTransactionMAC.sessionMACKey(key: key, committedCounter: 1, uid: [1, 2, 3, 4])
    }
    #expect(throws: EV2Error.invalidLength(field: "AppTransactionMACKey", expected: 16, actual: 8)) {
      try DESFireTransactionMAC.sessionMACKey(key: Array(key.prefix(8)), committedCounter: 1, uid: uid)
    }
    #expect(throws: EV2Error.invalidLength(field: "TMC ‖ TMV", expected: 12, actual: 11)) {
      try DESFireTransactionMACRecord(bytes: [UInt8](repeating: 0, count: 11))
    }
  }

  @Test func inputLayoutsPerCommand() throws {
    var tmi = DESFireTransactionMACInput()
    #expect(tmi.isEmpty)
    try tmi.writeData(file: 0x04, offset: 0x10, data: [0xAA, 0xBB, 0xCC])
    #expect(tmi.bytes == hex("3D 04 10 00 00 03 00 00 00 00 00 00 00 00 00 00  AA BB CC 00 00 00 00 00 00 00 00 00 00 00 00 00"))
    tmi.reset()
    // ReadData to the end (length 0) carries the length read.
    try tmi.readData(file: 0x00, offset: 0, length: 0, data: [UInt8](repeating: 0x11, count: 17))
    #expect(tmi.bytes == hex("BD 00 00 00 00 11 00 00 00 00 00 00 00 00 00 00") + [UInt8](repeating: 0x11, count: 17)
      + [UInt8](repeating: 0, count: 15))
    tmi.reset()
    tmi.value(command: 0x0C, file: 0x03, value: 0x0102)
    tmi.value(command: 0x6C, file: 0x03, value: -1)
    tmi.clearRecordFile(file: 0x01)
    #expect(tmi.bytes == hex("0C 03 02 01 00 00 00 00 00 00 00 00 00 00 00 00  6C 03 FF FF FF FF 00 00 00 00 00 00 00 00 00 00"
      + "EB 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00"))
    tmi.reset()
    // WriteRecord as libnxpsc's nxpsc_tmac_tmi_write_record lays it out (a 16-byte record: no padding after it).
    try tmi.writeRecord(file: 0x01, offset: 0, data: [UInt8](repeating: 0x5A, count: 16))
    #expect(tmi.bytes == hex("3B 01 00 00 00 10 00 00 00 00 00 00 00 00 00 00") + [UInt8](repeating: 0x5A, count: 16))
    tmi.reset()
    // ReadRecords of all (count 0) carries the number of records read.
    try tmi.readRecords(file: 0x01, record: 0, count: 0, recordSize: 16, data: [UInt8](repeating: 7, count: 48))
    #expect(Array(tmi.bytes.prefix(16)) == hex("BB 01 00 00 00 03 00 00 00 00 00 00 00 00 00 00") && tmi.bytes.count == 64)
    #expect(throws: EV2Error.self) { try tmi.readRecords(file: 1, record: 0, count: 0, recordSize: 16, data: [1, 2]) }
    #expect(throws: EV2Error.self) { try tmi.writeData(file: 1, offset: 0x100_0000, data: [1]) }
  }

  @Test func valueVerifiesAndAnyChangeFails() throws {
    var tmi = DESFireTransactionMACInput()
    try tmi.writeData(file: 0x04, offset: 0, data: Array("hello".utf8))
    tmi.value(command: 0xDC, file: 0x03, value: 5)
    let tmv = try DESFireTransactionMAC.value(key: key, committedCounter: 1, uid: uid, input: tmi)
    #expect(tmv.count == 8)
    // TMV = MACt(SesTMMACKey, TMI): the odd-index bytes of the full CMAC under the session key.
    let sessionKey = try DESFireTransactionMAC.sessionMACKey(key: key, committedCounter: 1, uid: uid)
    #expect(tmv == EV2Frames.truncate(try DESFireEV2Cipher.cmac(tmi.bytes, key: sessionKey)))
    let record = try DESFireTransactionMACRecord(bytes: [0x01, 0x00, 0x00, 0x00] + tmv)
    #expect(record.counter == 1 && record.bytes == [0x01, 0x00, 0x00, 0x00] + tmv)
    #expect(try DESFireTransactionMAC.verify(record, key: key, uid: uid, input: tmi))

    var changed = DESFireTransactionMACInput()
    try changed.writeData(file: 0x04, offset: 0, data: Array("hellp".utf8))
    changed.value(command: 0xDC, file: 0x03, value: 5)
    #expect(try !DESFireTransactionMAC.verify(record, key: key, uid: uid, input: changed))
    #expect(try !DESFireTransactionMAC.verify(record, key: [UInt8](repeating: 0, count: 16), uid: uid, input: tmi))
    #expect(try !DESFireTransactionMAC.verify(record, key: key, uid: hex("04 01 02 03 04 05 07"), input: tmi))
    let nextCounter = try DESFireTransactionMACRecord(counter: 2, value: tmv)
    #expect(try !DESFireTransactionMAC.verify(nextCounter, key: key, uid: uid, input: tmi))
  }
}
