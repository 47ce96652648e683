import Testing
@testable import NTAG424

/// File settings, the command layer's parsers and builders, against NXP AN12196 rev 2.0 and
/// hostile answers.
@Suite struct FileSettingsTests {
  /// AN12196 §5.4: GetFileSettings of file 02 answered 0040EEEE000100D1FE001F00004400004400002000006A0000.
  @Test func parsesAN12196GetFileSettings() throws {
    let file = try FileProperties(parsing: bytes("00 40 EEEE 000100 D1 FE00 1F0000 440000 440000 200000 6A0000"))
    #expect(file.fileType == 0)
    #expect(file.fileSize == 256)
    #expect(file.settings.communicationMode == .plain)
    #expect(file.settings.accessRights == AccessRights(read: .free, write: .free, readWrite: .free, change: .free))
    let sdm = try #require(file.settings.sdm)
    #expect(sdm.options == [.uid, .readCounter, .encryptedFileData, .asciiEncoding])
    #expect(sdm.accessRights == SDMAccessRights(metaRead: .key(0), fileRead: .key(0), counterRetrieval: .free))
    #expect(sdm.uidOffset == nil && sdm.readCounterOffset == nil && sdm.readCounterLimit == nil)
    #expect(sdm.piccDataOffset == 0x1F)
    #expect(sdm.macInputOffset == 0x44)
    #expect(sdm.encryptedFileDataOffset == 0x44)
    #expect(sdm.encryptedFileDataLength == 0x20)
    #expect(sdm.macOffset == 0x6A)
    // What GetFileSettings says, ChangeFileSettings sends back unchanged (less type and size).
    #expect(try file.settings.changeData() == bytes("40 EEEE D1 FE00 1F0000 440000 440000 200000 6A0000"))
  }

  /// AN12196 §5.9: ChangeFileSettings' plain data 4000E0C1F121200000430000430000, built from a typed value.
  @Test func buildsAN12196ChangeFileSettings() throws {
    let settings = FileSettings(
      communicationMode: .plain,
      accessRights: AccessRights(read: .free, write: .key(0), readWrite: .key(0), change: .key(0)),
      sdm: SDMSettings(options: [.uid, .readCounter, .asciiEncoding],
                       accessRights: SDMAccessRights(metaRead: .key(2), fileRead: .key(1), counterRetrieval: .key(1)),
                       piccDataOffset: 0x20, macInputOffset: 0x43, macOffset: 0x43))
    #expect(try settings.changeData() == bytes("4000E0C1F121200000430000430000"))
  }

  @Test func plainMirrorsAndLimitRoundTrip() throws {
    let answer = bytes("00 43 30 E0 000100 E1 F1 E1 200000 2F0000 400000 400000 E80300")
    let file = try FileProperties(parsing: answer)
    let sdm = try #require(file.settings.sdm)
    #expect(file.settings.communicationMode == .full)
    #expect(sdm.accessRights.metaRead == .free)
    #expect(sdm.uidOffset == 0x20 && sdm.readCounterOffset == 0x2F && sdm.piccDataOffset == nil)
    #expect(sdm.macInputOffset == 0x40 && sdm.macOffset == 0x40 && sdm.readCounterLimit == 1000)
    #expect(try file.settings.changeData() == Array(answer[1...3]) + Array(answer[7...]))
  }

