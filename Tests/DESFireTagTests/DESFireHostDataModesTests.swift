import DESFire
import DESFireTag
import NFCTags
import Testing

/// The host's ReadData and WriteData in MAC and full communication mode under EV1 secure
/// messaging, against the virtual card (which checks the host's CMACs and CRC32s as the data
/// sheet, MF3ICDx21_41_81 §2.5, describes), with each key type; what the host does with an answer
/// that fails its check; and MAC and full without a session, which the host refuses.
@Suite struct DESFireHostDataModesTests {
  static let app = DESFireApplicationID(0x00C0DE)!
  static let keyZero = DESFireFileAccess(read: 0, write: 0, readWrite: 0, change: 0)

  /// A card with application C0DE of `type`'s keys, files 1 (plain), 2 (MAC), 3 (full) of 200
  /// bytes with every right key 0, key 0 authenticated.
  static func card(_ type: DESFireKeyAlgorithm) throws -> (DESFireCard, CountingDESFireLink) {
    let link = try CountingDESFireLink()
    let card = DESFireCard(link: link)
    try card.createApplication(app, settings: 0x0F, keyCount: 2, keyType: type)
    try card.selectApplication(app)
    try authenticate(card, type)
    for (number, mode) in [(UInt8(1), DESFireFileCommunication.plain), (2, .mac), (3, .full)] {
      try card.createStandardDataFile(number, communication: mode, access: keyZero, size: 200)
    }
    return (card, link)
  }

  static func authenticate(_ card: DESFireCard, _ type: DESFireKeyAlgorithm) throws {
    switch type {
    case .des: try card.authenticate(.iso, keyNumber: 0, key: DESFireKeyMaterial(.des, [UInt8](repeating: 0, count: 16)))
    case .tripleDES3K: try card.authenticate(.iso, keyNumber: 0, key: DESFireKeyMaterial(.tripleDES3K, [UInt8](repeating: 0, count: 24)))
    case .aes: try card.authenticate(.aes, keyNumber: 0, key: DESFireKeyMaterial(.aes, [UInt8](repeating: 0, count: 16)))
    }
  }

  @Test(arguments: DESFireKeyAlgorithm.allCases)
  func macAndFullModesRoundTripWithEachKeyType(_ type: DESFireKeyAlgorithm) throws {
    let (card, link) = try Self.card(type)
    let data = (0..<150).map { UInt8($0 & 0xFF) ^ 0x5A }  // three frames each way
    for (number, mode) in [(UInt8(1), DESFireFileCommunication.plain), (2, .mac), (3, .full)] {
      try card.writeData(file: number, offset: 10, data, communication: mode)
      #expect(link.tag.applications.first?.files[number]?.data[10..<160].elementsEqual(data) == true, "file \(number)")
      #expect(try card.readData(file: number, offset: 10, length: 150, communication: mode) == data)
      #expect(try card.readData(file: number, offset: 199, length: 1, communication: mode) == [0])
      let whole = try card.readData(file: number, offset: 0, length: 0, communication: mode)  // to the end
      #expect(whole.count == 200 && Array(whole[10..<160]) == data)
      try card.writeData(file: number, offset: 0, [0xEE], communication: mode)
      #expect(try card.readData(file: number, offset: 0, length: 3, communication: mode) == [0xEE, 0, 0])
    }
    #expect(card.secureMessaging != nil)  // the IVs stayed in step throughout
    // On the wire in full mode: no byte of the data in clear.
    try card.writeData(file: 3, offset: 0, Array("secret data!".utf8), communication: .full)
    let last = try #require(link.sent.last)
    #expect(!last.windowsContain(Array("secret".utf8)))
  }

  @Test func anAnswerThatFailsItsCheckIsAnIntegrityFailureNeverData() throws {
    for (mode, code) in [(DESFireFileCommunication.mac, UInt8(0xBD)), (.full, 0xBD), (.plain, 0xBD)] {
      let (card, link) = try Self.card(.aes)
      let file: UInt8 = mode == .plain ? 1 : mode == .mac ? 2 : 3
      link.flipFirstByte(ofAnswerTo: code)
      #expect { try card.readData(file: file, offset: 0, length: 16, communication: mode) } throws: { error in
        guard case DESFireCommandError.integrity(_, let command) = error else { return false }
        let line = String(describing: error)
        return command == "ReadData 0\(file)" && line.contains("integrity failure") && !line.contains("\n")
      }
      #expect(card.secureMessaging == nil)  // the session is not trusted any more
    }
    // A WriteData's answer (its CMAC) is checked too.
    let (card, link) = try Self.card(.des)
    link.flipFirstByte(ofAnswerTo: 0x3D)
    #expect { try card.writeData(file: 3, offset: 0, [1, 2, 3], communication: .full) } throws: { error in
      if case DESFireCommandError.integrity = error { return true }
      return false
    }
  }

  @Test func aModeTheFileDoesNotHaveFailsOnTheCardOrInTheCheck() throws {
    let (card, _) = try Self.card(.aes)
    // A MAC-mode file written in full mode: the card takes 16 enciphered bytes for 3 bytes and a
    // MAC (91 7E), and the session ends.
    #expect { try card.writeData(file: 2, offset: 0, [1, 2, 3], communication: .full) } throws: {
      ($0 as? DESFireCommandError)?.status == .lengthError
    }
    #expect(card.secureMessaging == nil)
  }

  @Test func macAndFullNeedASessionAndTheHostSaysSoBeforeSending() throws {
    let link = try CountingDESFireLink()
    let card = DESFireCard(link: link)
    try card.createApplication(Self.app, settings: 0x0F, keyCount: 1, keyType: .des)
    try card.selectApplication(Self.app)
    try card.createStandardDataFile(1, communication: .plain, access: Self.keyZero, size: 32)
    try card.createStandardDataFile(2, communication: .mac, access: Self.keyZero, size: 32)
    // With no authentication: refused by the host, nothing sent.
    let before = link.sent.count
    for mode in [DESFireFileCommunication.mac, .full] {
      #expect { try card.readData(file: 2, offset: 0, length: 4, communication: mode) } throws: { error in
        guard case DESFireCommandError.invalidArgument(let why) = error else { return false }
        return why.contains("ReadData 02") && !why.contains("\n")
      }
      #expect(throws: DESFireCommandError.self) { try card.writeData(file: 2, offset: 0, [1], communication: mode) }
    }
    #expect(link.sent.count == before)
    // Plain works after 0Ah (MAC and full after it: DESFireHostLegacyModesTests).
    try card.authenticate(.legacy, keyNumber: 0, key: DESFireKeyMaterial(.des, [UInt8](repeating: 0, count: 8)))
    try card.writeData(file: 1, offset: 0, [7, 7], communication: .plain)
    #expect(try card.readData(file: 1, offset: 0, length: 2, communication: .plain) == [7, 7])
  }
}

extension Array where Element == UInt8 {
  /// Whether `needle` occurs anywhere in it.
  func windowsContain(_ needle: [UInt8]) -> Bool {
    guard needle.count <= count else { return false }
    return (0...(count - needle.count)).contains { Array(self[$0..<($0 + needle.count)]) == needle }
  }
}
