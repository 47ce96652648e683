import NFCTags
import NFCTestSupport
import NFCTransport
import Testing

let ntag213Version = hex("00 04 04 02 01 00 0F 03")
let ntag216Version = hex("00 04 04 02 01 00 13 03")
/// The "elephant" Text record (NXP community "NFC Tags Memory Explanation"): D1 01 0B "T" 02 "en" "elephant".
let elephant = hex("D1 01 0B 54 02 65 6E 65 6C 65 70 68 61 6E 74")
let uidPages = hex("046F12F1 8A5C4D80")                      // pages 0-1: UID 04 6F 12 8A 5C 4D 80 with BCCs
let uid = hex("04 6F 12 8A 5C 4D 80")

@Suite struct Type2ReadTests {
  @Test func readsElephantTextFromNTAG213() throws {
    let link = EmbeddedTransceiver([
      (hex("60"), .success(ntag213Version)),                     // GET_VERSION: NTAG213
      (hex("3A 00 27"), .success(uidPages                         // FAST_READ of the user area
        + hex("1B480000 E1101200")                                // pages 2-3: lock bytes 00 00, CC: 144 bytes
        + hex("030FD101 0B540265 6E656C65 7068616E")              // pages 4-7: NDEF TLV(15) D1 01 0B "T" 02 "en" "elephant"
        + hex("74FE0000")                                         // page 8: "t", Terminator
        + zeroPages(31))),                                        // pages 9-27: empty
    ])
    let tag = Type2Tag(identifier: uid, link: link)
    #expect(try tag.readNDEF() == elephant)
    #expect(tag.product == .ntag213)
    #expect(link.finish() == .clean)
  }

  @Test func readsA868ByteMessageFromNTAG216InFiveExchanges() throws {
    let message = [0xC2, 0x0A, 0x00, 0x00, 0x03, 0x52] + Array("text/plain".utf8)  // MIME record, 850-byte payload
      + (0..<852).map { UInt8(truncatingIfNeeded: $0 * 7) }
    try #require(message.count == 868)
    var image = uidPages + hex("1B480000 E1106D00")               // CC: 872-byte data area
    image += hex("03FF0364") + message                            // NDEF TLV, 3-byte length 0364
    image += zeroPages(231 - image.count / 4)
    try #require(image.count == 231 * 4)
    let script = EmbeddedTransceiver([
      (hex("60"), .success(ntag216Version)),                     // GET_VERSION: NTAG216
      (hex("3A 00 3F"), .success(pages(image, 0x00...0x3F))),    // CC, TLV header and the first 236 message bytes
      (hex("3A 40 7F"), .success(pages(image, 0x40...0x7F))),    // message bytes
      (hex("3A 80 BF"), .success(pages(image, 0x80...0xBF))),    // message bytes
      (hex("3A C0 DD"), .success(pages(image, 0xC0...0xDD))),    // up to the last message byte (887, page DD)
    ])
    let link = CountingTransceiver(script)
    let tag = Type2Tag(identifier: uid, link: link)
    #expect(try tag.readNDEF() == message)
    #expect(link.count <= 6)
    #expect(link.count == 5)
    #expect(script.finish() == .clean)
  }

  @Test func readsThroughALinkWithoutRawCommands() throws {
    let link = EmbeddedTransceiver([
      (hex("30 00"), .success(uidPages + hex("1B480000 E1101200"))),        // READ 0: UID, lock bytes, CC: 144 bytes
      (hex("30 04"), .success(hex("030FD101 0B540265 6E656C65 7068616E"))), // READ 4: NDEF TLV(15) ... "phan"
      (hex("30 08"), .success(hex("74FE0000 00000000 00000000 00000000"))), // READ 8: "t", Terminator
    ], capabilities: .init(maxResponseLength: 16, maxCommandLength: 16, rawCommands: false))
    let tag = Type2Tag(identifier: uid, link: link)
    #expect(try tag.readNDEF() == elephant)
    #expect(tag.product == nil)
    #expect(link.finish() == .clean)
  }

  @Test func fallsBackToREADWhenGetVersionIsNotAnswered() throws {
    let link = EmbeddedTransceiver([
      (hex("60"), .failure(.timeout)),                                      // GET_VERSION: no answer (MF0ICU1)
      (hex("30 00"), .success(uidPages + hex("1B480000 E1100600"))),        // READ 0: CC: 48 bytes
      (hex("30 04"), .success(hex("0303D000 00FE0000 00000000 00000000"))), // READ 4: NDEF TLV(3): empty record
    ])
    let tag = Type2Tag(identifier: uid, link: link)
    #expect(try tag.readNDEF() == hex("D0 00 00"))
    #expect(tag.chipName.contains("without GET_VERSION"))
    #expect(link.finish() == .clean)
  }

