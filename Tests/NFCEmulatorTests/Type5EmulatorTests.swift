import NFCReaders
import NFCTags
import NFCTestSupport
import NFCTransport
import Testing
@testable import NFCEmulator

/// The default SLIX2 UID, least significant byte first.
private let uid = hex("D4 C3 B2 A1 08 01 04 E0")

@Suite struct ICODESLIX2Commands {
  @Test func factoryContentAndSystemInformation() throws {
    let tag = try ICODESLIX2VirtualTag()
    #expect(tag.identifier == uid)
    #expect(tag.respond(to: hex("02 2B")) == .data(hex("00 0F") + uid + hex("00 00 4F 03 01")))
    #expect(tag.respond(to: hex("02 23 00 01")) == .data(hex("00 E1402701 0300FE00")))
    #expect(tag.memoryImage.count == 320)
    #expect(tag.technology == .iso15693(dsfid: 0))
  }

  @Test func inventoryWithMaskAndAFI() throws {
    let tag = try ICODESLIX2VirtualTag()
    #expect(tag.respond(to: hex("26 01 00")) == .data(hex("00 00") + uid))          // 1 slot, no mask
    #expect(tag.respond(to: hex("26 01 08 D4")) == .data(hex("00 00") + uid))       // 8-bit mask matches
    #expect(tag.respond(to: hex("26 01 08 D5")) == .mute)                          // mask differs
    #expect(tag.respond(to: hex("36 01 07 00")) == .mute)                          // AFI 07 asked, tag has 00
    #expect(tag.respond(to: hex("06 01 00")) == .mute)                             // 16 slots: not emulated
  }

  @Test func readsWithAndWithoutSecurityStatus() throws {
    let tag = try ICODESLIX2VirtualTag()
    #expect(tag.respond(to: hex("02 20 00")) == .data(hex("00 E1402701")))
    #expect(tag.respond(to: hex("42 20 00")) == .data(hex("00 00 E1402701")))       // option flag: status first
    #expect(tag.respond(to: hex("42 23 00 01")) == .data(hex("00 00 E1402701 00 0300FE00")))
    #expect(tag.respond(to: hex("02 20 50")) == .data(hex("01 10")))               // block 80: not available
    #expect(tag.respond(to: hex("02 23 4E 02")) == .data(hex("01 10")))            // 78…80
    guard case .data(let all) = tag.respond(to: hex("02 23 00 4F")) else { Issue.record("no answer"); return }
    #expect(all.count == 1 + 320)
  }

  @Test func writesLocksAndErrorCodes() throws {
    let tag = try ICODESLIX2VirtualTag()
    let generation = tag.memoryGeneration
    #expect(tag.respond(to: hex("02 21 05 01020304")) == .data(hex("00")))
    #expect(tag.memoryGeneration > generation)
    #expect(tag.respond(to: hex("02 22 05")) == .data(hex("00")))
    #expect(tag.respond(to: hex("02 21 05 09090909")) == .data(hex("01 12")))       // locked
    #expect(tag.respond(to: hex("02 22 05")) == .data(hex("01 11")))               // already locked
    #expect(tag.respond(to: hex("42 20 05")) == .data(hex("00 01 01020304")))       // status 01 = locked
    #expect(tag.respond(to: hex("02 2C 04 02")) == .data(hex("00 00 01 00")))       // security status 4-6
    #expect(tag.respond(to: hex("02 21 50 00000000")) == .data(hex("01 10")))       // no block 80
    #expect(tag.respond(to: hex("02 21 05 0102")) == .data(hex("01 0F")))           // short data
    #expect(tag.respond(to: hex("02 3F")) == .data(hex("01 01")))                   // unknown command
  }

  @Test func addressedSelectedAndQuietModes() throws {
    let tag = try ICODESLIX2VirtualTag()
    #expect(tag.respond(to: hex("22 20") + uid + hex("00")) == .data(hex("00 E1402701")))
    #expect(tag.respond(to: hex("22 20 0102030405060708 00")) == .mute)            // another UID
    #expect(tag.respond(to: hex("12 20 00")) == .mute)                            // not selected
    #expect(tag.respond(to: hex("22 25") + uid) == .data(hex("00")))                // SELECT
    #expect(tag.respond(to: hex("12 20 00")) == .data(hex("00 E1402701")))
    #expect(tag.respond(to: hex("22 02") + uid) == .mute)                          // STAY QUIET: no answer
    #expect(tag.respond(to: hex("02 20 00")) == .mute)                            // quiet
    #expect(tag.respond(to: hex("26 01 00")) == .mute)
    tag.reset()
    #expect(tag.respond(to: hex("02 20 00")) == .data(hex("00 E1402701")))
  }

