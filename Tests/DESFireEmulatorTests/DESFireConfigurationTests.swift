import DESFire
import DESFireEmulator
import NFCEmulator
import Testing

extension DESFireVirtualTag {
  fileprivate func answer(_ bytes: [UInt8]) -> [UInt8] {
    guard case .data(let answer) = respond(to: bytes) else { return [] }
    return answer
  }
}

/// SetConfiguration (5Ch, option 00h) as libfreefare's `mifare_desfire_set_configuration` sends it
/// and Proxmark3's `DesfireSetConfiguration` (client/src/mifare/desfirecore.c): `5C 00` plain,
/// then `flags ‖ CRC32(5C ‖ 00 ‖ flags) ‖ 00…` enciphered after the PICC master key's
/// authentication; the random ID it turns on (ISO/IEC 14443-3 RID: 4 bytes starting 08h).
@Suite struct DESFireConfigurationTests {
  static let realUID = hex("04 95 91 0A 5D 6D 80")

  /// Authenticates the PICC master key (factory DES zeros) with 1Ah; the host's EV1 channel.
  static func authenticatePICC(_ tag: DESFireVirtualTag) throws -> DESFireEV1Channel {
    let key = try DESFireKeyMaterial(.des, [UInt8](repeating: 0, count: 8))
    let cipher = try key.cipher()
    let first = tag.answer([0x1A, 0x00])
    try #require(first.first == 0xAF)
    let challenge = Array(first.dropFirst())
    let rndB = try cipher.decrypt(challenge, iv: [UInt8](repeating: 0, count: cipher.blockLength))
    let rndA = try DESFireCipher.random(count: key.randomLength)
    let token = try cipher.encrypt(rndA + rndB.dropFirst() + rndB.prefix(1), iv: Array(challenge.suffix(cipher.blockLength)))
    let last = tag.answer([0xAF] + token)
    try #require(last.first == 0x00)
    return try DESFireEV1Channel(sessionKey: DESFireCardAuthentication.sessionKey(rndA: rndA, rndB: rndB, key: key))
  }

  /// SetConfiguration option 00 with `flags`, enciphered in `channel`; the card's answer.
  static func setConfiguration(_ tag: DESFireVirtualTag, _ channel: DESFireEV1Channel, flags: UInt8) throws -> [UInt8] {
    let sent = try channel.encipherCommand(prefix: [0x5C, 0x00], [flags])
    return tag.answer([0x5C, 0x00] + sent)
  }

  static func makeTag() throws -> DESFireVirtualTag {
    let tag = try DESFireVirtualTag(chip: .ev3With8K, uid: realUID)
    tag.security = OpenSSLDESFireSecurity()
    return tag
  }

  @Test func randomIDShowsA4ByteUIDStarting08NewAtEachActivation() throws {
    let tag = try Self.makeTag()
    #expect(tag.identifier == Self.realUID)
    let channel = try Self.authenticatePICC(tag)
    let answer = try Self.setConfiguration(tag, channel, flags: 0x02)
    #expect(answer == [0x00] + (try channel.mac([0x00])))      // the answer's CMAC, the session goes on
    #expect(tag.configuration == .randomID)
    // GetCardUID in the same session: the real UID.
    try channel.mac([0x51])
    let uid = tag.answer([0x51])
    let plain = try channel.decipherAnswer(Array(uid.dropFirst()))
    #expect(uid.first == 0x00 && plain == Self.realUID)
    // The next activation shows a random ID; another activation another one.
    tag.reset()
    let first = tag.identifier
    #expect(first.count == 4 && first.first == 0x08)
    #expect(tag.identifier == first)                              // stays while the card is in the field
    tag.reset()                                                   // no command since: the same activation
    #expect(tag.identifier == first)
    _ = tag.answer([0x6E])
    tag.reset()
    #expect(tag.identifier != first && tag.identifier.first == 0x08 && tag.identifier.count == 4)
    // GetVersion hides the real UID (zeros), GetCardUID still gives it.
    let version = tag.answer([0x60]) + tag.answer([0xAF]) + tag.answer([0xAF])
    #expect(Array(version.suffix(14).prefix(7)) == [UInt8](repeating: 0, count: 7))
    let again = try Self.authenticatePICC(tag)
    try again.mac([0x51])
    #expect(try again.decipherAnswer(Array(tag.answer([0x51]).dropFirst())) == Self.realUID)
  }

