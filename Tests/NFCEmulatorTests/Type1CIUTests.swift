import NFCTags
import NFCTestSupport
import NFCTransport
import Testing
@testable import NFCEmulator
@testable import NFCReaders

// READ8 / WRITE-E8 / WRITE-NE8 through the PN532's CIU, as nfcpy `pn532.py` `_tt1_send_cmd_recv_rsp`
// sends them: the encoding, the link's APDUs, the emulated CIU, and what it costs in APDUs.

private let uid = [UInt8]([0x5A, 0x6F, 0x1E, 0x2D, 0x00, 0x00, 0x00])
private let uid4 = [UInt8]([0x5A, 0x6F, 0x1E, 0x2D])

/// nfcpy's decoding, transcribed literally: every FIFO byte as a reversed 8-character bit string,
/// then `int(data[i:i+8][::-1], 2)` for i in `range(0, len(data)-8, 9)`.
private func nfcpyDecode(_ fifo: [UInt8]) -> [UInt8] {
  var bits: [Character] = []
  for octet in fifo {
    let text = String(octet, radix: 2)
    bits += Array(String(repeating: "0", count: 8 - text.count) + text).reversed()
  }
  return stride(from: 0, to: bits.count - 8, by: 9).compactMap { i in UInt8(String(bits[i..<(i + 8)].reversed()), radix: 2) }
}

@Suite struct Type1CIUEncodingTests {
  @Test func crcBMatchesISO14443AnnexB() {
    #expect(PN53xCIU.crcB([0x00, 0x00, 0x00]) == [0xCC, 0xC6])
    #expect(PN53xCIU.crcB([0x0F, 0xAA, 0xFF]) == [0xFC, 0xD1])
    #expect(PN53xCIU.crcB(hex("02 10 0000000000000000 5A6F1E2D")) == [0x3A, 0xBD])
  }

  /// By hand: 01 → bits 1000 0000, one 1 so parity 0; 80 → 0000 0001, parity 0. Stream
  /// 1 0000000 0 | 0000000 1 0 (bits 0–17), packed LSB first: 01, 00 (bits 8–15), 01 (bit 16).
  /// 00 → 8 zeros then parity 1: bit 8 → 00 01.
  @Test func parityBitsByHand() {
    #expect(PN53xCIU.withParityBits([0x01, 0x80]) == [0x01, 0x00, 0x01])
    #expect(PN53xCIU.withParityBits([0x00]) == [0x00, 0x01])
    #expect(PN53xCIU.strippingParityBits([0x01, 0x00, 0x01]) == [0x01, 0x80])
    #expect(PN53xCIU.strippingParityBits([0x00, 0x01]) == [0x00])
    #expect(nfcpyDecode([0x01, 0x00, 0x01]) == [0x01, 0x80])
  }

  /// A READ8 answer `10` + 01…08 + CRC_B `D4 A0`: 11 bytes, 99 bits, 13 FIFO bytes. The first two
  /// by hand: 10 → bits 0000 1000, parity 0; 01 → 1000 0000, parity 0: bits 0–7 = 00001000 → 10,
  /// bits 8–15 = 0 (parity of 10h), 1, 000000 → 02.
  @Test func aREAD8AnswerAsTheFIFOHoldsIt() {
    let answer = hex("10 0102030405060708 D4A0")
    #expect(PN53xCIU.withParityBits(answer) == hex("10 02 08 18 48 A0 A0 C1 03 08 A8 83 06"))
    #expect(PN53xCIU.strippingParityBits(hex("10 02 08 18 48 A0 A0 C1 03 08 A8 83 06")) == answer)
    #expect(nfcpyDecode(hex("10 02 08 18 48 A0 A0 C1 03 08 A8 83 06")) == answer)
  }

  @Test func encodingAndBothDecodingsAgreeOnEveryLength() {
    var random = SplitMix64(state: 0x7E1)
    for length in 1...40 {
      let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
      let fifo = PN53xCIU.withParityBits(bytes)
      #expect(fifo.count == (length * 9 + 7) / 8)
      #expect(PN53xCIU.strippingParityBits(fifo) == bytes, "length \(length)")
      #expect(nfcpyDecode(fifo) == bytes, "length \(length)")
    }
  }
}

/// A scripted APDU transport: each step is the APDU expected and the reader's reply.
private final class ScriptedReader: APDUTransport {
  var script: [(apdu: [UInt8], reply: [UInt8])]
  let readerName = "ACS ACR122U PICC Interface"
  let atr = partThreeStorageATR(standard: 0x03, name: [0xF0, 0x04])
  init(_ script: [(apdu: [UInt8], reply: [UInt8])]) { self.script = script }
  func transmit(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard !script.isEmpty else { throw .unexpectedCommand(apdu, expected: nil) }
    let step = script.removeFirst()
    guard step.apdu == apdu else { throw .unexpectedCommand(apdu, expected: step.apdu) }
    return step.reply
  }
}