  @Test func rejectsAnNDEFTLVPastTheDataArea() throws {
    let link = EmbeddedTransceiver([
      (hex("60"), .success(ntag213Version)),                                // GET_VERSION: NTAG213
      (hex("3A 00 27"), .success(uidPages + hex("1B480000 E1101200")        // CC: 144 bytes
        + hex("03FF0100") + zeroPages(35))),                                // NDEF TLV claims 256 bytes
    ])
    let tag = Type2Tag(identifier: uid, link: link)
    let error = tagError { () throws(TagError) in _ = try tag.readNDEF() }
    guard case .malformed(_, let offset)? = error else { Issue.record("expected malformed, got \(String(describing: error))"); return }
    #expect(offset == 0)
    #expect(link.finish() == .clean)
  }

  @Test func rejectsAReplyOfTheWrongLength() throws {
    let link = EmbeddedTransceiver([
      (hex("30 00"), .success(uidPages + hex("1B480000"))),                 // READ 0: only 12 bytes
    ], capabilities: .init(maxResponseLength: 16, maxCommandLength: 16, rawCommands: false))
    let tag = Type2Tag(identifier: uid, link: link)
    let error = tagError { () throws(TagError) in _ = try tag.readNDEF() }
    guard case .transceive(.malformedResponse, let command, let address)? = error else {
      Issue.record("expected a malformed response, got \(String(describing: error))"); return
    }
    #expect(command == "READ")
    #expect(address == 0)
    #expect(link.finish() == .clean)
  }

  @Test func reportsStatusAndCapacity() throws {
    let link = EmbeddedTransceiver([
      (hex("60"), .success(ntag213Version)),                                // GET_VERSION: NTAG213
      (hex("3A 00 27"), .success(uidPages + hex("1B480000 E1101200")        // CC: 144 bytes
        + hex("0103A00C 340300FE") + zeroPages(34))),                       // Lock Control TLV, empty NDEF, Terminator
    ])
    let tag = Type2Tag(identifier: uid, link: link)
    let report = try tag.queryNDEFStatus()
    #expect(report.status == .readWrite)
    #expect(report.capacity == 137)                                         // 144 - 5 (Lock Control) - 2 (TLV header)
    #expect(report.messageLength == 0)
    #expect(link.finish() == .clean)
  }

  @Test func reportsNotSupportedForABlankCC() throws {
    let link = EmbeddedTransceiver([
      (hex("60"), .success(ntag213Version)),                                // GET_VERSION: NTAG213
      (hex("3A 00 27"), .success(uidPages + hex("1B480000 00000000") + zeroPages(36))), // CC empty
    ])
    let tag = Type2Tag(identifier: uid, link: link)
    #expect(try tag.queryNDEFStatus().status == .notSupported)
    #expect(link.finish() == .clean)
  }

  @Test func reportsReadOnlyWhenStaticLockBitsAreSet() throws {
    let link = EmbeddedTransceiver([
      (hex("60"), .success(ntag213Version)),                                // GET_VERSION: NTAG213
      (hex("3A 00 27"), .success(uidPages + hex("1B48F0FF E1101200")        // static lock bytes F0 FF
        + hex("0300FE00") + zeroPages(35))),                                // empty NDEF
    ])
    let tag = Type2Tag(identifier: uid, link: link)
    #expect(try tag.queryNDEFStatus().status == .readOnly)
    #expect(link.finish() == .clean)
  }
}

@Suite struct Type2WriteTests {
  /// GET_VERSION and the user-area read of an NTAG213 holding `data` from page 4.
  func opening(_ data: [UInt8], cc: String = "E1101200", lock: String = "1B480000") -> [EmbeddedTransceiver.Step] {
    [
      (hex("60"), .success(ntag213Version)),                                // GET_VERSION: NTAG213
      (hex("3A 00 27"), .success(uidPages + hex(lock + cc) + data + zeroPages(36 - data.count / 4))), // user area
    ]
  }
  let elephantPages = hex("030FD101 0B540265 6E656C65 7068616E 74FE0000")

