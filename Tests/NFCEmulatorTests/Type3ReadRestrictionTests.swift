import Testing
import NFCEmulator
import NFCTags
import NFCTransport

/// A FeliCa Lite-S whose MC (bytes 6–7) makes some user blocks readable only after
/// authentication: reading the message must not fail on a block beyond it that the platform
/// would only have read ahead to save a round trip. Found by the `cc` fuzz target: a verified
/// write of a one-block message succeeded, and the next read failed on blocks 2 and 3 (SF2 B1).
@Suite struct Type3ReadRestrictedBlocks {
  /// The factory Lite-S holding `message`, with read restriction bits `mask` over S_PAD0–13
  /// (MC byte 6 is image offset 18 × 16 + 6: block 88h is the image's 19th block).
  static func tag(readRestricted mask: UInt16, holding message: [UInt8]? = nil) throws -> (any VirtualTag, Type3Tag) {
    var image = try VirtualTagKind.felicaLiteS.makeTag(uid: nil).memoryImage
    if let message { image = try platform(for: try VirtualTagKind.felicaLiteS.makeTag(image: image), writing: message) }
    image[18 * 16 + 6] = UInt8(mask & 0xFF)
    image[18 * 16 + 7] = UInt8(mask >> 8)
    let tag = try VirtualTagKind.felicaLiteS.makeTag(image: image)
    return (tag, try platform(for: tag))
  }

  static func platform(for tag: any VirtualTag) throws -> Type3Tag {
    guard case .felica(let pmm, let systemCode) = tag.technology else { throw TagError.unsupported("not FeliCa") }
    let link = VirtualTagLink(tag, capabilities: LinkCapabilities(maxResponseLength: 60, maxCommandLength: 60, rawCommands: true))
    return Type3Tag(identifier: tag.identifier, link: link, pmm: pmm, systemCode: systemCode)
  }

  /// The image of `tag` after `message` was written to it.
  static func platform(for tag: any VirtualTag, writing message: [UInt8]) throws -> [UInt8] {
    try platform(for: tag).writeNDEF(message, verify: true)
    return tag.memoryImage
  }

  @Test func aMessageBeforeTheRestrictedBlocksIsReadAndWritten() throws {
    let (_, platform) = try Self.tag(readRestricted: 0b1100)  // blocks 2 and 3
    #expect(try platform.readNDEF() == [])
    let message: [UInt8] = [0xD1, 0x01, 0x05, 0x54, 0x02, 0x65, 0x6E, 0x68, 0x69]  // Text "hi": block 1
    try platform.writeNDEF(message, verify: true)
    #expect(try platform.readNDEF() == message)
    #expect(try platform.queryNDEFStatus().messageLength == message.count)
  }

  @Test func aMessageThatNeedsARestrictedBlockIsRefused() throws {
    let message: [UInt8] = [0xD1, 0x01, 0x15, 0x54, 0x02, 0x65, 0x6E] + Array(repeating: 0x61, count: 18)  // 25 bytes: blocks 1 and 2
    let (_, empty) = try Self.tag(readRestricted: 0b0100)  // block 2
    #expect(throws: TagError.self) { try empty.writeNDEF(message, verify: true) }
    #expect(try empty.readNDEF() == [], "the refused write changed nothing")
    let (_, holding) = try Self.tag(readRestricted: 0b0100, holding: message)
    #expect(throws: TagError.self) { try holding.readNDEF() }
  }
}
