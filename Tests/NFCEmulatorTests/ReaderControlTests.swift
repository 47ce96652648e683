import NFCEmulator
import Testing

/// What the reader faces answer to `SCardControl` (``VirtualCard/control(code:_:)``), as nfctag's
/// pcsc-lite driver hands it to them (docs/ifd-handler.md).
@Suite struct ReaderControlCodes {
  @Test func pcscLiteNumbersControlCodes() {
    // pcsc-lite reader.h: SCARD_CTL_CODE(code) = 0x42000000 + code.
    #expect(ReaderControlCode.pcscLite(3500) == 0x4200_0DAC)
    #expect(ReaderControlCode.vendorEscape == 0x4200_0001)
  }

  @Test func acr122uTakesItsPseudoAPDUsThroughTheEscape() throws {
    let face = ACR122UFace(tag: try VirtualTagKind.ntag215.makeTag(uid: nil))
    // libnfc's acr122_pcsc driver: FF 00 48 00 00 through SCardControl(SCARD_CTL_CODE(1)) on Linux.
    #expect(face.control(code: ReaderControlCode.vendorEscape, [0xFF, 0x00, 0x48, 0x00, 0x00]) == Array("ACR122U207".utf8))
    #expect(face.control(code: ReaderControlCode.vendorEscape, [0xFF, 0x00, 0x40, 0x05, 0x04, 0x00, 0x00, 0x00, 0x00])?.first == 0x90)
    #expect(face.control(code: ReaderControlCode.vendorEscape, [0xE0, 0x00, 0x00, 0x18, 0x00]) == nil)
    #expect(face.control(code: ReaderControlCode.pcscLite(3500), [0xFF, 0x00, 0x48, 0x00, 0x00]) == nil)
  }

  @Test func partThreeFaceAnswersTheACSFirmwareEscape() throws {
    let face = try PartThreeFace(tag: try VirtualTagKind.ntag215.makeTag(uid: nil))
    let firmware = Array(PartThreeFace.escapeFirmware.utf8)
    #expect(face.control(code: ReaderControlCode.vendorEscape, [0xE0, 0x00, 0x00, 0x18, 0x00])
      == [0xE1, 0x00, 0x00, 0x00, UInt8(firmware.count)] + firmware)
    #expect(face.control(code: ReaderControlCode.vendorEscape, [0xFF, 0x00, 0x48, 0x00, 0x00]) == nil)
  }

  @Test func faultInjectionPassesControlToItsFace() throws {
    let card: any VirtualCard = try FaultyCard(ACR122UFace(tag: VirtualTagKind.ntag215.makeTag(uid: nil)), tag: nil, faults: [])
    #expect(card.control(code: ReaderControlCode.vendorEscape, [0xFF, 0x00, 0x48, 0x00, 0x00]) == Array("ACR122U207".utf8))
  }

  /// A card that does not implement control (a test double, another module's card) takes none.
  @Test func aCardWithoutControlTakesNone() {
    final class Bare: VirtualCard {
      let atr: [UInt8] = [0x3B, 0x00]
      func powerOn() {}
      func powerOff() {}
      func reset() {}
      func transmit(_ apdu: [UInt8]) -> [UInt8] { [0x90, 0x00] }
    }
    #expect(Bare().control(code: ReaderControlCode.vendorEscape, [0xFF, 0x00, 0x48, 0x00, 0x00]) == nil)
  }
}
