import NFCTransport
import Testing
@testable import NFCEmulator

@Suite struct Type2Chips {
  @Test(arguments: [(Type2Chip.ntag213, [UInt8]([0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03]), 45),
                    (.ntag215, [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03], 135),
                    (.ntag216, [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x13, 0x03], 231)])
  func versionAndSize(chip: Type2Chip, version: [UInt8], pages: Int) throws {
    let tag = try Type2VirtualTag(chip: chip)
    #expect(tag.respond(to: [0x60]) == .data(version))
    #expect(tag.memoryImage.count == pages * 4)
  }

  @Test func factoryContentOfAnNTAG213() throws {
    let tag = try Type2VirtualTag(chip: .ntag213, uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66])
    guard case .data(let pages) = tag.respond(to: [0x30, 0x00]) else { Issue.record("no answer"); return }
    #expect(Array(pages[0..<4]) == [0x04, 0x11, 0x22, 0x88 ^ 0x04 ^ 0x11 ^ 0x22])   // UID0-2, BCC0
    #expect(pages[8] == 0x33 ^ 0x44 ^ 0x55 ^ 0x66)                                 // BCC1
    #expect(Array(pages[12..<16]) == [0xE1, 0x10, 0x12, 0x00])                      // CC
    guard case .data(let data) = tag.respond(to: [0x30, 0x04]) else { Issue.record("no answer"); return }
    #expect(Array(data[0..<8]) == [0x01, 0x03, 0xA0, 0x0C, 0x34, 0x03, 0x00, 0xFE])
  }

  @Test func readRollsOverPastTheLastPage() throws {
    let tag = try Type2VirtualTag(chip: .ntag213)
    guard case .data(let bytes) = tag.respond(to: [0x30, 0x2C]) else { Issue.record("no answer"); return }
    #expect(Array(bytes[4..<8]) == Array(tag.memoryImage[0..<4]))
    #expect(tag.respond(to: [0x30, 0x2D]) == .nak(0))
  }

  @Test func fastReadRanges() throws {
    let tag = try Type2VirtualTag(chip: .ntag215)
    guard case .data(let bytes) = tag.respond(to: [0x3A, 0x00, 0x3F]) else { Issue.record("no answer"); return }
    #expect(bytes.count == 256)
    #expect(tag.respond(to: [0x3A, 0x10, 0x0F]) == .nak(0))
    #expect(tag.respond(to: [0x3A, 0x00, 0x87]) == .nak(0))
  }

  @Test func writesLocksAndOTP() throws {
    let tag = try Type2VirtualTag(chip: .ntag213)
    #expect(tag.respond(to: [0xA2, 0x04, 1, 2, 3, 4]) == .ack)
    #expect(tag.respond(to: [0xA2, 0x03, 0x00, 0x00, 0x00, 0x0F]) == .ack)   // CC: bits only set
    #expect(Array(tag.memoryImage[12..<16]) == [0xE1, 0x10, 0x12, 0x0F])
    #expect(tag.respond(to: [0xA2, 0x02, 0, 0, 0xF0, 0x00]) == .ack)          // lock pages 4-7
    #expect(tag.respond(to: [0xA2, 0x04, 9, 9, 9, 9]) == .nak(0))
    #expect(Array(tag.memoryImage[16..<20]) == [1, 2, 3, 4])
    #expect(tag.respond(to: [0xA2, 0x2D, 0, 0, 0, 0]) == .nak(0))
  }

  @Test func passwordProtectionAndPWDReadsAsZero() throws {
    let tag = try Type2VirtualTag(chip: .ntag213)
    // Set PWD 11 22 33 44, PACK AB CD, then AUTH0 = 4.
    #expect(tag.respond(to: [0xA2, 0x2B, 0x11, 0x22, 0x33, 0x44]) == .ack)
    #expect(tag.respond(to: [0xA2, 0x2C, 0xAB, 0xCD, 0x00, 0x00]) == .ack)
    #expect(tag.respond(to: [0xA2, 0x29, 0x04, 0x00, 0x00, 0x04]) == .ack)
    guard case .data(let cfg) = tag.respond(to: [0x30, 0x29]) else { Issue.record("no answer"); return }
    #expect(Array(cfg[8..<16]) == [UInt8](repeating: 0, count: 8))            // PWD, PACK read as 0
    #expect(tag.respond(to: [0xA2, 0x05, 1, 1, 1, 1]) == .nak(0))             // protected
    #expect(tag.respond(to: [0x1B, 0, 0, 0, 0]) == .nak(4))
    #expect(tag.respond(to: [0x1B, 0x11, 0x22, 0x33, 0x44]) == .data([0xAB, 0xCD]))
    #expect(tag.respond(to: [0xA2, 0x05, 1, 1, 1, 1]) == .ack)
    tag.reset()
    #expect(tag.respond(to: [0xA2, 0x05, 2, 2, 2, 2]) == .nak(0))
  }

  @Test func ultralightHasNoGetVersion() throws {
    let tag = try Type2VirtualTag(chip: .ultralight)
    #expect(tag.respond(to: [0x60]) == .mute)
    #expect(tag.respond(to: [0x3A, 0x00, 0x01]) == .mute)
  }

  @Test func imagesRoundTripAndBadSizesAreRefused() throws {
    let tag = try Type2VirtualTag(chip: .ntag215)
    _ = tag.respond(to: [0xA2, 0x04, 0x03, 0x01, 0x02, 0xFE])
    let again = try Type2VirtualTag(chip: .ntag215, image: tag.memoryImage)
    #expect(again.memoryImage == tag.memoryImage)
    #expect(again.identifier == tag.identifier)
    #expect(throws: EmulatorError.self) { try Type2VirtualTag(chip: .ntag215, image: [UInt8](repeating: 0, count: 100)) }
  }
}

