import NFCReaders
import NFCTags
import NFCTestSupport
import NFCTransport
import Testing
@testable import NFCEmulator

/// `5F 46 04 A0 86 01 00`: the 100 ms timer the Part 3 Type 2 link puts on every frame.
private let timer = "5F 46 04 A0 86 01 00"

// MARK: - The face: Switch Protocol and Transparent Exchange for Type 2 tags

@Suite struct PartThreeType2Face {
  @Test func answersType2FramesAfterASwitchToISO14443ALayer3() throws {
    let tag = try Type2VirtualTag(chip: .ntag213)
    let face = try PartThreeFace(tag: tag)
    #expect(face.transmit(hex("FF C2 00 00 02 81 00 00")) == hex("C0 03 00 90 00 90 00"))             // start session
    #expect(face.transmit(hex("FF C2 00 01 03 95 01 60 00")) == hex("C0 03 01 6A 81 90 00"))          // no switch yet
    #expect(face.transmit(hex("FF C2 00 02 04 8F 02 00 03 00")) == hex("C0 03 00 90 00 8F 01 00 90 00"))  // 14443A L3
    #expect(face.selectedProtocol == [0x00, 0x03])
    #expect(face.transmit(hex("FF C2 00 01 0A \(timer) 95 01 60 00"))                                   // GET_VERSION
            == hex("C0 03 00 90 00 92 01 00 96 02 00 00 97 08 0004040201000F03 90 00"))
    #expect(face.transmit(hex("FF C2 00 01 04 95 02 30 03 00"))                                         // READ page 3
            == hex("C0 03 00 90 00 92 01 00 96 02 00 00 97 10 E1101200 0103A00C 340300FE 00000000 90 00"))
    #expect(face.transmit(hex("FF C2 00 01 08 95 06 A2 04 11 22 33 44 00"))                             // WRITE: ACK
            == hex("C0 03 00 90 00 92 01 04 96 02 00 00 97 01 0A 90 00"))
    #expect(Array(tag.memoryImage[16..<20]) == hex("11223344"))
    #expect(face.transmit(hex("FF C2 00 01 08 95 06 A2 2D 11 22 33 44 00"))                             // page 2Dh: NAK 0
            == hex("C0 03 00 90 00 92 01 04 96 02 00 00 97 01 00 90 00"))
    #expect(face.transmit(hex("FF C2 00 01 03 95 01 50 00")) == hex("C0 03 01 64 01 90 00"))          // mute: timeout
    #expect(face.transmit(hex("FF C2 00 01 05 93 03 A2 04 00")) == hex("C0 03 00 90 00 90 00"))       // transmit only
    #expect(face.transmit(hex("FF C2 00 01 02 99 00")) == hex("C0 03 01 6A 81 90 00"))                // unknown object
    #expect(face.transmit(hex("FF C2 00 00 02 82 00 00")) == hex("C0 03 00 90 00 90 00"))             // end session
    #expect(face.selectedProtocol == nil)
    #expect(face.transmit(hex("FF C2 00 01 03 95 01 60 00")) == hex("C0 03 01 6A 81 90 00"))          // switch dropped
  }

  @Test func switchingToAProtocolTheTagDoesNotSpeakFails() throws {
    let ntag = try PartThreeFace(tag: try Type2VirtualTag(chip: .ntag215))
    #expect(ntag.transmit(hex("FF C2 00 02 04 8F 02 02 03 00")) == hex("C0 03 01 64 01 90 00"))       // 15693: no card
    #expect(ntag.transmit(hex("FF C2 00 02 04 8F 02 00 04 00")) == hex("C0 03 01 6A 81 90 00"))       // layer 4
    #expect(ntag.transmit(hex("FF C2 00 02 04 8F 02 03 00 00")) == hex("C0 03 01 6A 81 90 00"))       // FeliCa
    #expect(ntag.selectedProtocol == nil)
    let slix = try PartThreeFace(tag: try ICODESLIX2VirtualTag())
    #expect(slix.transmit(hex("FF C2 00 02 04 8F 02 00 03 00")) == hex("C0 03 01 64 01 90 00"))       // 14443A: no card
    #expect(slix.transmit(hex("FF C2 00 02 04 8F 02 02 03 00")) == hex("C0 03 00 90 00 8F 01 00 90 00"))
    let plain = try PartThreeFace(tag: try Type2VirtualTag(chip: .ntag213), transparentExchange: false)
    #expect(plain.transmit(hex("FF C2 00 02 04 8F 02 00 03 00")) == hex("6A 81"))
  }

  @Test func theSwitchDropsPasswordAuthentication() throws {
    let tag = try Type2VirtualTag(chip: .ntag213)
    let face = try PartThreeFace(tag: tag)
    _ = face.transmit(hex("FF C2 00 02 04 8F 02 00 03 00"))
    // PWD_AUTH with the factory password FFFFFFFF answers PACK 00 00.
    #expect(face.transmit(hex("FF C2 00 01 07 95 05 1B FFFFFFFF 00"))
            == hex("C0 03 00 90 00 92 01 00 96 02 00 00 97 02 0000 90 00"))
    #expect(face.transmit(hex("FF C2 00 02 04 8F 02 00 03 00")) == hex("C0 03 00 90 00 8F 01 00 90 00"))
  }

  @Test func keepsTheShortAPDULimitForFastRead() throws {
    let face = try PartThreeFace(tag: try Type2VirtualTag(chip: .ntag216))
    _ = face.transmit(hex("FF C2 00 02 04 8F 02 00 03 00"))
    let sixty = face.transmit(hex("FF C2 00 01 05 95 03 3A 00 3B 00"))                                  // 60 pages
    #expect(sixty.count == 257)
    #expect(Array(sixty.prefix(16)) == hex("C0 03 00 90 00 92 01 00 96 02 00 00 97 81 F0 04"))
    #expect(sixty.suffix(2) == [0x90, 0x00])
    #expect(face.transmit(hex("FF C2 00 01 05 95 03 3A 00 3C 00")) == hex("C0 03 01 67 00 90 00"))    // 61 pages
  }
}

