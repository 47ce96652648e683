import NFCReaders
import NFCTags
import NFCTestSupport
import NFCTransport
import Testing
@testable import NFCEmulator

private let uid = [UInt8]([0x5A, 0x6F, 0x1E, 0x2D, 0x00, 0x00, 0x00])
private let uid4 = [UInt8]([0x5A, 0x6F, 0x1E, 0x2D])
private let zeros8 = [UInt8](repeating: 0, count: 8)

/// The Type 1 frames as the tag receives them (nfcpy `tt1.py`).
private func read(_ add: UInt8) -> [UInt8] { [0x01, add, 0x00] + uid4 }
private func writeE(_ add: UInt8, _ v: UInt8) -> [UInt8] { [0x53, add, v] + uid4 }
private func writeNE(_ add: UInt8, _ v: UInt8) -> [UInt8] { [0x1A, add, v] + uid4 }
private func read8(_ block: UInt8) -> [UInt8] { [0x02, block] + zeros8 + uid4 }
private func writeE8(_ block: UInt8, _ data: [UInt8]) -> [UInt8] { [0x54, block] + data + uid4 }

/// Direct transmit to the ACR122U's PN532.
private func direct(_ pn532: [UInt8]) -> [UInt8] { [0xFF, 0x00, 0x00, 0x00, UInt8(pn532.count + 1), 0xD4] + pn532 }

