import DESFire
import DESFireEmulator
import DESFireTag
import NFCTags
import Testing

/// Value and record files, ChangeFileSettings and GetCardUID after the legacy Authenticate (0Ah),
/// the host (DESFireTag) against the virtual card, with the wire bytes checked against the scheme
/// computed here from the cipher alone (NXP M075031; the layouts as libfreefare's
/// mifare_desfire.c and mifare_desfire_crypto.c, and proxmark3's desfiresecurechan.c "d40"
/// channel, have them): the MAC and the CRC16 cover the data after the command's header alone
/// (the value or amount, the record bytes, the new file settings).
@Suite struct DESFireHostLegacyFilesTests {
  typealias Modes = DESFireHostLegacyModesTests
  static let keyZero = Modes.keyZero

  /// DESFireHostLegacyModesTests' card (DES key 0 of 8 zero bytes, 0Ah done) with value file 4
  /// (0 to 1000, 5, LimitedCredit) and cyclic record file 5 (3-byte records, 4) in `mode`.
  static func card(_ mode: DESFireFileCommunication) throws -> (DESFireCard, CountingDESFireLink, DESFireCipher) {
    let (card, link, session) = try Modes.card(key: [UInt8](repeating: 0, count: 8))
    try card.createValueFile(4, communication: mode, access: keyZero,
                             limits: DESFireValueFileLimits(lower: 0, upper: 1000, value: 5, limitedCreditEnabled: true))
    try card.createRecordFile(5, cyclic: true, communication: mode, access: keyZero, recordSize: 3, maximumRecords: 4)
    return (card, link, session)
  }

  /// The data bytes of the frames sent since `before` (`90 cmd 00 00 Lc data 00`).
  static func wire(_ link: CountingDESFireLink, since before: Int) -> [UInt8] {
    link.sent[before...].flatMap { $0.count > 5 ? Array($0.dropFirst(5).dropLast()) : [] }
  }

  static func mac(_ data: [UInt8], _ session: DESFireCipher) throws -> [UInt8] {
    Array(try session.encrypt(Modes.padded(data), iv: Modes.zero).suffix(8).prefix(4))
  }

  /// Send mode: each block XOR the previous result, then decrypted.
  static func sendMode(_ data: [UInt8], _ session: DESFireCipher) throws -> [UInt8] {
    var previous = Modes.zero, out: [UInt8] = []
    let plain = Modes.padded(data + DESFireCRC.crc16(data))
    for start in stride(from: 0, to: plain.count, by: 8) {
      previous = try session.decrypt(zip(plain[start..<(start + 8)], previous).map { $0 ^ $1 }, iv: Modes.zero)
      out += previous
    }
    return out
  }

  static func protected(_ data: [UInt8], _ mode: DESFireFileCommunication, _ session: DESFireCipher) throws -> [UInt8] {
    mode == .mac ? data + (try mac(data, session)) : try sendMode(data, session)
  }

  @Test(arguments: [DESFireFileCommunication.mac, .full])
  func valuesInMACAndFullModeWithTheSchemesBytes(_ mode: DESFireFileCommunication) throws {
    let (card, link, session) = try Self.card(mode)
    #expect(card.communication(for: try card.fileSettings(4), granting: [0]) == mode)
    var answers: [[UInt8]] = []
    link.tamper = { command, answer in
      if command.count > 1, command[1] == 0x6C { answers.append(answer) }
      return answer
    }
    #expect(try card.value(of: 4, communication: mode) == 5)
    let five: [UInt8] = [5, 0, 0, 0]
    let expected = mode == .mac ? five + (try Self.mac(five, session))
                                : try session.encrypt(Modes.padded(five + DESFireCRC.crc16(five)), iv: Modes.zero)
    #expect(answers.first == expected + [0x91, 0x00])
    for (change, amount) in [(DESFireValueChange.credit, Int32(300)), (.debit, 100), (.limitedCredit, 40)] {
      let before = link.sent.count
      try card.changeValue(change, file: 4, amount: amount, communication: mode)
      let bytes = [UInt8(amount & 0xFF), UInt8(amount >> 8), 0, 0]
      #expect(Self.wire(link, since: before) == [4] + (try Self.protected(bytes, mode, session)), "\(change)")
      try card.commitTransaction()
    }
    #expect(try card.value(of: 4, communication: mode) == 245)
    #expect(card.secureMessaging is DESFireLegacySecureMessaging)
  }

