import NFCTags
import NFCTestSupport
import NFCTransport
import Testing

/// ICODE SLIX2 UID, least significant byte first (E0 04 01 08 A1 B2 C3 D4 MSB first).
let slix2UID = hex("D4 C3 B2 A1 08 01 04 E0")
/// ICODE SLIX UID (type indicator 10b): E0 04 01 10 11 22 33 44 MSB first.
let slixUID = hex("44 33 22 11 10 01 04 E0")
/// GET SYSTEM INFORMATION of an ICODE SLIX2: flags 00, info 0F, UID, DSFID 00, AFI 00, 80 × 4, IC 01.
let slix2SystemInfo = hex("00 0F") + slix2UID + hex("00 00 4F 03 01")
/// The text record "hi" (en): D1 01 05 "T" 02 "en" "hi".
let hiText = hex("D1 01 05 54 02 65 6E 68 69")
/// What a transparent-exchange link carries: 240 bytes after the flags byte.
let type5Link = LinkCapabilities(maxResponseLength: 240, maxCommandLength: 240, rawCommands: true)
/// A mapped Part 3 link: one block per READ BINARY.
let type5Mapped = LinkCapabilities(maxResponseLength: 4, maxCommandLength: 15, rawCommands: false)

/// `count` blocks of 4 zero bytes.
private func zeroBlocks(_ count: Int) -> [UInt8] { [UInt8](repeating: 0, count: count * 4) }

@Suite struct Type5ReadTests {
  @Test func readsHiFromASLIX2WithOneReadMultiple() throws {
    let link = EmbeddedTransceiver([
      (hex("02 2B"), .success(slix2SystemInfo)),                         // GET SYSTEM INFORMATION: 80 blocks × 4, IC 01
      (hex("02 23 00 3B"), .success(hex("00")                            // READ MULTIPLE BLOCKS 0-59 (60 × 4 = 240 bytes)
        + hex("E1402701")                                                // block 0: CC v1.0, MLEN 27h, READ MULTIPLE supported
        + hex("0309D101 05540265 6E6869FE")                              // blocks 1-3: NDEF TLV(9) "hi", Terminator
        + zeroBlocks(56))),                                              // blocks 4-59: empty
    ], capabilities: type5Link)
    let tag = Type5Tag(identifier: slix2UID, link: link)
    #expect(try tag.readNDEF() == hiText)
    #expect(tag.chip?.name == "ICODE SLIX2 (SL2S2602)")
    #expect(tag.systemInfo?.blockCount == 80)
    #expect(link.finish() == .clean)
  }

  @Test func readsBlockByBlockThroughAMappedPartThreeReader() throws {
    let link = EmbeddedTransceiver([
      (hex("02 20 00"), .success(hex("00 E1402701"))),                   // READ SINGLE BLOCK 0: CC
      (hex("02 20 01"), .success(hex("00 0309D101"))),                   // block 1: NDEF TLV(9), message starts
      (hex("02 20 02"), .success(hex("00 05540265"))),                   // block 2: message
      (hex("02 20 03"), .success(hex("00 6E6869FE"))),                   // block 3: message end, Terminator
    ], capabilities: type5Mapped)
    let tag = Type5Tag(identifier: slix2UID, link: link)
    #expect(try tag.readNDEF() == hiText)
    #expect(link.finish() == .clean)
  }

  @Test func acceptsBothMLENConventions() throws {
    // ICODE SLIX: 28 blocks = 112 bytes. NFC Forum: E1 40 0D → 104 bytes after the CC; Android:
    // E1 40 0E → 112 bytes from byte 0. Both give a data area ending inside memory.
    for (mlen, capacity) in [(UInt8(0x0D), 102), (0x0E, 106)] {
      var image = hex("E1 40") + [mlen, 0x01] + hex("0300FE00") + zeroBlocks(26)
      image = Array(image.prefix(112))
      let link = EmbeddedTransceiver([
        (hex("02 2B"), .success(hex("00 0F") + slixUID + hex("00 00 1B 03 01"))),  // GET SYSTEM INFORMATION: 28 blocks
        (hex("02 23 00 1B"), .success(hex("00") + image)),               // READ MULTIPLE BLOCKS 0-27: the whole memory
      ], capabilities: type5Link)
      let report = try Type5Tag(identifier: slixUID, link: link).queryNDEFStatus()
      #expect(report.capacity == capacity)
      #expect(report.status == .readWrite)
      #expect(link.finish() == .clean)
    }
  }

