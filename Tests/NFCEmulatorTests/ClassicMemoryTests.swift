import Foundation
import NFCEmulator
import NFCTags
import NFCTestSupport
import NFCTransport
import Testing

private let uid: [UInt8] = [0xA1, 0xB2, 0xC3, 0xD4]
private let ff = MIFAREClassicVirtualTag.factoryKey

private func authenticate(_ tag: MIFAREClassicVirtualTag, block: UInt8, key: UInt8 = 0x60) -> TagResponse {
  tag.respond(to: [key, block] + ff + Array(tag.identifier.suffix(4)))
}

/// The card refused the last command, so it is silent until it is selected again (NXP AN1304
/// §6.4.1): the authentication at `block` is mute, then, after ``MIFAREClassicVirtualTag/reset()``,
/// answered.
private func reselectAndAuthenticate(_ tag: MIFAREClassicVirtualTag, block: UInt8,
                                     sourceLocation: SourceLocation = #_sourceLocation) {
  #expect(authenticate(tag, block: block) == .mute, "silent after the refusal", sourceLocation: sourceLocation)
  tag.reset()
  #expect(authenticate(tag, block: block) == .ack, "selected again", sourceLocation: sourceLocation)
}

/// Chips, the factory state and block 0 (NXP MF1S20yyX, MF1S50yyX, MF1S70yyX §8.6, §9.4).
@Suite struct ClassicChipTests {
  @Test func sizesAndIdentification() throws {
    let cases: [(MIFAREClassicChip, Int, [UInt8], [UInt8], UInt8)] = [
      (.mini, 320, hex("00 04"), hex("00 44"), 0x09),
      (.classic1K, 1024, hex("00 04"), hex("00 44"), 0x08),
      (.classic4K, 4096, hex("00 02"), hex("00 42"), 0x18),
    ]
    for (chip, size, atqa4, atqa7, sak) in cases {
      let nuid = try MIFAREClassicVirtualTag(chip: chip, uid: uid)
      #expect(nuid.memoryImage.count == size)
      #expect(nuid.technology == .typeA(sensRes: atqa4, selRes: sak, ats: nil))
      let seven = try MIFAREClassicVirtualTag(chip: chip, uid: hex("04 11 22 33 44 55 66"))
      #expect(seven.technology == .typeA(sensRes: atqa7, selRes: sak, ats: nil))
    }
    #expect(MIFAREClassicChip.classic4K.blockCount == 256)
    #expect(MIFAREClassicChip.classic4K.trailer(of: 39) == 255)
    #expect(MIFAREClassicChip.classic4K.sector(of: 143) == 32)
    #expect(throws: EmulatorError.self) { try MIFAREClassicVirtualTag(chip: .classic1K, uid: hex("01 02 03")) }
  }

  /// Block 0: NUID, BCC, SAK, ATQA (least significant byte first), manufacturer data; every
  /// trailer `FF…FF FF 07 80 69 FF…FF` (§8.6.3).
  @Test func factoryContent() throws {
    let tag = try MIFAREClassicVirtualTag(chip: .classic4K, uid: uid)
    let block0 = try #require(tag.storedBlock(0))
    #expect(Array(block0[0..<8]) == hex("A1 B2 C3 D4 04 18 02 00"))  // BCC A1^B2^C3^D4 = 04
    for sector in 0..<40 {
      #expect(tag.storedBlock(MIFAREClassicChip.classic4K.trailer(of: sector)) == hex("FFFFFFFFFFFF FF078069 FFFFFFFFFFFF"))
    }
    #expect(tag.accessConditions(sector: 39) == .transport)
  }

  /// Block 0 is read-only whatever the access bits say (§8.6.1); a transfer cannot reach it.
  @Test func manufacturerBlockIsReadOnly() throws {
    let tag = try MIFAREClassicVirtualTag(chip: .classic1K, uid: uid)
    let block0 = try #require(tag.storedBlock(0))
    #expect(authenticate(tag, block: 0) == .ack)
    #expect(tag.respond(to: [0x30, 0x00]) == .data(block0))
    #expect(tag.respond(to: [0xA0, 0x00] + [UInt8](repeating: 0x11, count: 16)) == .nak(0x04))
    #expect(tag.storedBlock(0) == block0)
    reselectAndAuthenticate(tag, block: 0)
    #expect(tag.respond(to: [0xA0, 0x01] + MIFAREClassicVirtualTag.valueBlock(5, address: 1)) == .ack)
    #expect(tag.respond(to: [0xC2, 0x01, 0, 0, 0, 0]) == .ack)
    #expect(tag.respond(to: [0xB0, 0x00]) == .nak(0x04))
    #expect(tag.storedBlock(0) == block0)
    reselectAndAuthenticate(tag, block: 0)
    #expect(tag.respond(to: [0x30, 0x00]) == .data(block0))
  }
}

