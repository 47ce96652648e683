import NFCTags
import NFCTestSupport
import NFCTransport
import Testing

@Suite struct TLVParseTests {
  /// A T2T-style image: 16 header bytes, then `data`, padded with zeros to `size` data bytes.
  func image(_ data: [UInt8], size: Int = 64) -> TLVMemoryImage {
    TLVMemoryImage([UInt8](repeating: 0, count: 16) + data + [UInt8](repeating: 0, count: max(0, size - data.count + 16)))
  }

  @Test func skipsNullLockMemoryAndProprietaryTLVsAndReservedBytes() throws {
    let uri = hex("D1 01 08 55 01 65 78 61 6D 70 6C 65")            // URI record "http://www.example"
    let data = hex("00")                                             // 16: NULL
      + hex("01 03 A0 0C 34")                                        // 17: Lock Control: 12 bits at byte 160
      + hex("02 03 A0 04 02")                                        // 22: Memory Control: 4 bytes at 10×4 = 40
      + hex("FD 02 AA BB")                                           // 27: Proprietary, 2 bytes
      + hex("03 0C") + Array(uri[0..<7])                             // 31: NDEF TLV(12), 7 bytes up to 39
      + hex("EE EE EE EE")                                           // 40-43: reserved by the Memory Control
      + Array(uri[7...]) + hex("FE")                                 // 44-48: the rest, 49: Terminator
    let memory = image(data)
    let layout = try TLVLayout.parse(memory: memory, area: TLVArea(start: 16, end: 80))
    #expect(layout.controls.map(\.kind) == [.lock, .memory])
    #expect(layout.lockRanges == [160..<162])
    #expect(layout.reservedRanges == [40..<44, 160..<162])
    #expect(layout.ndefTLVAddress == 31)
    #expect(layout.ndefOffset == 33)
    #expect(layout.ndefLength == 12)
    #expect(layout.lengthFieldSize == 1)
    #expect(try layout.readMessage(from: memory) == uri)
    #expect(layout.capacity == 80 - 31 - 4 - 2)                      // usable from the TLV, minus reserved, minus header
  }

  @Test func readsAThreeByteLength() throws {
    let message = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 3) }
    let memory = image(hex("03 FF 01 2C") + message + hex("FE"), size: 320)
    let layout = try TLVLayout.parse(memory: memory, area: TLVArea(start: 16, end: 336))
    #expect(layout.lengthFieldSize == 3)
    #expect(layout.ndefLength == 300)
    #expect(layout.ndefOffset == 20)
    #expect(try layout.readMessage(from: memory) == message)
  }

  @Test func stopsAtTheTerminatorAndAtTheEndOfTheArea() throws {
    let terminated = try TLVLayout.parse(memory: image(hex("00 00 FE 03 03 D0 00 00")), area: TLVArea(start: 16, end: 80))
    #expect(terminated.ndefTLVAddress == nil)
    #expect(terminated.terminatorAddress == 18)
    #expect(terminated.writeAddress == 16)                           // NULLs before the Terminator are free
    let nulls = try TLVLayout.parse(memory: image([]), area: TLVArea(start: 16, end: 80))
    #expect(nulls.ndefTLVAddress == nil)
    #expect(nulls.capacity == 62)
  }

  @Test func skipsThePlatformsReservedBytes() throws {
    // Type 1 static layout: data 12..<120, bytes 104..<120 reserved.
    var bytes = [UInt8](repeating: 0, count: 120)
    bytes[12] = 0x03
    bytes[13] = 94                                                   // 94 bytes, but only 14..<104 (90) are usable
    let memory = TLVMemoryImage(bytes)
    let error = tagError { () throws(TagError) in
      _ = try TLVLayout.parse(memory: memory, area: TLVArea(start: 12, end: 120, reserved: [104..<120]))
    }
    guard case .malformed(_, let offset)? = error else { Issue.record("expected malformed"); return }
    #expect(offset == 0)
    bytes[13] = 90                                                   // exactly 14..<104
    let layout = try TLVLayout.parse(memory: TLVMemoryImage(bytes), area: TLVArea(start: 12, end: 120, reserved: [104..<120]))
    #expect(layout.ndefLength == 90)
    #expect(layout.capacity == 90)
  }

  @Test(arguments: [
    ("03 40", 0),                                                    // NDEF TLV of 64 bytes in 62 left
    ("00 00 FD 50", 2),                                              // Proprietary TLV past the end
    ("01 02 A0 0C", 0),                                              // Lock Control with length 2
    ("02 03 A0", 0),                                                 // Memory Control value truncated (area of 3 bytes)
  ])
  func rejectsMalformedTLVs(data: String, offset: Int) throws {
    let bytes = hex(data)
    let size = data == "02 03 A0" ? 3 : 64
    let memory = image(bytes, size: size)
    let error = tagError { () throws(TagError) in
      _ = try TLVLayout.parse(memory: memory, area: TLVArea(start: 16, end: 16 + size))
    }
    guard case .malformed(_, let at)? = error else { Issue.record("expected malformed for \(data)"); return }
    #expect(at == offset)
  }

  @Test func rejectsATruncatedThreeByteLength() throws {
    let memory = image(hex("03 FF 01"), size: 3)
    let error = tagError { () throws(TagError) in
      _ = try TLVLayout.parse(memory: memory, area: TLVArea(start: 16, end: 19))
    }
    guard case .malformed(let why, let at)? = error else { Issue.record("expected malformed"); return }
    #expect(at == 0)
    #expect(why.contains("truncated"))
  }
}