  @Test func readsAnEightByteCC() throws {
    let link = EmbeddedTransceiver([
      (hex("02 20 00"), .success(hex("00 E2400001"))),                   // block 0: CC E2, byte 2 = 00: 8-byte form
      (hex("02 20 01"), .success(hex("00 00000008"))),                   // block 1: MLEN 0008 (64 bytes after the CC)
      (hex("02 20 02"), .success(hex("00 0309D101"))),                   // block 2: NDEF TLV(9)
      (hex("02 20 03"), .success(hex("00 05540265"))),                   // block 3: message
      (hex("02 20 04"), .success(hex("00 6E6869FE"))),                   // block 4: message end, Terminator
    ], capabilities: type5Mapped)
    let tag = Type5Tag(identifier: hex("0102030405060708"), link: link)   // unknown chip, unknown size
    #expect(try tag.readNDEF() == hiText)
    #expect(link.finish() == .clean)
  }

  @Test func reportsReadOnlyAndNotFormatted() throws {
    let readOnly = EmbeddedTransceiver([(hex("02 20 00"), .success(hex("00 E1432701"))),   // CC write access 11b
                                        (hex("02 20 01"), .success(hex("00 0300FE00")))],  // empty NDEF TLV
                                       capabilities: type5Mapped)
    #expect(try Type5Tag(identifier: slix2UID, link: readOnly).queryNDEFStatus().status == .readOnly)
    let blank = EmbeddedTransceiver([(hex("02 20 00"), .success(hex("00 00000000")))], capabilities: type5Mapped)
    #expect(try Type5Tag(identifier: slix2UID, link: blank).queryNDEFStatus().status == .notSupported)
    let newer = EmbeddedTransceiver([(hex("02 20 00"), .success(hex("00 E1802701")))], capabilities: type5Mapped)
    #expect(try Type5Tag(identifier: slix2UID, link: newer).queryNDEFStatus().status == .notSupported)
  }

  @Test func rejectsAnNDEFTLVPastTheDataAreaAndErrorAnswers() throws {
    let link = EmbeddedTransceiver([(hex("02 20 00"), .success(hex("00 E1400201"))),   // CC: 16-byte area
                                    (hex("02 20 01"), .success(hex("00 0340D101")))],  // NDEF TLV of 64 bytes
                                   capabilities: type5Mapped)
    let error = tagError { () throws(TagError) in _ = try Type5Tag(identifier: slix2UID, link: link).readNDEF() }
    guard case .malformed? = error else { Issue.record("expected malformed, got \(String(describing: error))"); return }
    let failing = EmbeddedTransceiver([(hex("02 20 00"), .success(hex("01 10")))], capabilities: type5Mapped)
    let refused = tagError { () throws(TagError) in _ = try Type5Tag(identifier: slix2UID, link: failing).readNDEF() }
    guard case .transceive(.nak(0x10), "READ SINGLE BLOCK", 0)? = refused else {
      Issue.record("expected the tag's error 10h, got \(String(describing: refused))"); return
    }
    let short = EmbeddedTransceiver([(hex("02 20 00"), .success(hex("00 E140")))], capabilities: type5Mapped)
    let truncated = tagError { () throws(TagError) in _ = try Type5Tag(identifier: slix2UID, link: short).readNDEF() }
    guard case .transceive(.malformedResponse, _, _)? = truncated else { Issue.record("expected malformed response"); return }
  }

  @Test func anErrorFlagWithoutItsCodeIsAMalformedResponseNotACode() {
    // ISO/IEC 15693-3 §7.4.2: a code must follow the error flag; none is made up (not 0Fh).
    let link = EmbeddedTransceiver([(hex("02 20 00"), .success(hex("01")))], capabilities: type5Mapped)
    let error = tagError { () throws(TagError) in _ = try Type5Tag(identifier: slix2UID, link: link).readNDEF() }
    guard case .transceive(.malformedResponse([0x01]), "READ SINGLE BLOCK", 0)? = error else {
      Issue.record("expected a malformed response, got \(String(describing: error))"); return
    }
  }
}

@Suite struct Type5WriteTests {
  /// A factory ICODE SLIX2: CC, empty NDEF TLV.
  let factory = hex("E1402701 0300FE00") + zeroBlocks(58)

