import DESFire
import DESFireEmulator
import DESFireTag
import EV2SecureMessaging
import NFCEmulator
import NFCTags
import NFCTransport
import Testing

/// The virtual EV3's image keeps each file's SDM (pre-enabled, the settings, SDMReadCtr), so a
/// `sim:desfire-ev3-8k:IMAGE` card keeps SDM between runs (docs/desfire.md, "Image file").
@Suite struct DESFireSDMImageTests {
  typealias Host = DESFireHostSDMTests
  static let zero = [UInt8](repeating: 0, count: 16)

  /// One unauthenticated read of the NDEF file as a phone does it: its PICCData and SDMMAC verified.
  func readCounter(_ tag: DESFireVirtualTag) throws -> UInt32? {
    tag.reset()
    let reader = DESFireCard(link: Host.Link(tag))
    try reader.selectApplication(.ndefApplication)
    let text = try reader.readData(file: 2, offset: 0, length: Host.url.count)
    guard let picc = try SDMCrypto<DESFireEV2Cipher>.decryptPICCData(hex(text[23..<55]), metaReadKey: Self.zero),
          picc.uid == tag.uid, let counter = picc.readCounter else { return nil }
    let keys = try SDMCrypto<DESFireEV2Cipher>.sessionKeys(fileReadKey: Self.zero, uid: picc.uid, readCounter: picc.readCounter)
    guard try SDMCrypto<DESFireEV2Cipher>.mac(over: [], sessionKeys: keys) == hex(text[58..<74]) else { return nil }
    return counter
  }

  func reloaded(_ tag: DESFireVirtualTag) throws -> DESFireVirtualTag {
    let again = try DESFireImage.decode(DESFireImage.encode(tag), chip: .ev3With8K)
    again.security = OpenSSLDESFireSecurity()
    return again
  }

  @Test func sdmSettingsAndTheCounterSurviveAnImage() throws {
    let tag = try Host().formatted(.ev3With8K)
    let card = DESFireCard(link: Host.Link(tag))
    try card.selectApplication(.ndefApplication)
    try card.writeData(file: 2, offset: 0, Host.url)
    // Pre-enabled only (FileOption bit 6, no settings yet): kept, so ChangeFileSettings still takes SDM after a reload.
    var again = try reloaded(tag)
    #expect(again.applications.last?.files[2]?.sdm == DESFireFileSDM())
    let card2 = DESFireCard(link: Host.Link(again))
    try card2.selectApplication(.ndefApplication)
    try card2.authenticateEV2First(keyNumber: 0, key: Host.zeroAES)
    try card2.enableSDM(file: 2, settings: Host.sdmSettings)
    for expected in UInt32(1)...3 { #expect(try readCounter(again) == expected) }
    again = try reloaded(again)
    #expect(again.applications.last?.files[2]?.sdm?.readCounter == 3)
    for expected in UInt32(4)...6 { #expect(try readCounter(again) == expected) }
  }

  @Test func imagesWithoutSDMLoadAsBefore() throws {
    let tag = try Host().formatted(.ev1With8K)
    let image = DESFireImage.encode(tag)
    let again = try DESFireImage.decode(image, chip: .ev1With8K)
    #expect(again.applications == tag.applications)
    #expect(DESFireImage.encode(again) == image)
  }
}

private func hex(_ digits: ArraySlice<UInt8>) -> [UInt8] {
  var out: [UInt8] = []
  var high: UInt8?
  for c in digits {
    guard let v = UInt8(String(UnicodeScalar(c)), radix: 16) else { return [] }
    if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
  }
  return out
}

/// GetFileSettings of an EV3 file with SDM on answers as the 424 DNA does: FileOption bit 6 and the
/// SDM part, which NTAG424Commands' parser reads back as the settings ChangeFileSettings sent.
@Suite struct DESFireSDMFileSettingsTests {
  @Test func getFileSettingsReportsTheSDMPart() throws {
    let tag = try DESFireHostSDMTests().formatted(.ev3With8K)
    let card = DESFireCard(link: DESFireHostSDMTests.Link(tag))
    try card.selectApplication(.ndefApplication)
    let before = try card.send(0xF5, [2], name: "GetFileSettings")
    #expect(before.count == 7 && before[1] & 0x40 == 0)
    try card.authenticateEV2First(keyNumber: 0, key: DESFireHostSDMTests.zeroAES)
    try card.enableSDM(file: 2, settings: DESFireHostSDMTests.sdmSettings)
    try card.selectApplication(.ndefApplication)
    let after = try card.send(0xF5, [2], name: "GetFileSettings")
    #expect(Array(after.prefix(4)) == [0x00, 0x40, 0xE0, 0xEE])
    #expect(Array(after.dropFirst(7)) == Array(DESFireHostSDMTests.sdmSettings.dropFirst(3)))
    #expect(try card.fileSettings(2).size == DESFireCard.littleEndianSize(before))
  }
}

extension DESFireCard {
  static func littleEndianSize(_ settings: [UInt8]) -> Int { Int(settings[4]) | Int(settings[5]) << 8 | Int(settings[6]) << 16 }
}
