import NFCEmulator
import NFCTags
import NFCTransport
import Testing

/// A link straight to a virtual tag that passes answers of at most 16 bytes (the cc fuzz
/// target's second link).
private final class ShortAnswerLink: Transceiver, TargetReselecting {
  let tag: any VirtualTag
  let capabilities = LinkCapabilities(maxResponseLength: 16, maxCommandLength: 64, rawCommands: false)
  init(tag: any VirtualTag) { self.tag = tag }
  func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard command.count <= capabilities.maxCommandLength else { throw .unsupported("a \(command.count)-byte command") }
    switch tag.respond(to: command) {
    case .data(let answer):
      guard answer.count <= capabilities.maxResponseLength + 2 else { throw .malformedResponse(answer) }
      return answer
    case .ack: return [0x0A]
    case .nak(let code): throw .nak(code)
    case .mute: throw .timeout
    }
  }
  func reselect() throws(TransceiveError) { tag.reset() }
}

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
                                cardName: tag.productName, details: TargetDetails(), link: ShortAnswerLink(tag: tag))
    let platform = try makePlatform(for: target)
    let message: [UInt8] = [0xD1, 0x01, 0x05, 0x54, 0x02, 0x65, 0x6E, 0x68, 0x69]
    try platform.writeNDEF(message, verify: true)
    #expect(try platform.readNDEF() == message)
    #expect(try platform.queryNDEFStatus().messageLength == message.count)
  }
}
