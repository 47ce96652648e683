import NFCEmulator
import Testing
@testable import NFCEmulatorVPCD

/// The control extension of the vpcd protocol that nfctag's pcsc-lite driver speaks
/// (Drivers/ifd-nfctag, docs/ifd-handler.md): `10` announces a control request and is answered
/// `10`; the next message is the control code (4 bytes, big-endian) and the data, answered `00` +
/// the face's answer, `01` for a code the face does not take, `02` for a request too short to hold
/// a code. vpcd never sends `10`, so a vpcd slot never sees it.
@Suite struct ReaderControlMessages {
  private func acr122uBridge() throws -> VPCDBridge {
    VPCDBridge(serving: VPCDServedCard(card: ACR122UFace(tag: try VirtualTagKind.ntag215.makeTag(uid: nil))))
  }

  @Test func announcementIsAcknowledgedAndTheRequestReachesTheFace() throws {
    let bridge = try acr122uBridge()
    #expect(bridge.handle([0x10]) == [0x10])
    // SCARD_CTL_CODE(1) = 0x42000001, the escape libccid passes on; FF 00 48 00 00 = firmware.
    #expect(bridge.handle([0x42, 0x00, 0x00, 0x01, 0xFF, 0x00, 0x48, 0x00, 0x00]) == [0x00] + Array("ACR122U207".utf8))
    #expect(bridge.answered == 0)  // a control request is no APDU: --remove-after and faults do not count it
    // The next message is an APDU again.
    #expect(bridge.handle([0xFF, 0xCA, 0x00, 0x00, 0x00])?.suffix(2) == [0x90, 0x00])
    #expect(bridge.answered == 1)
  }

  @Test func codeTheFaceDoesNotTakeIsUnsupported() throws {
    let bridge = try acr122uBridge()
    #expect(bridge.handle([0x10]) == [0x10])
    #expect(bridge.handle([0x42, 0x00, 0x0D, 0x48]) == [0x01])  // SCARD_CTL_CODE(3400), no data
  }

  @Test func requestTooShortForACodeIsMalformed() throws {
    let bridge = try acr122uBridge()
    #expect(bridge.handle([0x10]) == [0x10])
    #expect(bridge.handle([0x42, 0x00]) == [0x02])
    #expect(bridge.handle([0x04])?.first == 0x3B)  // back to vpcd's messages: GET ATR
  }
}
