import NFCEmulator
import NFCReaders
import NFCTags
import NFCTestSupport
import NFCTransport
import Testing

private let uid: [UInt8] = [0xA1, 0xB2, 0xC3, 0xD4]

/// After another PN53x program released the card (InRelease: libnfc's `nfc-list` and
/// `nfc-mfclassic` do when they end), the ACR122U's PN532 answers status 27h to the next
/// InDataExchange (PN532 User Manual UM0701-02 §7.1): not a refused key. The link selects the
/// card again and sends the same authentication once more.
@Suite struct ClassicReleasedTargetTests {
  @Test func statusTwentySevenIsNoRefusedKey() throws {
    let tag = try MIFAREClassicVirtualTag.ndefFormatted(chip: .classic1K, uid: uid)
    let (platform, transport) = try ClassicHost.connect(tag, face: .acr122u)
    // InRelease of every target, as another program's end leaves the PN532.
    #expect(try transport.transmit([0xFF, 0x00, 0x00, 0x00, 0x03, 0xD4, 0x52, 0x00]) == [0xD5, 0x53, 0x00, 0x90, 0x00])
    let memory = try platform.readMemory()
    // Sector 0 opened with its key A, the MAD public key, not with key B after a key A "refused".
    #expect(Array(memory[48..<54]) == MIFAREApplicationDirectory.publicKeyA)
    #expect(Array(memory[58..<64]) == [UInt8](repeating: 0, count: 6))
  }

  /// A MIFARE Classic does not take RATS (SAK bit 6 clear: ISO/IEC 14443-3 §6.5.3.4; NXP AN10834):
  /// the virtual card answers it as real cards are seen to (a 4-bit NAK 04 in Proxmark3 traces)
  /// and is silent until selected again, as after any refused command (AN1304 §6.4.1).
  @Test func ratsIsANakAndSilence() throws {
    let tag = try MIFAREClassicVirtualTag(chip: .classic1K, uid: uid)
    #expect(tag.respond(to: [0xE0, 0x50]) == .nak(0x04))
    #expect(tag.respond(to: [0x60, 0x03] + [UInt8](repeating: 0xFF, count: 6) + uid) == .mute)
    tag.reset()
    #expect(tag.respond(to: [0x60, 0x03] + [UInt8](repeating: 0xFF, count: 6) + uid) == .ack)
  }
}
