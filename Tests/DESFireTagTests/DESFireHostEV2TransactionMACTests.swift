import DESFire
import DESFireTag
import NFCEmulator
import NFCTags
import Testing

/// The host's CreateTransactionMACFile (DESFireCard+TransactionMACFile.swift) against the virtual
/// DESFire EV2/EV3: the file created in the EV2 session with a chosen AppTransactionMACKey, a
/// transaction committed with option 01h whose TMV verifies with that key and not with a changed
/// byte; a second file refused by the card (`91 DE`); no EV2 session refused before anything is sent.
@Suite struct DESFireHostEV2TransactionMACTests {
  static let app = DESFireApplicationID(0x00_7AC0)!
  static let zeroAES = try! DESFireKeyMaterial(.aes, [UInt8](repeating: 0, count: 16))
  static let tmKey = try! DESFireKeyMaterial(.aes, (0..<16).map { UInt8(0x30 + $0) })
  /// Read free, CommitReaderID and read&write never, change key 0.
  static let tmAccess = DESFireFileAccess(read: 0x0E, write: 0x0F, readWrite: 0x0F, change: 0x00)

  /// Application 7AC0 of two AES keys with standard file 01h (plain, free, 64 bytes), selected.
  static func card(_ chip: DESFireChip) throws -> (DESFireCard, CountingDESFireLink) {
    let link = try CountingDESFireLink(chip)
    let card = DESFireCard(link: link)
    try card.createApplication(app, settings: 0x0F, keyCount: 2, keyType: .aes)
    try card.selectApplication(app)
    try card.createStandardDataFile(1, access: .free, size: 64)
    return (card, link)
  }

  @Test(arguments: [DESFireChip.ev2With4K, .ev3With8K])
  func aTransactionVerifiesWithTheCreatedKey(_ chip: DESFireChip) throws {
    let (card, link) = try Self.card(chip)
    try card.authenticateEV2First(keyNumber: 0, key: Self.zeroAES)
    try card.createTransactionMACFile(0x0F, communication: .plain, access: Self.tmAccess, key: Self.tmKey, keyVersion: 1)
    #expect(!(link.sent.last ?? []).windowsContain((0..<16).map { UInt8(0x30 + $0) }))  // the key travels enciphered
    #expect(try card.transactionMACFile(0x0F).counter == 0)

    let message = Array("gate 7, line 3".utf8)
    var sent = DESFireTransactionMACInput()
    try card.writeData(file: 1, offset: 4, message, communication: .plain)
    try sent.writeData(file: 1, offset: 4, data: message)
    let record = try card.commitTransactionWithTransactionMAC()
    #expect(record.counter == 1)
    #expect(try DESFireCard.verifyTransactionMAC(record, key: Self.tmKey, uid: link.tag.uid, input: sent))
    #expect(try !DESFireCard.verifyTransactionMAC(record, key: Self.zeroAES, uid: link.tag.uid, input: sent))
    var tampered = DESFireTransactionMACInput()
    var changed = message
    changed[0] ^= 0x01
    try tampered.writeData(file: 1, offset: 4, data: changed)
    #expect(try !DESFireCard.verifyTransactionMAC(record, key: Self.tmKey, uid: link.tag.uid, input: tampered))
    #expect(try card.transactionMACFile(0x0F) == record)

    // At most one per application: the card answers 91 DE.
    let second = #expect(throws: DESFireCommandError.self) {
      try card.createTransactionMACFile(0x0E, access: Self.tmAccess, key: Self.tmKey)
    }
    #expect(second?.status == .duplicateError)
  }

  @Test func refusals() throws {
    let (card, link) = try Self.card(.ev3With4K)
    let before = link.sent.count
    // No EV2 session: refused before the key is sent.
    let none = #expect(throws: DESFireCommandError.self) {
      try card.createTransactionMACFile(0x0F, access: Self.tmAccess, key: Self.tmKey)
    }
    #expect("\(none.map { "\($0)" } ?? "")".contains("EV2"))
    #expect(link.sent.count == before)
    try card.authenticateEV2First(keyNumber: 0, key: Self.zeroAES)
    #expect(throws: DESFireCommandError.self) {   // not an AES key: never sent
      try card.createTransactionMACFile(0x0F, access: Self.tmAccess, key: DESFireKeyMaterial(.des, [UInt8](repeating: 0, count: 16)))
    }
    #expect(throws: DESFireCommandError.self) { try card.createTransactionMACFile(0x20, access: Self.tmAccess, key: Self.tmKey) }
    #expect(link.sent.count == before + 2)  // only the two frames of the authentication
    // Another key than the application master key: the card refuses (91 9D).
    try card.authenticateEV2First(keyNumber: 1, key: Self.zeroAES)
    let other = #expect(throws: DESFireCommandError.self) {
      try card.createTransactionMACFile(0x0F, access: Self.tmAccess, key: Self.tmKey)
    }
    #expect(other?.status == .permissionDenied)
    #expect(link.tag.applications.first?.files[0x0F] == nil)
  }
}
