import NFCTags
import NFCTransport
import Testing
@testable import NFCEmulator

/// The NTAG213/215/216 UID and NFC counter mirror and the NFC counter (docs/tag-types.md).
@Suite struct NTAGMirrorAndCounter {
  /// The data sheet's example (NTAG213F/216F data sheet §8.7.3.1, the same mirror as NTAG213):
  /// UID 04-E1-41-12-4C-28-80, NFC counter 00-3F-31, both mirrored from page 0Ch byte 1.
  static let exampleUID: [UInt8] = [0x04, 0xE1, 0x41, 0x12, 0x4C, 0x28, 0x80]
  static let exampleText = Array("04E141124C2880x003F31".utf8)

  /// An NTAG213 with ASCII zeros where the mirror goes, and the mirror configured.
  func configured(mirror: UInt8, page: UInt8 = 0x0C, access: UInt8 = 0x00, chip: Type2Chip = .ntag213) throws -> Type2VirtualTag {
    let tag = try Type2VirtualTag(chip: chip, uid: Self.exampleUID)
    for p in 0x0C...0x12 { #expect(tag.respond(to: [0xA2, UInt8(p), 0x30, 0x30, 0x30, 0x30]) == .ack) }
    let cfg0 = UInt8(chip.cfg0Page ?? 0)
    #expect(tag.respond(to: [0xA2, cfg0, mirror, 0x00, page, 0xFF]) == .ack)
    #expect(tag.respond(to: [0xA2, cfg0 + 1, access, 0x05, 0x00, 0x00]) == .ack)
    tag.reset()  // a new field: the first read counts
    return tag
  }

  func read(_ tag: Type2VirtualTag, _ page: UInt8) -> [UInt8] {
    guard case .data(let bytes) = tag.respond(to: [0x30, page]) else { return [] }
    return bytes
  }

  @Test func theDataSheetExampleOnReadAndFastRead() throws {
    // MIRROR = D4h: MIRROR_CONF 11b, MIRROR_BYTE 01b, STRG_MOD_EN; ACCESS: NFC_CNT_EN.
    let tag = try configured(mirror: 0xD4, access: 0x10)
    tag.nfcCounter = 0x3F31
    guard case .data(let fast) = tag.respond(to: [0x3A, 0x0C, 0x12]) else { Issue.record("no answer"); return }
    #expect(fast.count == 28)
    #expect(fast[0] == 0x30)                                        // page 0C byte 0 stays
    #expect(Array(fast[1..<22]) == Self.exampleText)                // 21 characters from byte 1
    #expect(Array(fast[22...]) == [UInt8](repeating: 0x30, count: 6))
    #expect(tag.nfcCounter == 0x3F32)                               // counted after answering
    let again = read(tag, 0x0C) + read(tag, 0x10)
    #expect(Array(again[1..<22]) == Array("04E141124C2880x003F32".utf8))
    // The memory keeps what was written.
    #expect(Array(tag.memoryImage[(0x0C * 4)..<(0x12 * 4)]) == [UInt8](repeating: 0x30, count: 24))
    #expect(tag.nfcCounter == 0x3F32)                               // once per field
  }

  @Test func uidMirrorAlone() throws {
    let tag = try configured(mirror: 0x40 | 0x04)                  // MIRROR_CONF 01b, byte 0
    let bytes = read(tag, 0x0C)
    #expect(Array(bytes[0..<14]) == Array("04E141124C2880".utf8))
    #expect(Array(bytes[14..<16]) == [0x30, 0x30])
  }

  @Test func counterMirrorNeedsTheCounterEnabled() throws {
    let off = try configured(mirror: 0x80 | 0x20)                  // MIRROR_CONF 10b, byte 2
    #expect(read(off, 0x0C) == [UInt8](repeating: 0x30, count: 16))
    let on = try configured(mirror: 0x80 | 0x20, access: 0x10)
    #expect(Array(read(on, 0x0C)[2..<8]) == Array("000000".utf8))
    #expect(Array(read(on, 0x0C)[2..<8]) == Array("000001".utf8))
  }

  @Test func bothWithTheCounterDisabledOrProtectedMirrorTheUIDAlone() throws {
    let disabled = try configured(mirror: 0xC0)
    #expect(Array(read(disabled, 0x0C)[0..<16]) == Array("04E141124C288000".utf8))
    // NFC_CNT_PWD_PROT: the counter part shows after PWD_AUTH (password FF FF FF FF as shipped).
    let guarded = try configured(mirror: 0xC0, access: 0x10 | 0x08)
    #expect(Array(read(guarded, 0x0C)[14..<16]) == Array("00".utf8))
    #expect(guarded.respond(to: [0x1B, 0xFF, 0xFF, 0xFF, 0xFF]) == .data([0x00, 0x00]))
    #expect(Array(read(guarded, 0x0C)[14..<16]) == Array("x0".utf8))
  }

  @Test func mirrorsOutsideTheUserMemoryAreNotApplied() throws {
    // NTAG213's last user page is 27h: 21 characters from 26h byte 0 do not fit, 14 from 24h byte 2 do.
    let tooLong = try configured(mirror: 0xC0, page: 0x26, access: 0x10)
    #expect(read(tooLong, 0x26) == Array(tooLong.memoryImage[(0x26 * 4)..<(0x2A * 4)]))
    let fits = try configured(mirror: 0x40 | 0x20, page: 0x24)
    #expect(Array(read(fits, 0x24)[2..<16]) == Array("04E141124C2880".utf8))
    let low = try configured(mirror: 0x40, page: 0x03)
    #expect(read(low, 0x03) == Array(low.memoryImage[12..<28]))
  }

  @Test func theCounterCountsTheFirstValidReadOfEachField() throws {
    let tag = try configured(mirror: 0x04, access: 0x10)
    #expect(tag.respond(to: [0x30, 0xEE]) == .nak(0))              // not a valid READ
    #expect(tag.nfcCounter == 0)
    _ = read(tag, 0x04)
    _ = read(tag, 0x08)
    #expect(tag.nfcCounter == 1)
    tag.reset()
    _ = tag.respond(to: [0x3A, 0x04, 0x05])                          // FAST_READ counts too
    #expect(tag.nfcCounter == 2)
    tag.nfcCounter = 0xFF_FFFF
    tag.reset()
    _ = read(tag, 0x04)
    #expect(tag.nfcCounter == 0xFF_FFFF)                             // it stops there
  }

  @Test func aDisabledCounterDoesNotCountThatField() throws {
    let tag = try configured(mirror: 0x04)
    _ = read(tag, 0x04)
    #expect(tag.respond(to: [0xA2, 0x2A, 0x10, 0x05, 0x00, 0x00]) == .ack)  // enabled after the first read
    _ = read(tag, 0x04)
    #expect(tag.nfcCounter == 0)
    tag.reset()
    _ = read(tag, 0x04)
    #expect(tag.nfcCounter == 1)
  }

  @Test func readCounter() throws {
    let tag = try configured(mirror: 0x04, access: 0x10)
    tag.nfcCounter = 0x3F31
    #expect(tag.respond(to: [0x39, 0x02]) == .data([0x31, 0x3F, 0x00]))    // least significant first
    #expect(tag.respond(to: [0x39, 0x01]) == .nak(0))
    #expect(tag.respond(to: [0x39, 0x00]) == .nak(0))
    let disabled = try configured(mirror: 0x04)
    #expect(disabled.respond(to: [0x39, 0x02]) == .nak(0))
    let guarded = try configured(mirror: 0x04, access: 0x18)
    #expect(guarded.respond(to: [0x39, 0x02]) == .nak(0))
    _ = guarded.respond(to: [0x1B, 0xFF, 0xFF, 0xFF, 0xFF])
    #expect(guarded.respond(to: [0x39, 0x02]) == .data([0x00, 0x00, 0x00]))
    #expect(try Type2VirtualTag(chip: .ntag210).respond(to: [0x39, 0x02]) == .mute)
    #expect(try Type2VirtualTag(chip: .ultralightEV1).respond(to: [0x39, 0x00]) == .data([0, 0, 0]))
  }

  @Test func ntag215And216MirrorToo() throws {
    for chip in [Type2Chip.ntag215, .ntag216] {
      let tag = try configured(mirror: 0x40, chip: chip)
      #expect(Array(read(tag, 0x0C)[0..<14]) == Array("04E141124C2880".utf8), "\(chip)")
    }
  }

  @Test func theACR122UReadBinaryShowsTheMirror() throws {
    let tag = try configured(mirror: 0x40 | 0x10)
    let face = ACR122UFace(tag: tag)
    let reply = face.transmit([0xFF, 0xB0, 0x00, 0x0C, 0x10])
    #expect(Array(reply[1..<15]) == Array("04E141124C2880".utf8))
    #expect(Array(reply.suffix(2)) == [0x90, 0x00])
  }

  /// The host side's constants (NFCTags `NTAG21xConfiguration`, `Type2Product.mirrorFits`) agree
  /// with the virtual tag on every start position and mode of an NTAG213.
  @Test func theHostConstantsAgreeWithTheVirtualTag() throws {
    #expect(NTAG21xConfiguration.mirrorByte(.uidAndCounter, startingAt: 1, keeping: 0x04) == 0xD4)  // the data sheet's CFG0
    #expect(Type2Product.ntag213.cfg0Page == Type2Chip.ntag213.cfg0Page)
    #expect(!Type2Product.ntag210.mirrorSupported && Type2Product.ntag216.nfcCounterSupported)
    for mode in NTAG21xMirrorMode.allCases where mode != .none {
      for page in 3...0x28 {
        for byte in 0...3 {
          let tag = try Type2VirtualTag(chip: .ntag213, uid: Self.exampleUID)
          let mirror = NTAG21xConfiguration.mirrorByte(mode, startingAt: byte, keeping: 0x04)
          #expect(tag.respond(to: [0xA2, 0x29, mirror, 0x00, UInt8(page), 0xFF]) == .ack)
          #expect(tag.respond(to: [0xA2, 0x2A, NTAG21xConfiguration.nfcCounterEnable, 0x05, 0x00, 0x00]) == .ack)
          guard case .data(let shown) = tag.respond(to: [0x3A, 0x00, 0x28]) else { Issue.record("no answer"); return }
          let mirrored = shown != Array(tag.memoryImage[0..<(0x29 * 4)])
          #expect(mirrored == Type2Product.ntag213.mirrorFits(mode, page: page, byte: byte), "\(mode) at \(page):\(byte)")
        }
      }
    }
  }
}