/// Authentication per sector (MF1S50yyX §10.1): it ends at a HALT, a failed authentication, an
/// error, an access to another sector, or the field going off.
@Suite struct ClassicAuthenticationTests {
  @Test func withoutAuthenticationNothingIsRead() throws {
    let tag = try MIFAREClassicVirtualTag(chip: .classic1K, uid: uid)
    #expect(tag.respond(to: [0x30, 0x04]) == .nak(0x04))
  }

  @Test func anotherSectorNeedsItsOwnAuthentication() throws {
    let tag = try MIFAREClassicVirtualTag(chip: .classic1K, uid: uid)
    #expect(authenticate(tag, block: 4) == .ack)
    #expect(tag.respond(to: [0x30, 0x05]) == .data([UInt8](repeating: 0, count: 16)))
    #expect(tag.respond(to: [0x30, 0x08]) == .nak(0x04))   // sector 2
    #expect(tag.authenticated == nil)                       // the error ended the authentication
    #expect(tag.respond(to: [0x30, 0x05]) == .mute)         // and the card is silent until selected again
    tag.reset()
    #expect(tag.respond(to: [0x30, 0x05]) == .nak(0x04))   // selected again: answers, not authenticated
    tag.reset()
    #expect(authenticate(tag, block: 8) == .ack)
    #expect(tag.respond(to: [0x30, 0x08]) == .data([UInt8](repeating: 0, count: 16)))
  }

  /// A wrong key, a wrong UID or a block past the end fails; the card is then silent until it is
  /// selected again (``MIFAREClassicVirtualTag/reset()``).
  @Test func wrongKeyOrUIDFailsAndEndsTheAuthentication() throws {
    let tag = try MIFAREClassicVirtualTag(chip: .classic1K, uid: uid)
    #expect(authenticate(tag, block: 4) == .ack)
    #expect(tag.respond(to: [0x60, 0x04] + hex("A0A1A2A3A4A5") + uid) == .mute)
    #expect(tag.respond(to: [0x30, 0x04]) == .mute)  // silent, not merely unauthenticated
    tag.reset()
    #expect(tag.respond(to: [0x30, 0x04]) == .nak(0x04))
    #expect(tag.isHalted)  // the NAK leaves it silent too
    tag.reset()
    #expect(tag.respond(to: [0x61, 0x04] + ff + hex("01 02 03 04")) == .mute)
    #expect(tag.isHalted)
    tag.reset()
    #expect(tag.respond(to: [0x60, 0x04] + ff) == .nak(0x04))  // no UID: a malformed frame, refused
    #expect(tag.isHalted)
    tag.reset()
    #expect(!tag.isHalted)
    #expect(tag.respond(to: [0x60, 0x40] + ff + uid) == .mute)  // block 64 is past a 1K
    #expect(tag.isHalted)
  }

  @Test func haltAndFieldOffEndTheAuthentication() throws {
    let tag = try MIFAREClassicVirtualTag(chip: .classic1K, uid: uid)
    #expect(authenticate(tag, block: 4) == .ack)
    #expect(tag.respond(to: [0x50, 0x00]) == .mute)
    #expect(tag.respond(to: [0x30, 0x04]) == .mute)  // HALT state: silent until selected again
    #expect(authenticate(tag, block: 4) == .mute)
    tag.reset()
    #expect(tag.respond(to: [0x30, 0x04]) == .nak(0x04))  // selected again: the HALT ended the authentication
    reselectAndAuthenticate(tag, block: 4)
    #expect(tag.respond(to: [0x30, 0x04]) == .data([UInt8](repeating: 0, count: 16)))
    tag.reset()
    #expect(tag.respond(to: [0x30, 0x04]) == .nak(0x04))  // the field off ended it
  }

