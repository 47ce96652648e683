import DESFire
import DESFireEmulator
import DESFireTag
import NFCEmulator
import NFCTags
import NFCTestSupport
import NFCTransport
import Testing

private func hex(_ text: String) -> [UInt8] {
  var out: [UInt8] = []
  var high: UInt8?
  for c in text.unicodeScalars {
    guard let v = UInt8(String(c), radix: 16) else { continue }
    if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
  }
  return out
}

private func step(_ command: String, _ answer: String) -> EmbeddedTransceiver.Step { (hex(command), .success(hex(answer))) }

/// The host's authentications and EV1 secure messaging (DESFireTag) against the exchanges the
/// DESFire module's vector tests reproduce (https://github.com/RfidResearchGroup/proxmark3/issues/2961,
/// revk's "DESFire EV1 protocol", https://github.com/pokusew/nfc-pcsc/issues/17, NXP TagInfo
/// through kpn532's relay), byte for byte, and against the virtual card.
@Suite struct DESFireHostAuthenticationTests {
  static let zeroDES = try! DESFireKeyMaterial(.des, [UInt8](repeating: 0, count: 8))

  /// https://github.com/RfidResearchGroup/proxmark3/issues/2961: 1A with the factory key, then FormatPICC.
  static func isoDESTranscript(formatAnswer: String) -> [EmbeddedTransceiver.Step] {
    [step("90 1A 00 00 01 00 00", "83 B8 79 40 92 32 72 59 91 AF"),
     step("90 AF 00 00 10 CC 45 06 66 5C 22 9B 49 BB D7 B6 71 13 A9 42 F3 00", "03 FB 11 80 0B 82 04 95 91 00"),
     step("90 FC 00 00 00", formatAnswer)]
  }

  @Test func authenticateISOWithDESThenFormatPICCAsARealCardAnswered() throws {
    let link = EmbeddedTransceiver(Self.isoDESTranscript(formatAnswer: "0A 28 19 F8 0B A0 56 A0 91 00"))
    let card = DESFireCard(link: link)
    try card.authenticate(.iso, keyNumber: 0, key: Self.zeroDES, rndA: hex("01 02 03 04 05 06 07 08"))
    #expect(card.secureMessaging != nil)
    #expect(try card.send(0xFC, name: "FormatPICC") == [])
    #expect(link.finish() == .clean)
  }