@Suite struct TLVWriterTests {
  @Test func plansAroundReservedBytes() throws {
    var bytes = [UInt8](repeating: 0, count: 80)
    bytes.replaceSubrange(16..<24, with: hex("02 03 A0 04 02 03 00 FE"))   // Memory Control (40..<44), empty NDEF
    let layout = try TLVLayout.parse(memory: TLVMemoryImage(bytes), area: TLVArea(start: 16, end: 80))
    #expect(layout.ndefTLVAddress == 21)
    let message = (1...20).map { UInt8($0) }
    let plan = try TLVWriter.plan(message: message, layout: layout)
    #expect(plan.tlvAddress == 21)
    #expect(plan.bytes[22] == 20)
    #expect((40..<44).allSatisfy { plan.bytes[$0] == nil })
    #expect(plan.bytes[39] == 17)                                    // message byte 17 right before the reserved bytes
    #expect(plan.bytes[44] == 18)                                    // and 18 right after
    #expect(plan.bytes[47] == 0xFE)                                  // Terminator
  }

  @Test func writesTheLengthByteLastAcrossBlocks() throws {
    // The NDEF TLV's type byte ends block 4, its length starts block 5 (4-byte blocks).
    var bytes = [UInt8](repeating: 0, count: 64)
    bytes.replaceSubrange(16..<20, with: hex("00 00 00 FE"))
    let layout = try TLVLayout.parse(memory: TLVMemoryImage(bytes), area: TLVArea(start: 16, end: 64))
    #expect(layout.writeAddress == 16)
    var shifted = layout
    shifted.writeAddress = 19
    let plan = try TLVWriter.plan(message: hex("D0 00 00 D0 00 00"), layout: shifted)
    var current: [Int: [UInt8]] = [:]
    for block in plan.touchedBlocks(blockSize: 4) { current[block] = Array(bytes[(block * 4)..<(block * 4 + 4)]) }
    let writes = try plan.orderedWrites(blockSize: 4, current: current)
    #expect(writes == [
      TLVBlockWrite(block: 5, bytes: hex("00 D0 00 00")),            // length 00 first (block holding it)
      TLVBlockWrite(block: 4, bytes: hex("00 00 00 03")),            // then the type byte
      TLVBlockWrite(block: 6, bytes: hex("D0 00 00 FE")),            // data, Terminator
      TLVBlockWrite(block: 5, bytes: hex("06 D0 00 00")),            // the length, last
    ])
  }

  @Test func writesOnlyTheBlocksAroundAReservedGap() throws {
    // Memory Control: 8 reserved bytes at 10×4 = 40 (blocks 10 and 11); a 30-byte message crosses them.
    var bytes = (0..<96).map { UInt8(truncatingIfNeeded: $0 | 0x80) }
    bytes.replaceSubrange(16..<24, with: hex("02 03 A0 08 02 03 00 FE"))
    let layout = try TLVLayout.parse(memory: TLVMemoryImage(bytes), area: TLVArea(start: 16, end: 96))
    let plan = try TLVWriter.plan(message: (1...30).map { UInt8($0) }, layout: layout)
    #expect(plan.touchedBlocks(blockSize: 4) == [5, 6, 7, 8, 9, 12, 13, 14, 15])
    #expect(plan.touchedBlocks(blockSize: 8) == [2, 3, 4, 6, 7])
    for blockSize in [4, 8] {
      var current: [Int: [UInt8]] = [:]
      for block in plan.touchedBlocks(blockSize: blockSize) {
        current[block] = Array(bytes[(block * blockSize)..<((block + 1) * blockSize)])
      }
      var expected = bytes
      for (address, value) in plan.bytes { expected[address] = value }
      var written = bytes
      for write in try plan.orderedWrites(blockSize: blockSize, current: current) {
        written.replaceSubrange((write.block * blockSize)..<((write.block + 1) * blockSize), with: write.bytes)
      }
      #expect(written == expected)
      #expect(written[40..<48] == bytes[40..<48])                    // the reserved bytes are untouched
    }
  }

  @Test func refusesWhenNothingFits() throws {
    var bytes = [UInt8](repeating: 0, count: 24)
    bytes.replaceSubrange(16..<24, with: hex("FD 06 00 00 00 00 00 00"))
    let layout = try TLVLayout.parse(memory: TLVMemoryImage(bytes), area: TLVArea(start: 16, end: 24))
    #expect(layout.capacity == 0)
    let error = tagError { () throws(TagError) in _ = try TLVWriter.plan(message: [0xD0], layout: layout) }
    guard case .insufficientCapacity(let needed, let capacity)? = error else { Issue.record("expected capacity error"); return }
    #expect(needed == 1)
    #expect(capacity == 0)
  }
}

