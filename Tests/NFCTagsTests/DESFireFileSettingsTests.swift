import NFCTags
import Testing

/// GetFileSettings' answer parsed (MF3ICDx21_41_81 §9, GetFileSettings): each file type's layout,
/// and answers too short for their type refused, never read past.
@Suite struct DESFireFileSettingsTests {
  @Test func aStandardDataFile() throws {
    // Type 00, plain, access bytes E0 1E (read&write E, change 0, read 1, write E), size 000040h.
    let settings = try DESFireFileSettings(parsing: [0x00, 0x00, 0xE0, 0x1E, 0x40, 0x00, 0x00])
    #expect(settings.fileType == .standardData)
    #expect(settings.communication == .plain)
    #expect(settings.access == DESFireFileAccess(read: 1, write: 0x0E, readWrite: 0x0E, change: 0))
    #expect(settings.size == 64)
    #expect(settings.records == nil && settings.valueLimits == nil)
  }

  @Test func valueAndRecordFiles() throws {
    let value = try DESFireFileSettings(parsing: [0x02, 0x03, 0x00, 0x00] + [0xF6, 0xFF, 0xFF, 0xFF] + [0x64, 0, 0, 0]
                                        + [0x05, 0, 0, 0] + [0x01])
    #expect(value.fileType == .value && value.communication == .full)
    #expect(value.valueLimits?.lower == -10 && value.valueLimits?.upper == 100 && value.valueLimits?.limitedCreditEnabled == true)
    #expect(value.size == nil)
    let cyclic = try DESFireFileSettings(parsing: [0x04, 0x01, 0xEE, 0xEE, 0x10, 0, 0, 0x05, 0, 0, 0x02, 0, 0])
    #expect(cyclic.records?.size == 16 && cyclic.records?.maximum == 5 && cyclic.records?.current == 2)
  }

  @Test(arguments: [[], [0x00, 0x00, 0xEE], [0x00, 0x00, 0xEE, 0xEE, 0x20, 0x00], [0x02, 0x00, 0xEE, 0xEE, 1, 2, 3],
                    [0x03, 0x00, 0xEE, 0xEE, 0x10, 0, 0, 5]] as [[UInt8]])
  func shortAnswersAreRefused(_ answer: [UInt8]) {
    #expect(throws: DESFireCommandError.self) { try DESFireFileSettings(parsing: answer) }
  }

  @Test func rightsReadAsPeopleSayThem() {
    #expect(DESFireFileAccess.rightText(0x0E) == "free")
    #expect(DESFireFileAccess.rightText(0x0F) == "never")
    #expect(DESFireFileAccess.rightText(0x03) == "key 3")
  }
}