  /// A 7-byte UID authenticates with its last 4 bytes, as a PN532 sends them.
  @Test func sevenByteUIDUsesItsLastFourBytes() throws {
    let tag = try MIFAREClassicVirtualTag(chip: .classic1K, uid: hex("04 11 22 33 44 55 66"))
    #expect(tag.respond(to: [0x60, 0x04] + ff + hex("04 11 22 33")) == .mute)
    tag.reset()  // silent after the failure until selected again
    #expect(tag.respond(to: [0x60, 0x04] + ff + hex("33 44 55 66")) == .ack)
  }

  /// In a 16-block sector of the 4K, access groups are blocks 0–4, 5–9, 10–14 (MF1S70yyX §8.7.3).
  @Test func bigSectorsHaveFiveBlockGroups() throws {
    var image = try MIFAREClassicVirtualTag(chip: .classic4K, uid: uid).memoryImage
    let conditions = MIFAREClassicAccessConditions(groups: [.init(bits: 0), .init(bits: 0b111), .init(bits: 0), .init(bits: 0b001)])
    image.replaceSubrange(143 * 16 ..< 144 * 16, with: ff + conditions.bytes + [0x69] + ff)
    let tag = try MIFAREClassicVirtualTag(chip: .classic4K, image: image)
    for (block, readable) in [(128, true), (132, true), (133, false), (137, false), (138, true), (142, true)] {
      #expect(authenticate(tag, block: 128) == .ack)
      let stored = try #require(tag.storedBlock(block))
      #expect(tag.respond(to: [0x30, UInt8(block)]) == (readable ? .data(stored) : .nak(0x04)), "block \(block)")
      #expect(tag.isHalted == !readable, "block \(block): silent after a refusal")
      tag.reset()  // selected again before the next block
    }
  }
}

/// Value blocks (MF1S50yyX §8.6.2.1) and INCREMENT, DECREMENT, RESTORE, TRANSFER (§10.3).
@Suite struct ClassicValueBlockTests {
  @Test func valueFormat() throws {
    let block = MIFAREClassicVirtualTag.valueBlock(0x1234_5678, address: 5)
    #expect(block == hex("78563412 87A9CBED 78563412 05FA05FA"))
    #expect(MIFAREClassicVirtualTag.value(ofBlock: block) == 0x1234_5678)
    #expect(MIFAREClassicVirtualTag.value(ofBlock: MIFAREClassicVirtualTag.valueBlock(-1, address: 0)) == -1)
    for broken in [0, 4, 8, 12, 13, 14, 15] {  // value, ~value, value copy, addr, ~addr, addr, ~addr
      var bad = block
      bad[broken] ^= 0x01
      #expect(MIFAREClassicVirtualTag.value(ofBlock: bad) == nil, "byte \(broken)")
    }
    #expect(MIFAREClassicVirtualTag.value(ofBlock: Array(block.prefix(15))) == nil)
  }

  @Test func incrementDecrementRestoreTransfer() throws {
    let tag = try MIFAREClassicVirtualTag(chip: .classic1K, uid: uid)
    #expect(authenticate(tag, block: 4) == .ack)
    #expect(tag.respond(to: [0xA0, 0x04] + MIFAREClassicVirtualTag.valueBlock(100, address: 4)) == .ack)
    #expect(tag.respond(to: [0xC1, 0x04, 0x2C, 0x01, 0x00, 0x00]) == .ack)   // + 300
    #expect(tag.storedBlock(4) == MIFAREClassicVirtualTag.valueBlock(100, address: 4))  // only the buffer changed
    #expect(tag.respond(to: [0xB0, 0x04]) == .ack)
    #expect(tag.storedBlock(4) == MIFAREClassicVirtualTag.valueBlock(400, address: 4))
    #expect(tag.respond(to: [0xC0, 0x04, 0x90, 0x01, 0x00, 0x00]) == .ack)   // - 400
    #expect(tag.respond(to: [0xB0, 0x04]) == .ack)
    #expect(tag.storedBlock(4) == MIFAREClassicVirtualTag.valueBlock(0, address: 4))
    #expect(tag.respond(to: [0xC2, 0x04, 0x00, 0x00, 0x00, 0x00]) == .ack)   // restore: copy to block 6
    #expect(tag.respond(to: [0xB0, 0x06]) == .ack)
    #expect(tag.storedBlock(6) == MIFAREClassicVirtualTag.valueBlock(0, address: 4))
    #expect(tag.respond(to: [0xB0, 0x06]) == .nak(0x04))                     // the buffer was used
  }