/// The first APDU of READ8 block 10h: WriteRegister of the whole frame (Lc 9E = 158).
private let read8Writes: [UInt8] = [
  hex("FF 00 00 00 9E D4 08"),                 // direct transmit, Lc 158: WriteRegister
  hex("63 3A 80"),                             // FIFOLevel <- 80: FlushBuffer
  hex("63 39 02 63 3D 07 63 31 04"),           // FIFOData <- 02 (READ8), BitFraming <- 07, Command <- Transmit: 7-bit short frame
  hex("63 3D 00 63 0D 30"),                    // BitFraming <- 00 (8 bits), ManualRCV <- 30: parity generator off
  hex("63 39 10 63 31 04 63 31 07"),  // ADD8 10h: FIFOData, Transmit, NoCmdChange
  hex("63 39 00 63 31 04 63 31 07"),  // 00: FIFOData, Transmit, NoCmdChange
  hex("63 39 00 63 31 04 63 31 07"),  // 00: FIFOData, Transmit, NoCmdChange
  hex("63 39 00 63 31 04 63 31 07"),  // 00: FIFOData, Transmit, NoCmdChange
  hex("63 39 00 63 31 04 63 31 07"),  // 00: FIFOData, Transmit, NoCmdChange
  hex("63 39 00 63 31 04 63 31 07"),  // 00: FIFOData, Transmit, NoCmdChange
  hex("63 39 00 63 31 04 63 31 07"),  // 00: FIFOData, Transmit, NoCmdChange
  hex("63 39 00 63 31 04 63 31 07"),  // 00: FIFOData, Transmit, NoCmdChange
  hex("63 39 00 63 31 04 63 31 07"),  // 00: FIFOData, Transmit, NoCmdChange
  hex("63 39 5A 63 31 04 63 31 07"),  // UID0: FIFOData, Transmit, NoCmdChange
  hex("63 39 6F 63 31 04 63 31 07"),  // UID1: FIFOData, Transmit, NoCmdChange
  hex("63 39 1E 63 31 04 63 31 07"),  // UID2: FIFOData, Transmit, NoCmdChange
  hex("63 39 2D 63 31 04 63 31 07"),  // UID3: FIFOData, Transmit, NoCmdChange
  hex("63 39 3A 63 31 04 63 31 07"),  // CRC_B 1: FIFOData, Transmit, NoCmdChange
  hex("63 39 BD 63 31 04 63 31 07"),  // CRC_B 2: FIFOData, Transmit, NoCmdChange
  hex("63 31 08"),                             // Command <- Receive
].flatMap { $0 }

/// The first APDU of WRITE-E8 block 3 with D1 01 0B 54 02 65 6E 65.
private let writeE8Writes: [UInt8] = [
  hex("FF 00 00 00 9E D4 08"),                 // direct transmit, Lc 158: WriteRegister
  hex("63 3A 80"),                             // FIFOLevel <- 80: FlushBuffer
  hex("63 39 54 63 3D 07 63 31 04"),           // FIFOData <- 54 (WRITE-E8), BitFraming <- 07, Command <- Transmit
  hex("63 3D 00 63 0D 30"),                    // BitFraming <- 00, ManualRCV <- 30: parity off
  hex("63 39 03 63 31 04 63 31 07"),  // ADD8 03h: FIFOData, Transmit, NoCmdChange
  hex("63 39 D1 63 31 04 63 31 07"),  // D1: FIFOData, Transmit, NoCmdChange
  hex("63 39 01 63 31 04 63 31 07"),  // 01: FIFOData, Transmit, NoCmdChange
  hex("63 39 0B 63 31 04 63 31 07"),  // 0B: FIFOData, Transmit, NoCmdChange
  hex("63 39 54 63 31 04 63 31 07"),  // 54 "T": FIFOData, Transmit, NoCmdChange
  hex("63 39 02 63 31 04 63 31 07"),  // 02: FIFOData, Transmit, NoCmdChange
  hex("63 39 65 63 31 04 63 31 07"),  // 65 "e": FIFOData, Transmit, NoCmdChange
  hex("63 39 6E 63 31 04 63 31 07"),  // 6E "n": FIFOData, Transmit, NoCmdChange
  hex("63 39 65 63 31 04 63 31 07"),  // 65 "e": FIFOData, Transmit, NoCmdChange
  hex("63 39 5A 63 31 04 63 31 07"),  // UID0: FIFOData, Transmit, NoCmdChange
  hex("63 39 6F 63 31 04 63 31 07"),  // UID1: FIFOData, Transmit, NoCmdChange
  hex("63 39 1E 63 31 04 63 31 07"),  // UID2: FIFOData, Transmit, NoCmdChange
  hex("63 39 2D 63 31 04 63 31 07"),  // UID3: FIFOData, Transmit, NoCmdChange
  hex("63 39 9B 63 31 04 63 31 07"),  // CRC_B 1: FIFOData, Transmit, NoCmdChange
  hex("63 39 13 63 31 04 63 31 07"),  // CRC_B 2: FIFOData, Transmit, NoCmdChange
  hex("63 31 08"),                             // Command <- Receive
].flatMap { $0 }