// MARK: - The platform through the link, APDU by APDU

/// Replays APDUs and answers; a different APDU throws.
private final class ScriptedReader: APDUTransport {
  var script: [(apdu: [UInt8], reply: [UInt8])]
  let readerName = "ACS ACR1552 1S CL Reader PICC 00 00"
  let atr = hex("3B8F8001804F0CA000000306 03 0003 00000000 68")
  init(_ script: [(String, String)]) { self.script = script.map { (hex($0.0), hex($0.1)) } }
  func transmit(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard !script.isEmpty else { throw .unexpectedCommand(apdu, expected: nil) }
    let step = script.removeFirst()
    guard step.apdu == apdu else { throw .unexpectedCommand(apdu, expected: step.apdu) }
    return step.reply
  }
}

/// Pages 0-39 of a factory NTAG213 holding `D1 01 05 54 02 65 6E 68 69` (text "hi"), as FAST_READ returns them.
private let pages0to39 = "04A1B29F C3D4E580 72480000 E1101200 0103A00C 340309D1 01055402 656E6869 FE000000"
  + String(repeating: " 00000000", count: 31)

@Suite struct PartThreeType2Transcript {
  @Test func readsAMessageWithGetVersionAndOneFastRead() throws {
    let reader = ScriptedReader([
      ("FF C2 00 00 02 81 00 00", "C0 03 00 90 00 90 00"),                                  // start transparent session
      ("FF C2 00 02 04 8F 02 00 03 00", "C0 03 00 90 00 8F 01 00 90 00"),                   // switch: ISO 14443A layer 3
      ("FF C2 00 01 0A \(timer) 95 01 60 00",                                               // GET_VERSION
       "C0 03 00 90 00 92 01 00 96 02 00 00 97 08 0004040201000F03 90 00"),                 //   NTAG213
      ("FF C2 00 01 0C \(timer) 95 03 3A 00 27 00",                                         // FAST_READ pages 0-39
       "C0 03 00 90 00 92 01 00 96 02 00 00 97 81 A0 \(pages0to39) 90 00"),                 //   160 bytes: CC, TLVs, message
    ])
    let link = PartThreeType2Link(transport: reader)
    let platform = Type2Tag(identifier: hex("04A1B2C3D4E580"), link: link)
    #expect(try platform.readNDEF() == hex("D1 01 05 54 02 65 6E 68 69"))
    #expect(platform.chipName == "NTAG213")
    #expect(reader.script.isEmpty)
  }

