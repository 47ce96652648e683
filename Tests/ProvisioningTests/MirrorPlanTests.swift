import Testing
@testable import Provisioning

private let ntag213 = 4...0x27
private let ntag215 = 4...0x81
private func zeros(_ count: Int) -> [UInt8] { [UInt8](repeating: 0x30, count: count) }

@Suite("Mirror plan") struct MirrorPlanTests {
  @Test func roomsAndConf() {
    #expect(MirrorMode.allCases.map(\.roomLength) == [14, 6, 21])
    #expect(MirrorMode.allCases.map(\.mirrorConf) == [0b01, 0b10, 0b11])
    #expect(MirrorMode(rawValue: "uid+counter") == .uidAndCounter)
    #expect(MirrorPlan.tlvHeaderLength(forMessageLength: 254) == 2)
    #expect(MirrorPlan.tlvHeaderLength(forMessageLength: 255) == 4)
  }

  /// NTAG213F/216F data sheet §8.7.3.1: "http://www.nxp.com/index.html?m=" and 21 zeros after a
  /// Lock Control TLV; the mirror starts at page 0Ch byte 1 and CFG0 reads D4 .. 0C ...
  @Test func theDataSheetExample() throws {
    let rendered = try MessageTemplate.url(Template("http://www.nxp.com/index.html?m={mirror}"))
      .render(row: ProvisioningRow(id: "1", sequence: 1, line: 0, fields: [:]), uid: [], mirror: .uidAndCounter)
    let room = try #require(rendered.mirrorRoom)
    #expect(room == 26 ..< 47)  // D1 01 LL 55 01, then "nxp.com/index.html?m=" (21 bytes)
    let plan = try MirrorPlan.compute(messageBytes: rendered.bytes, roomOffsetInMessage: room.lowerBound,
                                      mode: .uidAndCounter, tlvAddress: 21, tlvHeaderLength: 2, userPages: ntag213)
    #expect(plan.page == 0x0C)
    #expect(plan.byte == 1)
    #expect(plan.address == 49)
    let (cfg0, access) = try plan.apply(to: [0x04, 0x00, 0x00, 0xFF], access: 0x00)  // factory CFG0, ACCESS
    #expect(cfg0 == [0xD4, 0x00, 0x0C, 0xFF])
    #expect(access == 0x10)  // NFC_CNT_EN
  }

  @Test(arguments: MirrorMode.allCases) func oneByteTLVLength(mode: MirrorMode) throws {
    let rendered = try MessageTemplate.url(Template("https://e.com/?id={mirror}"))
      .render(row: ProvisioningRow(id: "1", sequence: 1, line: 0, fields: [:]), uid: [], mirror: mode)
    let room = try #require(rendered.mirrorRoom)
    #expect(room.lowerBound == 15)  // D1 01 LL 55 04 + "e.com/?id="
    let plan = try MirrorPlan.compute(messageBytes: rendered.bytes, roomOffsetInMessage: room.lowerBound, mode: mode,
                                      tlvHeaderLength: 2, userPages: ntag213)
    // 16 (page 4) + 2 (03 LL) + 15 = 33: page 8, byte 1
    #expect((plan.page, plan.byte) == (8, 1))
    let (cfg0, _) = try plan.apply(to: [0x04, 0x00, 0x00, 0xFF], access: 0)
    #expect(cfg0 == [mode.mirrorConf << 6 | 0x10 | 0x04, 0x00, 0x08, 0xFF])
  }