  @Test func writesTearSafely() throws {
    let link = EmbeddedTransceiver(opening(hex("0300FE00")) + [            // empty NDEF now
      (hex("A2 04 0300D101"), .success([0x0A])),                            // NDEF TLV length 00 first (+ record start)
      (hex("A2 05 0B540265"), .success([0x0A])),                            // data
      (hex("A2 06 6E656C65"), .success([0x0A])),                            // data
      (hex("A2 07 7068616E"), .success([0x0A])),                            // data
      (hex("A2 08 74FE0000"), .success([0x0A])),                            // data, Terminator
      (hex("A2 04 030FD101"), .success([0x0A])),                            // the length, last
      (hex("3A 04 08"), .success(elephantPages)),                           // read-back of pages 4-8
    ])
    let tag = Type2Tag(identifier: uid, link: link)
    try tag.writeNDEF(elephant, verify: true)
    #expect(link.finish() == .clean)
  }

  @Test func writesThroughALinkWithoutRawCommands() throws {
    let link = EmbeddedTransceiver([
      (hex("30 00"), .success(uidPages + hex("1B480000 E1100600"))),        // READ 0: CC: 48 bytes
      (hex("30 04"), .success(hex("0300FE00") + zeroPages(3))),             // READ 4: empty NDEF
      (hex("A2 04 0300D000"), .success([0x0A])),                            // length 00 first
      (hex("A2 05 00FE0000"), .success([0x0A])),                            // data, Terminator
      (hex("A2 04 0303D000"), .success([0x0A])),                            // length 03 last
      (hex("30 04"), .success(hex("0303D000 00FE0000") + zeroPages(2))),    // read-back with READ
    ], capabilities: .init(maxResponseLength: 16, maxCommandLength: 16, rawCommands: false))
    let tag = Type2Tag(identifier: uid, link: link)
    try tag.writeNDEF(hex("D0 00 00"), verify: true)
    #expect(link.finish() == .clean)
  }

  @Test func formatOfAFormattedTagEmptiesTheMessage() throws {
    let fake = FakeType2Tag(image: try loadFixture("ntag213-elephant"), version: ntag213Version)
    let tag = Type2Tag(identifier: uid, link: fake)
    try tag.format()
    #expect(try tag.readNDEF() == [])
    #expect(fake.writes == [hex("A2 04 0300FE01")])                         // one page, CC untouched
  }

  @Test func skipsUnchangedPages() throws {
    var elephanx = elephant
    elephanx[elephanx.count - 1] = 0x78                                      // "elephanx"
    let link = EmbeddedTransceiver(opening(elephantPages) + [
      (hex("A2 04 0300D101"), .success([0x0A])),                            // length 00
      (hex("A2 08 78FE0000"), .success([0x0A])),                            // the only changed data page
      (hex("A2 04 030FD101"), .success([0x0A])),                            // the length again
      (hex("3A 04 08"), .success(hex("030FD101 0B540265 6E656C65 7068616E 78FE0000"))), // read-back
    ])
    let tag = Type2Tag(identifier: uid, link: link)
    try tag.writeNDEF(elephanx, verify: true)
    #expect(link.finish() == .clean)
  }

  @Test func writesNothingWhenTheMessageIsUnchanged() throws {
    let link = EmbeddedTransceiver(opening(elephantPages))
    let tag = Type2Tag(identifier: uid, link: link)
    try tag.writeNDEF(elephant, verify: true)
    #expect(link.received.count == 2)
    #expect(link.finish() == .clean)
  }

  @Test func failsWhenTheReadBackDiffers() throws {
    var elephanx = elephant
    elephanx[elephanx.count - 1] = 0x78
    let link = EmbeddedTransceiver(opening(elephantPages) + [
      (hex("A2 04 0300D101"), .success([0x0A])),                            // length 00
      (hex("A2 08 78FE0000"), .success([0x0A])),                            // changed page
      (hex("A2 04 030FD101"), .success([0x0A])),                            // length
      (hex("3A 04 08"), .success(elephantPages)),                           // read-back: page 8 still "t"
    ])
    let tag = Type2Tag(identifier: uid, link: link)
    let error = tagError { () throws(TagError) in try tag.writeNDEF(elephanx, verify: true) }
    guard case .verifyFailed(let address)? = error else { Issue.record("expected verifyFailed, got \(String(describing: error))"); return }
    #expect(address == 32)
    #expect(link.finish() == .clean)
  }