@Suite struct Type1VirtualTagTests {
  @Test func factoryContentIsNfcpysTopaz512Format() throws {
    let tag = try Type1VirtualTag(chip: .topaz512, uid: uid)
    #expect(tag.respond(to: [0x78, 0, 0, 0, 0, 0, 0]) == .data([0x12, 0x4C] + uid4))        // RID
    guard case .data(let all) = tag.respond(to: [0x00, 0x00, 0x00] + uid4) else { Issue.record("RALL mute"); return }
    #expect(all.count == 122)
    #expect(Array(all[0..<2]) == [0x12, 0x4C])
    #expect(Array(all[2..<9]) == uid)
    #expect(Array(all[10..<26]) == [0xE1, 0x10, 0x3F, 0x00, 0x01, 0x03, 0xF2, 0x30,
                                     0x33, 0x02, 0x03, 0xF0, 0x02, 0x03, 0x03, 0x00])
    #expect(tag.technology == .jewel(sensRes: [0x0C, 0x00], headerROM: [0x12, 0x4C]))
    #expect(tag.memoryImage.count == 512)
    let topaz = try Type1VirtualTag(chip: .topaz96, uid: uid)
    #expect(Array(topaz.memoryImage[8..<14]) == [0xE1, 0x10, 0x0E, 0x00, 0x03, 0x00])
    #expect(topaz.respond(to: read8(1)) == .mute)                                              // static: no READ8
  }

  @Test func readAndWriteBytes() throws {
    let tag = try Type1VirtualTag(uid: uid)
    #expect(tag.respond(to: read(0x08)) == .data([0x08, 0xE1]))
    #expect(tag.respond(to: writeE(0x20, 0xAB)) == .data([0x20, 0xAB]))
    #expect(tag.respond(to: writeNE(0x20, 0x54)) == .data([0x20, 0xFF]))                     // ORs bits in
    #expect(tag.respond(to: writeE(0x20, 0x01)) == .data([0x20, 0x01]))                      // erases first
    #expect(tag.respond(to: [0x01, 0x08, 0x00, 1, 2, 3, 4]) == .mute)                          // another tag's UID
    #expect(tag.respond(to: [0x01, 0x08]) == .mute)                                            // short frame
    #expect(tag.respond(to: writeE(0x02, 0x00)) == .mute)                                      // block 0: UID
    #expect(tag.respond(to: writeE(0x68, 0x00)) == .mute)                                      // block D: reserved
    #expect(tag.respond(to: [0x99] + zeros8) == .mute)                                         // unknown command
  }

  @Test func blocksSegmentsAndWrapAround() throws {
    let tag = try Type1VirtualTag(uid: uid)
    let data: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
    #expect(tag.respond(to: writeE8(0x20, data)) == .data([0x20] + data))
    #expect(tag.respond(to: read8(0x20)) == .data([0x20] + data))
    guard case .data(let segment) = tag.respond(to: [0x10, 0x20] + zeros8 + uid4) else { Issue.record("RSEG mute"); return }
    #expect(segment.count == 129)
    #expect(Array(segment[1..<9]) == data)
    #expect(tag.respond(to: read8(0x60)) == .data([0x60] + data))                             // 60h wraps to 20h
    #expect(tag.respond(to: writeE8(0x40, data)) == .mute)                                     // 40h wraps onto block 0
  }

  @Test func staticAndDynamicLocksAndOTP() throws {
    let tag = try Type1VirtualTag(uid: uid)
    #expect(tag.respond(to: writeNE(0x70, 0x02)) == .data([0x70, 0x02]))                     // LOCK0 bit 1: block 1
    #expect(tag.respond(to: writeE(0x0B, 0x0F)) == .mute)
    #expect(tag.respond(to: writeE(0x10, 0x0F)) == .data([0x10, 0x0F]))                      // block 2 still open
    #expect(tag.respond(to: writeE(0x70, 0x00)) == .data([0x70, 0x02]))                      // lock bits stay set
    #expect(tag.respond(to: writeE(0x72, 0x81)) == .data([0x72, 0x81]))                      // OTP byte
    #expect(tag.respond(to: writeE(0x72, 0x00)) == .data([0x72, 0x81]))                      // OTP bits stay set
    #expect(tag.respond(to: writeNE(0x7A, 0x01)) == .data([0x7A, 0x01]))                     // dynamic lock bit 0: block 10h
    #expect(tag.respond(to: writeE8(0x10, zeros8)) == .mute)
    #expect(tag.respond(to: writeE8(0x11, zeros8)) == .data([0x11] + zeros8))
  }

  @Test func imagesRoundTripAndBadSizesAreRefused() throws {
    let tag = try Type1VirtualTag(uid: uid)
    let before = tag.memoryGeneration
    _ = tag.respond(to: writeE(0x30, 0x42))
    #expect(tag.memoryGeneration > before)
    let generation = tag.memoryGeneration
    _ = tag.respond(to: writeE(0x30, 0x42))                                                   // no change
    #expect(tag.memoryGeneration == generation)
    let copy = try VirtualTagKind.topaz512.makeTag(image: tag.memoryImage)
    #expect(copy.memoryImage == tag.memoryImage)
    #expect(copy.identifier == uid)
    let error = #expect(throws: EmulatorError.self) { try VirtualTagKind.topaz512.makeTag(image: [UInt8](repeating: 0, count: 120)) }
    #expect(error?.message == "Topaz 512 (BCM20203T512) images have 512 bytes; this one has 120")
  }

  @Test func thePN532SpeaksShortFormsAndNotCommunicateThru() throws {
    let face = ACR122UFace(tag: try Type1VirtualTag(uid: uid))
    #expect(face.atr == partThreeStorageATR(standard: 0x03, name: [0xF0, 0x04]))
    #expect(face.transmit(direct([0x4A, 0x01, 0x04])) == [0xD5, 0x4B, 0x01, 0x01, 0x0C, 0x00] + uid4 + [0x90, 0x00])
    let rall = face.transmit(direct([0x40, 0x01, 0x00]))
    #expect(rall.count == 3 + 122 + 2)
    #expect(Array(rall[0..<5]) == [0xD5, 0x41, 0x00, 0x12, 0x4C])
    #expect(face.transmit(direct([0x40, 0x01, 0x01, 0x08])) == [0xD5, 0x41, 0x00, 0xE1, 0x90, 0x00])       // READ: data only
    #expect(face.transmit(direct([0x40, 0x01, 0x53, 0x20, 0x7E])) == [0xD5, 0x41, 0x00, 0x7E, 0x90, 0x00]) // WRITE-E
    #expect(face.transmit(direct([0x40, 0x01, 0x53, 0x00, 0x7E])) == [0xD5, 0x41, 0x01, 0x90, 0x00])       // block 0: tag mute
    #expect(face.transmit(direct([0x40, 0x01, 0x78])) == [0xD5, 0x41, 0x01, 0x90, 0x00])                   // no RID this way
    let thru = face.transmit(direct([0x42] + read8(0x04)))
    #expect(thru == [0xD5, 0x43, 0x01, 0x90, 0x00])                                           // no Type 1 framing: timeout
  }
}

// MARK: - The whole in-process stack