  @Test func writesTearSafelyAndVerifies() throws {
    let link = EmbeddedTransceiver([
      (hex("02 2B"), .success(slix2SystemInfo)),                         // GET SYSTEM INFORMATION
      (hex("02 23 00 3B"), .success(hex("00") + factory)),               // READ MULTIPLE BLOCKS 0-59: CC, empty NDEF TLV
      (hex("02 21 01 0300D101"), .success(hex("00"))),                   // WRITE block 1: TLV length still 00, message starts
      (hex("02 21 02 05540265"), .success(hex("00"))),                   // WRITE block 2: message
      (hex("02 21 03 6E6869FE"), .success(hex("00"))),                   // WRITE block 3: message end, Terminator
      (hex("02 21 01 0309D101"), .success(hex("00"))),                   // WRITE block 1: the real length 09, last
      (hex("02 23 01 02"), .success(hex("00 0309D101 05540265 6E6869FE"))),  // READ MULTIPLE BLOCKS 1-3: verify
    ], capabilities: type5Link)
    try Type5Tag(identifier: slix2UID, link: link).writeNDEF(hiText, verify: true)
    #expect(link.finish() == .clean)
  }

  @Test func writesThroughAMappedReaderAndRefusesTooLargeMessages() throws {
    let link = EmbeddedTransceiver([
      (hex("02 20 00"), .success(hex("00 E1402701"))),                   // READ SINGLE BLOCK 0: CC
      (hex("02 20 01"), .success(hex("00 0300FE00"))),                   // block 1: empty NDEF TLV
      // Blocks 2 and 3 are not read: the message fills them, and one block per READ costs what
      // its WRITE costs (docs/performance.md).
      (hex("02 21 01 0300D101"), .success(hex("00"))),                   // WRITE block 1, length 00
      (hex("02 21 02 05540265"), .success(hex("00"))),                   // WRITE block 2
      (hex("02 21 03 6E6869FE"), .success(hex("00"))),                   // WRITE block 3
      (hex("02 21 01 0309D101"), .success(hex("00"))),                   // WRITE block 1, length 09
      (hex("02 20 01"), .success(hex("00 0309D101"))),                   // verify block 1
      (hex("02 20 02"), .success(hex("00 05540265"))),                   // verify block 2
      (hex("02 20 03"), .success(hex("00 6E6869FE"))),                   // verify block 3
    ], capabilities: type5Mapped)
    let tag = Type5Tag(identifier: slix2UID, link: link)
    try tag.writeNDEF(hiText, verify: true)
    #expect(link.finish() == .clean)

    let small = EmbeddedTransceiver([(hex("02 20 00"), .success(hex("00 E1400201"))),   // CC: 16-byte area
                                     (hex("02 20 01"), .success(hex("00 0300FE00")))],  // empty NDEF TLV
                                    capabilities: type5Mapped)
    let error = tagError { () throws(TagError) in try Type5Tag(identifier: slix2UID, link: small).writeNDEF([UInt8](repeating: 1, count: 20), verify: true) }
    guard case .insufficientCapacity(20, 14)? = error else { Issue.record("got \(String(describing: error))"); return }
    #expect(small.finish() == .clean)
  }

  @Test func locksTheCCThenEveryBlock() throws {
    var script: [EmbeddedTransceiver.Step] = [
      (hex("02 2B"), .success(hex("00 0F") + slixUID + hex("00 00 1B 03 01"))),  // GET SYSTEM INFORMATION: 28 blocks
      (hex("02 23 00 1B"), .success(hex("00 E1400D01 0300FE00") + zeroBlocks(26))),  // READ MULTIPLE BLOCKS 0-27
      (hex("02 21 00 E1430D01"), .success(hex("00"))),                   // WRITE block 0: CC write access 11b
    ]
    for block in 0..<27 {                                                // LOCK BLOCK 0…26 (area ends at byte 108)
      script.append((hex("02 22") + [UInt8(block)], .success(block == 5 ? hex("01 11") : hex("00"))))  // 11h: already locked
    }
    let link = EmbeddedTransceiver(script, capabilities: type5Link)
    try Type5Tag(identifier: slixUID, link: link).makeReadOnly()
    #expect(link.finish() == .clean)
  }

  @Test func formatsABlankSLIX2() throws {
    let link = EmbeddedTransceiver([
      (hex("02 2B"), .success(slix2SystemInfo)),                         // GET SYSTEM INFORMATION
      (hex("02 23 00 3B"), .success(hex("00") + zeroBlocks(60))),        // READ MULTIPLE BLOCKS 0-59: blank
      (hex("02 21 01 0300FE00"), .success(hex("00"))),                   // WRITE block 1: empty NDEF TLV, Terminator
      (hex("02 21 00 E1402701"), .success(hex("00"))),                   // WRITE block 0: CC last (NFC Forum MLEN 27h)
    ], capabilities: type5Link)
    try Type5Tag(identifier: slix2UID, link: link).format()
    #expect(link.finish() == .clean)
  }
}