/// ReadRegister FIFOLevel + 13 x FIFOData (Lc 1E = 30).
private let readFIFO = hex("FF 00 00 00 1E D4 06 633A" + String(repeating: " 6339", count: 13))

@Suite struct Type1CIUTranscriptTests {
  @Test func read8AndWriteE8ThroughTheCIU() throws {
    let reader = ScriptedReader([
      (read8Writes, hex("D5 09 90 00")),                                       // WriteRegister done
      (hex("FF 00 00 00 05 D4 08 63 0D 20"), hex("D5 09 90 00")),              // ManualRCV <- 20: parity back on
      (readFIFO, hex("D5 07 0D 10 02 08 18 48 A0 A0 C1 03 08 A8 83 06 90 00")), // FIFOLevel 13, then 10 01..08 D4 A0 with parity bits
      (writeE8Writes, hex("D5 09 90 00")),                                     // WriteRegister done (then 6 ms for the EEPROM)
      (hex("FF 00 00 00 05 D4 08 63 0D 20"), hex("D5 09 90 00")),              // parity back on
      (readFIFO, hex("D5 07 0D 03 A3 07 58 40 45 40 59 37 65 BD DF 00 90 00")), // FIFOLevel 13: 03 D1 01 0B 54 02 65 6E 65 DE 37
    ])
    let link = ACR122UType1Link(transport: reader)
    link.writeWaitMicroseconds = (0, 0)
    #expect(try link.transceive(hex("02 10 0000000000000000") + uid4) == hex("10 0102030405060708"))
    #expect(try link.transceive(hex("54 03 D1010B5402656E65") + uid4) == hex("03 D1010B5402656E65"))
    #expect(reader.script.isEmpty)
  }

  @Test func anEmptyFIFOIsATimeoutAndABadCRCIsMalformed() throws {
    let empty = ScriptedReader([
      (read8Writes, hex("D5 09 90 00")),                                       // WriteRegister done
      (hex("FF 00 00 00 05 D4 08 63 0D 20"), hex("D5 09 90 00")),              // parity back on
      (readFIFO, hex("D5 07 00") + [UInt8](repeating: 0, count: 13) + hex("90 00")),  // FIFOLevel 0: no answer
    ])
    #expect(throws: TransceiveError.timeout) { try ACR122UType1Link(transport: empty).transceive(hex("02 10 0000000000000000") + uid4) }
    let damaged = ScriptedReader([
      (read8Writes, hex("D5 09 90 00")),                                       // WriteRegister done
      (hex("FF 00 00 00 05 D4 08 63 0D 20"), hex("D5 09 90 00")),              // parity back on
      (readFIFO, hex("D5 07 0D 10 02 08 18 48 A0 A0 C1 03 08 A8 83 07 90 00")), // last CRC bit flipped
    ])
    #expect(throws: TransceiveError.self) { try ACR122UType1Link(transport: damaged).transceive(hex("02 10 0000000000000000") + uid4) }
    let short = ScriptedReader([
      (read8Writes, hex("D5 09 90 00")),                                       // WriteRegister done
      (hex("FF 00 00 00 05 D4 08 63 0D 20"), hex("D5 09 90 00")),              // parity back on
      (readFIFO, hex("D5 07 0D 10 02 90 00")),                                 // ReadRegister answer cut short
    ])
    #expect(throws: TransceiveError.self) { try ACR122UType1Link(transport: short).transceive(hex("02 10 0000000000000000") + uid4) }
  }
}

/// Direct transmit to the emulated ACR122U's PN532.
private func direct(_ pn532: [UInt8]) -> [UInt8] { [0xFF, 0x00, 0x00, 0x00, UInt8(pn532.count + 1), 0xD4] + pn532 }
private func writeRegister(_ triples: [UInt8]) -> [UInt8] { direct([0x08] + triples) }