  @Test func imagesRoundTripWithTheirLockState() throws {
    let tag = try ICODESLIX2VirtualTag()
    _ = tag.respond(to: hex("02 21 01 03 03 D0 00"))
    #expect(try ICODESLIX2VirtualTag(image: tag.memoryImage).memoryImage == tag.memoryImage)
    _ = tag.respond(to: hex("02 22 01"))
    _ = tag.respond(to: hex("02 27 07"))                                           // AFI 07
    let image = tag.memoryImage
    #expect(image.count == 403)
    let again = try ICODESLIX2VirtualTag(image: image)
    #expect(again.memoryImage == image)
    #expect(again.isLocked(block: 1))
    #expect(again.afi == 7)
    #expect(again.respond(to: hex("02 21 01 00000000")) == .data(hex("01 12")))
    #expect(throws: EmulatorError.self) { try ICODESLIX2VirtualTag(image: [UInt8](repeating: 0, count: 316)) }
    #expect(throws: EmulatorError.self) { try ICODESLIX2VirtualTag(uid: hex("E0 04 01 08 A1 B2 C3 D4")) }  // MSB first
    #expect(try VirtualTagKind.icodeSLIX2.makeTag(image: image).memoryImage == image)
  }
}

/// A minimal ISO-DEP or Topaz tag for the face's ATR and refusal tests.
private final class StubTag: VirtualTag {
  let technology: RFTechnology
  let platform: TagPlatform
  init(_ technology: RFTechnology, platform: TagPlatform) {
    self.technology = technology
    self.platform = platform
  }
  var identifier: [UInt8] { hex("08 11 22 33") }
  var productName: String { "stub" }
  func respond(to frame: [UInt8]) -> TagResponse { .data(hex("6A 82")) }
  func reset() {}
  var memoryImage: [UInt8] { [] }
  var memoryGeneration: Int { 0 }
}

@Suite struct PartThreeFaceTests {
  @Test func atrsPerTechnology() throws {
    let slix = try PartThreeFace(tag: try ICODESLIX2VirtualTag())
    #expect(slix.atr == hex("3B8F8001804F0CA000000306 0B 0014 00000000 77"))
    let ntag = try PartThreeFace(tag: try Type2VirtualTag(chip: .ntag213))
    #expect(ntag.atr == hex("3B8F8001804F0CA000000306 03 0003 00000000 68"))
    // DESFire-like ATS 06 75 77 81 02 80: historical bytes 80 only.
    let desfire = try PartThreeFace(tag: StubTag(.typeA(sensRes: hex("0344"), selRes: 0x20, ats: hex("067577810280")),
                                                 platform: .type4))
    #expect(desfire.atr == hex("3B 81 80 01 80 80"))
    #expect(desfire.transmit(hex("FF CA 01 00 00")) == hex("067577810280 9000"))
    #expect(desfire.transmit(hex("00 A4 04 00 07 D2760000850101 00")) == hex("6A 82"))   // passed to the tag
    #expect(throws: EmulatorError.self) {
      try PartThreeFace(tag: StubTag(.jewel(sensRes: hex("0C00"), headerROM: hex("1148")), platform: .type1))
    }
    #expect(throws: EmulatorError.self) { try ReaderFaceKind.part3.makeFace(tag: StubTag(.felica(pmm: [], systemCode: []), platform: .type3)) }
  }

  @Test func pseudoAPDUs() throws {
    let face = try PartThreeFace(tag: try ICODESLIX2VirtualTag())
    #expect(face.transmit(hex("FF CA 00 00 00")) == uid + hex("90 00"))
    #expect(face.transmit(hex("FF CA 00 00 04")) == hex("6C 08"))
    #expect(face.transmit(hex("FF CA 01 00 00")) == hex("6A 81"))
    #expect(face.transmit(hex("FF 00 48 00 00")) == hex("6A 81"))                  // not an ACR122U
    #expect(face.transmit(hex("FF 00 00 00 03 D4 42 60")) == hex("6A 81"))
    #expect(face.transmit(hex("FF B0 00 00 04")) == hex("E1402701 9000"))
    #expect(face.transmit(hex("FF B0 00 00 08")) == hex("E1402701 0300FE00 9000"))  // Le: 2 blocks
    #expect(face.transmit(hex("FF B0 00 00 03")) == hex("63 00"))                  // not a block multiple
    #expect(face.transmit(hex("FF B0 00 50 04")) == hex("63 00"))                  // no block 80
    #expect(face.transmit(hex("FF D6 00 02 04 11223344")) == hex("90 00"))
    #expect(face.transmit(hex("FF B0 00 02 00")) == hex("11223344 9000"))
    #expect(face.transmit(hex("00 A4 04 00 00")) == hex("6A 81"))
  }

  @Test func replaysTheACR1552Trace() throws {
    let face = try PartThreeFace(tag: try ICODESLIX2VirtualTag())
    #expect(face.transmit(hex("FF C2 00 00 02 81 00 00")) == hex("C0 03 00 90 00 90 00"))
    #expect(face.sessionActive)
    #expect(face.transmit(hex("FF C2 00 02 04 8F 02 02 03 00")) == hex("C0 03 00 90 00 8F 01 00 90 00"))
    #expect(face.transmit(hex("FF C2 00 01 04 95 02 02 2B 00"))
            == hex("C0 03 00 90 00 92 01 00 96 02 00 00 97 0F 00 0F") + uid + hex("00 00 4F 03 01 90 00"))
    #expect(face.transmit(hex("FF C2 00 01 05 95 03 42 20 00 00"))
            == hex("C0 03 00 90 00 92 01 00 96 02 00 00 97 06 00 00 E1402701 90 00"))
    #expect(face.transmit(hex("FF C2 00 01 10 5F 46 04 40 42 0F 00 95 07 02 21 00 00 01 02 03 00"))
            == hex("C0 03 00 90 00 92 01 00 96 02 00 00 97 01 00 90 00"))
    #expect(face.transmit(hex("FF C2 00 01 05 95 03 22 02 00 00")) == hex("C0 03 01 64 01 90 00"))  // mute: timeout
    #expect(face.transmit(hex("FF C2 00 00 02 82 00 00")) == hex("C0 03 00 90 00 90 00"))
    #expect(!face.sessionActive)
  }

  @Test func keepsTheShortAPDULimit() throws {
    let face = try PartThreeFace(tag: try ICODESLIX2VirtualTag())
    let sixty = face.transmit(hex("FF C2 00 01 06 95 04 02 23 00 3B 00"))           // 60 blocks: 241-byte answer
    #expect(sixty.count <= 258)
    #expect(sixty.suffix(2) == [0x90, 0x00])
    #expect(Array(sixty.prefix(5)) == hex("C0 03 00 90 00"))
    #expect(face.transmit(hex("FF C2 00 01 06 95 04 02 23 00 3C 00")) == hex("C0 03 01 67 00 90 00"))  // 61 blocks
    let plain = try PartThreeFace(tag: try ICODESLIX2VirtualTag(), transparentExchange: false)
    #expect(plain.transmit(hex("FF C2 00 00 02 81 00 00")) == hex("6A 81"))
  }
}

