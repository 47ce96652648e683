import DESFire
import DESFireTag
import NFCTags
import NFCTestSupport
import NFCTransport
import Testing

private func step(_ command: String, _ answer: String) -> EmbeddedTransceiver.Step { (hexBytes(command), .success(hexBytes(answer))) }

/// The host's ChangeKey, ChangeKeySettings, GetKeyVersion and GetCardUID (MF3ICDx21_41_81 §9.3)
/// against revk/DESFireAES's "DESFire EV1 protocol" worked example of ChangeKey (pp. 17-23) byte for
/// byte, and against the virtual card, which deciphers and checks every cryptogram.
@Suite struct DESFireHostChangeKeyTests {
  static let zeroDES = try! DESFireKeyMaterial(.des, [UInt8](repeating: 0, count: 8))
  static let zeroAES = try! DESFireKeyMaterial(.aes, [UInt8](repeating: 0, count: 16))
  static let zero3K = try! DESFireKeyMaterial(.tripleDES3K, [UInt8](repeating: 0, count: 24))
  static let app = DESFireApplicationID(0x00BEEF)!

  @Test func changeThePICCMasterKeyToAESAsRevkSendsIt() throws {
    // 1A with the DES key 00…00 (RndA 9F02178326DDE5A2), then ChangeKey 80 (key 0 becoming AES)
    // to 00…00 version 01: the same key's cryptogram, and the card's bare 00.
    let link = EmbeddedTransceiver([
      step("90 1A 00 00 01 00 00", "C3 27 E0 B3 AE 78 4F 04 91 AF"),
      step("90 AF 00 00 10 DC C7 FB 9A 26 1C 7D FC 01 20 14 A9 2B BB CD CB 00", "75 FD A7 DC 10 07 12 A4 91 00"),
      step("90 C4 00 00 19 80 61 59 2D C4 0A D3 58 95 16 52 D8 38 31 A2 73 CC E3 EA 31 34 17 83 C4 1E 00", "91 00")])
    let card = DESFireCard(link: link)
    try card.authenticate(.iso, keyNumber: 0, key: Self.zeroDES, rndA: hexBytes("9F 02 17 83 26 DD E5 A2"))
    try card.changeKey(.piccMaster, to: Self.zeroAES, version: 0x01)
    #expect(link.finish() == .clean)
    #expect(card.secureMessaging == nil)  // the authenticated key changed: the session is over
  }

  @Test func thePICCMasterKeyToEachTypeAndBack() throws {
    let link = try CountingDESFireLink()
    let card = DESFireCard(link: link)
    let aes = try DESFireKeyMaterial(.aes, Array(0x10..<0x20))
    let threeK = try DESFireKeyMaterial(.tripleDES3K, Array(0x30..<0x48))
    try card.authenticate(.iso, keyNumber: 0, key: Self.zeroDES)
    try card.changeKey(.piccMaster, to: aes, version: 0x42)
    #expect(card.secureMessaging == nil)
    #expect(try card.keySettings().keyType == .aes)
    try card.authenticate(.aes, keyNumber: 0, key: aes)
    #expect(try card.keyVersion(0) == 0x42)  // its answer's CMAC checked in the session
    try card.changeKey(.piccMaster, to: threeK)
    try card.authenticate(.iso, keyNumber: 0, key: threeK)
    #expect(try card.keySettings().keyType == .tripleDES3K)
    try card.changeKey(.piccMaster, to: Self.zeroDES)
    try card.authenticate(.iso, keyNumber: 0, key: Self.zeroDES)
    #expect(try card.keySettings().keyType == .des)
    #expect(try card.keyVersion(0) == 0)
  }

