import DESFire
import DESFireEmulator
import DESFireTag
import NFCTags
import Testing

/// ReadData and WriteData in MAC and full mode after the legacy Authenticate (0Ah), the host
/// (DESFireTag) against the virtual card (NFCEmulator with DESFireEmulator's ciphers), with the
/// wire bytes checked against the scheme computed here from the cipher alone (NXP M075031; the
/// layouts as libfreefare's mifare_desfire_crypto.c has them for a session that is not EV1's):
/// MAC = first 4 bytes of the last block of CBC-DES(zero IV, data ‖ 00…); full = data ‖ CRC16 ‖
/// 00…, sent deciphered in send mode, answered enciphered in CBC.
@Suite struct DESFireHostLegacyModesTests {
  static let app = DESFireApplicationID(0x00C0DE)!
  static let keyZero = DESFireFileAccess(read: 0, write: 0, readWrite: 0, change: 0)
  static let rndA: [UInt8] = [0x10, 0x21, 0x32, 0x43, 0x54, 0x65, 0x76, 0x87]
  static let rndB: [UInt8] = [0xA0, 0xB1, 0xC2, 0xD3, 0xE4, 0xF5, 0x06, 0x17]
  static let twoKey: [UInt8] = Array(1...16)

  /// A card with application C0DE (DES keys, key settings `settings`), files 1 (plain), 2 (MAC), 3 (full) of 200 bytes,
  /// key 0 being `key` (8 zero bytes, or `twoKey` set through an EV1 session), then 0Ah with key 0
  /// with fixed randoms; the session key as the data sheet derives it.
  static func card(key: [UInt8], settings: UInt8 = 0x0F) throws -> (DESFireCard, CountingDESFireLink, DESFireCipher) {
    let link = try CountingDESFireLink()
    link.tag.security = OpenSSLDESFireSecurity(random: { _ in rndB })
    let card = DESFireCard(link: link)
    try card.createApplication(app, settings: settings, keyCount: 2, keyType: .des)
    try card.selectApplication(app)
    for (number, mode) in [(UInt8(1), DESFireFileCommunication.plain), (2, .mac), (3, .full)] {
      try card.createStandardDataFile(number, communication: mode, access: keyZero, size: 200)
    }
    let material = try DESFireKeyMaterial(.des, key.count == 8 ? key + key : key)
    if key.count == 16 {
      try card.authenticate(.iso, keyNumber: 0, key: DESFireKeyMaterial(.des, [UInt8](repeating: 0, count: 16)))
      try card.changeKey(.application(0), to: material)
    }
    try card.authenticate(.legacy, keyNumber: 0, key: material, rndA: rndA)
    let head = Array(rndA[0..<4]) + rndB[0..<4]
    let session = key.count == 8 ? head : head + rndA[4..<8] + rndB[4..<8]
    return (card, link, try DESFireCipher.tripleDES(session))
  }

  static let zero = [UInt8](repeating: 0, count: 8)
  static func padded(_ b: [UInt8]) -> [UInt8] { b + [UInt8](repeating: 0, count: (8 - b.count % 8) % 8) }

  @Test(arguments: [8, 16])
  func macAndFullRoundTripWithTheSchemesBytesOnTheWire(_ keyLength: Int) throws {
    let (card, link, session) = try Self.card(key: keyLength == 8 ? [UInt8](repeating: 0, count: 8) : Self.twoKey)
    let data = (0..<150).map { UInt8($0 & 0xFF) ^ 0x5A }  // several frames each way
    for (number, mode) in [(UInt8(1), DESFireFileCommunication.plain), (2, .mac), (3, .full)] {
      let before = link.sent.count
      try card.writeData(file: number, offset: 10, data, communication: mode)
      let wire = link.sent[before...].flatMap { $0.count > 5 ? Array($0.dropFirst(5).dropLast()) : [] }
      switch mode {
      case .plain:
        #expect(wire == [number, 10, 0, 0, 150, 0, 0] + data)
      case .mac:
        let mac = Array(try session.encrypt(Self.padded(data), iv: Self.zero).suffix(8).prefix(4))
        #expect(wire == [number, 10, 0, 0, 150, 0, 0] + data + mac)
      case .full:
        // Send mode: each block XOR the previous result, then DES decryption (one block at a time).
        var previous = Self.zero, expected: [UInt8] = []
        let plain = Self.padded(data + DESFireCRC.crc16(data))
        for start in stride(from: 0, to: plain.count, by: 8) {
          previous = try session.decrypt(zip(plain[start..<(start + 8)], previous).map { $0 ^ $1 }, iv: Self.zero)
          expected += previous
        }
        #expect(wire == [number, 10, 0, 0, 150, 0, 0] + expected)
      }
      #expect(try card.readData(file: number, offset: 10, length: 150, communication: mode) == data)
      #expect(try card.readData(file: number, offset: 0, length: 0, communication: mode).count == 200)  // to the end
    }
    let files = link.tag.applications.first { $0.aid == Self.app.value }?.files
    #expect(files?[2]?.data[10..<160].elementsEqual(data) == true)
    #expect(files?[3]?.data[10..<160].elementsEqual(data) == true)
    #expect(card.secureMessaging is DESFireLegacySecureMessaging)
  }