// MARK: - The whole stack: face → detection → platform

/// A short-record URI NDEF message: D1 01 len "U" 00 uri.
func uriMessage(_ uri: String) -> [UInt8] {
  let payload = [UInt8(0x00)] + Array(uri.utf8)
  return [0xD1, 0x01, UInt8(payload.count), 0x55] + payload
}

/// A text message long enough to need the 3-byte record length (`count` payload bytes).
func longMessage(_ count: Int, seed: UInt8) -> [UInt8] {
  let payload = [UInt8(0x02), 0x65, 0x6E] + (0 ..< count - 3).map { UInt8(truncatingIfNeeded: Int(seed) &+ $0 * 7) }
  return [0xC1, 0x01, 0x00, 0x00, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF), 0x54] + payload
}

@Suite struct Type5Stack {
  @Test(arguments: [true, false])
  func writesReadsFormatsErasesAndLocks(transparent: Bool) throws {
    let tag = try ICODESLIX2VirtualTag()
    let face = try PartThreeFace(tag: tag, transparentExchange: transparent)
    let (_, platform) = try connectPartThree(face)
    #expect(platform.platform == .type5)
    #expect(platform.identifier == tag.identifier.reversed())  // sent LSB first, shown MSB first (E0 first)
    let status = try platform.queryNDEFStatus()
    #expect(status == NDEFStatusReport(status: .readWrite, capacity: 308, messageLength: 0))

    let text = hex("D1 01 0C 54 02 65 6E") + Array("hello SLIX".utf8)
    let url = uriMessage("https://example.org/a/rather/long/path/for/a/vicinity/tag?query=1")
    for message in [text, url, longMessage(280, seed: 3)] {
      try platform.writeNDEF(message, verify: true)
      #expect(try platform.readNDEF() == message)
      let (_, fresh) = try connectPartThree(face)
      #expect(try fresh.readNDEF() == message)
    }
    expectTooLargeChangesNothing(longMessage(302, seed: 9), platform: platform, tag: tag, needed: 309, capacity: 308)

    try platform.erase()
    #expect(try platform.readNDEF() == [])
    try platform.writeNDEF(url, verify: true)
    try platform.format()
    #expect(try platform.readNDEF() == [])
    #expect(Array(tag.memoryImage.prefix(7)) == hex("E1402701 0300FE"))

    let memory = try platform.readMemory()
    #expect(memory == Array(tag.memoryImage.prefix(320)))
    let info = try platform.info()
    #expect(info.chip == "ICODE SLIX2 (SL2S2602)")
    #expect(info.memorySize == 320)

    try platform.writeNDEF(text, verify: true)
    try platform.makeReadOnly()
    #expect(try platform.queryNDEFStatus().status == .readOnly)
    #expect(tagError { () throws(TagError) in try platform.writeNDEF(url, verify: true) }.map { if case .readOnly = $0 { true } else { false } } == true)
    #expect(try platform.readNDEF() == text)
    #expect(Array(tag.memoryImage.prefix(4)) == hex("E1432701"))
    if transparent {
      #expect((0...78).allSatisfy { tag.isLocked(block: $0) })
      #expect(!tag.isLocked(block: 79))
      #expect(try platform.info().lockState.contains("79 of 80 blocks locked"))
    } else {
      #expect(!tag.isLocked(block: 1))
    }
  }