@Suite struct ACR122UFaceTests {
  @Test func atrAndPseudoAPDUs() throws {
    let face = ACR122UFace(tag: try Type2VirtualTag(chip: .ntag215))
    #expect(face.atr == [0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06, 0x03, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x68])
    #expect(face.transmit([0xFF, 0xCA, 0x00, 0x00, 0x00]) == [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0x80, 0x90, 0x00])
    #expect(face.transmit([0xFF, 0x00, 0x48, 0x00, 0x00]) == Array("ACR122U207".utf8))   // no status word
    let page4 = face.transmit([0xFF, 0xB0, 0x00, 0x04, 0x10])
    #expect(page4.count == 18)
    #expect(Array(page4.prefix(4)) == [0x03, 0x00, 0xFE, 0x00])
    #expect(face.transmit([0xFF, 0xD6, 0x00, 0x04, 0x04, 0x03, 0x00, 0xFE, 0x00]) == [0x90, 0x00])
    #expect(face.transmit([0xFF, 0xD6, 0x00, 0x00, 0x04, 1, 2, 3, 4]) == [0x63, 0x00])
    #expect(face.transmit([0xFF, 0x99, 0x00, 0x00, 0x00]) == [0x63, 0x00])
  }

  @Test func directTransmitAndTheFrameLimit() throws {
    let face = ACR122UFace(tag: try Type2VirtualTag(chip: .ntag216))
    #expect(face.transmit([0xFF, 0x00, 0x00, 0x00, 0x03, 0xD4, 0x42, 0x60])
            == [0xD5, 0x43, 0x00, 0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x13, 0x03, 0x90, 0x00])
    let fits = face.transmit([0xFF, 0x00, 0x00, 0x00, 0x05, 0xD4, 0x42, 0x3A, 0x00, 0x3E])  // 63 pages
    #expect(fits.count == 3 + 252 + 2)
    let tooLong = face.transmit([0xFF, 0x00, 0x00, 0x00, 0x05, 0xD4, 0x42, 0x3A, 0x00, 0x3F])  // 64 pages
    #expect(tooLong == [0xD5, 0x43, 0x09, 0x90, 0x00])
    #expect(face.transmit([0xFF, 0x00, 0x00, 0x00, 0x02, 0xD4, 0x02]) == [0xD5, 0x03, 0x32, 0x01, 0x06, 0x07, 0x90, 0x00])
  }

  @Test func simulatedSlotRemovesTheTagAfterNCommands() throws {
    let transport = SimulatedAPDUTransport(card: ACR122UFace(tag: try Type2VirtualTag(chip: .ntag213)), removeAfter: 2)
    _ = try transport.transmit([0xFF, 0xCA, 0x00, 0x00, 0x00])
    _ = try transport.transmit([0xFF, 0xCA, 0x00, 0x00, 0x00])
    #expect(throws: TransceiveError.tagRemoved) { try transport.transmit([0xFF, 0xCA, 0x00, 0x00, 0x00]) }
  }

  @Test func simulatorSpecs() throws {
    let spec = try SimulatorSpec(parsing: "sim:ntag215:/tmp/x.bin")
    #expect(spec.kind == .ntag215)
    #expect(spec.imagePath == "/tmp/x.bin")
    #expect(try SimulatorSpec(parsing: "sim:ultralight-ev1").imagePath == nil)
    #expect(throws: EmulatorError.self) { try SimulatorSpec(parsing: "sim:nope") }
  }
}