@Suite struct Type1CIUEmulatorTests {
  /// nfcpy's own four steps, byte for byte: no flush, write ManualRCV 20, read FIFOLevel alone,
  /// then FIFOLevel x FIFOData.
  @Test func nfcpysSequenceReadsABlock() throws {
    let tag = try Type1VirtualTag(chip: .topaz512, uid: uid)
    _ = tag.respond(to: [0x54, 0x10, 1, 2, 3, 4, 5, 6, 7, 8] + uid4)
    let face = ACR122UFace(tag: tag)
    let frame = hex("02 10 0000000000000000 5A6F1E2D 3ABD")
    var writes = hex("6339 02 633D 07 6331 04 633D 00 630D 30")
    for byte in frame.dropFirst() { writes += [0x63, 0x39, byte, 0x63, 0x31, 0x04, 0x63, 0x31, 0x07] }
    writes += hex("6331 08")
    #expect(face.transmit(writeRegister(writes)) == hex("D5 09 90 00"))
    #expect(face.transmit(writeRegister(hex("630D 20"))) == hex("D5 09 90 00"))
    #expect(face.transmit(direct(hex("06 633A"))) == hex("D5 07 0D 90 00"))
    let fifo = face.transmit(direct([0x06] + [UInt8](repeating: 0, count: 13).flatMap { _ in [0x63, 0x39] }))
    #expect(fifo == hex("D5 07 10 02 08 18 48 A0 A0 C1 03 08 A8 83 06 90 00"))
    #expect(face.transmit(direct(hex("06 633A"))) == hex("D5 07 00 90 00"))                // drained
  }

  @Test func aBadCRCOrAWrongUIDLeavesTheFIFOEmpty() throws {
    let face = ACR122UFace(tag: try Type1VirtualTag(chip: .topaz512, uid: uid))
    for frame in [hex("02 10 0000000000000000 5A6F1E2D 3ABE"),                               // CRC_B wrong
                  hex("02 10 0000000000000000 01020304") + PN53xCIU.crcB(hex("02 10 0000000000000000 01020304"))] {  // another UID
      var writes = hex("6339") + [frame[0]] + hex("633D 07 6331 04 633D 00 630D 30")
      for byte in frame.dropFirst() { writes += [0x63, 0x39, byte, 0x63, 0x31, 0x04] }
      writes += hex("6331 08 630D 20")
      #expect(face.transmit(writeRegister(writes)) == hex("D5 09 90 00"))
      #expect(face.transmit(direct(hex("06 633A"))) == hex("D5 07 00 90 00"))
    }
  }

  @Test func withTheParityOnTheAnswerArrivesWithoutParityBits() throws {
    let tag = try Type1VirtualTag(chip: .topaz512, uid: uid)
    let face = ACR122UFace(tag: tag)
    let frame = hex("02 01 0000000000000000 5A6F1E2D")
    let withCRC = frame + PN53xCIU.crcB(frame)
    var writes = hex("6339") + [withCRC[0]] + hex("633D 07 6331 04 633D 00")                  // no ManualRCV 30
    for byte in withCRC.dropFirst() { writes += [0x63, 0x39, byte, 0x63, 0x31, 0x04] }
    writes += hex("6331 08")
    #expect(face.transmit(writeRegister(writes)) == hex("D5 09 90 00"))
    #expect(face.transmit(direct(hex("06 633A"))) == hex("D5 07 0B 90 00"))                  // 11 plain bytes
    let expected = [0x01] + Array(tag.memoryImage[8..<16])
    let fifo = face.transmit(direct([0x06] + [UInt8](repeating: 0, count: 11).flatMap { _ in [0x63, 0x39] }))
    #expect(fifo == hex("D5 07") + expected + PN53xCIU.crcB(expected) + hex("90 00"))
  }

  @Test func malformedRegisterCommandsAndOtherRegisters() throws {
    let face = ACR122UFace(tag: try Type1VirtualTag(chip: .topaz512, uid: uid))
    // A malformed command is a PN532 syntax error frame (PN532 UM §6.2.1.5), passed on as 63 7F.
    #expect(face.transmit(direct(hex("06 63"))) == hex("63 7F"))                             // odd address bytes
    #expect(face.transmit(writeRegister(hex("63 02"))) == hex("63 7F"))                      // triple cut short
    #expect(face.transmit(writeRegister(hex("6302 80 6303 80"))) == hex("D5 09 90 00"))      // TxMode, RxMode kept
    #expect(face.transmit(direct(hex("06 6302 6303 6305"))) == hex("D5 07 80 80 00 90 00"))
    #expect(face.transmit(writeRegister([UInt8](repeating: 0, count: 70).flatMap { _ in [0x63, 0x39, 0xAA] })) == hex("D5 09 90 00"))
    #expect(face.transmit(direct(hex("06 633A"))) == hex("D5 07 40 90 00"))                  // the FIFO holds 64
    #expect(face.transmit(writeRegister(hex("633A 80"))) == hex("D5 09 90 00"))              // FlushBuffer
    #expect(face.transmit(direct(hex("06 633A 6339"))) == hex("D5 07 00 00 90 00"))
  }

