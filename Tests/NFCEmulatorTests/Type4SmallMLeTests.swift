import NFCEmulator
import NFCTags
import NFCTransport
import Testing

/// A Type 4 CC whose MLe (1) is smaller than NLEN: the write's verification read the length in
/// parts, `readNDEF` asked for it in one answer and failed, so a verified write did not read back
/// (found by the cc fuzz target: `fa 01 00 34 21 00 01 20`).
@Suite struct Type4SmallMLe {
  @Test(arguments: [1, 2, 3])
  func aVerifiedWriteReadsBackAndStatusAgrees(mle: Int) throws {
    var image = try VirtualTagKind.type4.makeTag(uid: nil).memoryImage
    image.replaceSubrange(3...4, with: [0x00, UInt8(mle)])
    let tag = try VirtualTagKind.type4.makeTag(image: image)
    let target = DetectedTarget(readerName: "test", identifier: tag.identifier, atr: [], platform: tag.platform,
                                cardName: tag.productName, details: TargetDetails(),
                                link: VirtualTagLink(tag, capabilities: LinkCapabilities(maxResponseLength: 16, maxCommandLength: 64, rawCommands: false)))
    let platform = try makePlatform(for: target)
    let message: [UInt8] = [0xD1, 0x01, 0x05, 0x54, 0x02, 0x65, 0x6E, 0x68, 0x69]
    try platform.writeNDEF(message, verify: true)
    #expect(try platform.readNDEF() == message)
    #expect(try platform.queryNDEFStatus().messageLength == message.count)
  }
}
