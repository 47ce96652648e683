import DESFire
import DESFireEmulator
import DESFireTag
import NFCEmulator
import NFCTags
import Testing

/// An EV2 session and the next program on the same card (a reader that keeps the card powered
/// between connections): `endSessionBeforeRelease()` ends an EV2 session with one SelectApplication
/// and sends nothing after an EV1 one; `identify()` asks GetVersion once more when a card left in
/// an EV2 session refuses it (MF3ICDx21_41_81 §9.3: a refusal ends the authentication).
@Suite struct DESFireSessionEndTests {
  static let aid = DESFireApplicationID(0x00E2_0A)!
  static let zeroAES = try! DESFireKeyMaterial(.aes, [UInt8](repeating: 0, count: 16))

  /// A virtual EV2 with an AES application, selected and authenticated by EV2 with key 0.
  static func authenticatedByEV2() throws -> (DESFireCard, CountingDESFireLink) {
    let link = try CountingDESFireLink(.ev2With4K)
    let card = DESFireCard(link: link)
    try card.createApplication(aid, settings: 0x0F, keyCount: 2, keyType: .aes)
    try card.selectApplication(aid)
    try card.authenticateEV2First(keyNumber: 0, key: zeroAES)
    return (card, link)
  }

  @Test func anEV2SessionIsEndedWithOneSelectApplication() throws {
    let (card, link) = try Self.authenticatedByEV2()
    let before = link.sent.count
    card.endSessionBeforeRelease()
    #expect(link.sent.count == before + 1)
    #expect(link.sent.last == [0x90, 0x5A, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00])
    #expect(card.secureMessaging == nil)
    // The next program's first plain command is taken at once.
    let next = DESFireCard(link: link)
    #expect(try next.getVersion().isDESFire)
  }

  @Test func noSessionOrAnEV1SessionSendsNothing() throws {
    let link = try CountingDESFireLink(.ev1With4K)
    let card = DESFireCard(link: link)
    card.endSessionBeforeRelease()
    #expect(link.sent.isEmpty)
    try card.createApplication(Self.aid, settings: 0x0F, keyCount: 2, keyType: .aes)
    try card.selectApplication(Self.aid)
    try card.authenticate(.aes, keyNumber: 0, key: Self.zeroAES)
    #expect(card.secureMessaging != nil)
    let before = link.sent.count
    card.endSessionBeforeRelease()
    #expect(link.sent.count == before)
  }

  @Test func identifyAsksOnceMoreWhenACardLeftInAnEV2SessionRefuses() throws {
    let (_, link) = try Self.authenticatedByEV2()  // the first program ends without ending its session
    let next = DESFireCard(link: link)
    let before = link.sent.count
    let version = try next.identify()
    #expect(version.isDESFire)
    let getVersions = link.sent[before...].filter { $0.count > 1 && $0[1] == 0x60 }
    #expect(getVersions.count == 2)  // refused once (the session ends), then taken
    // A card that is not in a session is asked once.
    let fresh = try CountingDESFireLink(.ev2With4K)
    _ = try DESFireCard(link: fresh).identify()
    #expect(fresh.sent.filter { $0.count > 1 && $0[1] == 0x60 }.count == 1)
  }
}
