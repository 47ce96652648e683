import NFCTags
import NFCTestSupport
import NFCTransport
import Testing

/// The host's DESFire command layer, byte for byte on scripted links.
@Suite struct DESFireCardTests {
  static func bytes(_ text: String) -> [UInt8] {
    var out: [UInt8] = []
    var high: UInt8?
    for c in text.unicodeScalars {
      guard let v = UInt8(String(c), radix: 16) else { continue }
      if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
    }
    return out
  }

  static func step(_ command: String, _ answer: String) -> EmbeddedTransceiver.Step {
    (bytes(command), .success(bytes(answer)))
  }

  /// An EV1 4K's three GetVersion frames (the MF3ICDx21_41_81 values the virtual card gives).
  static let ev1Version = [
    step("90 60 00 00 00", "04 01 01 01 00 18 05 91 AF"),
    step("90 AF 00 00 00", "04 01 01 01 04 18 05 91 AF"),
    step("90 AF 00 00 00", "04 95 91 0A 5D 6D 80 BA 00 00 00 00 20 13 91 00"),
  ]

  @Test func getVersionJoinsThreeFramesAndNamesTheCard() throws {
    let link = EmbeddedTransceiver(Self.ev1Version)
    let version = try DESFireCard(link: link).getVersion()
    #expect(version.productName == "MIFARE DESFire EV1 4K")
    #expect(version.generation == .ev1)
    #expect(version.storageBytes == 4096)
    #expect(version.uid == Self.bytes("04 95 91 0A 5D 6D 80"))
    #expect(version.batchNumber == Self.bytes("BA 00 00 00 00"))
    #expect(version.productionWeek == 0x20 && version.productionYear == 0x13)
    #expect(link.finish() == .clean)
  }

  @Test func generationsAndSizesFromTheVersionBytes() throws {
    func name(_ hw: String, _ sw: String) throws -> String {
      try DESFireVersionInfo(parsing: Self.bytes(hw + sw + " 04 01 02 03 04 05 06 00 00 00 00 00 00 00")).productName
    }
    #expect(try name("04 01 01 01 00 16 05", "04 01 01 01 04 16 05") == "MIFARE DESFire EV1 2K")
    #expect(try name("04 01 01 12 00 1A 05", "04 01 01 12 00 1A 05") == "MIFARE DESFire EV2 8K")
    #expect(try name("04 01 01 33 00 18 05", "04 01 01 33 00 18 05") == "MIFARE DESFire EV3 4K")
    #expect(try name("04 01 01 00 02 18 05", "04 01 01 00 06 18 05") == "MIFARE DESFire 4K")
    #expect(try name("04 01 01 01 00 19 05", "04 01 01 01 04 19 05") == "MIFARE DESFire EV1 more than 4K")
    #expect(try name("04 04 02 30 00 11 05", "04 04 02 01 02 11 05").hasPrefix("NXP chip of type 04h (vendor 04h)"))
    // The generation is the hardware major's (a real EV2's software major is 02h: DESFireGenerationNameTests).
    #expect(try name("04 01 01 51 00 FF 05", "04 01 01 01 04 FF 05") == "MIFARE DESFire (hardware 51) storage ffh")
  }

  @Test func hostileVersionAndKeySettingsAreRefusedNotTrapped() {
    for count in [0, 1, 7, 14, 27] {
      #expect(throws: DESFireCommandError.self) { try DESFireVersionInfo(parsing: [UInt8](repeating: 0xFF, count: count)) }
    }
    for count in [0, 1, 3] {
      #expect(throws: DESFireCommandError.self) { try DESFireKeySettingsInfo(parsing: [UInt8](repeating: 0xFF, count: count)) }
    }
    // A GetApplicationIDs answer that is not a list of 3-byte AIDs.
    let link = EmbeddedTransceiver([Self.step("90 6A 00 00 00", "01 00 91 00")])
    #expect(throws: DESFireCommandError.self) { try DESFireCard(link: link).applicationIDs() }
    // No status word at all.
    let mute = EmbeddedTransceiver([Self.step("90 6E 00 00 00", "91")])
    #expect(throws: DESFireCommandError.self) { try DESFireCard(link: mute).freeMemory() }
  }