  @Test(arguments: MirrorMode.allCases) func threeByteTLVLength(mode: MirrorMode) throws {
    let path = String(repeating: "a", count: 300)
    let rendered = try MessageTemplate.url(Template("https://e.com/\(path){mirror}"))
      .render(row: ProvisioningRow(id: "1", sequence: 1, line: 0, fields: [:]), uid: [], mirror: mode)
    #expect(rendered.bytes.count > 255)
    let room = try #require(rendered.mirrorRoom)
    #expect(room.lowerBound == 314)  // C1 01 00 00 01 LL 55 04 (8 bytes, long record) + "e.com/" + 300
    #expect(throws: MirrorPlanError("a \(rendered.bytes.count)-byte message needs the 3-byte TLV length (a 4-byte header)")) {
      try MirrorPlan.compute(messageBytes: rendered.bytes, roomOffsetInMessage: room.lowerBound, mode: mode,
                             tlvHeaderLength: 2, userPages: ntag215)
    }
    let plan = try MirrorPlan.compute(messageBytes: rendered.bytes, roomOffsetInMessage: room.lowerBound, mode: mode,
                                      tlvHeaderLength: MirrorPlan.tlvHeaderLength(forMessageLength: rendered.bytes.count),
                                      userPages: ntag215)
    // 16 + 4 (03 FF hh ll) + 314 = 334: page 83, byte 2
    #expect((plan.page, plan.byte) == (83, 2))
  }

  @Test func theMirrorMustStayInUserMemory() throws {
    var message = [UInt8](repeating: 0x41, count: 151)
    message.replaceSubrange(130..<151, with: zeros(21))
    // 16 + 2 + 130 = 148; 21 bytes would end at 168, past byte 159 (the last of page 27h).
    #expect(throws: MirrorPlanError("the mirror (bytes 148–168) runs past user memory (pages 4–39, bytes 16–159)")) {
      try MirrorPlan.compute(messageBytes: message, roomOffsetInMessage: 130, mode: .uidAndCounter,
                             tlvHeaderLength: 2, userPages: ntag213)
    }
    // The counter's 6 bytes, 148–153, fit.
    let plan = try MirrorPlan.compute(messageBytes: message, roomOffsetInMessage: 130, mode: .counter,
                                      tlvHeaderLength: 2, userPages: ntag213)
    #expect((plan.page, plan.byte) == (37, 0))
    // The UID's 14 bytes fit up to a start at 146 (146–159), not at 147.
    let uidMessage = [UInt8](repeating: 0x41, count: 129) + zeros(14)
    let last = try MirrorPlan.compute(messageBytes: uidMessage, roomOffsetInMessage: 129, mode: .uid,
                                      tlvAddress: 15, tlvHeaderLength: 2, userPages: ntag213)
    #expect((last.address, last.page, last.byte) == (146, 36, 2))
    #expect(throws: MirrorPlanError("the mirror (bytes 147–160) runs past user memory (pages 4–39, bytes 16–159)")) {
      try MirrorPlan.compute(messageBytes: uidMessage, roomOffsetInMessage: 129, mode: .uid,
                             tlvAddress: 16, tlvHeaderLength: 2, userPages: ntag213)
    }
  }

  @Test func mirrorPageBelowFourIsRefused() {
    #expect(throws: MirrorPlanError("MIRROR_PAGE would be 0; the mirror starts at page 4 or later")) {
      try MirrorPlan.compute(messageBytes: zeros(6), roomOffsetInMessage: 0, mode: .counter, tlvAddress: 0,
                             tlvHeaderLength: 2, userPages: ntag213)
    }
  }

  @Test func theRoomMustBeZerosInsideTheMessage() {
    #expect(throws: MirrorPlanError("the message does not hold 6 ASCII '0's at offset 1")) {
      try MirrorPlan.compute(messageBytes: zeros(6) + [0x31], roomOffsetInMessage: 1, mode: .counter,
                             tlvHeaderLength: 2, userPages: ntag213)
    }
    #expect(throws: MirrorPlanError("the 6-byte mirror room at offset 2 is not inside the 7-byte message")) {
      try MirrorPlan.compute(messageBytes: zeros(7), roomOffsetInMessage: 2, mode: .counter,
                             tlvHeaderLength: 2, userPages: ntag213)
    }
    #expect(throws: MirrorPlanError("an NDEF TLV header is 2 or 4 bytes, not 3")) {
      try MirrorPlan.compute(messageBytes: zeros(6), roomOffsetInMessage: 0, mode: .counter,
                             tlvHeaderLength: 3, userPages: ntag213)
    }
  }

  @Test func applyKeepsTheOtherBits() throws {
    let plan = MirrorPlan(mode: .uid, page: 0x10, byte: 0)
    // Old MIRROR F7 (conf 11, byte 11, STRG_MOD_EN and bits 1-0 set), RFU 5A, AUTH0 04.
    let (cfg0, access) = try plan.apply(to: [0xF7, 0x5A, 0x22, 0x04], access: 0x88)
    #expect(cfg0 == [0x47, 0x5A, 0x10, 0x04])
    #expect(access == 0x88)  // a UID mirror leaves ACCESS alone
    let counter = MirrorPlan(mode: .counter, page: 0x10, byte: 3)
    let (cfg0c, accessc) = try counter.apply(to: [0x04, 0, 0, 0xFF], access: 0x88)  // PROT, NFC_CNT_PWD_PROT
    #expect(cfg0c == [0xB4, 0, 0x10, 0xFF])
    #expect(accessc == 0x90)  // NFC_CNT_EN set, NFC_CNT_PWD_PROT cleared, PROT kept
    #expect(throws: MirrorPlanError("CFG0 is a 4-byte page, not 3 bytes")) { try plan.apply(to: [0, 0, 0], access: 0) }
  }
}