  @Test func skipsTheReadBackWhenAsked() throws {
    let link = EmbeddedTransceiver(opening(elephantPages) + [
      (hex("A2 04 0300FE01"), .success([0x0A])),                            // empty NDEF, Terminator: one page
    ])
    let tag = Type2Tag(identifier: uid, link: link)
    try tag.writeNDEF([], verify: false)
    #expect(link.finish() == .clean)
  }

  @Test func refusesAMessageThatDoesNotFitBeforeWriting() throws {
    let link = EmbeddedTransceiver(opening(hex("0300FE00")))
    let tag = Type2Tag(identifier: uid, link: link)
    let error = tagError { () throws(TagError) in try tag.writeNDEF([UInt8](repeating: 0x41, count: 150), verify: true) }
    guard case .insufficientCapacity(let needed, let capacity)? = error else {
      Issue.record("expected insufficientCapacity, got \(String(describing: error))"); return
    }
    #expect(needed == 150)
    #expect(capacity == 142)
    #expect(!link.received.contains { $0.first == 0xA2 })
    #expect(link.finish() == .clean)
  }

  @Test func refusesToWriteAReadOnlyTag() throws {
    let link = EmbeddedTransceiver(opening(elephantPages, cc: "E110120F"))  // CC write access 0F
    let tag = Type2Tag(identifier: uid, link: link)
    let error = tagError { () throws(TagError) in try tag.writeNDEF(hex("D00000"), verify: true) }
    guard case .readOnly? = error else { Issue.record("expected readOnly, got \(String(describing: error))"); return }
    #expect(!link.received.contains { $0.first == 0xA2 })
    #expect(link.finish() == .clean)
  }

  /// The length-only erase (`erase --fast`): one page.
  @Test func erasesWithOnePageWrite() throws {
    let link = EmbeddedTransceiver(opening(elephantPages) + [
      (hex("A2 04 0300FE01"), .success([0x0A])),                            // empty NDEF TLV + Terminator
      (hex("3A 04 04"), .success(hex("0300FE01"))),                         // read-back
    ])
    let tag = Type2Tag(identifier: uid, link: link)
    try tag.erase(overwritingOldMessage: false)
    #expect(link.finish() == .clean)
  }

  @Test func formatsABlankNTAG213AsShipped() throws {
    let link = EmbeddedTransceiver([
      (hex("60"), .success(ntag213Version)),                                // GET_VERSION: NTAG213
      (hex("3A 00 27"), .success(uidPages + hex("1B480000 00000000") + zeroPages(36))), // blank CC and data
      (hex("A2 04 0103A00C"), .success([0x0A])),                            // Lock Control TLV: 12 bits at byte 160
      (hex("A2 05 340300FE"), .success([0x0A])),                            // ... empty NDEF TLV, Terminator
      (hex("A2 03 E1101200"), .success([0x0A])),                            // CC last: NDEF 1.0, 144 bytes
    ])
    let tag = Type2Tag(identifier: uid, link: link)
    try tag.format()
    #expect(link.finish() == .clean)
  }

