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
    let platform = Type3Tag(identifier: tag.identifier, link: VirtualTagLink(tag, capabilities: LinkCapabilities(maxResponseLength: 60, maxCommandLength: 60, rawCommands: true)), pmm: pmm, systemCode: [0x88, 0xB4])
    #expect(try platform.queryNDEFStatus().status == .notSupported)
    #expect(throws: TagError.self) { try platform.readNDEF() }
    #expect(throws: TagError.self) { try platform.writeNDEF([0xD1, 0x01, 0x01, 0x54, 0x00], verify: true) }
  }
}