  @Test func bitsAreOnlySetAndTheImageKeepsThem() throws {
    let tag = try Self.makeTag()
    let before = tag.memoryImage
    #expect(try Self.setConfiguration(tag, try Self.authenticatePICC(tag), flags: 0x01).first == 0x00)
    #expect(tag.configuration == .formatDisabled)
    #expect(try Self.setConfiguration(tag, try Self.authenticatePICC(tag), flags: 0x00).first == 0x00)
    #expect(tag.configuration == .formatDisabled)                 // a bit once set stays
    #expect(try Self.setConfiguration(tag, try Self.authenticatePICC(tag), flags: 0x02).first == 0x00)
    #expect(tag.configuration == [.formatDisabled, .randomID])
    // The image: the old layout plus one byte; it reloads with the real UID and the flags.
    let image = tag.memoryImage
    #expect(image == before + [0x03])
    let reloaded = try DESFireImage.decode(image, chip: .ev3With8K)
    #expect(reloaded.configuration == [.formatDisabled, .randomID])
    #expect(reloaded.uid == Self.realUID && reloaded.identifier.first == 0x08 && reloaded.identifier.count == 4)
    #expect(reloaded.memoryImage == image)
    // An old image (no configuration byte) still loads; a byte with other bits does not.
    #expect(try DESFireImage.decode(before, chip: .ev3With8K).configuration == [])
    #expect(throws: EmulatorError.self) { try DESFireImage.decode(before + [0x04], chip: .ev3With8K) }
    #expect(throws: EmulatorError.self) { try DESFireImage.decode(before + [0x01, 0x00], chip: .ev3With8K) }
  }

  @Test func formatPICCIsRefusedOnceDisabled() throws {
    let tag = try Self.makeTag()
    _ = tag.answer(hex("CA 01 00 00 0F 01"))
    let channel = try Self.authenticatePICC(tag)
    #expect(try Self.setConfiguration(tag, channel, flags: 0x01).first == 0x00)
    try channel.mac([0xFC])
    #expect(tag.answer([0xFC]) == [0x9D])
    #expect(tag.applications.count == 1)
  }

  @Test func refusals() throws {
    let tag = try Self.makeTag()
    #expect(tag.answer(hex("5C 00 00 00 00 00 00 00 00 00")) == [0xAE])   // not authenticated
    _ = tag.answer(hex("CA 01 00 00 0F 01"))
    _ = tag.answer(hex("5A 01 00 00"))
    _ = try Self.authenticatePICC(tag)                                     // the application's key 0
    #expect(tag.answer(hex("5C 00 00 00 00 00 00 00 00 00")) == [0xAE])   // not the PICC master key
    _ = tag.answer(hex("5A 00 00 00"))
    let channel = try Self.authenticatePICC(tag)
    let sent = try channel.encipherCommand(prefix: [0x5C, 0x01], [0x00])
    #expect(tag.answer([0x5C, 0x01] + sent) == [0x9E])                     // option 01 (default keys) not modelled
    let again = try Self.authenticatePICC(tag)
    let bad = try again.encipherCommand(prefix: [0x5C, 0x00], [0x04])
    #expect(tag.answer([0x5C, 0x00] + bad) == [0x9E])                      // a bit other than 0 and 1
    let third = try Self.authenticatePICC(tag)
    var wrong = try third.encipherCommand(prefix: [0x5C, 0x00], [0x02])
    wrong[0] ^= 0x01
    #expect(tag.answer([0x5C, 0x00] + wrong) == [0x1E])                    // its CRC32 fails
    #expect(tag.answer([0x5C]) == [0x7E])
    #expect(tag.configuration == [])
    // Wrapped as ISO/IEC 7816-4 too.
    let fourth = try Self.authenticatePICC(tag)
    let wrapped = try fourth.encipherCommand(prefix: [0x5C, 0x00], [0x02])
    let answer = tag.answer([0x90, 0x5C, 0x00, 0x00, UInt8(1 + wrapped.count), 0x00] + wrapped + [0x00])
    #expect(answer.suffix(2) == [0x91, 0x00])
    #expect(tag.configuration == .randomID)
  }
}
