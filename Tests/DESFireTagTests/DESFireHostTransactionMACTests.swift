import DESFire
import DESFireEmulator
import DESFireTag
import EV2SecureMessaging
import NFCEmulator
import NFCTags
import NFCTransport
import Testing

/// The host's Transaction MAC (DESFireCard+TransactionMAC.swift; MF2DL(H)x0 data sheet §10.3)
/// against the virtual DESFire Light: an EV2 transaction committed with option 01h, the TMV
/// verified from the commands the host sent and the Transaction MAC key, the file read back.
@Suite struct DESFireHostTransactionMACTests {
  static let zeroAES = try! DESFireKeyMaterial(.aes, [UInt8](repeating: 0, count: 16))

  typealias Link = VirtualDESFireLink

  func light() throws -> (DESFireVirtualTag, DESFireCard) {
    let tag = try #require(try VirtualTagKind.desfireLight.makeTag(uid: nil) as? DESFireVirtualTag)
    tag.security = OpenSSLDESFireSecurity()
    let card = DESFireCard(link: Link(tag))
    _ = try card.selectLightApplication()
    return (tag, card)
  }

  @Test func anEV2TransactionVerifiesAndAChangedDataByteDoesNot() throws {
    let (tag, card) = try light()
    try card.authenticateEV2First(keyNumber: 3, key: Self.zeroAES)  // read&write of files 03h and 04h
    let message = Array("pay 42 at gate 7 on line 3, then commit the log".utf8)   // more than one frame
    var sent = DESFireTransactionMACInput()
    try card.writeData(file: 0x04, offset: 8, message, communication: .full)
    try sent.writeData(file: 0x04, offset: 8, data: message)
    try card.changeValue(.credit, file: 0x03, amount: 42, communication: .full)
    sent.value(command: 0x0C, file: 0x03, value: 42)
    let read = try card.readData(file: 0x04, offset: 0, length: 0, communication: .full)
    try sent.readData(file: 0x04, offset: 0, length: 0, data: read)
    let record = try card.commitTransactionWithTransactionMAC()
    #expect(record.counter == 1)
    #expect(try DESFireCard.verifyTransactionMAC(record, key: Self.zeroAES, uid: tag.uid, input: sent))

    var tampered = DESFireTransactionMACInput()
    var changed = message
    changed[3] ^= 0x01
    try tampered.writeData(file: 0x04, offset: 8, data: changed)
    tampered.value(command: 0x0C, file: 0x03, value: 42)
    try tampered.readData(file: 0x04, offset: 0, length: 0, data: read)
    #expect(try !DESFireCard.verifyTransactionMAC(record, key: Self.zeroAES, uid: tag.uid, input: tampered))
    let otherKey = try DESFireKeyMaterial(.aes, [UInt8](repeating: 1, count: 16))
    #expect(try !DESFireCard.verifyTransactionMAC(record, key: otherKey, uid: tag.uid, input: sent))

    // The file, read in the same session (a free read right: plain), holds what the commit answered.
    #expect(try card.transactionMACFile() == record)
  }

  @Test func refusalsBeforeAnyCryptography() throws {
    let record = try DESFireTransactionMACRecord(counter: 1, value: [UInt8](repeating: 0, count: 8))
    let des = try DESFireKeyMaterial(.des, [UInt8](repeating: 0, count: 16))
    let refusal = #expect(throws: DESFireCommandError.self) {
      try DESFireCard.verifyTransactionMAC(record, key: des, uid: [UInt8](repeating: 4, count: 7), input: DESFireTransactionMACInput())
    }
    #expect("\(refusal.map { "\($0)" } ?? "")".contains("AES key"))
    #expect(throws: DESFireCommandError.self) {
      try DESFireCard.verifyTransactionMAC(record, key: Self.zeroAES, uid: [1, 2, 3, 4], input: DESFireTransactionMACInput())
    }
    // Without a transaction the card refuses the commit (91 0C).
    let (_, card) = try light()
    #expect(throws: DESFireCommandError.self) { try card.commitTransactionWithTransactionMAC() }
  }
}
