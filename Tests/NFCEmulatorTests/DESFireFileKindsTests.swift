import NFCTransport
import Testing
@testable import NFCEmulator

/// The virtual DESFire EV1's backup data, value and record files, its transactions and
/// ChangeFileSettings, in plain mode (MF3ICDx21_41_81 §9.5-9.6).
@Suite struct DESFireFileKindsTests {
  /// A factory 8K card with application 000001 (KS1 0F, one DES key, no ISO FIDs) selected.
  private func card() throws -> DESFireVirtualTag {
    let tag = try DESFireVirtualTag.factory()
    #expect(tag.send("90 CA 00 00 05 01 00 00 0F 01 00") == desfireBytes("91 00"))
    #expect(tag.send("90 5A 00 00 03 01 00 00 00") == desfireBytes("91 00"))
    return tag
  }

  @Test func aBackupFileShowsItsWritesAfterCommitOnly() throws {
    let tag = try card()
    #expect(tag.send("90 CB 00 00 07 01 00 EE EE 20 00 00 00") == desfireBytes("91 00"))     // 32 bytes
    #expect(tag.send("90 CB 00 00 07 01 00 EE EE 20 00 00 00") == desfireBytes("91 DE"))
    #expect(tag.send("90 6E 00 00 00") == desfireBytes("C0 1F 00 91 00"))                   // twice 32 bytes taken
    #expect(tag.send("90 F5 00 00 01 01 00") == desfireBytes("01 00 EE EE 20 00 00 91 00"))
    #expect(tag.send("90 3D 00 00 0B 01 00 00 00 04 00 00 11 22 33 44 00") == desfireBytes("91 00"))
    #expect(tag.send("90 BD 00 00 07 01 00 00 00 04 00 00 00") == desfireBytes("00 00 00 00 91 00"))
    #expect(tag.send("90 C7 00 00 00") == desfireBytes("91 00"))
    #expect(tag.send("90 BD 00 00 07 01 00 00 00 04 00 00 00") == desfireBytes("11 22 33 44 91 00"))
    #expect(tag.send("90 C7 00 00 00") == desfireBytes("91 0C"))                            // nothing to commit
    #expect(tag.send("90 3D 00 00 0B 01 00 00 00 04 00 00 55 66 77 88 00") == desfireBytes("91 00"))
    #expect(tag.send("90 A7 00 00 00") == desfireBytes("91 00"))                            // dropped
    #expect(tag.send("90 A7 00 00 00") == desfireBytes("91 0C"))
    #expect(tag.send("90 3D 00 00 0B 01 00 00 00 04 00 00 55 66 77 88 00") == desfireBytes("91 00"))
    #expect(tag.send("90 5A 00 00 03 01 00 00 00") == desfireBytes("91 00"))                // selecting drops it
    #expect(tag.send("90 C7 00 00 00") == desfireBytes("91 0C"))
    #expect(tag.send("90 BD 00 00 07 01 00 00 00 00 00 00 00").prefix(4) == desfireBytes("11 22 33 44")[...])
    #expect(tag.send("90 C7 00 00 01 00 00") == desfireBytes("91 7E"))
  }