  @Test func formatsABlankTag() throws {
    let tag = try ICODESLIX2VirtualTag(image: [UInt8](repeating: 0, count: 320))
    let (_, platform) = try connectPartThree(try PartThreeFace(tag: tag))
    #expect(try platform.queryNDEFStatus().status == .notSupported)
    try platform.format()
    #expect(try platform.queryNDEFStatus() == NDEFStatusReport(status: .readWrite, capacity: 308, messageLength: 0))
  }

  @Test func ntagThroughThePartThreeFace() throws {
    let tag = try Type2VirtualTag(chip: .ntag213)
    let (transport, platform) = try connectPartThree(try PartThreeFace(tag: tag))
    #expect(platform.platform == .type2)
    #expect(transport.atr.count == 20)
    let message = uriMessage("https://example.org/ntag")
    try platform.writeNDEF(message, verify: true)
    let (_, fresh) = try connectPartThree(try PartThreeFace(tag: tag))
    #expect(try fresh.readNDEF() == message)
  }

  @Test(arguments: [true, false])
  func tearingNeverLeavesAPartialMessage(transparent: Bool) throws {
    let old = uriMessage("https://example.org/old/message/that/spans/several/blocks")
    let new = longMessage(200, seed: 5)
    func freshTag() throws -> PartThreeFace {
      let face = try PartThreeFace(tag: try ICODESLIX2VirtualTag(), transparentExchange: transparent)
      let (_, platform) = try connectPartThree(face)
      try platform.writeNDEF(old, verify: true)
      return face
    }
    let outcomes = try tearAtEveryCommand(old: old, new: new, freshFace: freshTag)
    #expect(outcomes["old", default: 0] > 0)
    #expect(outcomes["new", default: 0] > 0)
    #expect(outcomes["empty", default: 0] > 0)
  }

  @Test func roundTrips() throws {
    let tag = try ICODESLIX2VirtualTag()
    let face = try PartThreeFace(tag: tag)
    let maximum = longMessage(301, seed: 1)                    // 308 bytes: the whole capacity
    #expect(maximum.count == 308)
    do {
      let transport = SimulatedAPDUTransport(card: face)
      let target = try detectTarget(on: transport)
      let counting = CountingTransceiver(target.link)
      let platform = Type5Tag(identifier: target.identifier, link: counting)
      try platform.writeNDEF(maximum, verify: true)
      // GET SYSTEM INFORMATION, 2 READ MULTIPLE, 78 + 1 WRITE SINGLE BLOCK, 2 READ MULTIPLE to verify.
      #expect(counting.count == 1 + 2 + 79 + 2)
      print("Type 5 write of 308 bytes (transparent): \(counting.count) exchanges, \(transport.answered) APDUs; naive 1 + 79 + 79 + 79")
    }
    let transport = SimulatedAPDUTransport(card: face)
    let target = try detectTarget(on: transport)
    let counting = CountingTransceiver(target.link)
    let platform = Type5Tag(identifier: target.identifier, link: counting)
    #expect(try platform.readNDEF() == maximum)
    // 316 bytes (blocks 0-78) at 240 bytes per exchange: 2, plus GET SYSTEM INFORMATION.
    let ideal = (316 + 239) / 240
    #expect(counting.count - 1 <= ideal + 1)
    #expect(counting.count == 3)
    print("Type 5 read of 308 bytes (transparent): \(counting.count) exchanges, \(transport.answered) APDUs; naive 79")

    let mappedFace = try PartThreeFace(tag: tag, transparentExchange: false)
    let mappedTransport = SimulatedAPDUTransport(card: mappedFace)
    let mappedTarget = try detectTarget(on: mappedTransport)
    let mapped = CountingTransceiver(mappedTarget.link)
    #expect(try Type5Tag(identifier: mappedTarget.identifier, link: mapped).readNDEF() == maximum)
    #expect(mapped.count == 79)
    print("Type 5 read of 308 bytes (mapped READ BINARY): \(mapped.count) exchanges, \(mappedTransport.answered) APDUs")
  }
}
