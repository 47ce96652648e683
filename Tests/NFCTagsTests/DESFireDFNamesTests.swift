import NFCTags
import NFCTestSupport
import NFCTransport
import Testing

/// GetDFNames (6Dh) on the host: one entry a frame, AID(3) ISO FID(2) DF name(1-16)
/// (MF3ICDx21_41_81 §9.4); hostile answers are malformed, never a crash.
@Suite struct DESFireDFNamesTests {
  static func step(_ c: String, _ a: String) -> EmbeddedTransceiver.Step { DESFireCardTests.step(c, a) }
  static func bytes(_ t: String) -> [UInt8] { DESFireCardTests.bytes(t) }

  @Test func entriesComeOneAFrame() throws {
    let link = EmbeddedTransceiver([
      Self.step("90 6D 00 00 00", "01 00 00 10 E1 D2 76 00 00 85 01 01 91 AF"),  // 000001, E110, the NDEF DF name
      Self.step("90 AF 00 00 00", "10 00 00 20 E1 D2 76 00 00 85 01 99 91 00"),  // 000010, E120
    ])
    let entries = try DESFireCard(link: link).dfNames()
    #expect(entries == [
      DESFireDFNameEntry(aid: .ndefApplication, isoFileID: 0xE110, dfName: Self.bytes("D2 76 00 00 85 01 01")),
      DESFireDFNameEntry(aid: try #require(DESFireApplicationID(0x10)), isoFileID: 0xE120, dfName: Self.bytes("D2 76 00 00 85 01 99")),
    ])
    #expect(link.finish() == .clean)
  }

  @Test func noApplicationWithADFNameIsAnEmptyAnswer() throws {
    let link = EmbeddedTransceiver([Self.step("90 6D 00 00 00", "91 00")])
    #expect(try DESFireCard(link: link).dfNames().isEmpty)
    #expect(link.finish() == .clean)
  }

  @Test func aDFNameOf16BytesIsTheLongest() throws {
    let name = [UInt8](repeating: 0xA0, count: 16)
    let entry = try DESFireDFNameEntry(parsing: [0x03, 0x02, 0x01, 0x01, 0xE1] + name)
    #expect(entry.aid.value == 0x010203 && entry.isoFileID == 0xE101 && entry.dfName == name)
  }

  @Test(arguments: [
    "",                                                      // nothing
    "01 00 00",                                              // an AID alone
    "01 00 00 10 E1",                                        // no DF name
    "01 00 00 10 E1 " + String(repeating: "A0 ", count: 17), // a DF name of 17 bytes
  ])
  func hostileEntriesAreMalformed(_ frame: String) {
    #expect(throws: DESFireCommandError.self) { try DESFireDFNameEntry(parsing: Self.bytes(frame)) }
  }

  @Test func aShortEntryInAChainIsMalformed() {
    let link = EmbeddedTransceiver([
      Self.step("90 6D 00 00 00", "01 00 00 10 E1 D2 91 AF"),
      Self.step("90 AF 00 00 00", "10 00 00 91 00"),             // 3 bytes: not an entry
    ])
    #expect {
      _ = try DESFireCard(link: link).dfNames()
    } throws: { error in
      guard case .malformed? = error as? DESFireCommandError else { return false }
      return true
    }
  }

  @Test func anAIDNamedTwiceIsMalformed() {
    let frame = Self.bytes("01 00 00 10 E1 D2 76")
    #expect(throws: DESFireCommandError.self) { try DESFireDFNameEntry.parse(frames: [frame, frame]) }
  }
}