  @Test(arguments: [DESFireKeyAlgorithm.des, .tripleDES3K, .aes])
  func anotherKeyAndTheSameKeyOfAnApplication(_ type: DESFireKeyAlgorithm) throws {
    let link = try CountingDESFireLink()
    let card = DESFireCard(link: link)
    try card.createApplication(Self.app, settings: 0x0F, keyCount: 3, keyType: type)
    try card.selectApplication(Self.app)
    let (zero, command): (DESFireKeyMaterial, DESFireAuthenticationCommand) = switch type {
    case .des: (Self.zeroDES, .iso)
    case .tripleDES3K: (Self.zero3K, .iso)
    case .aes: (Self.zeroAES, .aes)
    }
    func key(_ seed: UInt8) throws -> DESFireKeyMaterial {
      switch type {
      // A DES-family key's version is the parity bits of its first 8 bytes: 01 00 01 00… is A0h.
      case .des: return try DESFireKeyMaterial(.des, [1, 0, 1, 0, 0, 0, 0, 0] + [UInt8](repeating: seed, count: 8))
      // (K2 and K3 differ: with K2 = K3, 3K3DES is single DES with K1.)
      case .tripleDES3K:
        return try DESFireKeyMaterial(.tripleDES3K, [1, 0, 1, 0, 0, 0, 0, 0] + [UInt8](repeating: seed, count: 8)
                                        + [UInt8](repeating: seed ^ 0x44, count: 8))
      case .aes: return try DESFireKeyMaterial(.aes, [UInt8](repeating: seed, count: 16))
      }
    }
    try card.authenticate(command, keyNumber: 0, key: zero)
    // Key 1 (another key): new ⊕ old and both CRCs; the session goes on.
    let one = try key(0x11)
    try card.changeKey(.application(1), to: one, version: 0xA0, oldKey: zero)
    #expect(card.secureMessaging != nil)
    #expect(try card.keyVersion(1) == 0xA0)
    // Key 2 with a wrong current value: the card's CRC of the new key fails (91 1E), nothing changed.
    #expect { try card.changeKey(.application(2), to: one, version: 1, oldKey: one) } throws: {
      ($0 as? DESFireCommandError)?.status == .integrityError
    }
    #expect(card.secureMessaging == nil)
    try card.authenticate(command, keyNumber: 1, key: one)
    // Key 0 is not the authenticated one now: its current value is needed, and the host says so.
    let before = link.sent.count
    #expect { try card.changeKey(.application(0), to: one) } throws: { error in
      guard case DESFireCommandError.invalidArgument(let why) = error else { return false }
      return why.contains("current value") && !why.contains("11")
    }
    #expect(link.sent.count == before)
    // Key 0 changing itself (KS1 0Fh: the master key changes every key): the card ends the session.
    try card.authenticate(command, keyNumber: 0, key: zero)
    let two = try key(0x22)
    try card.changeKey(.application(0), to: two, version: 0xA0)
    #expect(card.secureMessaging == nil)
    try card.authenticate(command, keyNumber: 0, key: two)
    #expect(try card.keyVersion(0) == 0xA0)
    #expect { try card.authenticate(command, keyNumber: 0, key: zero) } throws: { ($0 as? DESFireCommandError)?.status == .authenticationError }
  }

  @Test func changeKeySettingsFromTheHost() throws {
    let link = try CountingDESFireLink()
    let card = DESFireCard(link: link)
    try card.authenticate(.iso, keyNumber: 0, key: Self.zeroDES)
    try card.changeKeySettings(0x09)  // listing and creating need the PICC master key now
    #expect(card.secureMessaging != nil)
    #expect(link.tag.picc.keySettings == 0x09)
    #expect(try card.keySettings().settings == 0x09)
    try card.selectApplication(.picc)  // ends the session
    #expect { try card.applicationIDs() } throws: { ($0 as? DESFireCommandError)?.status == .authenticationError }
    try card.authenticate(.iso, keyNumber: 0, key: Self.zeroDES)
    try card.changeKeySettings(0x01)  // frozen: bit 3 clear
    #expect { try card.changeKeySettings(0x0F) } throws: { ($0 as? DESFireCommandError)?.status == .permissionDenied }
    #expect(link.tag.picc.keySettings == 0x01)
  }

  @Test(arguments: [0, 1, 2])
  func getCardUIDDeciphersAndChecksTheCRC(_ which: Int) throws {
    let link = try CountingDESFireLink()
    let card = DESFireCard(link: link)
    if which == 0 {
      try card.authenticate(.iso, keyNumber: 0, key: Self.zeroDES)
    } else {
      try card.createApplication(Self.app, settings: 0x0F, keyCount: 1, keyType: which == 1 ? .tripleDES3K : .aes)
      try card.selectApplication(Self.app)
      try card.authenticate(which == 1 ? .iso : .aes, keyNumber: 0, key: which == 1 ? Self.zero3K : Self.zeroAES)
    }
    #expect(try card.cardUID() == link.tag.identifier)
    #expect(try card.freeMemory() > 0)  // the IV stayed in step
    link.flipFirstByte(ofAnswerTo: 0x51)
    #expect { try card.cardUID() } throws: { error in
      if case DESFireCommandError.integrity = error { return true }
      return false
    }
    #expect(card.secureMessaging == nil)
  }

  /// A UID whose CRC32(UID ‖ 00) begins with 00 (04AAC1D60F6C35: 00 05 D2 9A, found by the
  /// provisioning soak, seed 33) also reads as an 8-byte UID followed by `05 D2 9A 00`'s CRC:
  /// GetCardUID takes the UID lengths a card has, 7 first, never the longest reading.
  @Test(arguments: [0, 2])
  func getCardUIDOfAUIDWhoseCRC32BeginsWithZero(_ which: Int) throws {
    let uid: [UInt8] = [0x04, 0xAA, 0xC1, 0xD6, 0x0F, 0x6C, 0x35]
    #expect(DESFireCRC.crc32(uid + [0x00]).first == 0x00)
    let link = try CountingDESFireLink(.ev1With4K, uid: uid)
    let card = DESFireCard(link: link)
    if which == 0 {
      try card.authenticate(.iso, keyNumber: 0, key: Self.zeroDES)
    } else {
      try card.createApplication(Self.app, settings: 0x0F, keyCount: 1, keyType: .aes)
      try card.selectApplication(Self.app)
      try card.authenticate(.aes, keyNumber: 0, key: Self.zeroAES)
    }
    #expect(try card.cardUID() == uid)
    #expect(try card.freeMemory() > 0)  // the IV stayed in step
  }

  @Test func afterTheLegacyAuthenticationGetCardUIDIsTheLegacyScheme() throws {
    // ChangeKey and ChangeKeySettings after 0Ah: DESFireHostLegacyKeysTests; GetCardUID's bytes:
    // DESFireHostLegacyFilesTests.
    let link = try CountingDESFireLink()
    let card = DESFireCard(link: link)
    try card.authenticate(.legacy, keyNumber: 0, key: Self.zeroDES)
    #expect(try card.cardUID() == link.tag.identifier)
    #expect(try card.keyVersion(0) == 0)  // plain commands still work
    #expect(String(describing: Self.zeroAES) == "DESFireKeyMaterial(aes)")
  }
}