  @Test func aValueFileCreditsDebitsAndLimitsItsCredit() throws {
    let tag = try card()
    // File 2: plain, rights EEEE, lower 0, upper 1000, value 100, LimitedCredit enabled.
    #expect(tag.send("90 CC 00 00 11 02 00 EE EE 00 00 00 00 E8 03 00 00 64 00 00 00 01 00") == desfireBytes("91 00"))
    #expect(tag.send("90 F5 00 00 01 02 00")
            == desfireBytes("02 00 EE EE 00 00 00 00 E8 03 00 00 00 00 00 00 01 91 00"))
    #expect(tag.send("90 6C 00 00 01 02 00") == desfireBytes("64 00 00 00 91 00"))
    #expect(tag.send("90 0C 00 00 05 02 32 00 00 00 00") == desfireBytes("91 00"))          // Credit 50
    #expect(tag.send("90 6C 00 00 01 02 00") == desfireBytes("64 00 00 00 91 00"))          // not yet
    #expect(tag.send("90 C7 00 00 00") == desfireBytes("91 00"))
    #expect(tag.send("90 6C 00 00 01 02 00") == desfireBytes("96 00 00 00 91 00"))          // 150
    #expect(tag.send("90 DC 00 00 05 02 C8 00 00 00 00") == desfireBytes("91 BE"))          // below the lower limit
    #expect(tag.send("90 0C 00 00 05 02 84 03 00 00 00") == desfireBytes("91 BE"))          // past the upper limit
    #expect(tag.send("90 0C 00 00 05 02 FF FF FF FF 00") == desfireBytes("91 9E"))          // a negative amount
    #expect(tag.send("90 DC 00 00 05 02 1E 00 00 00 00") == desfireBytes("91 00"))          // Debit 30
    #expect(tag.send("90 DC 00 00 05 02 14 00 00 00 00") == desfireBytes("91 00"))          // and 20
    #expect(tag.send("90 C7 00 00 00") == desfireBytes("91 00"))
    #expect(tag.send("90 6C 00 00 01 02 00") == desfireBytes("64 00 00 00 91 00"))          // 100
    #expect(tag.send("90 F5 00 00 01 02 00").dropLast(2).suffix(5) == desfireBytes("32 00 00 00 01")[...])
    #expect(tag.send("90 1C 00 00 05 02 33 00 00 00 00") == desfireBytes("91 BE"))          // more than debited
    #expect(tag.send("90 1C 00 00 05 02 32 00 00 00 00") == desfireBytes("91 00"))
    #expect(tag.send("90 C7 00 00 00") == desfireBytes("91 00"))
    #expect(tag.send("90 6C 00 00 01 02 00") == desfireBytes("96 00 00 00 91 00"))
    #expect(tag.send("90 1C 00 00 05 02 01 00 00 00 00") == desfireBytes("91 BE"))          // used up
    #expect(tag.send("90 0C 00 00 04 02 01 00 00 00") == desfireBytes("91 7E"))
    #expect(tag.send("90 6C 00 00 01 05 00") == desfireBytes("91 F0"))
    // Rights: read free only (FFEF → read E): GetValue and Debit, not Credit nor LimitedCredit.
    #expect(tag.send("90 CC 00 00 11 03 00 FF EF 00 00 00 00 E8 03 00 00 64 00 00 00 01 00") == desfireBytes("91 00"))
    #expect(tag.send("90 6C 00 00 01 03 00") == desfireBytes("64 00 00 00 91 00"))
    #expect(tag.send("90 DC 00 00 05 03 01 00 00 00 00") == desfireBytes("91 00"))
    #expect(tag.send("90 0C 00 00 05 03 01 00 00 00 00") == desfireBytes("91 9D"))
    #expect(tag.send("90 1C 00 00 05 03 01 00 00 00 00") == desfireBytes("91 9D"))
    // Write free only (FFFE): GetValue (read, write or read&write), LimitedCredit; Credit needs read&write.
    #expect(tag.send("90 CC 00 00 11 04 00 FF FE 00 00 00 00 E8 03 00 00 64 00 00 00 00 00") == desfireBytes("91 00"))
    #expect(tag.send("90 6C 00 00 01 04 00") == desfireBytes("64 00 00 00 91 00"))
    #expect(tag.send("90 1C 00 00 05 04 00 00 00 00 00") == desfireBytes("91 9D"))          // not enabled
    #expect(tag.send("90 0C 00 00 05 04 01 00 00 00 00") == desfireBytes("91 9D"))
    // Key rights without authentication: AE.
    #expect(tag.send("90 CC 00 00 11 05 00 00 00 00 00 00 00 E8 03 00 00 64 00 00 00 00 00") == desfireBytes("91 00"))
    #expect(tag.send("90 6C 00 00 01 05 00") == desfireBytes("91 AE"))
    // The same rights with free GetValue (option bit 1): GetValue in plain to anyone; Debit still AE.
    #expect(tag.send("90 CC 00 00 11 07 00 00 00 00 00 00 00 E8 03 00 00 64 00 00 00 02 00") == desfireBytes("91 00"))
    #expect(tag.send("90 6C 00 00 01 07 00") == desfireBytes("64 00 00 00 91 00"))
    #expect(tag.send("90 DC 00 00 05 07 01 00 00 00 00") == desfireBytes("91 AE"))
    // Limits out of order, a value outside them: 9E.
    #expect(tag.send("90 CC 00 00 11 06 00 EE EE 0A 00 00 00 05 00 00 00 06 00 00 00 00 00") == desfireBytes("91 9E"))
    #expect(tag.send("90 CC 00 00 11 06 00 EE EE 00 00 00 00 05 00 00 00 06 00 00 00 00 00") == desfireBytes("91 9E"))
    // ReadData on a value file: 9E.
    #expect(tag.send("90 BD 00 00 07 02 00 00 00 00 00 00 00") == desfireBytes("91 9E"))
  }

  @Test func linearAndCyclicRecordFiles() throws {
    let tag = try card()
    // Linear file 4: plain, EEEE, records of 4 bytes, at most 2.
    #expect(tag.send("90 C1 00 00 0A 04 00 EE EE 04 00 00 02 00 00 00") == desfireBytes("91 00"))
    #expect(tag.send("90 F5 00 00 01 04 00") == desfireBytes("03 00 EE EE 04 00 00 02 00 00 00 00 00 91 00"))
    #expect(tag.send("90 BB 00 00 07 04 00 00 00 00 00 00 00") == desfireBytes("91 BE"))    // no records
    #expect(tag.send("90 3B 00 00 09 04 00 00 00 02 00 00 AA BB 00") == desfireBytes("91 00"))
    #expect(tag.send("90 3B 00 00 09 04 02 00 00 02 00 00 CC DD 00") == desfireBytes("91 00"))  // the same record
    #expect(tag.send("90 3B 00 00 09 04 03 00 00 02 00 00 CC DD 00") == desfireBytes("91 BE"))  // past the record
    #expect(tag.send("90 BB 00 00 07 04 00 00 00 00 00 00 00") == desfireBytes("91 BE"))    // not committed
    #expect(tag.send("90 C7 00 00 00") == desfireBytes("91 00"))
    #expect(tag.send("90 BB 00 00 07 04 00 00 00 00 00 00 00") == desfireBytes("AA BB CC DD 91 00"))
    #expect(tag.send("90 3B 00 00 0B 04 00 00 00 04 00 00 01 02 03 04 00") == desfireBytes("91 00"))
    #expect(tag.send("90 C7 00 00 00") == desfireBytes("91 00"))
    #expect(tag.send("90 3B 00 00 09 04 00 00 00 02 00 00 EE FF 00") == desfireBytes("91 BE"))  // full
    #expect(tag.send("90 BB 00 00 07 04 00 00 00 00 00 00 00") == desfireBytes("AA BB CC DD 01 02 03 04 91 00"))
    #expect(tag.send("90 BB 00 00 07 04 00 00 00 01 00 00 00") == desfireBytes("01 02 03 04 91 00"))  // the newest
    #expect(tag.send("90 BB 00 00 07 04 01 00 00 01 00 00 00") == desfireBytes("AA BB CC DD 91 00"))
    #expect(tag.send("90 BB 00 00 07 04 01 00 00 02 00 00 00") == desfireBytes("91 BE"))
    #expect(tag.send("90 F5 00 00 01 04 00").dropLast(2).suffix(3) == desfireBytes("02 00 00")[...])
    #expect(tag.send("90 EB 00 00 01 04 00") == desfireBytes("91 00"))
    #expect(tag.send("90 BB 00 00 07 04 00 00 00 00 00 00 00").count == 10)                  // still there
    #expect(tag.send("90 C7 00 00 00") == desfireBytes("91 00"))
    #expect(tag.send("90 BB 00 00 07 04 00 00 00 00 00 00 00") == desfireBytes("91 BE"))
    // Cyclic file 5: records of 2 bytes, at most 3 (one of them the spare: 2 kept).
    #expect(tag.send("90 C0 00 00 0A 05 00 EE EE 02 00 00 03 00 00 00") == desfireBytes("91 00"))
    for record in ["01 01", "02 02", "03 03"] {
      #expect(tag.send("90 3B 00 00 09 05 00 00 00 02 00 00 \(record) 00") == desfireBytes("91 00"))
      #expect(tag.send("90 C7 00 00 00") == desfireBytes("91 00"))
    }
    #expect(tag.send("90 BB 00 00 07 05 00 00 00 00 00 00 00") == desfireBytes("02 02 03 03 91 00"))
    #expect(tag.send("90 F5 00 00 01 05 00") == desfireBytes("04 00 EE EE 02 00 00 03 00 00 02 00 00 91 00"))
    #expect(tag.send("90 3B 00 00 09 05 00 00 00 02 00 00 04 04 00") == desfireBytes("91 00"))
    #expect(tag.send("90 A7 00 00 00") == desfireBytes("91 00"))
    #expect(tag.send("90 BB 00 00 07 05 00 00 00 00 00 00 00") == desfireBytes("02 02 03 03 91 00"))
    #expect(tag.send("90 C0 00 00 0A 06 00 EE EE 02 00 00 01 00 00 00") == desfireBytes("91 9E"))  // cyclic needs 2
    // ClearRecordFile needs the read&write right (here F: 9D).
    #expect(tag.send("90 C1 00 00 0A 07 00 FF EE 02 00 00 02 00 00 00") == desfireBytes("91 00"))
    #expect(tag.send("90 EB 00 00 01 07 00") == desfireBytes("91 9D"))
  }

  @Test func changeFileSettingsInPlainWhenTheChangeRightIsFree() throws {
    let tag = try card()
    #expect(tag.send("90 CD 00 00 07 01 00 EE EE 20 00 00 00") == desfireBytes("91 00"))
    #expect(tag.send("90 5F 00 00 04 01 04 EE EE 00") == desfireBytes("91 9E"))             // not an EV1 option
    #expect(tag.send("90 5F 00 00 03 01 00 EE 00") == desfireBytes("91 7E"))
    #expect(tag.send("90 5F 00 00 04 09 00 EE EE 00") == desfireBytes("91 F0"))
    #expect(tag.send("90 5F 00 00 04 01 01 E0 EE 00") == desfireBytes("91 00"))             // change right: key 0
    #expect(tag.send("90 F5 00 00 01 01 00") == desfireBytes("00 01 E0 EE 20 00 00 91 00"))
    #expect(tag.send("90 5F 00 00 04 01 00 EE EE 00") == desfireBytes("91 AE"))             // key 0 not authenticated
    #expect(tag.send("90 CC 00 00 11 02 00 EF EE 00 00 00 00 E8 03 00 00 64 00 00 00 00 00") == desfireBytes("91 00"))
    #expect(tag.send("90 5F 00 00 04 02 00 EE EE 00") == desfireBytes("91 9D"))             // change right F
    #expect(tag.send("90 5F 00 00 04 02 00 EE EE 00") == desfireBytes("91 9D"))
  }

  @Test func everyFileKindSurvivesTheImage() throws {
    let tag = try card()
    _ = tag.send("90 CB 00 00 07 01 00 EE EE 20 00 00 00")
    _ = tag.send("90 3D 00 00 0B 01 00 00 00 04 00 00 11 22 33 44 00")
    _ = tag.send("90 CC 00 00 11 02 01 EE EE 00 00 00 00 E8 03 00 00 64 00 00 00 01 00")
    _ = tag.send("90 DC 00 00 05 02 0A 00 00 00 00")
    _ = tag.send("90 C1 00 00 0A 03 03 EE EE 02 00 00 04 00 00 00")
    _ = tag.send("90 3B 00 00 09 03 00 00 00 02 00 00 AA BB 00")
    _ = tag.send("90 C0 00 00 0A 04 00 E2 3E 03 00 00 03 00 00 00")
    _ = tag.send("90 3B 00 00 0A 04 00 00 00 03 00 00 01 02 03 00")
    #expect(tag.send("90 C7 00 00 00") == desfireBytes("91 00"))
    let image = tag.memoryImage
    let again = try DESFireImage.decode(image, chip: .ev1With8K)
    #expect(again.memoryImage == image && again.applications == tag.applications)
    again.security = nil
    #expect(again.send("90 5A 00 00 03 01 00 00 00") == desfireBytes("91 00"))
    #expect(again.send("90 BD 00 00 07 01 00 00 00 04 00 00 00") == desfireBytes("11 22 33 44 91 00"))
    #expect(again.send("90 6C 00 00 01 02 00") == desfireBytes("5A 00 00 00 91 00"))
    #expect(again.send("90 F5 00 00 01 02 00").dropLast(2).suffix(5) == desfireBytes("0A 00 00 00 01")[...])
    #expect(again.send("90 BB 00 00 07 03 00 00 00 00 00 00 00") == desfireBytes("AA BB 91 00"))
    #expect(again.send("90 F5 00 00 01 04 00") == desfireBytes("04 00 E2 3E 03 00 00 03 00 00 01 00 00 91 00"))
    // A record count past the file's maximum is refused.
    var bad = image
    let at = try #require(bad.indices.dropLast(8).first { Array(bad[$0..<($0 + 9)]) == desfireBytes("03 00 00 03 00 00 01 00 00") })
    bad[at + 6] = 0x03
    bad += [0x04, 0x04, 0x04, 0x05, 0x05, 0x05]
    #expect(throws: EmulatorError.self) { try DESFireImage.decode(bad, chip: .ev1With8K) }
  }
}