  @Test func writesAMessageLengthFirstAndVerifies() throws {
    let ack = "C0 03 00 90 00 92 01 04 96 02 00 00 97 01 0A 90 00"                             // 4-bit ACK
    let reader = ScriptedReader([
      ("FF C2 00 00 02 81 00 00", "C0 03 00 90 00 90 00"),                                  // start transparent session
      ("FF C2 00 02 04 8F 02 00 03 00", "C0 03 00 90 00 8F 01 00 90 00"),                   // switch: ISO 14443A layer 3
      ("FF C2 00 01 0A \(timer) 95 01 60 00",                                               // GET_VERSION
       "C0 03 00 90 00 92 01 00 96 02 00 00 97 08 0004040201000F03 90 00"),                 //   NTAG213
      ("FF C2 00 01 0C \(timer) 95 03 3A 00 27 00",                                         // FAST_READ pages 0-39
       "C0 03 00 90 00 92 01 00 96 02 00 00 97 81 A0 04A1B29F C3D4E580 72480000 E1101200 0103A00C 340300FE"
         + String(repeating: " 00000000", count: 34) + " 90 00"),                           //   factory: empty NDEF TLV
      ("FF C2 00 01 0F \(timer) 95 06 A2 05 340300D1 00", ack),                             // WRITE page 5: length 0 first
      ("FF C2 00 01 0F \(timer) 95 06 A2 06 01055402 00", ack),                             // WRITE page 6: record
      ("FF C2 00 01 0F \(timer) 95 06 A2 07 656E6869 00", ack),                             // WRITE page 7: "enhi"
      ("FF C2 00 01 0F \(timer) 95 06 A2 08 FE000000 00", ack),                             // WRITE page 8: terminator
      ("FF C2 00 01 0F \(timer) 95 06 A2 05 340309D1 00", ack),                             // WRITE page 5: real length 9
      ("FF C2 00 01 0C \(timer) 95 03 3A 05 08 00",                                         // FAST_READ pages 5-8: verify
       "C0 03 00 90 00 92 01 00 96 02 00 00 97 10 340309D1 01055402 656E6869 FE000000 90 00"),
    ])
    let link = PartThreeType2Link(transport: reader)
    let platform = Type2Tag(identifier: hex("04A1B2C3D4E580"), link: link)
    try platform.writeNDEF(hex("D1 01 05 54 02 65 6E 68 69"), verify: true)
    #expect(reader.script.isEmpty)
    #expect(link.apduCount == 10)
  }
}

// MARK: - The whole stack: Part 3 face → detection → Type 2 platform

/// The memory as a reader sees it: PWD and PACK read as zeros (NTAG21x data sheet §8.5.7).
private func visibleMemory(_ tag: Type2VirtualTag) -> [UInt8] {
  var image = tag.memoryImage
  if let cfg0 = tag.chip.cfg0Page { image.replaceSubrange((cfg0 + 2) * 4 ..< (cfg0 + 4) * 4, with: [UInt8](repeating: 0, count: 8)) }
  return image
}

