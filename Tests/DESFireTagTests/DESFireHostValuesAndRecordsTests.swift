import DESFire
import DESFireTag
import NFCTags
import Testing

/// The host's CreateBackupDataFile, CreateValueFile, CreateLinear/CyclicRecordFile, GetValue,
/// Credit, Debit, LimitedCredit, WriteRecord, ReadRecords, ClearRecordFile and CommitTransaction
/// in each communication mode under an AES EV1 session, against the virtual card (which checks the
/// host's CMACs and CRC32s, MF3ICDx21_41_81 §2.5 and §9.6); and that a cut before the commit
/// leaves every file as it was.
@Suite struct DESFireHostValuesAndRecordsTests {
  static let app = DESFireApplicationID(0x00C0DE)!
  static let keyZero = DESFireFileAccess(read: 0, write: 0, readWrite: 0, change: 0)
  static func aesZero() throws -> DESFireKeyMaterial { try DESFireKeyMaterial(.aes, [UInt8](repeating: 0, count: 16)) }

  /// A card with application C0DE (AES keys), for `mode`: backup file 1 (16 bytes), value file 2
  /// (0 to 1000, 100, LimitedCredit), linear record file 3 (4-byte records, 3), cyclic 4 (2 bytes,
  /// 3), every right key 0; key 0 authenticated.
  static func card(_ mode: DESFireFileCommunication) throws -> (DESFireCard, CountingDESFireLink) {
    let link = try CountingDESFireLink()
    let card = DESFireCard(link: link)
    try card.createApplication(app, settings: 0x0F, keyCount: 1, keyType: .aes)
    try card.selectApplication(app)
    try card.authenticate(.aes, keyNumber: 0, key: try aesZero())
    try card.createBackupDataFile(1, communication: mode, access: keyZero, size: 16)
    try card.createValueFile(2, communication: mode, access: keyZero,
                             limits: DESFireValueFileLimits(lower: 0, upper: 1000, value: 100, limitedCreditEnabled: true))
    try card.createRecordFile(3, cyclic: false, communication: mode, access: keyZero, recordSize: 4, maximumRecords: 3)
    try card.createRecordFile(4, cyclic: true, communication: mode, access: keyZero, recordSize: 2, maximumRecords: 3)
    return (card, link)
  }

  /// The field off and on (the open transaction dropped), then a new session with key 0.
  static func reconnect(_ link: CountingDESFireLink) throws -> DESFireCard {
    link.tag.reset()
    let card = DESFireCard(link: link)
    try card.selectApplication(app)
    try card.authenticate(.aes, keyNumber: 0, key: try aesZero())
    return card
  }

  @Test(arguments: [DESFireFileCommunication.plain, .mac, .full])
  func eachKindInEachModeCommitsOrIsLeftUnchanged(_ mode: DESFireFileCommunication) throws {
    let (card, link) = try Self.card(mode)
    let settings = try card.fileSettings(2)
    #expect(settings.fileType == .value && settings.communication == mode)
    #expect(card.communication(for: settings, granting: [settings.access.read]) == mode)
    #expect(try card.value(of: 2, communication: mode) == 100)
    try card.changeValue(.credit, file: 2, amount: 50, communication: mode)
    try card.writeData(file: 1, offset: 0, [1, 2, 3], communication: mode)
    try card.writeRecord(file: 3, offset: 1, [0xAA, 0xBB], communication: mode)
    // Cut before the commit: nothing changed.
    var again = try Self.reconnect(link)
    #expect(try again.value(of: 2, communication: mode) == 100)
    #expect(try again.readData(file: 1, offset: 0, length: 3, communication: mode) == [0, 0, 0])
    #expect(throws: DESFireCommandError.self) { try again.readRecords(file: 3, offset: 0, count: 0, recordSize: 4, communication: mode) }
    again = try Self.reconnect(link)
    try again.changeValue(.credit, file: 2, amount: 50, communication: mode)
    try again.changeValue(.debit, file: 2, amount: 30, communication: mode)
    try again.writeData(file: 1, offset: 0, [1, 2, 3], communication: mode)
    try again.writeRecord(file: 3, offset: 1, [0xAA, 0xBB], communication: mode)
    for record: [UInt8] in [[1, 1], [2, 2], [3, 3]] {
      try again.writeRecord(file: 4, offset: 0, record, communication: mode)
      try again.commitTransaction()
    }
    try again.changeValue(.limitedCredit, file: 2, amount: 30, communication: mode)
    try again.commitTransaction()
    #expect(try again.value(of: 2, communication: mode) == 150)
    #expect(try again.readData(file: 1, offset: 0, length: 3, communication: mode) == [1, 2, 3])
    #expect(try again.readRecords(file: 3, offset: 0, count: 0, recordSize: 4, communication: mode) == [0, 0xAA, 0xBB, 0])
    #expect(try again.readRecords(file: 4, offset: 0, count: 2, recordSize: 2, communication: mode) == [2, 2, 3, 3])
    #expect(try again.readRecords(file: 4, offset: 0, count: 0, recordSize: 2, communication: mode) == [2, 2, 3, 3])
    try again.clearRecordFile(3)
    try again.abortTransaction()
    #expect(try again.readRecords(file: 3, offset: 0, count: 1, recordSize: 4, communication: mode) == [0, 0xAA, 0xBB, 0])
    // Past the upper limit: 91 BE, the session ended.
    #expect(throws: DESFireCommandError.self) { try again.changeValue(.credit, file: 2, amount: 851, communication: mode) }
    #expect(again.secureMessaging == nil)
  }

  @Test func aFullModeAmountNeverTravelsInClear() throws {
    let (card, link) = try Self.card(.full)
    try card.changeValue(.credit, file: 2, amount: 769, communication: .full)
    let sent = try #require(link.sent.last)
    #expect(!sent.indices.dropLast(3).contains { Array(sent[$0..<($0 + 4)]) == [0x01, 0x03, 0x00, 0x00] })
  }

  @Test func macAndFullNeedAnEV1Session() throws {
    let link = try CountingDESFireLink()
    let card = DESFireCard(link: link)
    let before = link.sent.count
    for mode in [DESFireFileCommunication.mac, .full] {
      #expect(throws: DESFireCommandError.self) { try card.changeValue(.debit, file: 2, amount: 1, communication: mode) }
      #expect(throws: DESFireCommandError.self) { try card.value(of: 2, communication: mode) }
      #expect(throws: DESFireCommandError.self) { try card.writeRecord(file: 3, offset: 0, [1], communication: mode) }
    }
    #expect(link.sent.count == before)
  }
}