  @Test func formatsABlankUltralightByProbing() throws {
    final class Reselecting: Transceiver, TargetReselecting {
      let base: EmbeddedTransceiver
      var reselects = 0
      init(_ base: EmbeddedTransceiver) { self.base = base }
      var capabilities: LinkCapabilities { base.capabilities }
      func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] { try base.transceive(command) }
      func reselect() throws(TransceiveError) { reselects += 1 }
    }
    let script = EmbeddedTransceiver([
      (hex("60"), .failure(.timeout)),                                      // GET_VERSION: mute (MF0ICU1)
      (hex("30 00"), .success(uidPages + hex("1B480000 00000000"))),        // READ 0: blank CC
      (hex("30 10"), .failure(.nak(0))),                                    // probe page 10h: no such page
      (hex("30 04"), .success(zeroPages(4))),                               // READ 4: blank data
      (hex("A2 04 0300FE00"), .success([0x0A])),                            // empty NDEF TLV, Terminator
      (hex("A2 03 E1100600"), .success([0x0A])),                            // CC: 48 bytes
    ])
    let link = Reselecting(script)
    let tag = Type2Tag(identifier: uid, link: link)
    try tag.format()
    #expect(link.reselects == 2)                                            // after GET_VERSION and after the probe
    #expect(script.finish() == .clean)
  }

  @Test func locksCCDynamicAndStaticLockBytes() throws {
    let link = EmbeddedTransceiver(opening(elephantPages) + [
      (hex("A2 03 E110120F"), .success([0x0A])),                            // CC write access 0F
      (hex("3A 28 28"), .success(hex("000000BD"))),                         // dynamic lock page
      (hex("A2 28 FFFFFFBD"), .success([0x0A])),                            // dynamic lock bytes set
      (hex("A2 02 1B48FFFF"), .success([0x0A])),                            // static lock bytes last
    ])
    let tag = Type2Tag(identifier: uid, link: link)
    try tag.makeReadOnly()
    #expect(link.finish() == .clean)
  }

  @Test func authenticatesWithAPassword() throws {
    let link = EmbeddedTransceiver([
      (hex("1B 01020304"), .success(hex("ABCD"))),                          // PWD_AUTH: PACK AB CD
      (hex("1B 00000000"), .failure(.nak(0))),                              // wrong password
    ])
    let tag = Type2Tag(identifier: uid, link: link, product: .ntag213)
    #expect(try tag.authenticate(password: hex("01020304")) == hex("ABCD"))
    let error = tagError { () throws(TagError) in _ = try tag.authenticate(password: hex("00000000")) }
    guard case .authenticationFailed? = error else { Issue.record("expected authenticationFailed"); return }
    #expect(link.finish() == .clean)
  }

  @Test func setsThePasswordWithAUTH0Last() throws {
    let link = EmbeddedTransceiver([
      (hex("60"), .success(ntag213Version)),                                // GET_VERSION: NTAG213
      (hex("3A 29 2A"), .success(hex("040000FF 00050000"))),                // CFG0 (AUTH0 FF), CFG1
      (hex("A2 2B 01020304"), .success([0x0A])),                            // PWD
      (hex("A2 2C ABCD0000"), .success([0x0A])),                            // PACK
      (hex("A2 2A 80050000"), .success([0x0A])),                            // CFG1: PROT (reads too)
      (hex("A2 29 04000010"), .success([0x0A])),                            // CFG0: AUTH0 = 10h, last
    ])
    let tag = Type2Tag(identifier: uid, link: link)
    try tag.setPassword(hex("01020304"), pack: hex("ABCD"), protectFrom: 0x10, protectReads: true)
    #expect(link.finish() == .clean)
  }
}

@Suite struct Type2FixtureTests {
  @Test func readsTheNTAG213Dump() throws {
    let image = try loadFixture("ntag213-elephant")
    try #require(image.count == 45 * 4)
    let fake = FakeType2Tag(image: image, version: ntag213Version)
    let tag = Type2Tag(identifier: uid, link: fake)
    #expect(try tag.readNDEF() == elephant)
    #expect(try tag.readMemory() == image)
    let info = try tag.info()
    #expect(info.chip == "NTAG213")
    #expect(info.memorySize == 180)
    #expect(info.capabilityContainer == hex("E1101200"))
    #expect(info.lockState.contains("static lock bytes 00 00 (none set)"))
    #expect(info.ndef.messageLength == 15)
  }

  @Test func writesAndReadsBackALongMessageOnTheNTAG215Dump() throws {
    let image = try loadFixture("ntag215-empty")
    try #require(image.count == 135 * 4)
    let fake = FakeType2Tag(image: image, version: hex("00 04 04 02 01 00 11 03"))
    let tag = Type2Tag(identifier: uid, link: fake)
    #expect(try tag.queryNDEFStatus().capacity == 492)
    let message = (0..<300).map { UInt8(truncatingIfNeeded: $0) }
    try tag.writeNDEF(message, verify: true)
    #expect(Array(fake.memory[16..<20]) == hex("03FF012C"))                 // 3-byte length 012C
    #expect(fake.memory[20 + 300] == 0xFE)                                  // Terminator after the message
    #expect(try tag.readNDEF() == message)
    #expect(Array(fake.memory[(0x82 * 4)..<(0x87 * 4)]) == Array(image[(0x82 * 4)..<(0x87 * 4)])) // footer untouched
  }

  @Test func detectsAFailedWriteOnTheDump() throws {
    let fake = FakeType2Tag(image: try loadFixture("ntag215-empty"), version: hex("00 04 04 02 01 00 11 03"))
    fake.brokenPage = 5
    let tag = Type2Tag(identifier: uid, link: fake)
    let error = tagError { () throws(TagError) in try tag.writeNDEF(elephant, verify: true) }
    guard case .verifyFailed(let address)? = error else { Issue.record("expected verifyFailed"); return }
    #expect(address / 4 == 5)
  }
}
