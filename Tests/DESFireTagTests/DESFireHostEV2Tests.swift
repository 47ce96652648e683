import DESFire
import DESFireTag
import EV2SecureMessaging
import NFCTags
import Testing

/// The host's EV2 secure messaging on a DESFire EV2/EV3 (DESFireTag over the shared
/// EV2SecureMessaging module), against a scripted card built from the shared card side
/// (EV2ScriptedCard.swift): AuthenticateEV2First/NonFirst, each command in its mode (Plain: no MAC
/// but CmdCtr advances; MAC; Full), chained frames both ways, every answer's MAC checked before
/// its data is used, ChangeKey of the session's own key and of another.
@Suite struct DESFireHostEV2Tests {
  static let zeroKey = try! DESFireKeyMaterial(.aes, [UInt8](repeating: 0, count: 16))
  static let key1 = try! DESFireKeyMaterial(.aes, [UInt8](repeating: 0x11, count: 16))

  static func card() throws -> (DESFireCard, EV2ScriptedCard) {
    let link = EV2ScriptedCard()
    link.files = [1: .init(mode: .plain, data: [UInt8](repeating: 0, count: 200)),
                  2: .init(mode: .mac, data: [UInt8](repeating: 0, count: 200)),
                  3: .init(mode: .full, data: [UInt8](repeating: 0, count: 200)),
                  4: .init(mode: .full, data: [])]
    let card = DESFireCard(link: link)
    try card.authenticateEV2First(keyNumber: 0, key: zeroKey)
    return (card, link)
  }

  static func counter(_ card: DESFireCard) -> UInt16? {
    (card.secureMessaging as? DESFireEV2SecureMessaging)?.session.commandCounter
  }

  @Test func authenticateEV2FirstStartsASessionWithTheCardsTIAndCounterZero() throws {
    let (card, link) = try Self.card()
    let session = try #require(card.secureMessaging as? DESFireEV2SecureMessaging)
    #expect(session.session.transactionIdentifier == link.transactionIdentifier)
    #expect(session.session.commandCounter == 0 && session.keyNumber == 0)
    #expect(link.sent.first == [0x90, 0x71, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00])
  }

  @Test(arguments: [(UInt8(1), DESFireFileCommunication.plain), (2, .mac), (3, .full)])
  func readAndWriteRoundTripInEachModeAcrossChainedFrames(_ file: UInt8, _ mode: DESFireFileCommunication) throws {
    let (card, link) = try Self.card()
    let data = (0..<150).map { UInt8($0 & 0xFF) ^ 0x5A }  // three frames each way
    try card.writeData(file: file, offset: 10, data, communication: mode)
    #expect(link.files[file]?.data[10..<160].elementsEqual(data) == true)
    #expect(try card.readData(file: file, offset: 10, length: 150, communication: mode) == data)
    let whole = try card.readData(file: file, offset: 0, length: 0, communication: mode)
    #expect(whole.count == 200 && Array(whole[10..<160]) == data)
    #expect(Self.counter(card) == 3 && link.session?.commandCounter == 3)  // CmdCtr advanced in every mode, in step
    if mode == .full {
      try card.writeData(file: file, offset: 0, Array("secret data!".utf8), communication: .full)
      #expect(!(link.sent.last ?? []).windowsContain(Array("secret".utf8)))
    }
    if mode == .plain {  // no MAC on the wire: 5 header bytes, 7 CmdHeader bytes, Le
      #expect(link.sent.last(where: { $0[1] == 0xBD })?.count == 5 + 7 + 1)
    }
  }

