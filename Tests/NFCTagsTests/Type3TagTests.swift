import NFCTags
import NFCTestSupport
import NFCTransport
import Testing

/// IDm and PMm of the FeliCa Lite-S in these transcripts.
let liteSIDm = hex("01 2E 4C 69 74 65 53 01")
let liteSPMm = hex("00 F1 00 00 00 01 43 00")
let zeroBlock = [UInt8](repeating: 0, count: 16)

@Suite struct Type3TagTranscripts {
  @Test func readsElephantFromAFeliCaLiteSInOneCheck() throws {
    let link = EmbeddedTransceiver([
      (hex("16 06 012E4C6974655301 01 0B00 04 8000 8001 8002 8003"),   // Check of blocks 0-3 in service 000B
       .success(hex("4D 07 012E4C6974655301 00 00 04")                 // answer: status 00 00, 4 blocks
                + hex("10 04 01 000D 00000000 00 01 00000F 0032")        // attribute block: Ver 1.0, Nbr 4, Nbw 1, Nmaxb 13, RW, Ln 15
                + elephant + hex("00")                                   // block 1: the 15-byte Text record
                + zeroBlock + zeroBlock)),                               // blocks 2-3: empty
    ])
    let tag = Type3Tag(identifier: liteSIDm, link: link, pmm: liteSPMm, systemCode: hex("12FC"))
    #expect(try tag.readNDEF() == elephant)
    #expect(link.finish() == .clean)
  }

  @Test func readsAGenericType3TagBlockZeroFirst() throws {
    let link = EmbeddedTransceiver([
      (hex("10 06 012E4C6974655301 01 0B00 01 8000"),                   // Check of block 0 alone (chip unknown)
       .success(hex("1D 07 012E4C6974655301 00 00 01")                  // answer: 1 block
                + hex("10 02 01 0010 00000000 00 01 00000F 0033"))),    // attribute block: Nbr 2, Nmaxb 16, Ln 15
      (hex("10 06 012E4C6974655301 01 0B00 01 8001"),                   // Check of block 1 (Ln 15: one block)
       .success(hex("1D 07 012E4C6974655301 00 00 01") + elephant + hex("00"))),
    ])
    let tag = Type3Tag(identifier: liteSIDm, link: link)
    #expect(try tag.readNDEF() == elephant)
    #expect(link.finish() == .clean)
  }

  @Test func writesTearSafelyOneBlockPerUpdate() throws {
    let message = elephant + hex("01 02 03 04 05")                        // 20 bytes: blocks 1 and 2
    let busy = hex("10 04 01 000D 00000000 0F 01 000000 0032")            // WriteF 0F, Ln 0 (old)
    let done = hex("10 04 01 000D 00000000 00 01 000014 0037")            // WriteF 00, Ln 20
    let block1 = Array(message[0..<16]), block2 = Array(message[16...]) + [UInt8](repeating: 0, count: 12)
    let ok = hex("0C 09 012E4C6974655301 00 00")                          // Update answer: status 00 00
    let link = EmbeddedTransceiver([
      (hex("16 06 012E4C6974655301 01 0B00 04 8000 8088 8001 8002"),    // Check: attribute block, MC, blocks 1-2
       .success(hex("4D 07 012E4C6974655301 00 00 04")
                + hex("10 04 01 000D 00000000 00 01 000000 0023")        // attribute block: empty message
                + hex("FFFF FF 01 07 00000000000000000000 00")           // MC: all writable, NDEF on
                + zeroBlock + zeroBlock)),                               // blocks 1-2: empty
      (hex("20 08 012E4C6974655301 01 0900 01 8000") + busy, .success(ok)),    // Update block 0: WriteF 0F
      (hex("20 08 012E4C6974655301 01 0900 01 8001") + block1, .success(ok)),  // Update block 1
      (hex("20 08 012E4C6974655301 01 0900 01 8002") + block2, .success(ok)),  // Update block 2 (zero padded)
      (hex("20 08 012E4C6974655301 01 0900 01 8000") + done, .success(ok)),    // Update block 0: WriteF 00, Ln 20
      (hex("14 06 012E4C6974655301 01 0B00 03 8000 8001 8002"),                // verify: Check of blocks 0-2
       .success(hex("3D 07 012E4C6974655301 00 00 03") + done + block1 + block2)),
    ])
    let tag = Type3Tag(identifier: liteSIDm, link: link, pmm: liteSPMm, systemCode: hex("12FC"))
    try tag.writeNDEF(message, verify: true)
    #expect(link.finish() == .clean)
  }

  @Test func statusFlagsBecomeATagErrorNamingThem() throws {
    let link = EmbeddedTransceiver([
      (hex("10 06 012E4C6974655301 01 0B00 01 8000"),                   // Check of block 0
       .success(hex("0C 07 012E4C6974655301 01 A6"))),                  // SF1 01 SF2 A6: invalid service code
    ])
    let tag = Type3Tag(identifier: liteSIDm, link: link)
    let error = tagError { () throws(TagError) in _ = try tag.readNDEF() }
    guard case .transceive(.status(0x01A6), let command, _)? = error else {
      Issue.record("expected status flags 01 A6, got \(String(describing: error))")
      return
    }
    #expect(command.contains("SF1 01 SF2 A6"))
    #expect(link.finish() == .clean)
  }

  @Test func anAnswerFromAnotherIDmIsMalformed() throws {
    let link = EmbeddedTransceiver([
      (hex("10 06 012E4C6974655301 01 0B00 01 8000"),                   // Check of block 0
       .success(hex("1D 07 0102030405060708 00 00 01") + zeroBlock)),   // echoed IDm differs
    ])
    let tag = Type3Tag(identifier: liteSIDm, link: link)
    guard case .transceive(.malformedResponse, _, _)? = tagError({ () throws(TagError) in _ = try tag.readNDEF() }) else {
      Issue.record("expected a malformed response")
      return
    }
  }

  @Test func badChecksumAndWriteInProgress() throws {
    #expect(throws: TagError.self) { try Type3Attributes(block: hex("10 04 01 000D 00000000 00 01 000000 0024")) }
    let link = EmbeddedTransceiver([
      (hex("10 06 012E4C6974655301 01 0B00 01 8000"),                   // Check of block 0
       .success(hex("1D 07 012E4C6974655301 00 00 01")
                + hex("10 04 01 000D 00000000 0F 01 000014 0046"))),    // WriteF 0F, Ln 20: interrupted write
    ])
    let tag = Type3Tag(identifier: liteSIDm, link: link)
    let report = try tag.queryNDEFStatus()
    #expect(report.status == .readWrite)
    #expect(report.messageLength == 0)
    #expect(report.capacity == 13 * 16)
  }

  @Test func aTruncatedCheckAnswerIsMalformed() throws {
    let link = EmbeddedTransceiver([
      (hex("10 06 012E4C6974655301 01 0B00 01 8000"),                   // Check of block 0
       .success(hex("0F 07 012E4C6974655301 00 00 01 10 04"))),         // 2 bytes of a block
    ])
    let tag = Type3Tag(identifier: liteSIDm, link: link)
    #expect(tagError { () throws(TagError) in _ = try tag.queryNDEFStatus() } != nil)
  }
}