  @Test func hostileAnswersThrowInsteadOfTrapping() {
    for text in ["", "00", "00 40 EEEE 0001", "00 40 EEEE 000100", "00 40 EEEE 000100 D1 FE00 1F0000 440000",
                 "00 00 EEEE 000100 00", "00 40 EEEE 000100 D1 FE00 1F0000 440000 440000 200000 6A0000 00"] {
      #expect(throws: NTAG424Error.self, "\(text)") { try FileProperties(parsing: bytes(text)) }
    }
    for count in 0..<40 {
      let noise = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 0x41) }
      _ = try? FileProperties(parsing: noise)   // must not trap
    }
  }

  @Test func changeDataRefusesWhatTheChipWouldRefuse() {
    let rights = AccessRights(read: .free, write: .key(0), readWrite: .key(0), change: .key(0))
    let missingMAC = FileSettings(communicationMode: .plain, accessRights: rights, sdm: SDMSettings(
      options: [.uid, .readCounter, .asciiEncoding],
      accessRights: SDMAccessRights(metaRead: .key(2), fileRead: .key(1), counterRetrieval: .never), piccDataOffset: 32))
    #expect(throws: NTAG424Error.invalidParameter("SDMMACInputOffset is needed by these SDM options and access rights")) {
      try missingMAC.changeData()
    }
    let extra = FileSettings(communicationMode: .plain, accessRights: rights, sdm: SDMSettings(
      options: [.uid, .asciiEncoding], accessRights: SDMAccessRights(metaRead: .free, fileRead: .never, counterRetrieval: .never),
      uidOffset: 10, piccDataOffset: 32))
    #expect(throws: NTAG424Error.self) { try extra.changeData() }
    let binary = FileSettings(communicationMode: .plain, accessRights: rights, sdm: SDMSettings(
      options: [.uid], accessRights: SDMAccessRights(metaRead: .free, fileRead: .never, counterRetrieval: .never), uidOffset: 10))
    #expect(throws: NTAG424Error.self) { try binary.changeData() }
    let farOffset = FileSettings(communicationMode: .plain, accessRights: rights, sdm: SDMSettings(
      options: [.uid, .asciiEncoding], accessRights: SDMAccessRights(metaRead: .free, fileRead: .never, counterRetrieval: .never),
      uidOffset: 1 << 24))
    #expect(throws: NTAG424Error.self) { try farOffset.changeData() }
    let badKey = FileSettings(communicationMode: .plain,
                              accessRights: AccessRights(read: .key(5), write: .key(0), readWrite: .key(0), change: .key(0)))
    #expect(throws: NTAG424Error.self) { try badKey.changeData() }
  }

  @Test func accessConditionNibbles() {
    #expect((0...15).map { AccessCondition(nibble: UInt8($0)).nibble } == (0...15).map { UInt8($0) })
    #expect(AccessCondition(nibble: 0x0E) == .free)
    #expect(AccessCondition(nibble: 0x0F) == .never)
    #expect(AccessCondition(nibble: 0x07) == .reserved(7))
    #expect(AccessRights(bytes: 0x00, 0xE0).bytes == [0x00, 0xE0])
    #expect(SDMAccessRights(bytes: 0xF1, 0x21) == SDMAccessRights(metaRead: .key(2), fileRead: .key(1), counterRetrieval: .key(1)))
  }

  @Test func dataHeadersAreLittleEndian() throws {
    // AN12196 §5.8.2: WriteData of 10 bytes at offset 0 of file 03: header 03 000000 0A0000.
    #expect(try NativeCommand.dataHeader(file: 3, offset: 0, length: 10) == bytes("03 000000 0A0000"))
    #expect(try NativeCommand.dataHeader(file: 2, offset: 0x012345, length: 0x100) == bytes("02 452301 000100"))
    #expect(throws: NTAG424Error.self) { try NativeCommand.dataHeader(file: 2, offset: 1 << 24, length: 1) }
    #expect(throws: NTAG424Error.self) { try NativeCommand.dataHeader(file: 0x20, offset: 0, length: 1) }
    #expect(try NativeCommand.plainCommand(0x60) == bytes("90 60 00 00 00"))
    #expect(try NativeCommand.plainCommand(0xAD, header: bytes("02 000000 100000")) == bytes("90AD0000 07 02000000100000 00"))
  }

  @Test func smallAnswers() throws {
    #expect(try NativeCommand.parseFileCounter(bytes("3D0000 0000")) == 61)
    #expect(try NativeCommand.parseCardUID(bytes("04958CAA5C5E80")) == bytes("04958CAA5C5E80"))
    #expect(try NativeCommand.parseKeyVersion([0x01]) == 1)
    #expect(try NativeCommand.parseSignature([UInt8](repeating: 7, count: 56)).count == 56)
    #expect(throws: NTAG424Error.self) { try NativeCommand.parseFileCounter(bytes("3D0000")) }
    #expect(throws: NTAG424Error.self) { try NativeCommand.parseCardUID(bytes("04958CAA5C5E")) }
    #expect(throws: NTAG424Error.self) { try NativeCommand.parseKeyVersion([]) }
    #expect(throws: NTAG424Error.self) { try NativeCommand.parseSignature([UInt8](repeating: 7, count: 55)) }
  }
}

@Suite struct ChipVersionTests {
  static let frames = bytes("04 04 02 30 00 11 05") + bytes("04 04 02 01 02 11 05")
    + bytes("04 11 22 33 44 55 66") + bytes("A1 B2 C3 D4 E0") + bytes("21") + bytes("24")

  @Test func namesTheChip() throws {
    let version = try ChipVersion(parsing: Self.frames)
    #expect(version.chip == .ntag424DNA)
    #expect(version.chip.description == "NTAG 424 DNA")
    #expect(version.hardware.majorVersion == 0x30 && version.hardware.storageSize == 0x11)
    #expect(version.software.minorVersion == 0x02)
    #expect(version.uid == bytes("04112233445566"))
    #expect(version.productionWeek == 0x21 && version.productionYear == 0x24 && version.fabKeyID == nil)
    var tt = Self.frames
    tt[2] = 0x08
    #expect(try ChipVersion(parsing: tt + [0x1F]).chip == .ntag424DNATagTamper)
    #expect(try ChipVersion(parsing: tt + [0x1F]).fabKeyID == 0x1F)
    tt[1] = 0x01
    #expect(try ChipVersion(parsing: tt).chip == .other(vendor: 4, type: 1, subType: 8))
  }

  /// Bit 7 of the subtype is the back modulation (SetConfiguration option 0Bh), not the variant:
  /// 0Xh strong, 8Xh standard (NT4H2421Gx datasheet §10.5.2, Table 54).
  @Test func standardBackModulationKeepsTheName() throws {
    var standard = Self.frames
    standard[2] = 0x82
    #expect(try ChipVersion(parsing: standard).chip == .ntag424DNA)
    #expect(try !ChipVersion(parsing: standard).strongBackModulation)
    #expect(try ChipVersion(parsing: Self.frames).strongBackModulation)   // 02h: the factory setting
    standard[2] = 0x88
    #expect(try ChipVersion(parsing: standard).chip == .ntag424DNATagTamper)
    #expect(try !ChipVersion(parsing: standard).strongBackModulation)
    #expect(ChipVersion.storageText(0x11) == "256 to 512 bytes" && ChipVersion.storageText(0x10) == "256 bytes")
  }

  @Test func wrongLengthsThrow() {
    #expect(throws: NTAG424Error.self) { try ChipVersion(parsing: Array(Self.frames.dropLast())) }
    #expect(throws: NTAG424Error.self) { try ChipVersion(parsing: Self.frames + [0, 0]) }
    #expect(throws: NTAG424Error.self) { try ChipVersion(parsing: []) }
  }
}
