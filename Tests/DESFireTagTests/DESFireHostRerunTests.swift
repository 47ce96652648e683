import DESFire
import DESFireEmulator
import DESFireTag
import NFCEmulator
import NFCTags
import NFCTransport
import Testing

/// `keys change` and `create-app` on the host as a rerun finishes them: each cut at every command
/// (before it reaches the card, and after it ran with its answer lost), then the same call again.
@Suite struct DESFireHostRerunTests {
  typealias CutLink = DESFireHostLockTests.CutLink
  typealias Key = DESFireTag.DESFireSecretKey
  static let aesKey: Key = {
    guard case .success(let key) = Key.parse(Array("00112233445566778899AABBCCDDEEFF".utf8), kind: .aes, what: "key", origin: "test") else {
      preconditionFailure("an AES key")
    }
    return key
  }()
  static let app = DESFireApplicationID(0x00BEEF)!

  static func factoryCard() throws -> DESFireVirtualTag {
    let tag = try DESFireVirtualTag(chip: .ev1With4K)
    tag.security = OpenSSLDESFireSecurity()
    return tag
  }

  /// A change of key `slot` at `level`, the card's GetVersion first, over `link`.
  struct Change {
    var level: DESFireApplicationID, slot: DESFireKeySlot, new: Key, version: UInt8, current: Key, authNumber: UInt8, old: Key?
    func run(_ link: CutLink) throws(DESFireCommandError) -> DESFireRerunOutcome {
      let card = DESFireCard(link: link)
      let info = try card.getVersion()
      return try card.changeKey(at: level, slot, to: new, version: version, authenticatingWith: current, keyNumber: authNumber,
                                oldKey: old, cardVersion: info)
    }
  }

  /// Whether `key` authenticates as key `number` of `level` (with `version` for AES).
  static func holds(_ tag: DESFireVirtualTag, _ level: DESFireApplicationID, _ number: UInt8, _ key: Key, version: UInt8) -> Bool {
    let card = DESFireCard(link: CutLink(tag))
    guard let info = try? card.getVersion(), (try? card.selectApplication(level)) != nil,
          (try? key.authenticate(card, keyNumber: number, version: info)) != nil else { return false }
    return key.kind != .aes || (try? card.keyVersion(number)) == version
  }

  /// Cuts `change` at every command on cards `prepare` makes, runs it again, and checks the key.
  func cutEverywhere(_ change: Change, prepare: () throws -> DESFireVirtualTag) throws {
    let number: UInt8 = { if case .application(let n) = change.slot { return n } else { return 0 } }()
    let count = try {
      let link = CutLink(try prepare())
      #expect(try change.run(link) == .done)
      return link.sent.count
    }()
    #expect(count >= 4)
    for answerLost in [false, true] {
      for cut in 0..<count {
        let tag = try prepare()
        #expect(throws: DESFireCommandError.self, "cut after \(cut)") { try change.run(CutLink(tag, cutAfter: cut, answerLost: answerLost)) }
        let changed = Self.holds(tag, change.level, number, change.new, version: change.version)
        let outcome = try change.run(CutLink(tag))
        #expect(outcome == (changed ? .alreadyDone : .done), "cut after \(cut), answer lost: \(answerLost)")
        #expect(Self.holds(tag, change.level, number, change.new, version: change.version), "cut after \(cut)")
      }
    }
  }

  @Test func thePICCMasterKeyToAESAndBackCutAtAnyCommandIsFinishedByARerun() throws {
    let zero = Key.zero()
    let toAES = Change(level: .picc, slot: .piccMaster, new: Self.aesKey, version: 1, current: zero, authNumber: 0, old: nil)
    try cutEverywhere(toAES, prepare: Self.factoryCard)
    let back = Change(level: .picc, slot: .piccMaster, new: zero, version: 0, current: Self.aesKey, authNumber: 0, old: nil)
    try cutEverywhere(back) {
      let tag = try Self.factoryCard()
      _ = try toAES.run(CutLink(tag))
      return tag
    }
  }

  @Test func anApplicationKeyCutAtAnyCommandIsFinishedByARerun() throws {
    let change = Change(level: Self.app, slot: .application(1), new: Self.aesKey, version: 7, current: Key.zero(.aes), authNumber: 0,
                        old: Key.zero(.aes))
    try cutEverywhere(change) {
      let tag = try Self.factoryCard()
      try DESFireCard(link: CutLink(tag)).createApplication(Self.app, settings: 0x0F, keyCount: 2, keyType: .aes)
      return tag
    }
  }

  @Test func aWrongCurrentOrOldKeyIsStillRefused() throws {
    let tag = try Self.factoryCard()
    try DESFireCard(link: CutLink(tag)).createApplication(Self.app, settings: 0x0F, keyCount: 2, keyType: .aes)
    let wrongOld = Change(level: Self.app, slot: .application(1), new: Self.aesKey, version: 0, current: Key.zero(.aes), authNumber: 0,
                          old: Self.aesKey)
    do {
      _ = try wrongOld.run(CutLink(tag))
      Issue.record("a wrong old key taken")
    } catch {
      #expect(error.status == .integrityError, "\(error)")
    }
    let wrongCurrent = Change(level: .picc, slot: .piccMaster, new: Self.aesKey, version: 0, current: Key.zero(.aes), authNumber: 0, old: nil)
    #expect(throws: DESFireCommandError.self) { try wrongCurrent.run(CutLink(tag)) }
    #expect(Self.holds(tag, .picc, 0, Key.zero(), version: 0))
  }

  static func createApp(_ link: CutLink, settings: UInt8 = 0x0F, keyCount: Int = 3) throws(DESFireCommandError) -> DESFireRerunOutcome {
    let card = DESFireCard(link: link)
    _ = try card.getVersion()
    try card.selectApplication(.picc)
    return try card.createApplicationOnce(app, settings: settings, keyCount: keyCount, keyType: .aes)
  }

  @Test func createApplicationCutAtAnyCommandIsFinishedByARerun() throws {
    let count = try {
      let link = CutLink(try Self.factoryCard())
      #expect(try Self.createApp(link) == .done)
      return link.sent.count
    }()
    for answerLost in [false, true] {
      for cut in 0..<count {
        let tag = try Self.factoryCard()
        #expect(throws: DESFireCommandError.self) { try Self.createApp(CutLink(tag, cutAfter: cut, answerLost: answerLost)) }
        let created = (try? DESFireCard(link: CutLink(tag)).selectApplication(Self.app)) != nil
        #expect(try Self.createApp(CutLink(tag)) == (created ? .alreadyDone : .done), "cut after \(cut), answer lost: \(answerLost)")
        let card = DESFireCard(link: CutLink(tag))
        try card.selectApplication(Self.app)
        #expect(try card.keySettings() == DESFireKeySettingsInfo(parsing: [0x0F, 0x83]))
      }
    }
  }

  @Test func anApplicationThatExistsWithOtherSettingsIsRefusedNamingTheDifference() throws {
    let tag = try Self.factoryCard()
    #expect(try Self.createApp(CutLink(tag)) == .done)
    do {
      _ = try Self.createApp(CutLink(tag), settings: 0x0B, keyCount: 2)
      Issue.record("other settings taken")
    } catch {
      #expect("\(error)" == "application 00beef exists with other settings: key settings 0f, not 0b, 3 keys, not 2")
    }
  }
}