  @Test(arguments: [DESFireFileCommunication.mac, .full])
  func recordsInMACAndFullModeWithTheSchemesBytes(_ mode: DESFireFileCommunication) throws {
    let (card, link, session) = try Self.card(mode)
    for record in [[UInt8]([1, 2, 3]), [4, 5, 6]] {
      let before = link.sent.count
      try card.writeRecord(file: 5, offset: 0, record, communication: mode)
      #expect(Self.wire(link, since: before) == [5, 0, 0, 0, 3, 0, 0] + (try Self.protected(record, mode, session)))
      try card.commitTransaction()
    }
    var answers: [[UInt8]] = []
    link.tamper = { command, answer in
      if command.count > 1, command[1] == 0xBB { answers.append(answer) }
      return answer
    }
    #expect(try card.readRecords(file: 5, offset: 0, count: 0, recordSize: 3, communication: mode) == [1, 2, 3, 4, 5, 6])
    #expect(try card.readRecords(file: 5, offset: 0, count: 1, recordSize: 3, communication: mode) == [4, 5, 6])
    let all: [UInt8] = [1, 2, 3, 4, 5, 6]
    let expected = mode == .mac ? all + (try Self.mac(all, session))
                                : try session.encrypt(Modes.padded(all + DESFireCRC.crc16(all)), iv: Modes.zero)
    #expect(answers.first == expected + [0x91, 0x00])
  }

  @Test func changeFileSettingsAfter0AhIsTheSettingsAndCRC16InSendMode() throws {
    let (card, link, session) = try Self.card(.plain)
    let access = DESFireFileAccess(read: 1, write: 0, readWrite: 0, change: 0)
    let before = link.sent.count
    try card.changeFileSettings(4, communication: .full, access: access, changeRight: 0)
    let settings = [DESFireFileCommunication.full.rawValue] + access.wireBytes
    #expect(Self.wire(link, since: before) == [4] + (try Self.sendMode(settings, session)))
    let now = try card.fileSettings(4)
    #expect(now.communication == .full && now.access == access)
    #expect(card.secureMessaging is DESFireLegacySecureMessaging)
  }

  @Test func getCardUIDAfter0AhIsTheUIDAndCRC16Enciphered() throws {
    let (card, link, session) = try Self.card(.plain)
    var answer: [UInt8] = []
    link.tamper = { command, got in
      if command.count > 1, command[1] == 0x51 { answer = got }
      return got
    }
    let uid = try card.cardUID()
    #expect(uid == link.tag.identifier)
    let expected = try session.encrypt(Modes.padded(uid + DESFireCRC.crc16(uid)), iv: Modes.zero)
    #expect(answer == expected + [0x91, 0x00])
  }

  @Test(arguments: [(UInt8(0x6C), DESFireFileCommunication.mac), (0x6C, .full), (0xBB, .mac), (0xBB, .full), (0x51, .full)])
  func aWrongAnswerIsAnIntegrityFailureOnTheHostAndNeverData(_ code: UInt8, _ mode: DESFireFileCommunication) throws {
    let (card, link, _) = try Self.card(mode)
    try card.writeRecord(file: 5, offset: 0, [7, 8, 9], communication: mode)
    try card.commitTransaction()
    link.flipFirstByte(ofAnswerTo: code)
    #expect {
      switch code {
      case 0x6C: _ = try card.value(of: 4, communication: mode)
      case 0xBB: _ = try card.readRecords(file: 5, offset: 0, count: 1, recordSize: 3, communication: mode)
      default: _ = try card.cardUID()
      }
    } throws: { error in
      guard case DESFireCommandError.integrity(let why, _) = error else { return false }
      return !why.contains("\n")
    }
    #expect(card.secureMessaging == nil)
  }

  /// A wrong MAC or CRC16 is 1Eh on the card: Credit, WriteRecord, ChangeFileSettings.
  @Test(arguments: [(UInt8(0x0C), DESFireFileCommunication.mac), (0x0C, .full), (0x3B, .mac), (0x3B, .full), (0x5F, .full)])
  func aWrongMACOrCRCIsIntegrityErrorOnTheCard(_ code: UInt8, _ mode: DESFireFileCommunication) throws {
    let (card, _, _) = try Self.card(mode)
    let body: [UInt8] = mode == .mac ? [1, 0, 0, 0, 0xDE, 0xAD, 0xBE, 0xEF] : Array(repeating: 0x55, count: 8)
    let data: [UInt8]
    switch code {
    case 0x0C: data = [4] + body
    case 0x3B: data = [5, 0, 0, 0, 3, 0, 0] + (mode == .mac ? [1, 2, 3, 0xDE, 0xAD, 0xBE, 0xEF] : body)
    default: data = [4] + body
    }
    #expect { _ = try card.send(code, data, name: "legacy \(code)") } throws: {
      ($0 as? DESFireCommandError)?.status == .integrityError
    }
  }
}
