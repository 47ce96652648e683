import NFCTags
import NFCTestSupport
import NFCTransport
import Testing

private let topazUID = hex("5A 6F 1E 2D 00 00 00")
private let uid4 = "5A 6F 1E 2D"
/// Block 0 of the test tags: UID0-UID6, reserved.
private let block0 = hex("5A 6F 1E 2D 00 00 00 00")

/// `count` blocks of zeros.
private func zeroBlocks(_ count: Int) -> [UInt8] { [UInt8](repeating: 0, count: count * 8) }

@Suite struct Type1TranscriptTests {
  @Test func readsElephantFromATopaz512InOneRALL() throws {
    let link = EmbeddedTransceiver([
      (hex("00 00 00 \(uid4)"), .success(hex("12 4C")           // RALL: HR0 HR1 = Topaz 512
        + block0                                                 // block 0: UID
        + hex("E1 10 3F 00 01 03 F2 30")                         // block 1: CC (512 bytes), Lock Control TLV…
        + hex("33 02 03 F0 02 03 03 0F")                         // block 2: …(48 bits at 122), Memory Control TLV (120, 2), NDEF TLV(15)
        + hex("D1 01 0B 54 02 65 6E 65")                         // block 3: D1 01 0B "T" 02 "en" "e"
        + hex("6C 65 70 68 61 6E 74 FE")                         // block 4: "lephant", Terminator
        + zeroBlocks(10))),                                      // blocks 5-E: empty, reserved, lock/OTP
    ])
    let tag = Type1Tag(identifier: topazUID, link: link)
    #expect(try tag.readNDEF() == hex("D1 01 0B 54 02 65 6E 65 6C 65 70 68 61 6E 74"))
    #expect(tag.chipName == "Topaz 512 (BCM20203T512)")
    #expect(link.finish() == .clean)
  }

  @Test func readsAMessageIntoDynamicMemoryWithREAD8() throws {
    // A 100-byte MIME record: NDEF TLV at 22, message bytes 24-103 then (104-127 reserved) 128-147.
    let message = hex("D2 0A 5A") + Array("text/plain".utf8) + (0..<87).map { UInt8($0) }
    try #require(message.count == 100)
    var image = block0 + hex("E1 10 3F 00 01 03 F2 30 33 02 03 F0 02 03 03 64") + message.prefix(80)
    image += zeroBlocks(3) + Array(message.dropFirst(80)) + [0xFE]
    image += [UInt8](repeating: 0, count: 512 - image.count)
    try #require(image.count == 512)
    let link = EmbeddedTransceiver([
      (hex("00 00 00 \(uid4)"), .success(hex("12 4C") + Array(image[0..<120]))),  // RALL: CC, TLVs, message bytes 0-79
      (hex("02 10 0000000000000000 \(uid4)"), .success([0x10] + Array(image[128..<136]))),  // READ8 block 10h: bytes 80-87
      (hex("02 11 0000000000000000 \(uid4)"), .success([0x11] + Array(image[136..<144]))),  // READ8 block 11h: bytes 88-95
      (hex("02 12 0000000000000000 \(uid4)"), .success([0x12] + Array(image[144..<152]))),  // READ8 block 12h: bytes 96-99
    ], capabilities: .init(maxResponseLength: 122, maxCommandLength: 14, rawCommands: true))  // an ACR122U's PN532
    let tag = Type1Tag(identifier: topazUID, link: link)
    #expect(try tag.readNDEF() == message)
    #expect(link.finish() == .clean)

    // A link that carries RSEG's 129-byte answer reads segment 1 at once.
    let native = EmbeddedTransceiver([
      (hex("00 00 00 \(uid4)"), .success(hex("12 4C") + Array(image[0..<120]))),  // RALL
      (hex("10 10 0000000000000000 \(uid4)"), .success([0x10] + Array(image[128..<256]))),  // RSEG segment 1: bytes 128-255
    ])
    #expect(try Type1Tag(identifier: topazUID, link: native).readNDEF() == message)
    #expect(native.finish() == .clean)
  }