/// Text record "hello, Topaz" (lang "en").
private let textMessage: [UInt8] = [0xD1, 0x01, 0x0F, 0x54, 0x02, 0x65, 0x6E] + Array("hello, Topaz".utf8)
/// URI record https://example.com/… of about 80 bytes.
private let urlMessage: [UInt8] = {
  let rest = Array("example.com/a/long/path/for/a/url/sized/message/that/crosses/blocks?q=1".utf8)
  return [0xD1, 0x01, UInt8(rest.count + 1), 0x55, 0x04] + rest
}()
/// A MIME record filling `total` bytes.
private func mimeMessage(_ total: Int) -> [UInt8] {
  let header: [UInt8] = total - 13 > 255
    ? [0xC2, 0x0A, 0, 0, UInt8((total - 16) >> 8), UInt8((total - 16) & 0xFF)]
    : [0xD2, 0x0A, UInt8(total - 13)]
  let body = (0..<(total - header.count - 10)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
  return header + Array("text/plain".utf8) + body
}

private func openStack(_ tag: any VirtualTag, removeAfter: Int? = nil) throws -> (SimulatedAPDUTransport, any NDEFTagPlatform) {
  let face = try ReaderFaceKind.acr122u.makeFace(tag: tag)
  let transport = SimulatedAPDUTransport(readerName: ReaderFaceKind.acr122u.simulatedReaderName, card: face,
                                         removeAfter: removeAfter)
  let target = try detectTarget(on: transport)
  #expect(target.platform == .type1)
  (target.link as? ACR122UType1Link)?.writeWaitMicroseconds = (0, 0)                          // the emulator answers at once
  return (transport, try makePlatform(for: target))
}

@Suite struct Type1StackTests {
  @Test(arguments: [Type1Chip.topaz512, .topaz96])
  func writeReadFormatEraseLock(chip: Type1Chip) throws {
    let tag = try Type1VirtualTag(chip: chip, uid: uid)
    let (_, platform) = try openStack(tag)
    #expect(platform.platform == .type1)
    let status = try platform.queryNDEFStatus()
    #expect(status.status == .readWrite)
    #expect(status.capacity == (chip == .topaz512 ? 462 : 90))
    for message in [textMessage, urlMessage] {
      try platform.writeNDEF(message, verify: true)
      #expect(try platform.readNDEF() == message)
    }
    let big = mimeMessage(status.capacity)
    try platform.writeNDEF(big, verify: true)
    #expect(try platform.readNDEF() == big)
    #expect(try platform.readMemory() == tag.memoryImage)

    expectTooLargeChangesNothing(mimeMessage(status.capacity + 1), platform: platform, tag: tag)

    try platform.erase()
    #expect(try platform.readNDEF() == [])
    try platform.writeNDEF(textMessage, verify: true)
    try platform.format()
    #expect(try platform.readNDEF() == [])
    let info = try platform.info()
    #expect(info.chip == chip.productName)
    #expect(info.memorySize == chip.memorySize)

    try platform.writeNDEF(urlMessage, verify: true)
    try platform.makeReadOnly()
    #expect(try platform.queryNDEFStatus().status == .readOnly)
    #expect(try platform.readNDEF() == urlMessage)
    let locked = tag.memoryImage
    guard case .readOnly? = tagError({ () throws(TagError) in try platform.writeNDEF(textMessage, verify: true) }) else {
      Issue.record("a write after makeReadOnly did not throw readOnly"); return
    }
    #expect(tag.memoryImage == locked)
    #expect(Array(locked[112..<114]) == [0xFF, 0xFF])
    #expect(locked[11] == 0x0F)
    if chip == .topaz512 {
      #expect(Array(locked[122..<128]) == [UInt8](repeating: 0xFF, count: 6))
      #expect(Array(locked[120..<122]) == [0x00, 0x00])                                      // reserved: untouched
    }
  }

  @Test func formatsABlankTopaz512() throws {
    var image = [UInt8](repeating: 0, count: 512)
    image.replaceSubrange(0..<7, with: uid)
    let tag = try Type1VirtualTag(chip: .topaz512, image: image)
    let (_, platform) = try openStack(tag)
    #expect(try platform.queryNDEFStatus().status == .notSupported)
    try platform.format()
    #expect(Array(tag.memoryImage[8..<24]) == Type1Chip.topaz512.factoryNDEF)
    #expect(try platform.readNDEF() == [])
  }

  @Test func aDynamicLockBitRefusesTheWriteBeforeAnyByteChanges() throws {
    let tag = try Type1VirtualTag(chip: .topaz512, uid: uid)
    _ = tag.respond(to: writeNE(0x7B, 0x80))                                                  // lock bit 15: block 1Fh
    let (_, platform) = try openStack(tag)
    try platform.writeNDEF(textMessage, verify: true)                                         // blocks 2-4: still writable
    let before = tag.memoryImage
    guard case .readOnly? = tagError({ () throws(TagError) in try platform.writeNDEF(mimeMessage(300), verify: true) }) else {
      Issue.record("a write over a locked block did not throw readOnly"); return
    }
    #expect(tag.memoryImage == before)
  }

  /// Tearing: the tag leaves after every possible number of APDUs of a write.
  @Test(arguments: [Type1Chip.topaz512, .topaz96])
  func tearingNeverLeavesAPartialMessage(chip: Type1Chip) throws {
    let old = urlMessage
    let new = chip == .topaz512 ? mimeMessage(300) : mimeMessage(60)
    let tag = try Type1VirtualTag(chip: chip, uid: uid)
    do {
      let (_, platform) = try openStack(tag)
      try platform.writeNDEF(old, verify: true)
    }
    let start = tag.memoryImage
    // How many APDUs the write takes on an undisturbed copy.
    let probe = try Type1VirtualTag(chip: chip, image: start)
    let (probeTransport, probePlatform) = try openStack(probe)
    let detectAPDUs = probeTransport.answered
    try probePlatform.writeNDEF(new, verify: true)
    let writeAPDUs = probeTransport.answered - detectAPDUs
    #expect(writeAPDUs > 3)

    for k in 1...writeAPDUs {
      let torn = try Type1VirtualTag(chip: chip, image: start)
      let (_, platform) = try openStack(torn, removeAfter: detectAPDUs + k)
      do {
        try platform.writeNDEF(new, verify: true)
      } catch {
        #expect(error.isTagLost, "k=\(k): \(error)")
      }
      let (_, reader) = try openStack(torn)
      let found = try reader.readNDEF()
      #expect(found == old || found == new || found == [], "k=\(k): a partial message of \(found.count) bytes")
    }
  }

  /// Round trips for a maximum-size message on a Topaz 512 through the ACR122U.
  @Test func roundTripsOfAFullReadAndWrite() throws {
    let tag = try Type1VirtualTag(chip: .topaz512, uid: uid)
    let face = try ReaderFaceKind.acr122u.makeFace(tag: tag)
    let target = try detectTarget(on: SimulatedAPDUTransport(card: face))
    (target.link as? ACR122UType1Link)?.writeWaitMicroseconds = (0, 0)
    let link = CountingTransceiver(target.link)
    let platform = Type1Tag(identifier: target.identifier, link: link)
    let message = mimeMessage(462)
    try platform.writeNDEF(message, verify: true)
    let writes = link.count
    let readStart = link.count
    #expect(try platform.readNDEF() == message)
    let reads = link.count - readStart
    // The PN532 returns at most RALL's 122 bytes, and beyond byte 127 only READ8's 8 bytes per
    // exchange: one RALL for blocks 0-E, then 48 READ8 for blocks 10h-3Fh (block F is reserved).
    let bound = 1 + (512 - 128) / 8
    #expect(reads >= bound && reads <= bound + 1)
    #expect(reads == 49)
    // RALL, READ8 of the lock bytes (block F), 58 WRITE-E8 for blocks 3-C and 10h-3Fh, block 2 last.
    #expect(writes == 61)
    // Naive: one READ8 per block (64) to read; read each block then write it (58 + 60 + RALL) to write.
  }

  @Test func aLinkWithRSEGReadsSegments() throws {
    let tag = try Type1VirtualTag(chip: .topaz512, uid: uid)
    let link = CountingTransceiver(DirectLink(tag))
    let platform = Type1Tag(identifier: uid, link: link)
    let message = mimeMessage(462)
    try platform.writeNDEF(message, verify: true)
    let start = link.count
    #expect(try platform.readNDEF() == message)
    #expect(link.count - start == 4)                                                           // RALL + RSEG 1, 2, 3
  }
}

/// A reader that passes every tag frame and answer unchanged and carries 252-byte answers.
private final class DirectLink: Transceiver {
  let tag: any VirtualTag
  let capabilities = LinkCapabilities(maxResponseLength: 252, maxCommandLength: 250, rawCommands: true)
  init(_ tag: any VirtualTag) { self.tag = tag }
  func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard case .data(let answer) = tag.respond(to: command) else { throw .timeout }
    return answer
  }
}

/// Runs `body` and returns the ``TagError`` it threw, or nil.
