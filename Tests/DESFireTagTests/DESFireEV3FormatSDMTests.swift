import DESFireEmulator
import NFCEmulator
import NFCTags
import NFCTransport
import Testing

/// `format --key-type aes` on an EV3: the NDEF application with five AES keys and the NDEF file
/// created with SDM pre-enabled (FileOption bit 6), what `sdm setup` needs; DES keys, or another
/// generation, keep AN11004's one key and a plain file.
@Suite struct DESFireEV3FormatSDMTests {
  typealias Link = VirtualDESFireLink

  func formatted(_ chip: DESFireChip, _ keyType: DESFireKeyAlgorithm) throws -> DESFireVirtualTag {
    let tag = try DESFireVirtualTag(chip: chip)
    tag.security = OpenSSLDESFireSecurity()
    let platform = Type4Tag(identifier: tag.identifier, link: Link(tag), atr: [0x3B, 0x86, 0x80, 0x01] + DESFireVirtualTag.ats + [0x00])
    platform.desfireFormatOptions = DESFireNDEFFormatOptions(applicationKeyType: keyType)
    try platform.format()
    return tag
  }

  @Test func anEV3WithAESKeysIsReadyForSDM() throws {
    let tag = try formatted(.ev3With8K, .aes)
    let app = try #require(tag.applications.first)
    #expect(app.keys.map(\.type) == Array(repeating: .aes, count: 5))
    #expect(app.files[2]?.sdm == DESFireFileSDM())
    #expect(app.files[1]?.sdm == nil)
  }

  @Test func desKeysOrAnotherGenerationKeepAN11004sApplication() throws {
    for (chip, type) in [(DESFireChip.ev3With8K, DESFireKeyAlgorithm.des), (.ev2With8K, .aes), (.ev1With4K, .aes)] {
      let app = try #require(try formatted(chip, type).applications.first)
      #expect(app.keys.count == 1)
      #expect(app.files[2]?.sdm == nil)
    }
  }
}