@Suite struct PartThreeType2Stack {
  @Test(arguments: [Type2Chip.ntag213, .ntag215, .ntag216])
  func identifiesReadsWritesFormatsErasesAndLocks(chip: Type2Chip) throws {
    let tag = try Type2VirtualTag(chip: chip)
    let face = try PartThreeFace(tag: tag)
    let (_, platform) = try connectPartThree(face)
    #expect(platform.platform == .type2)
    #expect(platform.identifier == tag.identifier)
    let info = try platform.info()
    #expect(info.chip == chip.productName)
    #expect(info.memorySize == chip.totalPages * 4)
    #expect(info.version == chip.version)
    let memory = try platform.readMemory()
    #expect(memory.count == chip.totalPages * 4)
    #expect(memory == visibleMemory(tag))
    #expect(try chip.productName == VirtualTagKind(rawValue: chip.rawValue)?.makeTag(image: memory).productName)

    let capacity = try platform.queryNDEFStatus().capacity
    // The NDEF TLV follows NTAG213's Lock Control TLV; NTAG215/216 start with it.
    let tlvAddress = chip == .ntag213 ? 21 : 16
    #expect(try platform.queryNDEFStatus() == NDEFStatusReport(status: .readWrite, capacity: capacity, messageLength: 0,
                                                                tlvAddress: tlvAddress))
    let text = hex("D1 01 0C 54 02 65 6E") + Array("hello NTAG".utf8)
    let url = uriMessage("https://example.org/a/rather/long/path/for/a/type/2/tag?query=1")
    for message in [text, url, longMessage(capacity - 7, seed: 3)] {
      try platform.writeNDEF(message, verify: true)
      #expect(try platform.readNDEF() == message)
      let (_, fresh) = try connectPartThree(face)
      #expect(try fresh.readNDEF() == message)
    }
    expectTooLargeChangesNothing(longMessage(capacity - 6, seed: 9), platform: platform, tag: tag)

    try platform.erase()
    #expect(try platform.readNDEF() == [])
    try platform.writeNDEF(url, verify: true)
    try platform.format()
    #expect(try platform.readNDEF() == [])

    try platform.writeNDEF(text, verify: true)
    try platform.makeReadOnly()
    let (_, fresh) = try connectPartThree(face)
    #expect(try fresh.queryNDEFStatus().status == .readOnly)
    let locked = tagError { () throws(TagError) in try fresh.writeNDEF(url, verify: true) }
    #expect(locked.map { if case .readOnly = $0 { true } else { false } } == true)
    #expect(try fresh.readNDEF() == text)
  }

  @Test func anUltralightIsActivatedAgainAfterItsMuteGetVersion() throws {
    let tag = try Type2VirtualTag(chip: .ultralight)
    let face = try PartThreeFace(tag: tag)
    let transport = SimulatedAPDUTransport(readerName: ReaderFaceKind.part3.simulatedReaderName, card: face)
    let target = try detectTarget(on: transport)
    let link = try #require(target.link as? PartThreeType2Link)
    let platform = try makePlatform(for: target)
    let message = uriMessage("https://example.org/ul")
    try platform.writeNDEF(message, verify: true)
    #expect(try platform.readNDEF() == message)
    #expect(try platform.info().chip.hasPrefix("Type 2 tag without GET_VERSION"))
    #expect(try platform.readMemory() == tag.memoryImage)
    #expect(link.transparent == true)
    #expect(face.selectedProtocol == [0x00, 0x03])
  }

  @Test func tearingNeverLeavesAPartialMessage() throws {
    let old = uriMessage("https://example.org/old/message/that/spans/several/pages")
    let new = longMessage(120, seed: 5)
    func freshTag() throws -> PartThreeFace {
      let face = try PartThreeFace(tag: try Type2VirtualTag(chip: .ntag213))
      let (_, platform) = try connectPartThree(face)
      try platform.writeNDEF(old, verify: true)
      return face
    }
    let outcomes = try tearAtEveryCommand(old: old, new: new, freshFace: freshTag)
    #expect(outcomes["old", default: 0] > 0)
    #expect(outcomes["new", default: 0] > 0)
    #expect(outcomes["empty", default: 0] > 0)
  }

  @Test func roundTripsForAFullNTAG216() throws {
    let tag = try Type2VirtualTag(chip: .ntag216)
    let face = try PartThreeFace(tag: tag)
    let capacity = try connectPartThree(face).1.queryNDEFStatus().capacity
    let maximum = longMessage(capacity - 7, seed: 1)
    #expect(maximum.count == capacity)
    do {
      let transport = SimulatedAPDUTransport(card: face)
      let target = try detectTarget(on: transport)
      let counting = CountingTransceiver(target.link)
      try Type2Tag(identifier: target.identifier, link: counting).writeNDEF(maximum, verify: true)
      print("NTAG216 write of \(capacity) bytes (transparent): \(counting.count) exchanges, \(transport.answered) APDUs; "
            + "naive: \((capacity + 4 + 3) / 4 + 2) WRITEs + one READ per page")
    }
    // Transparent exchange: GET_VERSION, then FAST_READ of 60 pages (240 bytes) at a time.
    let transport = SimulatedAPDUTransport(card: face)
    let target = try detectTarget(on: transport)
    let counting = CountingTransceiver(target.link)
    #expect(try Type2Tag(identifier: target.identifier, link: counting).readNDEF() == maximum)
    let bytes = 16 + capacity + 4                                                   // header, TLV head, message
    let ideal = (bytes + 239) / 240
    #expect(counting.count - 1 <= ideal + 1)
    print("NTAG216 read of \(capacity) bytes (transparent): \(counting.count) exchanges, \(transport.answered) APDUs; "
          + "ideal 1 + \(ideal); naive one page per command \((bytes + 3) / 4)")

    // The same tag on a Part 3 reader without transparent exchange: READ BINARY of 16 bytes.
    let mappedTransport = SimulatedAPDUTransport(card: try PartThreeFace(tag: tag, transparentExchange: false))
    let mappedTarget = try detectTarget(on: mappedTransport)
    let mapped = CountingTransceiver(mappedTarget.link)
    #expect(try Type2Tag(identifier: mappedTarget.identifier, link: mapped).readNDEF() == maximum)
    #expect(mapped.count >= (bytes + 15) / 16)
    #expect(counting.count < mapped.count)
    print("NTAG216 read of \(capacity) bytes (mapped FF B0): \(mapped.count) exchanges, \(mappedTransport.answered) APDUs")
  }
}