  @Test func aWrongAnswerCMACIsAnErrorNeverData() throws {
    let link = EmbeddedTransceiver(Self.isoDESTranscript(formatAnswer: "0A 28 19 F8 0B A0 56 A1 91 00"))
    let card = DESFireCard(link: link)
    try card.authenticate(.iso, keyNumber: 0, key: Self.zeroDES, rndA: hex("01 02 03 04 05 06 07 08"))
    #expect { try card.send(0xFC, name: "FormatPICC") } throws: { error in
      guard case DESFireCommandError.integrity(let why, _) = error else { return false }
      return why.contains("CMAC")
    }
    let short = DESFireCard(link: EmbeddedTransceiver(Self.isoDESTranscript(formatAnswer: "0A 28 91 00")))
    try short.authenticate(.iso, keyNumber: 0, key: Self.zeroDES, rndA: hex("01 02 03 04 05 06 07 08"))
    #expect(throws: DESFireCommandError.self) { try short.send(0xFC, name: "FormatPICC") }
  }

  @Test func authenticateISOWithDESAsRevkSendsIt() throws {
    let link = EmbeddedTransceiver([
      step("90 1A 00 00 01 00 00", "C3 27 E0 B3 AE 78 4F 04 91 AF"),
      step("90 AF 00 00 10 DC C7 FB 9A 26 1C 7D FC 01 20 14 A9 2B BB CD CB 00", "75 FD A7 DC 10 07 12 A4 91 00")])
    try DESFireCard(link: link).authenticate(.iso, keyNumber: 0, key: Self.zeroDES, rndA: hex("9F 02 17 83 26 DD E5 A2"))
    #expect(link.finish() == .clean)
  }

  @Test func authenticateAESAsRevkWorksItOut() throws {
    let link = EmbeddedTransceiver([
      step("90 AA 00 00 01 00 00", "B9 69 FD FE 56 FD 91 FC 9D E6 F6 F2 13 B8 FD 1E 91 AF"),
      step("90 AF 00 00 20 36 AA D7 DF 6E 43 6B A0 8D 18 61 38 30 A7 0D 5A D4 3E 3D 3F 4A 8D 47 54 1E EE 62 3A 93 4E 47 74 00",
           "80 0D B6 80 BC 14 6B D1 21 D6 57 8F 2D 2E 20 59 91 00")])
    let card = DESFireCard(link: link)
    try card.authenticate(.aes, keyNumber: 0, key: DESFireKeyMaterial(.aes, [UInt8](repeating: 0, count: 16)),
                          rndA: hex("F4 4B 26 F5 68 6F 3A 39 1C D3 8E BD 10 77 22 81"))
    #expect(link.finish() == .clean)
    // The session key is revk's F44B26F5 C05DDD71 10772281 C4D066E8.
    let expected = try DESFireEV1Channel(sessionKey: DESFireKeyMaterial(.aes, hex("F4 4B 26 F5 C0 5D DD 71 10 77 22 81 C4 D0 66 E8")))
    let session = try #require(card.secureMessaging as? DESFireEV1SecureMessaging)
    #expect(try session.channel.mac([0x6E]) == (try expected.mac([0x6E])))
  }

  @Test func legacyAuthenticationAsRealCardsAnswered() throws {
    let cipher = try Self.zeroDES.cipher(), zero = [UInt8](repeating: 0, count: 8)
    // https://github.com/pokusew/nfc-pcsc/issues/17: the host's first token block is D(RndA), so RndA is E(that block).
    let pcsc = EmbeddedTransceiver([
      step("90 0A 00 00 01 00 00", "6B 58 43 85 E0 AD 5D 80 91 AF"),
      step("90 AF 00 00 10 D5 F5 58 DD 18 23 28 47 50 C0 B9 EC 75 EA 8D 6C 00", "BD 52 C8 3C F3 59 AC EB 91 00")])
    let card = DESFireCard(link: pcsc)
    try card.authenticate(.legacy, keyNumber: 0, key: Self.zeroDES, rndA: try cipher.encrypt(hex("D5 F5 58 DD 18 23 28 47"), iv: zero))
    #expect(card.secureMessaging is DESFireLegacySecureMessaging)  // no MAC on plain answers
    #expect(pcsc.finish() == .clean)
    // NXP TagInfo on an EV3 8K: its first token block is 00…00.
    let tagInfo = EmbeddedTransceiver([
      step("90 0A 00 00 01 00 00", "53 AE 95 45 7A 7F DF 83 91 AF"),
      step("90 AF 00 00 10 00 00 00 00 00 00 00 00 FB F9 68 23 32 1C 6E 5C 00", "CC 0B 2E 25 55 EA 03 3D 91 00")])
    try DESFireCard(link: tagInfo).authenticate(.legacy, keyNumber: 0, key: Self.zeroDES, rndA: try cipher.encrypt(zero, iv: zero))
    #expect(tagInfo.finish() == .clean)
  }

  @Test func aWrongKeyIsARefusedAuthentication() throws {
    // The card refuses the token (91 AE) …
    let refused = EmbeddedTransceiver([
      step("90 1A 00 00 01 00 00", "83 B8 79 40 92 32 72 59 91 AF"),
      step("90 AF 00 00 10 CC 45 06 66 5C 22 9B 49 BB D7 B6 71 13 A9 42 F3 00", "91 AE")])
    #expect { try DESFireCard(link: refused).authenticate(.iso, keyNumber: 0, key: Self.zeroDES, rndA: hex("01 02 03 04 05 06 07 08")) }
      throws: { ($0 as? DESFireCommandError)?.status == .authenticationError }
    // … or answers an RndA' that is not ours: the card does not know the key.
    let impostor = EmbeddedTransceiver([
      step("90 1A 00 00 01 00 00", "83 B8 79 40 92 32 72 59 91 AF"),
      step("90 AF 00 00 10 CC 45 06 66 5C 22 9B 49 BB D7 B6 71 13 A9 42 F3 00", "03 FB 11 80 0B 82 04 96 91 00")])
    let card = DESFireCard(link: impostor)
    #expect { try card.authenticate(.iso, keyNumber: 0, key: Self.zeroDES, rndA: hex("01 02 03 04 05 06 07 08")) }
      throws: { ($0 as? DESFireCommandError)?.status == .authenticationError }
    #expect(card.secureMessaging == nil)
    let aes = try DESFireKeyMaterial(.aes, [UInt8](repeating: 0, count: 16))
    #expect(throws: DESFireCommandError.self) { try DESFireCard(link: EmbeddedTransceiver([])).authenticate(.iso, keyNumber: 0, key: aes) }
  }

  @Test func eachAuthenticationAgainstTheVirtualCard() throws {
    let tag = try DESFireVirtualTag(chip: .ev1With4K)
    tag.security = OpenSSLDESFireSecurity()
    let card = DESFireCard(link: VirtualDESFireLink(tag))
    // The PICC master key (factory DES zero): ISO, then commands whose answers carry a CMAC.
    try card.authenticate(.iso, keyNumber: 0, key: Self.zeroDES)
    #expect(try card.freeMemory() > 4000)
    #expect(try card.keySettings().settings == 0x0F)
    try card.createApplication(DESFireApplicationID(0x000002)!, settings: 0x0F, keyCount: 1, keyType: .aes)
    #expect(try card.applicationIDs() == [DESFireApplicationID(0x000002)!])
    try card.authenticate(.legacy, keyNumber: 0, key: Self.zeroDES)
    #expect(try card.applicationIDs().count == 1)
    try card.selectApplication(DESFireApplicationID(0x000002)!)
    try card.authenticate(.aes, keyNumber: 0, key: DESFireKeyMaterial(.aes, [UInt8](repeating: 0, count: 16)))
    try card.createStandardDataFile(1, access: .free, size: 32)
    #expect(try card.fileIDs() == [1])
    let wrong = try DESFireKeyMaterial(.aes, [UInt8](repeating: 1, count: 16))
    #expect { try card.authenticate(.aes, keyNumber: 0, key: wrong) } throws: { ($0 as? DESFireCommandError)?.status == .authenticationError }
    #expect(card.secureMessaging == nil)
  }
}
