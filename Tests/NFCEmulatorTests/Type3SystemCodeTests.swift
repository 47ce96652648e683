import NFCEmulator
import NFCTags
import NFCTransport
import Testing

/// A FeliCa Lite-S whose MC says NDEF (MC_SYS_OP 01) while it answers polling with another system
/// code: `readNDEF` looked at the system code, status and write at the MC, so a verified write
/// "succeeded" on a tag that then did not read as NDEF (found by the cc fuzz target). All three now
/// go by the system code the tag answers.
@Suite struct Type3SystemCodeAgainstMC {
  @Test func statusReadAndWriteAgree() throws {
    let tag = try VirtualTagKind.felicaLiteS.makeTag(uid: nil)
    guard case .felica(let pmm, _) = tag.technology else {
      Issue.record("a FeliCa Lite-S without FeliCa technology")
      return
    }
    let platform = Type3Tag(identifier: tag.identifier, link: DirectTagLink(tag: tag), pmm: pmm, systemCode: [0x88, 0xB4])
    #expect(try platform.queryNDEFStatus().status == .notSupported)
    #expect(throws: TagError.self) { try platform.readNDEF() }
    #expect(throws: TagError.self) { try platform.writeNDEF([0xD1, 0x01, 0x01, 0x54, 0x00], verify: true) }
  }
}

/// A link straight to a virtual tag.
private final class DirectTagLink: Transceiver {
  let tag: any VirtualTag
  let capabilities = LinkCapabilities(maxResponseLength: 60, maxCommandLength: 60, rawCommands: true)
  init(tag: any VirtualTag) { self.tag = tag }
  func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    switch tag.respond(to: command) {
    case .data(let answer): return answer
    case .ack: return [0x0A]
    case .nak(let code): throw .nak(code)
    case .mute: throw .timeout
    }
  }
}