  @Test func theModeAfter0AhIsTheFilesForEveryKind() throws {
    let (card, _, _) = try Self.card(key: [UInt8](repeating: 0, count: 8))
    try card.createValueFile(4, communication: .full, access: Self.keyZero, limits: .init(lower: 0, upper: 100, value: 5))
    #expect(card.communication(for: try card.fileSettings(2), granting: [0]) == .mac)
    #expect(card.communication(for: try card.fileSettings(3), granting: [0]) == .full)
    #expect(card.communication(for: try card.fileSettings(3), granting: [1]) == .plain)  // another key's right
    // Value (and record) files too: their legacy modes (DESFireHostLegacyFilesTests).
    #expect(card.communication(for: try card.fileSettings(4), granting: [0]) == .full)
  }

  @Test func theCardsAnswersAreTheSchemesBytes() throws {
    let (card, link, session) = try Self.card(key: [UInt8](repeating: 0, count: 8))
    let data: [UInt8] = [1, 2, 3, 4, 5]
    try card.writeData(file: 2, offset: 0, data, communication: .mac)
    try card.writeData(file: 3, offset: 0, data, communication: .full)
    var answers: [[UInt8]] = []
    link.tamper = { _, answer in answers.append(answer); return answer }
    _ = try card.readData(file: 2, offset: 0, length: 5, communication: .mac)
    _ = try card.readData(file: 3, offset: 0, length: 5, communication: .full)
    let mac = Array(try session.encrypt(Self.padded(data), iv: Self.zero).suffix(8).prefix(4))
    #expect(answers.first == data + mac + [0x91, 0x00])
    let enciphered = try session.encrypt(Self.padded(data + DESFireCRC.crc16(data)), iv: Self.zero)
    #expect(answers.last == enciphered + [0x91, 0x00])
  }

  @Test(arguments: [UInt8(2), 3])
  func aWrongAnswerIsAnIntegrityFailureOnTheHostAndNeverData(_ file: UInt8) throws {
    let (card, link, _) = try Self.card(key: [UInt8](repeating: 0, count: 8))
    try card.writeData(file: file, offset: 0, Array(repeating: 0x33, count: 40), communication: file == 2 ? .mac : .full)
    link.flipFirstByte(ofAnswerTo: 0xBD)
    #expect { try card.readData(file: file, offset: 0, length: 40, communication: file == 2 ? .mac : .full) } throws: { error in
      guard case DESFireCommandError.integrity(let why, let command) = error else { return false }
      return command == "ReadData 0\(file)" && !why.contains("\n")
    }
    #expect(card.secureMessaging == nil)
  }

  @Test(arguments: [UInt8(2), 3])
  func aWrongMACOrCRCIsIntegrityErrorOnTheCard(_ file: UInt8) throws {
    let (card, _, _) = try Self.card(key: [UInt8](repeating: 0, count: 8))
    let header: [UInt8] = [file, 0, 0, 0, 4, 0, 0]
    let body: [UInt8] = file == 2 ? [1, 2, 3, 4, 0xDE, 0xAD, 0xBE, 0xEF] : Array(repeating: 0x55, count: 8)
    #expect { _ = try card.send(0x3D, header + body, name: "WriteData") } throws: {
      ($0 as? DESFireCommandError)?.status == .integrityError
    }
  }
}
