import NFCTags
import NFCTestSupport
import Testing

// The FeliCa command packets, built once for the Type 3 platform and CoreNFC (without the length
// byte), and the parts of answers both read. Layouts: JIS X 6319-4 (Polling); Sony, FeliCa Card
// User's Manual, Excerpted Edition (the other commands).

private let idm = hex("01 02 03 04 05 06 07 08")
private let packets = FeliCaPackets(idm: idm)

@Suite struct FeliCaPacketsTests {
  @Test func pollingNamesTheSystemCodeRequestCodeAndTimeSlots() {
    #expect(FeliCaPackets.polling(systemCode: hex("12 FC"), requestCode: 0x01, timeSlot: 0x03) == hex("00 12 FC 01 03"))
  }

  @Test func commandsNameTheCardByItsIDm() {
    #expect(packets.requestResponse() == hex("04") + idm)
    #expect(packets.requestSystemCode() == hex("0C") + idm)
    #expect(packets.requestService(nodes: [hex("0B 00"), hex("09 00")]) == hex("02") + idm + hex("02 0B 00 09 00"))
    #expect(packets.requestServiceV2(nodes: [hex("0B 00")]) == hex("32") + idm + hex("01 0B 00"))
    #expect(packets.requestSpecificationVersion() == hex("3C") + idm + hex("00 00"))
    #expect(packets.resetMode() == hex("3E") + idm + hex("00 00"))
  }

  @Test func readAndWriteListTheServicesThenTheBlocks() throws {
    let service = FeliCaPackets.serviceCode(0x000B)
    #expect(service == hex("0B 00"))
    let blocks = [try #require(FeliCaPackets.blockListElement(1)), try #require(FeliCaPackets.blockListElement(0x0123))]
    #expect(blocks == [hex("80 01"), hex("00 23 01")])
    #expect(FeliCaPackets.blockListElement(0x1_0000) == nil)
    #expect(packets.readWithoutEncryption(services: [service], blocks: blocks) == hex("06") + idm + hex("01 0B 00 02 80 01 00 23 01"))
    let data = [UInt8](repeating: 0xAA, count: 16)
    #expect(packets.writeWithoutEncryption(services: [hex("09 00")], blocks: [hex("80 01")], data: data)
            == hex("08") + idm + hex("01 09 00 01 80 01") + data)
  }

  @Test func anAnswerIsTheCodePlusOneAndTheSameIDm() {
    #expect(packets.answer(hex("05") + idm + hex("00"), to: 0x04).map(Array.init) == hex("00"))
    #expect(packets.answer(hex("07") + idm + hex("00 00"), to: 0x06, minimum: 2).map(Array.init) == hex("00 00"))
    #expect(packets.answer(hex("07") + idm + hex("00"), to: 0x06, minimum: 2) == nil)              // too short
    #expect(packets.answer(hex("05") + idm.reversed() + hex("00"), to: 0x04) == nil)               // another card
    #expect(packets.answer(hex("04") + idm + hex("00"), to: 0x04) == nil)                          // not an answer
  }

  @Test func codeListsAndBlockDataAreReadToTheirExactShape() {
    #expect(FeliCaPackets.countedCodes(hex("02 12 FC 88 B4")[...])?.map(Array.init) == [hex("12 FC"), hex("88 B4")])
    #expect(FeliCaPackets.countedCodes(hex("02 12 FC 88")[...]) == nil)
    #expect(FeliCaPackets.countedCodes([UInt8]()[...]) == nil)
    let block = [UInt8](repeating: 0x11, count: 16)
    #expect(FeliCaPackets.blockData((hex("01") + block)[...], count: 1)?.map(Array.init) == [block])
    #expect(FeliCaPackets.blockData((hex("02") + block)[...], count: 1) == nil)
    #expect(FeliCaPackets.blockData((hex("01") + block.dropLast())[...], count: 1) == nil)
  }

  @Test func requestServiceV2AnswersListAESThenDESKeyVersions() throws {
    let aes = try #require(FeliCaPackets.serviceV2(hex("4F 01 10 00")[...], nodes: 1))
    #expect(aes.encryption == 0x4F && aes.aes.map(Array.init) == [hex("10 00")] && aes.des.isEmpty)
    let both = try #require(FeliCaPackets.serviceV2(hex("41 01 10 00 20 00")[...], nodes: 1))
    #expect(both.encryption == 0x41 && both.aes.map(Array.init) == [hex("10 00")] && both.des.map(Array.init) == [hex("20 00")])
    #expect(FeliCaPackets.serviceV2(hex("41 01 10 00")[...], nodes: 1) == nil)    // the DES list is missing
    #expect(FeliCaPackets.serviceV2(hex("4F 02 10 00")[...], nodes: 1) == nil)    // another node count
    #expect(FeliCaPackets.serviceV2(hex("42 01 10 00")[...], nodes: 1) == nil)    // an unknown encryption
  }

  @Test func requestSpecificationVersionAnswersTheBasicAndOptionVersions() throws {
    let versions = try #require(FeliCaPackets.specificationVersion(hex("00 10 01 01 00 03")[...]))
    #expect(Array(versions.basic) == hex("10 01") && Array(versions.options) == hex("00 03"))
    #expect(FeliCaPackets.specificationVersion(hex("00 10 01 02 00 03")[...]) == nil)
  }
}