  @Test func statusWordsAreTypedErrorsWithOneLineMeanings() {
    let expected: [(UInt8, String)] = [
      (0xAE, "authentication"), (0x9D, "do not allow"), (0x7E, "length"), (0xA0, "no application"),
      (0xF0, "no file"), (0xDE, "exists already"), (0x0E, "memory"), (0xBE, "end of the file"),
      (0xCA, "not finished"), (0x1C, "does not take"),
    ]
    for (code, words) in expected {
      let link = EmbeddedTransceiver([Self.step("90 5A 00 00 03 01 00 00 00", "91 " + hexString([code]))])
      do {
        try DESFireCard(link: link).selectApplication(#require(DESFireApplicationID(1)))
        Issue.record("91 \(hexString([code])) did not throw")
      } catch let error as DESFireCommandError {
        #expect(error.status == DESFireAnswerStatus(rawValue: code))
        #expect(error.description.contains(words), "\(error)")
        #expect(error.description.hasPrefix("SelectApplication 000001 answered 91 \(hexString([code]))"))
        #expect(!error.description.contains("\n"))
      } catch {
        Issue.record("\(error)")
      }
    }
    let iso = EmbeddedTransceiver([Self.step("90 60 00 00 00", "6E 00")])
    #expect(throws: DESFireCommandError.self) { try DESFireCard(link: iso).getVersion() }
    #expect(DESFireCommandError.status(.authenticationError, command: "x").tagError.description.hasPrefix("authentication failed"))
    // A refusal is not a transmission failure: never "tag lost" nor a retry.
    for code: UInt8 in [0x9D, 0x0E, 0xDE, 0x7E, 0xA0, 0xF0, 0xBE, 0xCA, 0x1C] {
      let error = DESFireCommandError.status(DESFireAnswerStatus(rawValue: code), command: "x").tagError
      #expect(!error.isTagLost)
      if case .transceive = error { Issue.record("91 \(hexString([code])) became a transmission failure") }
    }
    #expect(DESFireCommandError.link(.tagRemoved, command: "x").tagError.isTagLost)
  }

  @Test func theAN11004CommandsAreTheBytesAndroidSends() throws {
    // Android's Type 4 formatter on an EV1 (the frames DESFireNDEFImageTests replays on the card).
    let link = EmbeddedTransceiver([
      Self.step("90 CA 00 00 0E 01 00 00 0F 21 05 E1 D2 76 00 00 85 01 01 00", "91 00"),
      Self.step("90 5A 00 00 03 01 00 00 00", "91 00"),
      Self.step("90 CD 00 00 09 01 03 E1 00 EE EE 0F 00 00 00", "91 00"),
      Self.step("90 CD 00 00 09 02 04 E1 00 EE EE 00 1E 00 00", "91 00"),
      Self.step("90 3D 00 00 16 01 00 00 00 0F 00 00 00 0F 20 00 3B 00 34 04 06 E1 04 1E 00 00 00 00", "91 00"),
      Self.step("90 45 00 00 00", "0F 21 91 00"),
      Self.step("90 6E 00 00 00", "00 0E 00 91 00"),
      Self.step("90 BD 00 00 07 02 00 00 00 02 00 00 00", "00 00 91 00"),
    ])
    let card = DESFireCard(link: link)
    let aid = try #require(DESFireApplicationID(1))
    try card.createApplication(aid, settings: 0x0F, keyCount: 1, keyType: .des, isoFileID: 0xE105,
                               dfName: Self.bytes("D2 76 00 00 85 01 01"))
    try card.selectApplication(aid)
    try card.createStandardDataFile(1, isoFileID: 0xE103, access: .free, size: 15)
    try card.createStandardDataFile(2, isoFileID: 0xE104, access: .free, size: 0x1E00)
    try card.writeData(file: 1, offset: 0, Self.bytes("00 0F 20 00 3B 00 34 04 06 E1 04 1E 00 00 00"))
    let settings = try card.keySettings()
    #expect(settings.settings == 0x0F && settings.keyCount == 1 && settings.keyType == .des && settings.freeCreateDelete)
    #expect(try card.freeMemory() == 0x0E00)
    #expect(try card.readData(file: 2, offset: 0, length: 2) == [0, 0])
    #expect(link.finish() == .clean)
  }

  @Test func longCommandsAndAnswersGoInAdditionalFrames() throws {
    let data = (0..<100).map { UInt8($0) }
    let header = "3D 02 00 00 00 64 00 00 "
    let first = data[0..<47].map { hexString([$0]) }.joined(separator: " ")
    let second = data[47..<100].map { hexString([$0]) }.joined(separator: " ")
    let link = EmbeddedTransceiver([
      Self.step("90 " + header.prefix(3) + "00 00 36 " + header.dropFirst(3) + first + " 00", "91 AF"),
      Self.step("90 AF 00 00 35 " + second + " 00", "91 00"),
      Self.step("90 6A 00 00 00", String(repeating: "01 00 00 ", count: 19) + "91 AF"),
      Self.step("90 AF 00 00 00", "02 00 00 91 00"),
    ])
    let card = DESFireCard(link: link)
    try card.writeData(file: 2, offset: 0, data)
    let aids = try card.applicationIDs()
    #expect(aids.count == 20 && aids.last?.description == "000002")
    #expect(link.finish() == .clean)
    // The card says it is done before the data is all there: refused, not ignored.
    let early = EmbeddedTransceiver([Self.step("90 3D 00 00 36 " + header + first + " 00", "91 00")])
    #expect(throws: DESFireCommandError.self) { try DESFireCard(link: early).writeData(file: 2, offset: 0, data) }
  }
}