  /// Raw READ8 / WRITE-E8 / WRITE-NE8 / RSEG through InCommunicateThru reach no tag: status 01
  /// (timeout), memory and generation unchanged, so nothing can rely on that path.
  @Test func communicateThruOfType1FramesTimesOutAndChangesNothing() throws {
    let tag = try Type1VirtualTag(chip: .topaz512, uid: uid)
    let face = ACR122UFace(tag: tag)
    #expect(face.transmit(direct(hex("4A 01 04"))) == hex("D5 4B 01 01 0C 00") + uid4 + hex("90 00"))  // Jewel target listed
    let before = tag.memoryImage
    let generation = tag.memoryGeneration
    for frame in [hex("02 10 0000000000000000") + uid4,                                      // READ8 block 10h
                  hex("54 10 0102030405060708") + uid4,                                      // WRITE-E8 block 10h
                  hex("1B 10 FFFFFFFFFFFFFFFF") + uid4,                                      // WRITE-NE8 block 10h
                  hex("10 10 0000000000000000") + uid4] {                                    // RSEG 1
      #expect(face.transmit(direct([0x42] + frame)) == hex("D5 43 01 90 00"))                 // status 01: timeout
      #expect(face.transmit(direct([0x42] + frame + PN53xCIU.crcB(frame))) == hex("D5 43 01 90 00"))   // with CRC_B too
    }
    #expect(tag.memoryImage == before)
    #expect(tag.memoryGeneration == generation)
  }

  @Test func aType2TagNeverSeesCIUFrames() throws {
    let face = try ReaderFaceKind.acr122u.makeFace(tag: try VirtualTagKind.ntag215.makeTag(uid: nil))
    let link = ACR122UType1Link(transport: SimulatedAPDUTransport(card: face))
    #expect(throws: TransceiveError.timeout) { try link.transceive(hex("02 10 0000000000000000") + uid4) }
  }
}

// MARK: - Round trips in APDUs

private func mimeMessage(_ total: Int) -> [UInt8] {
  let header: [UInt8] = total - 13 > 255
    ? [0xC2, 0x0A, 0, 0, UInt8((total - 16) >> 8), UInt8((total - 16) & 0xFF)]
    : [0xD2, 0x0A, UInt8(total - 13)]
  let body = (0..<(total - header.count - 10)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
  return header + Array("text/plain".utf8) + body
}

@Suite struct Type1CIURoundTripTests {
  /// A full read and a full write of a 462-byte message on a Topaz 512, counted in tag exchanges
  /// and in reader APDUs. Each READ8 / WRITE-E8 costs 3 APDUs (nfcpy: 4); RALL and the byte
  /// commands 1.
  @Test func aTopaz512ReadAndWriteInAPDUs() throws {
    let tag = try Type1VirtualTag(chip: .topaz512, uid: uid)
    let face = try ReaderFaceKind.acr122u.makeFace(tag: tag)
    let transport = SimulatedAPDUTransport(card: face)
    let target = try detectTarget(on: transport)
    let type1 = try #require(target.link as? ACR122UType1Link)
    type1.writeWaitMicroseconds = (0, 0)
    let link = CountingTransceiver(type1)
    let platform = Type1Tag(identifier: target.identifier, link: link)
    let message = mimeMessage(462)

    let apdusBeforeWrite = transport.answered
    try platform.writeNDEF(message, verify: false)
    let writeExchanges = link.count
    let writeAPDUs = transport.answered - apdusBeforeWrite
    #expect(writeExchanges == 61)                    // RALL, READ8 block F, 59 WRITE-E8
    #expect(writeAPDUs == 1 + 3 * 60)

    let apdusBeforeRead = transport.answered
    #expect(try platform.readNDEF() == message)
    let readExchanges = link.count - writeExchanges
    let readAPDUs = transport.answered - apdusBeforeRead
    #expect(readExchanges == 49)                     // RALL + 48 READ8 (blocks 10h-3Fh)
    #expect(readAPDUs == 1 + 3 * 48)
    #expect(tag.memoryImage == (try platform.readMemory()))
  }
}
