import NFCTestSupport
import NFCTransport
import Testing
@testable import NFCEmulator

/// The SCM/Identiv family's own pseudo-APDUs for FeliCa (`FF 40`–`FF 4A`: SCL3711 Reference Manual
/// v1.3 §6.4.3; Identiv CLOUD 370x F Reference Manual §6.2.13–6.2.18) and for Type 1 (`FF 50`–`FF 60`:
/// SCL3711 Reference Manual §6.4.1), as the `utrust3700f` and `scl3711` faces answer them.
@Suite struct SCMPseudoAPDUFaces {
  static func face(_ kind: ReaderFaceKind, _ tag: any VirtualTag) throws -> PartThreeFace {
    try #require(try kind.makeFace(tag: tag) as? PartThreeFace)
  }

  static func felica() throws -> FeliCaLiteSVirtualTag {
    try #require(try VirtualTagKind.felicaLiteS.makeTag(uid: nil) as? FeliCaLiteSVirtualTag)
  }

  /// The uTrust 3700 F builds the Part 3 storage-card ATR for FeliCa (CLOUD 370x F §5.3.3.1: standard
  /// 11, the Part 3 Supplement's name 00 3B); the SCL3711 its own form with the IDm (§5.3.3.4).
  @Test func felicaATRs() throws {
    let tag = try Self.felica()
    #expect(try Self.face(.utrust3700f, tag).atr == hex("3B 8F 80 01 80 4F 0C A0 00 00 03 06 11 00 3B 00 00 00 00 42"))
    let scm = try Self.face(.scl3711, tag).atr
    #expect(Array(scm.prefix(7)) == hex("3B 8C 80 01 04 43 FD") && Array(scm[7..<15]) == tag.identifier && scm.count == 17)
  }

  /// REQC (`FF 40 00 00 04 SC SC RC TSN`): the IDm and PMm, and the system code when RC is 01.
  @Test(arguments: [ReaderFaceKind.utrust3700f, .scl3711])
  func reqc(kind: ReaderFaceKind) throws {
    let tag = try Self.felica()
    let face = try Self.face(kind, tag)
    #expect(face.transmit(hex("FF 40 00 00 04 FF FF 01 00")) == tag.identifier + tag.pmm + tag.systemCode + hex("90 00"))
    #expect(face.transmit(hex("FF 40 00 00 04 FF FF 00 00")) == tag.identifier + tag.pmm + hex("90 00"))
    #expect(face.transmit(hex("FF 40 00 00 03 FF FF 01")) == hex("67 00"))
  }

  /// READ (`FF 46 n m Lc services blocks`) and WRITE (`FF 48 … data`): IDm, status flags, and for
  /// READ the block count and data.
  @Test(arguments: [ReaderFaceKind.utrust3700f, .scl3711])
  func readAndWrite(kind: ReaderFaceKind) throws {
    let tag = try Self.felica()
    let face = try Self.face(kind, tag)
    let data = [UInt8](0x10..<0x20)
    #expect(face.transmit(hex("FF 48 01 01 14 09 00 80 01") + data) == tag.identifier + hex("00 00 90 00"))
    #expect(face.transmit(hex("FF 46 01 01 04 0B 00 80 01")) == tag.identifier + hex("00 00 01") + data + hex("90 00"))
    // Two blocks in one READ.
    let two = face.transmit(hex("FF 46 01 02 06 0B 00 80 00 80 01"))
    #expect(two.count == 8 + 3 + 32 + 2 && Array(two[8..<11]) == hex("00 00 02") && Array(two[27..<43]) == data)
    // The card's own error: its status flags, no data (block 0x40 is no Lite-S block).
    let refused = face.transmit(hex("FF 46 01 01 04 0B 00 80 40"))
    #expect(refused.count == 12 && Array(refused.suffix(2)) == hex("90 00") && refused[8] != 0x00, "\(refused)")
  }

  /// Lengths that do not match P1 and P2 (`67 00`), no service or block (`6B 00`), and a FeliCa
  /// command to a card that is not FeliCa (the unsupported status): SCL3711 manual §6.2.1's list.
  @Test func malformedFeliCaCommands() throws {
    let face = try Self.face(.scl3711, try Self.felica())
    #expect(face.transmit(hex("FF 46 01 01 03 0B 00 80")) == hex("67 00"))
    #expect(face.transmit(hex("FF 46 00 01 02 80 00")) == hex("6B 00"))
    #expect(face.transmit(hex("FF 48 01 01 04 09 00 80 01")) == hex("67 00"))
    let ntag = try Self.face(.scl3711, try Type2VirtualTag(chip: .ntag213))
    #expect(ntag.transmit(hex("FF 40 00 00 04 FF FF 01 00")) == hex("6A 81"))
    #expect(ntag.transmit(hex("FF 52 00 00 00")) == hex("6A 81"))
  }

  /// The uTrust 3700 F's manual lists no Type 1 commands: `FF 50`–`FF 60` are unsupported there,
  /// and a Topaz is not shown (the refusal test in ReaderProfileTests).
  @Test func theUTrustHasNoType1Commands() throws {
    let face = try Self.face(.utrust3700f, try Type2VirtualTag(chip: .ntag213))
    #expect(face.transmit(hex("FF 52 00 00 00")) == hex("6A 81"))
    #expect(face.transmit(hex("FF 54 00 08 00")) == hex("6A 81"))
  }

  /// Type 1 on the SCL3711: the Topaz ATR (§5.3.3.3), RID, RALL, READ, WRITE-E, WRITE-NE, RSEG,
  /// READ8, WRITE-E8 and WRITE-NE8 (§6.4.1.1–6.4.1.9), answers without the echoed address.
  @Test func type1Commands() throws {
    let tag = try Type1VirtualTag(chip: .topaz512, uid: nil)
    let face = try Self.face(.scl3711, tag)
    let uid = Array(tag.identifier.prefix(4))
    #expect(face.atr == hex("3B 82 80 01 02 44 45"))
    #expect(face.transmit(hex("FF 50 00 00 00")) == hex("12 4C") + uid + hex("90 00"))
    let all = face.transmit(hex("FF 52 00 00 00"))
    #expect(all.count == 124 && Array(all.prefix(2)) == hex("12 4C") && Array(all[2..<6]) == uid)
    #expect(face.transmit(hex("FF 56 00 10 01 39")) == hex("39 90 00"))  // block 2, byte 0
    #expect(face.transmit(hex("FF 58 00 10 01 A8")) == hex("B9 90 00"))  // the manual's example: 39 | A8
    #expect(face.transmit(hex("FF 54 00 10 00")) == hex("B9 90 00"))
    let written = hex("01 02 03 04 05 06 07 08")
    #expect(face.transmit(hex("FF 5E 00 10 08") + written) == written + hex("90 00"))
    #expect(face.transmit(hex("FF 60 00 10 08 00 01 00 00 00 00 00 80")) == hex("01 03 03 04 05 06 07 88 90 00"))
    #expect(face.transmit(hex("FF 5C 00 10 00")) == hex("01 03 03 04 05 06 07 88 90 00"))
    let segment = face.transmit(hex("FF 5A 00 10 00"))
    #expect(segment.count == 130 && Array(segment[0..<8]) == hex("01 03 03 04 05 06 07 88"))
    #expect(face.transmit(hex("FF 56 00 10 02 39 39")) == hex("67 00"))
  }
}
