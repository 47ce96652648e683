import DESFire
import DESFireEmulator
import DESFireTag
import NFCTags
import Testing

/// ChangeKey (C4h) and ChangeKeySettings (54h) after the legacy Authenticate (0Ah), the host
/// against the virtual card, in the legacy form libfreefare's mifare_desfire_change_key and
/// mifare_desfire_change_key_settings send for a session that is not EV1's: CRC16s (CRC_A) over
/// the key data alone, `00…` to whole blocks, sent in send mode from a zero IV.
@Suite struct DESFireHostLegacyKeysTests {
  static let zero = [UInt8](repeating: 0, count: 8)
  static let k1: [UInt8] = [0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xF0, 0x02]
  static let k2: [UInt8] = Array(repeating: 0x42, count: 8) + Array(repeating: 0x24, count: 8)

  /// Send mode from a zero IV, computed here from the cipher one block at a time.
  static func sendMode(_ plain: [UInt8], _ session: DESFireCipher) throws -> [UInt8] {
    var previous = zero, out: [UInt8] = []
    for start in stride(from: 0, to: plain.count, by: 8) {
      previous = try session.decrypt(zip(plain[start..<(start + 8)], previous).map { $0 ^ $1 }, iv: zero)
      out += previous
    }
    return out
  }

  @Test func changeKeyOfAnotherKeyThenOfTheAuthenticatedOneWithTheSchemesBytes() throws {
    let (card, link, session) = try DESFireHostLegacyModesTests.card(key: [UInt8](repeating: 0, count: 8))
    let zero16 = try DESFireKeyMaterial(.des, [UInt8](repeating: 0, count: 16))
    // Key 1 (not the authenticated key 0): (new ⊕ old) ‖ CRC16(new ⊕ old) ‖ CRC16(new) ‖ 00 00 00 00.
    var before = link.sent.count
    try card.changeKey(.application(1), to: DESFireKeyMaterial(.des, Self.k1), oldKey: zero16)
    let another = Self.k1 + DESFireCRC.crc16(Self.k1) + DESFireCRC.crc16(Self.k1) + [0, 0, 0, 0]
    #expect(link.sent[before] == [0x90, 0xC4, 0x00, 0x00, 25, 0x01] + (try Self.sendMode(another, session)) + [0x00])
    #expect(card.secureMessaging != nil)  // the session goes on
    // Key 0 itself (the same randoms, so the same session key): new ‖ CRC16(new) ‖ 00…; the card
    // ends the session.
    try card.authenticate(.legacy, keyNumber: 0, key: zero16, rndA: DESFireHostLegacyModesTests.rndA)
    before = link.sent.count
    try card.changeKey(.application(0), to: DESFireKeyMaterial(.des, Self.k2))
    let same = Self.k2 + DESFireCRC.crc16(Self.k2) + [0, 0, 0, 0, 0, 0]
    #expect(link.sent[before] == [0x90, 0xC4, 0x00, 0x00, 25, 0x00] + (try Self.sendMode(same, session)) + [0x00])
    #expect(card.secureMessaging == nil)
    // The new keys authenticate; the old one no longer does.
    #expect(throws: DESFireCommandError.self) { try card.authenticate(.legacy, keyNumber: 0, key: zero16) }
    try card.authenticate(.legacy, keyNumber: 0, key: DESFireKeyMaterial(.des, Self.k2))
    try card.authenticate(.legacy, keyNumber: 1, key: DESFireKeyMaterial(.des, Self.k1))
  }

  @Test func aWrongCRCOrOldKeyIsIntegrityErrorOnTheCard() throws {
    let (card, _, _) = try DESFireHostLegacyModesTests.card(key: [UInt8](repeating: 0, count: 8))
    #expect { try card.changeKey(.application(1), to: DESFireKeyMaterial(.des, Self.k1),
                                 oldKey: DESFireKeyMaterial(.des, Self.k2)) } throws: {
      ($0 as? DESFireCommandError)?.status == .integrityError
    }
    let (card2, _, _) = try DESFireHostLegacyModesTests.card(key: [UInt8](repeating: 0, count: 8))
    #expect { _ = try card2.send(0xC4, [0x01] + [UInt8](repeating: 0x5A, count: 24), name: "ChangeKey") } throws: {
      ($0 as? DESFireCommandError)?.status == .integrityError
    }
  }

  @Test func changeKeySettingsAfterLegacyAuthentication() throws {
    let (card, link, session) = try DESFireHostLegacyModesTests.card(key: [UInt8](repeating: 0, count: 8))
    let before = link.sent.count
    try card.changeKeySettings(0x0B)
    let plain = [0x0B] + DESFireCRC.crc16([0x0B]) + [0, 0, 0, 0, 0]
    #expect(link.sent[before] == [0x90, 0x54, 0x00, 0x00, 8] + (try Self.sendMode(plain, session)) + [0x00])
    #expect(link.tag.applications.first { $0.aid == DESFireHostLegacyModesTests.app.value }?.keySettings == 0x0B)
  }
}