  @Test func valueCommandsRefuseBlocksNotInValueFormat() throws {
    let tag = try MIFAREClassicVirtualTag(chip: .classic1K, uid: uid)
    #expect(authenticate(tag, block: 4) == .ack)
    #expect(tag.respond(to: [0xC1, 0x04, 0x01, 0x00, 0x00, 0x00]) == .nak(0x04))  // zeros: ~value does not hold
    var broken = MIFAREClassicVirtualTag.valueBlock(10, address: 5)
    broken[13] = 0x00
    reselectAndAuthenticate(tag, block: 4)
    #expect(tag.respond(to: [0xA0, 0x05] + broken) == .ack)
    #expect(tag.respond(to: [0xC0, 0x05, 0x01, 0x00, 0x00, 0x00]) == .nak(0x04))
    reselectAndAuthenticate(tag, block: 4)
    #expect(tag.respond(to: [0xC1, 0x07, 0x01, 0x00, 0x00, 0x00]) == .nak(0x04))  // a trailer is no value block
    reselectAndAuthenticate(tag, block: 4)
    #expect(tag.respond(to: [0xC1, 0x04, 0x01]) == .nak(0x04))                    // operand too short
    reselectAndAuthenticate(tag, block: 4)
    #expect(tag.respond(to: [0xA0, 0x06] + MIFAREClassicVirtualTag.valueBlock(10, address: 6)) == .ack)
    #expect(tag.respond(to: [0xC1, 0x06, 0x01, 0x00, 0x00, 0x00]) == .ack)        // a value block: answered
  }
}

/// The kinds by name and the image file: the whole memory, trailers included (the `.mfd` layout).
@Suite struct ClassicKindTests {
  @Test func kindsAreRegistered() throws {
    for (name, size, product) in [("mifare-classic-1k", 1024, "MIFARE Classic 1K"), ("mifare-classic-4k", 4096, "MIFARE Classic 4K"),
                                  ("mifare-classic-mini", 320, "MIFARE Classic Mini")] {
      let kind = try #require(VirtualTagKind(rawValue: name))
      let tag = try kind.makeTag(uid: nil)
      #expect(tag.memoryImage.count == size)
      #expect(tag.productName == product)
      #expect(kind.defaultFace == .acr122u)
      let spec = try SimulatorSpec(parsing: "sim:\(name)@part3")
      #expect(spec.kind == kind && spec.face == .part3)
      let fed = FeederUIDs.uid(for: kind, seed: 3, index: 1)
      #expect(try kind.makeTag(uid: fed).identifier == fed)
    }
  }

  @Test func imageRoundTrip() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("classic-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("card.mfd").path
    let (file, made) = try ImageFile.open(path: path, kind: .mifareClassic1K, uid: uid)
    let tag = try #require(made as? MIFAREClassicVirtualTag)
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count == 1024)
    #expect(authenticate(tag, block: 4) == .ack)
    let data = hex("00112233445566778899AABBCCDDEEFF")
    #expect(tag.respond(to: [0xA0, 0x05] + data) == .ack)
    #expect(tag.respond(to: [0xA0, 0x07] + hex("A0A1A2A3A4A5 7F078869 B0B1B2B3B4B5")) == .ack)
    try file.saveIfChanged(tag)
    let saved = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    #expect(saved.count == 1024)
    #expect(Array(saved[80..<96]) == data)
    #expect(Array(saved[112..<128]) == hex("A0A1A2A3A4A5 7F078869 B0B1B2B3B4B5"))  // keys in the .mfd
    let (_, reopened) = try ImageFile.open(path: path, kind: .mifareClassic1K, uid: nil)
    #expect(reopened.memoryImage == tag.memoryImage)
    #expect(reopened.identifier == uid)
    #expect(throws: EmulatorError.self) { try VirtualTagKind.mifareClassic1K.makeTag(image: [UInt8](repeating: 0, count: 1000)) }
    let sevenByte = try VirtualTagKind.mifareClassic4K.makeTag(uid: hex("04 11 22 33 44 55 66"))
    #expect(try VirtualTagKind.mifareClassic4K.makeTag(image: sevenByte.memoryImage).identifier == hex("04 11 22 33 44 55 66"))
  }
}
