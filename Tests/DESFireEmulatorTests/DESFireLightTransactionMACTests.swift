import DESFire
import DESFireEmulator
import EV2SecureMessaging
@testable import NFCEmulator
import Testing

/// The virtual DESFire Light's Transaction MAC file 0Fh (MF2DL(H)x0 data sheet §10.3;
/// docs/desfire.md, "Transaction MAC"): CommitTransaction raises TMC and stores the TMV of the
/// transaction's input, ReadData of file 0Fh returns `TMC ‖ TMV`, option 01h answers them; each TMV
/// checked with the DESFire module's `DESFireTransactionMAC` from what the test sent.
@Suite struct DESFireLightTransactionMACTests {
  let selectDF = "00 A4 04 0C 10 A0 00 00 03 96 56 43 41 03 F0 15 40 00 00 00 0B"
  let uid = DESFireVirtualTag.defaultUID

  func light() throws -> DESFireVirtualTag {
    let tag = try #require(try VirtualTagKind.desfireLight.makeTag(uid: nil) as? DESFireVirtualTag)
    tag.security = OpenSSLDESFireSecurity()
    #expect(tag.send(selectDF) == hex("90 00"))
    return tag
  }

  @Test func aReadCommitsWithATMVAndTheFileHoldsIt() throws {
    let tag = try light()
    #expect(tag.send("90 6F 00 00 00") == hex("00 01 03 04 0F 1F 91 00"))
    #expect(tag.send("90 BD 00 00 07 0F 00 00 00 00 00 00 00") == [UInt8](repeating: 0, count: 12) + [0x91, 0x00])
    #expect(tag.send("90 C7 00 00 00") == hex("91 0C"))     // nothing read or changed yet
    let fci = tag.send("90 BD 00 00 07 1F 00 00 00 00 00 00 00")
    #expect(fci.count == 34 && fci.suffix(2) == [0x91, 0x00])
    let answer = tag.send("90 C7 00 00 01 01 00")
    try #require(answer.count == 14 && answer.suffix(2) == [0x91, 0x00], "\(answer)")
    let record = try DESFireTransactionMACRecord(bytes: Array(answer.prefix(12)))
    #expect(record.counter == 1)
    var input = DESFireTransactionMACInput()
    try input.readData(file: 0x1F, offset: 0, length: 0, data: Array(fci.dropLast(2)))
    #expect(try DESFireTransactionMAC.verify(record, key: zeroKey, uid: uid, input: input))
    // The file holds what the commit answered; reading it joins no transaction.
    #expect(tag.send("90 BD 00 00 07 0F 00 00 00 00 00 00 00") == record.bytes + [0x91, 0x00])
    #expect(tag.send("90 C7 00 00 00") == hex("91 0C"))
    // A second transaction without option 01h answers no data; the counter goes on.
    _ = tag.send("90 BD 00 00 07 1F 00 00 00 10 00 00 00")
    #expect(tag.send("90 C7 00 00 00") == hex("91 00"))
    let second = try DESFireTransactionMACRecord(bytes: Array(tag.send("90 BD 00 00 07 0F 00 00 00 00 00 00 00").prefix(12)))
    var secondInput = DESFireTransactionMACInput()
    try secondInput.readData(file: 0x1F, offset: 0, length: 16, data: Array(fci.prefix(16)))
    #expect(second.counter == 2)
    #expect(try DESFireTransactionMAC.verify(second, key: zeroKey, uid: uid, input: secondInput))
    #expect(try !DESFireTransactionMAC.verify(second, key: zeroKey, uid: uid, input: input))
  }

  @Test func abortDropsTheInputAndOptionsAreChecked() throws {
    let tag = try light()
    _ = tag.send("90 BD 00 00 07 1F 00 00 00 00 00 00 00")
    #expect(tag.send("90 A7 00 00 00") == hex("91 00"))
    #expect(tag.send("90 C7 00 00 00") == hex("91 0C"))
    _ = tag.send("90 BD 00 00 07 1F 00 00 00 00 00 00 00")
    #expect(tag.send("90 C7 00 00 01 02 00") == hex("91 9E"))
    #expect(tag.send("90 C7 00 00 02 01 00 00") == hex("91 7E"))
    // Writing the Transaction MAC file is never allowed.
    #expect(tag.send("90 3D 00 00 08 0F 00 00 00 01 00 00 FF 00").suffix(2) == [0x91, 0x9D])
  }

  /// In an EV2 session: a Full-mode WriteData to file 04h and a Credit, committed with option 01h
  /// (answered in MAC mode); the host's input verifies, and one changed data byte does not.
  @Test func anEV2TransactionVerifiesAndAChangedByteFails() throws {
    let tag = try light()
    var session = try authenticate(tag, keyNumber: 3)   // read&write of files 04h and 03h
    let data = Array("transaction".utf8)
    _ = try exchange(tag, &session, 0x3D, header: [0x04, 0x00, 0x00, 0x00, UInt8(data.count), 0x00, 0x00], data: data, mode: .full)
    _ = try exchange(tag, &session, 0x0C, header: [0x03], data: [0x2A, 0x00, 0x00, 0x00], mode: .full)
    let answer = try exchange(tag, &session, 0xC7, header: [0x01], mode: .mac)
    let record = try DESFireTransactionMACRecord(bytes: answer)
    #expect(record.counter == 1)
    var input = DESFireTransactionMACInput()
    try input.writeData(file: 0x04, offset: 0, data: data)
    input.value(command: 0x0C, file: 0x03, value: 42)
    #expect(try DESFireTransactionMAC.verify(record, key: zeroKey, uid: uid, input: input))
    var changed = DESFireTransactionMACInput()
    try changed.writeData(file: 0x04, offset: 0, data: Array("transactioN".utf8))
    changed.value(command: 0x0C, file: 0x03, value: 42)
    #expect(try !DESFireTransactionMAC.verify(record, key: zeroKey, uid: uid, input: changed))
  }
}
