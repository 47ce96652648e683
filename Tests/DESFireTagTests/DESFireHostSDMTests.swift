import DESFire
import DESFireEmulator
import DESFireTag
import EV2SecureMessaging
import NFCEmulator
import NFCTags
import NFCTransport
import Testing

/// The host's SDM set-up on an EV3 `format --key-type aes` made: AuthenticateEV2First with key 0,
/// ChangeFileSettings with the 424 DNA's SDM layout in CommMode.Full (`DESFireCard.enableSDM`),
/// then unauthenticated reads whose SUN verifies with the shared formulas, the counter rising.
@Suite struct DESFireHostSDMTests {
  static let zeroAES = try! DESFireKeyMaterial(.aes, [UInt8](repeating: 0, count: 16))
  static let zero = [UInt8](repeating: 0, count: 16)
  static let url = Array("https://sun.example/?p=00000000000000000000000000000000&c=0000000000000000".utf8)

  typealias Link = VirtualDESFireLink

  func formatted(_ chip: DESFireChip) throws -> DESFireVirtualTag {
    let tag = try DESFireVirtualTag(chip: chip)
    tag.security = OpenSSLDESFireSecurity()
    let platform = Type4Tag(identifier: tag.identifier, link: Link(tag), atr: [0x3B, 0x86, 0x80, 0x01] + DESFireVirtualTag.ats + [0x00])
    platform.desfireFormatOptions = DESFireNDEFFormatOptions(applicationKeyType: .aes)
    try platform.format()
    return tag
  }

  /// FileOption 40h (SDM, plain), AR E0EEh (free reads and writes, change key 0), SDMOptions C1h
  /// (UID, counter, ASCII), SDMAccessRights FF21h (SDMMetaRead key 2, SDMFileRead key 1),
  /// PICCDataOffset 23, SDMMACInputOffset and SDMMACOffset 58.
  static let sdmSettings: [UInt8] = [0x40, 0xE0, 0xEE, 0xC1, 0xFF, 0x21, 23, 0, 0, 58, 0, 0, 58, 0, 0]

  @Test func sdmOnAnEV3sNDEFFileGivesVerifiedReadsWithTheCounterRising() throws {
    let tag = try formatted(.ev3With8K)
    let card = DESFireCard(link: Link(tag))
    try card.selectApplication(.ndefApplication)
    try card.writeData(file: 2, offset: 0, Self.url)
    #expect(throws: DESFireCommandError.self) { try card.enableSDM(file: 2, settings: Self.sdmSettings) }  // no session
    try card.authenticateEV2First(keyNumber: 0, key: Self.zeroAES)
    try card.enableSDM(file: 2, settings: Self.sdmSettings)
    for expected in UInt32(1)...20 {
      tag.reset()
      let reader = DESFireCard(link: Link(tag))
      try reader.selectApplication(.ndefApplication)
      let text = try reader.readData(file: 2, offset: 0, length: Self.url.count)
      let picc = try #require(try SDMCrypto<DESFireEV2Cipher>.decryptPICCData(hexBytes(text[23..<55]), metaReadKey: Self.zero))
      #expect(picc.uid == tag.uid && picc.readCounter == expected)
      let keys = try SDMCrypto<DESFireEV2Cipher>.sessionKeys(fileReadKey: Self.zero, uid: picc.uid, readCounter: picc.readCounter)
      #expect(try SDMCrypto<DESFireEV2Cipher>.mac(over: [], sessionKeys: keys) == hexBytes(text[58..<74]))
    }
  }

  @Test func anEV2RefusesSDM() throws {
    let tag = try formatted(.ev2With8K)
    let card = DESFireCard(link: Link(tag))
    try card.selectApplication(.ndefApplication)
    try card.authenticateEV2First(keyNumber: 0, key: Self.zeroAES)
    #expect(throws: DESFireCommandError.self) { try card.enableSDM(file: 2, settings: Self.sdmSettings) }
  }
}

private func hexBytes(_ digits: ArraySlice<UInt8>) -> [UInt8] {
  var out: [UInt8] = []
  var high: UInt8?
  for c in digits {
    guard let v = UInt8(String(UnicodeScalar(c)), radix: 16) else { return [] }
    if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
  }
  return out
}