  @Test func aTamperedAnswerIsAnIntegrityFailureNeverDataAndTheSessionEnds() throws {
    for (file, mode) in [(UInt8(2), DESFireFileCommunication.mac), (3, .full)] {
      let (card, link) = try Self.card()
      link.tamper = { _, answer in [answer[0] ^ 0x01] + answer.dropFirst() }
      #expect { try card.readData(file: file, offset: 0, length: 16, communication: mode) } throws: { error in
        guard case DESFireCommandError.integrity(_, let command) = error else { return false }
        return command == "ReadData 0\(file)" && !String(describing: error).contains("\n")
      }
      #expect(card.secureMessaging == nil)
    }
  }

  @Test func otherCommandsGoInMACModeAndAChainedAnswerIsCheckedOnce() throws {
    let (card, link) = try Self.card()
    let version = try card.getVersion()  // three frames: 91 AF, 91 AF, 91 00 with the MAC
    #expect(version.uid == link.uid)
    #expect(link.sent.dropFirst(2).first?.count == 5 + 8 + 1)  // 90 60 00 00 08 MACt 00
    #expect(try card.keyVersion(1) == 0)
    #expect(Self.counter(card) == 2)
    link.tamper = { _, answer in [answer[0] ^ 0x01] + answer.dropFirst() }
    #expect(throws: DESFireCommandError.self) { try card.keyVersion(1) }
    #expect(card.secureMessaging == nil)
  }

  @Test func valuesUIDAndKeySettingsInTheirModes() throws {
    let (card, link) = try Self.card()
    link.files[5] = .init(mode: .full, data: [])
    #expect(try card.value(of: 5, communication: .full) == 100)
    try card.changeValue(.credit, file: 5, amount: 20, communication: .full)
    try card.commitTransaction()
    #expect(try card.value(of: 5, communication: .full) == 120)
    #expect(try card.cardUID() == link.uid)
    try card.changeKeySettings(0x0B)
    #expect(Self.counter(card) == 6)
  }

  @Test func changeKeyOfAnotherKeyKeepsTheSessionAndOfItsOwnKeyEndsIt() throws {
    let (card, link) = try Self.card()
    let newKey = try DESFireKeyMaterial(.aes, (0..<16).map { UInt8($0) })
    try card.changeKey(.application(1), to: newKey, version: 7, oldKey: Self.key1)
    #expect(link.keys[1] == (0..<16).map { UInt8($0) } && link.keyVersions[1] == 7)
    #expect(Self.counter(card) == 1)
    try card.changeKey(.application(0), to: newKey, version: 2)
    #expect(link.keys[0] == (0..<16).map { UInt8($0) } && card.secureMessaging == nil)
    try card.authenticateEV2First(keyNumber: 0, key: newKey)  // the new key works
    // A DES-family key is refused before anything is sent.
    let before = link.sent.count
    #expect(throws: DESFireCommandError.self) {
      try card.changeKey(.application(1), to: DESFireKeyMaterial(.des, [UInt8](repeating: 0, count: 16)), oldKey: newKey)
    }
    #expect(link.sent.count == before)
  }

  @Test func nonFirstKeepsTIAndCounterWithNewSessionKeys() throws {
    let (card, link) = try Self.card()
    _ = try card.readData(file: 2, offset: 0, length: 4, communication: .mac)
    try card.authenticateEV2NonFirst(keyNumber: 1, key: Self.key1)
    let session = try #require(card.secureMessaging as? DESFireEV2SecureMessaging)
    #expect(session.keyNumber == 1 && session.session.commandCounter == 1)
    #expect(session.session.transactionIdentifier == link.transactionIdentifier)
    #expect(try card.readData(file: 3, offset: 0, length: 4, communication: .full) == [0, 0, 0, 0])
  }

  @Test func aNonAESKeyIsRefusedBeforeAnyExchangeAndAWrongKeyIs91AE() throws {
    let link = EV2ScriptedCard()
    let card = DESFireCard(link: link)
    #expect { try card.authenticateEV2First(keyNumber: 0, key: DESFireKeyMaterial(.des, [UInt8](repeating: 0, count: 8))) } throws: {
      guard case DESFireCommandError.invalidArgument(let why) = $0 else { return false }
      return why.contains("AES") && !why.contains("\n")
    }
    #expect(link.sent.isEmpty)
    #expect { try card.authenticateEV2First(keyNumber: 0, key: Self.key1) } throws: {
      ($0 as? DESFireCommandError)?.status == .authenticationError
    }
    #expect(card.secureMessaging == nil)
    #expect(throws: DESFireCommandError.self) { try card.authenticateEV2NonFirst(keyNumber: 0, key: Self.zeroKey) }
  }
}