  @Test func writesElephantToAStaticTopazByteByByte() throws {
    let link = EmbeddedTransceiver([
      (hex("00 00 00 \(uid4)"), .success(hex("11 48")            // RALL: HR0 HR1 = Topaz (static)
        + block0                                                 // block 0: UID
        + hex("E1 10 0E 00 03 00 00 00")                         // block 1: CC (120 bytes), empty NDEF TLV
        + zeroBlocks(13))),                                      // blocks 2-E
      (hex("53 0E D1 \(uid4)"), .success(hex("0E D1"))),         // WRITE-E 14: record header
      (hex("53 0F 01 \(uid4)"), .success(hex("0F 01"))),         // WRITE-E 15: type length
      (hex("53 10 0B \(uid4)"), .success(hex("10 0B"))),         // WRITE-E 16: payload length
      (hex("53 11 54 \(uid4)"), .success(hex("11 54"))),         // WRITE-E 17: "T"
      (hex("53 12 02 \(uid4)"), .success(hex("12 02"))),         // WRITE-E 18: status byte
      (hex("53 13 65 \(uid4)"), .success(hex("13 65"))),         // WRITE-E 19: "e"
      (hex("53 14 6E \(uid4)"), .success(hex("14 6E"))),         // WRITE-E 20: "n"
      (hex("53 15 65 \(uid4)"), .success(hex("15 65"))),         // WRITE-E 21: "e"
      (hex("53 16 6C \(uid4)"), .success(hex("16 6C"))),         // WRITE-E 22: "l"
      (hex("53 17 65 \(uid4)"), .success(hex("17 65"))),         // WRITE-E 23: "e"
      (hex("53 18 70 \(uid4)"), .success(hex("18 70"))),         // WRITE-E 24: "p"
      (hex("53 19 68 \(uid4)"), .success(hex("19 68"))),         // WRITE-E 25: "h"
      (hex("53 1A 61 \(uid4)"), .success(hex("1A 61"))),         // WRITE-E 26: "a"
      (hex("53 1B 6E \(uid4)"), .success(hex("1B 6E"))),         // WRITE-E 27: "n"
      (hex("53 1C 74 \(uid4)"), .success(hex("1C 74"))),         // WRITE-E 28: "t"
      (hex("53 1D FE \(uid4)"), .success(hex("1D FE"))),         // WRITE-E 29: Terminator TLV
      (hex("53 0D 0F \(uid4)"), .success(hex("0D 0F"))),         // WRITE-E 13: the NDEF length, last
    ])
    let tag = Type1Tag(identifier: topazUID, link: link)
    try tag.writeNDEF(hex("D1 01 0B 54 02 65 6E 65 6C 65 70 68 61 6E 74"), verify: true)
    #expect(link.finish() == .clean)
  }

  @Test func replacesAMessageOnATopaz512BlockByBlockLengthFirstAndLast() throws {
    let link = EmbeddedTransceiver([
      (hex("00 00 00 \(uid4)"), .success(hex("12 4C")           // RALL: Topaz 512
        + block0                                                 // block 0: UID
        + hex("E1 10 3F 00 01 03 F2 30")                         // block 1: CC, Lock Control TLV
        + hex("33 02 03 F0 02 03 03 03")                         // block 2: …, Memory Control TLV, NDEF TLV(3)
        + hex("D0 00 00 FE 00 00 00 00")                         // block 3: an empty record, Terminator
        + zeroBlocks(11))),                                      // blocks 4-E
      (hex("54 02 33 02 03 F0 02 03 03 00 \(uid4)"),             // WRITE-E8 block 2: NDEF length 00 first
       .success(hex("02 33 02 03 F0 02 03 03 00"))),
      (hex("54 03 D1 01 0B 54 02 65 6E 65 \(uid4)"),             // WRITE-E8 block 3: D1 01 0B "T" 02 "en" "e"
       .success(hex("03 D1 01 0B 54 02 65 6E 65"))),
      (hex("54 04 6C 65 70 68 61 6E 74 FE \(uid4)"),             // WRITE-E8 block 4: "lephant", Terminator
       .success(hex("04 6C 65 70 68 61 6E 74 FE"))),
      (hex("54 02 33 02 03 F0 02 03 03 0F \(uid4)"),             // WRITE-E8 block 2: the real length, last
       .success(hex("02 33 02 03 F0 02 03 03 0F"))),
    ])
    let tag = Type1Tag(identifier: topazUID, link: link)
    try tag.writeNDEF(hex("D1 01 0B 54 02 65 6E 65 6C 65 70 68 61 6E 74"), verify: true)
    #expect(link.finish() == .clean)
  }

  @Test func aShortRALLAnswerIsAnErrorNotATrap() throws {
    let link = EmbeddedTransceiver([
      (hex("00 00 00 \(uid4)"), .success(hex("12 4C 5A 6F"))),  // RALL answered with 4 bytes only
    ])
    let tag = Type1Tag(identifier: topazUID, link: link)
    #expect(throws: TagError.self) { try tag.readNDEF() }
  }

  @Test func aTLVPastTheEndIsMalformed() throws {
    let link = EmbeddedTransceiver([
      (hex("00 00 00 \(uid4)"), .success(hex("11 48") + block0  // RALL: static Topaz
        + hex("E1 10 0E 00 03 FE 00 00")                         // block 1: NDEF TLV claiming 254 bytes
        + zeroBlocks(13))),
    ])
    let tag = Type1Tag(identifier: topazUID, link: link)
    let error = tagError { () throws(TagError) in _ = try tag.readNDEF() }
    guard case .malformed? = error else { Issue.record("expected malformed, got \(String(describing: error))"); return }
  }

  @Test func aWriteEchoThatDiffersFailsVerification() throws {
    let link = EmbeddedTransceiver([
      (hex("00 00 00 \(uid4)"), .success(hex("11 48") + block0 + hex("E1 10 0E 00 03 00 00 00") + zeroBlocks(13))),
      (hex("53 0E D0 \(uid4)"), .success(hex("0E 00"))),         // WRITE-E 14: the tag kept 00
    ])
    let tag = Type1Tag(identifier: topazUID, link: link)
    let error = tagError { () throws(TagError) in try tag.writeNDEF(hex("D0 00 00"), verify: true) }
    guard case .verifyFailed(let address)? = error else { Issue.record("got \(String(describing: error))"); return }
    #expect(address == 14)
  }
}
