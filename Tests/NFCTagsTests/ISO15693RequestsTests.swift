import NFCTags
import NFCTestSupport
import Testing

// The ISO/IEC 15693-3 request frames, built once for the Type 5 platform and CoreNFC: each
// frame as the standard lays it out (flags, code, [manufacturer], [UID], parameters).

/// An addressed request at high data rate (flags 22h) to the ICODE SLIX2 of Type5TagTests.
private let addressed = ISO15693Requests(flags: 0x22, address: slix2UID)
/// A non-addressed request at high data rate (flags 02h), as the Type 5 platform sends.
private let plain = ISO15693Requests(flags: 0x02)

@Suite struct ISO15693RequestsTests {
  @Test func blockCommandsPutTheUIDBeforeTheParameters() {
    #expect(addressed.readSingleBlock(0x05) == hex("22 20") + slix2UID + hex("05"))
    #expect(addressed.writeSingleBlock(0x05, hex("01 02 03 04")) == hex("22 21") + slix2UID + hex("05 01 02 03 04"))
    #expect(addressed.lockBlock(0x05) == hex("22 22") + slix2UID + hex("05"))
    #expect(plain.readSingleBlock(0x05) == hex("02 20 05"))
    #expect(plain.getSystemInformation() == hex("02 2B"))
  }

  @Test func stateAndIdentificationCommands() {
    #expect(plain.stayQuiet() == hex("02 02"))
    #expect(plain.select() == hex("02 25"))
    #expect(plain.resetToReady() == hex("02 26"))
    #expect(plain.writeAFI(0x12) == hex("02 27 12"))
    #expect(plain.lockAFI() == hex("02 28"))
    #expect(plain.writeDSFID(0x34) == hex("02 29 34"))
    #expect(plain.lockDSFID() == hex("02 2A"))
  }

  @Test func multipleBlocksNameTheFirstBlockAndTheCountLessOne() throws {
    let range = try #require(ISO15693BlockRange(first: 4, count: 3))
    #expect(plain.readMultipleBlocks(range) == hex("02 23 04 02"))
    #expect(plain.writeMultipleBlocks(range, hex("AA BB")) == hex("02 24 04 02 AA BB"))
    #expect(plain.blockSecurityStatus(range) == hex("02 2C 04 02"))
    // The last block a one-byte run can name is FFh; a run of none is no run.
    #expect(ISO15693BlockRange(first: 0, count: 256)?.bytes == hex("00 FF"))
    #expect(ISO15693BlockRange(first: 255, count: 2) == nil)
    #expect(ISO15693BlockRange(first: 0, count: 0) == nil)
    #expect(ISO15693BlockRange(first: -1, count: 1) == nil)
  }

  @Test func extendedCommandsTakeTwoByteBlockNumbersLeastSignificantFirst() throws {
    #expect(plain.extendedReadSingleBlock(0x0123) == hex("02 30 23 01"))
    #expect(plain.extendedWriteSingleBlock(0x0123, hex("01 02 03 04")) == hex("02 31 23 01 01 02 03 04"))
    #expect(plain.extendedLockBlock(0x0123) == hex("02 32 23 01"))
    let range = try #require(ISO15693BlockRange(first: 0x0100, count: 0x0102, extended: true))
    #expect(plain.readMultipleBlocks(range) == hex("02 33 00 01 01 01"))
    #expect(plain.writeMultipleBlocks(range, hex("AA")) == hex("02 34 00 01 01 01 AA"))
    #expect(plain.blockSecurityStatus(range) == hex("02 3C 00 01 01 01"))
    #expect(ISO15693BlockRange(first: 0xFFFF, count: 1, extended: true) != nil)
    #expect(ISO15693BlockRange(first: 0xFFFF, count: 2, extended: true) == nil)
  }

  @Test func customCommandsCarryTheManufacturerBeforeTheUID() {
    // NXP (04h) GET RANDOM NUMBER (B2h), addressed.
    #expect(addressed.custom(0xB2, manufacturer: 0x04, []) == hex("22 B2 04") + slix2UID)
    #expect(plain.custom(0xA0, manufacturer: 0x04, hex("01")) == hex("02 A0 04 01"))
    // Custom codes are A0h–DFh (ISO/IEC 15693-3 §10.5): others are refused, not sent.
    #expect(plain.custom(0x9F, manufacturer: 0x04, []) == nil)
    #expect(plain.custom(0xE0, manufacturer: 0x04, []) == nil)
  }

  @Test func multipleBlockAnswersAreCutIntoEqualBlocks() {
    #expect(ISO15693Requests.blocks(hex("01 02 03 04 05 06"), count: 2)?.map(Array.init) == [hex("01 02 03"), hex("04 05 06")])
    #expect(ISO15693Requests.blocks(hex("01 02 03 04 05"), count: 2) == nil)   // uneven
    #expect(ISO15693Requests.blocks([], count: 1) == nil)                      // nothing
    #expect(ISO15693Requests.blocks(hex("01 02"), count: 0) == nil)           // no blocks asked
  }
}