@Suite struct DetectionTests {
  @Test func buildsAType2Platform() throws {
    let link = EmbeddedTransceiver([])
    let target = DetectedTarget(readerName: "ACS ACR122U", identifier: uid, atr: [], platform: .type2,
                                cardName: "MIFARE Ultralight", link: link)
    let platform = try makePlatform(for: target)
    #expect(platform is Type2Tag)
    #expect(platform.identifier == uid)
    #expect(link.finish() == .clean)
  }

  @Test func namesTheCardWhenThePlatformIsUnknown() throws {
    let target = DetectedTarget(readerName: "r", identifier: [1, 2, 3, 4], atr: hex("3B 8F 80 01"), platform: nil,
                                cardName: "MIFARE Classic 1K", link: EmbeddedTransceiver([]))
    let error = tagError { () throws(TagError) in _ = try makePlatform(for: target) }
    guard case .unsupported(let why)? = error else { Issue.record("expected unsupported"); return }
    #expect(why.contains("MIFARE Classic 1K"))
    #expect(why.contains("3b 8f 80 01"))
  }
}

/// A read past the end names its bytes as people do, not as a Swift range.
@Suite struct RangeMessages {
  @Test func aReadPastTheEndNamesFirstAndLastByte() {
    let memory = TLVMemoryImage([UInt8](repeating: 0, count: 8))
    do {
      _ = try memory.bytes(in: 6..<12)
      Issue.record("no error")
    } catch {
      #expect(error.description == "malformed tag data: read of bytes 6–11 past the end of the 8-byte memory")
      #expect(!error.description.contains("..<"))
    }
  }
}
