import NFCTransport
import Testing
@testable import NFCEmulator

/// The virtual DESFire EV2 and EV3: an EV1 with their GetVersion bytes, and the EV2's random FCI
/// (docs/desfire.md).
@Suite struct DESFireGenerationTests {
  @Test func kindsGetVersionAndIdentity() throws {
    let table: [(VirtualTagKind, String, String, String)] = [
      (.desfireEV2With2K, "12 00", "02 01", "16"), (.desfireEV2With4K, "12 00", "02 01", "18"),
      (.desfireEV2With8K, "12 00", "02 01", "1A"), (.desfireEV3With2K, "33 00", "03 00", "16"),
      (.desfireEV3With4K, "33 00", "03 00", "18"), (.desfireEV3With8K, "33 00", "03 00", "1A"),
    ]
    for (kind, hardware, software, size) in table {
      #expect(VirtualTagKind(rawValue: kind.rawValue) == kind)
      let tag = try #require(try kind.makeTag(uid: desfireBytes("04 95 91 0A 5D 6D 80")) as? DESFireVirtualTag)
      #expect(tag.technology == .typeA(sensRes: [0x03, 0x44], selRes: 0x20, ats: desfireBytes("06 75 77 81 02 80")))
      #expect(tag.send("90 60 00 00 00") == desfireBytes("04 01 01 \(hardware) \(size) 05 91 AF"), "\(kind)")
      #expect(tag.send("90 AF 00 00 00") == desfireBytes("04 01 01 \(software) \(size) 05 91 AF"), "\(kind)")
      #expect(tag.send("90 AF 00 00 00").suffix(2) == [0x91, 0x00])
      #expect(tag.send("90 6E 00 00 00") == DESFireBytes.uint24(tag.chip.memorySize) + [0x91, 0x00])
      // The image keeps the kind's size: it reloads as the same kind.
      let reloaded = try #require(try kind.makeTag(image: tag.memoryImage) as? DESFireVirtualTag)
      #expect(reloaded.chip == tag.chip)
    }
    #expect(DESFireChip.ev2With4K.productName == "MIFARE DESFire EV2 4K")
    #expect(DESFireChip.ev3With8K.productName == "MIFARE DESFire EV3 8K")
  }

  @Test func anEV2AnswersARandomFCIForTheMissingNDEFApplication() throws {
    let tag = try DESFireVirtualTag.factory(.ev2With4K)
    let fci = tag.send("00 A4 04 00 07 D2 76 00 00 85 01 01 00")
    #expect(fci.first == 0x6F && fci.suffix(2) == [0x90, 0x00], "\(fci)")
    #expect(fci.count == Int(fci[1]) + 4)
    #expect(tag.send("00 A4 00 0C 02 E1 03") == desfireBytes("6A 82"))         // nothing was selected
    #expect(tag.send("90 5A 00 00 03 00 00 00 00") == desfireBytes("91 1B"))    // the fault
    #expect(tag.send("90 5A 00 00 03 01 00 00 00") == desfireBytes("91 1B"))
    // An ISO SELECT of the PICC level ends it (by DF name or by 3F00).
    #expect(tag.send("00 A4 04 00 07 D2 76 00 00 85 01 00 00") == desfireBytes("90 00"))
    #expect(tag.send("90 5A 00 00 03 00 00 00 00") == desfireBytes("91 00"))
    _ = tag.send("00 A4 04 00 07 D2 76 00 00 85 01 01 00")
    #expect(tag.send("00 A4 00 00 02 3F 00") == desfireBytes("90 00"))
    #expect(tag.send("90 5A 00 00 03 00 00 00 00") == desfireBytes("91 00"))
    // So does a reset of the field.
    _ = tag.send("00 A4 04 00 07 D2 76 00 00 85 01 01 00")
    tag.reset()
    #expect(tag.send("90 5A 00 00 03 00 00 00 00") == desfireBytes("91 00"))
    // With the NDEF application on the card, the select is an ordinary one.
    #expect(tag.send("90 CA 00 00 0E 01 00 00 0F 21 10 E1 D2 76 00 00 85 01 01 00") == desfireBytes("91 00"))
    #expect(tag.send("00 A4 04 00 07 D2 76 00 00 85 01 01 00") == desfireBytes("90 00"))
    #expect(tag.send("90 5A 00 00 03 00 00 00 00") == desfireBytes("91 00"))
  }

  @Test func anEV1AndAnEV3AnswerFileNotFound() throws {
    for chip in [DESFireChip.ev1With4K, .ev3With4K, .ev3With2K] {
      let tag = try DESFireVirtualTag.factory(chip)
      #expect(tag.send("00 A4 04 00 07 D2 76 00 00 85 01 01 00") == desfireBytes("6A 82"))
      #expect(tag.send("90 5A 00 00 03 00 00 00 00") == desfireBytes("91 00"))
    }
  }
}
