import NFCTestSupport
import NFCTransport
import Testing
@testable import NFCEmulator

/// The Part 3 reader faces (``ReaderProfile``): what tells each reader from the others — READ
/// BINARY lengths per family, the answer to what it lacks, its escapes, its ATRs, key loading —
/// and the refusal of a family it does not read.
@Suite struct ReaderProfileFaces {
  static let part3Faces: [ReaderFaceKind] = [.acr1252u, .acr1552u, .utrust3700f, .omnikey5022, .omnikey5422, .scl3711]

  static func face(_ kind: ReaderFaceKind, _ tag: any VirtualTag) throws -> PartThreeFace {
    try #require(try kind.makeFace(tag: tag) as? PartThreeFace)
  }

  @Test func everyFaceIsListedNamedAndParsed() throws {
    #expect(ReaderFaceKind.names == "acr122u|acr1252u|acr1552u|utrust3700f|omnikey5022|omnikey5422|scl3711")
    for kind in ReaderFaceKind.allCases {
      #expect(ReaderFaceKind(rawValue: kind.rawValue) == kind)
      #expect(try SimulatorSpec(parsing: "sim:ntag215@\(kind.rawValue)").face == kind)
      #expect(kind.profile?.face ?? "acr122u" == kind.rawValue)
    }
    // part3 is the ACR1552U, on the command line as in code.
    #expect(ReaderFaceKind(rawValue: "part3") == .acr1552u && ReaderFaceKind.part3 == .acr1552u)
    #expect(try SimulatorSpec(parsing: "sim:ntag215@part3").face == .acr1552u)
    #expect(ReaderFaceKind(rawValue: "part4") == nil)
    // The names pcsc-lite shows for them (docs/reader-faces.md §1–§6).
    #expect(ReaderFaceKind.acr1252u.simulatedReaderName == "ACS ACR1252 Dual Reader [ACR1252 Dual Reader PICC]")
    #expect(ReaderFaceKind.acr1552u.simulatedReaderName == "ACS ACR1552 1S CL Reader [ACR1552 1S CL Reader PICC]")
    #expect(ReaderFaceKind.utrust3700f.simulatedReaderName.hasPrefix("Identiv uTrust 3700 F CL Reader [uTrust 3700 F CL Reader] ("))
    #expect(ReaderFaceKind.omnikey5022.simulatedReaderName == "HID Global OMNIKEY 5022 Smart Card Reader [OMNIKEY 5022 Smart Card Reader]")
    #expect(ReaderFaceKind.omnikey5422.simulatedReaderName == "HID Global OMNIKEY 5422 Smartcard Reader [OMNIKEY 5422CL Smartcard Reader]")
    #expect(ReaderFaceKind.scl3711.simulatedReaderName == "SCL3711 Reader and NFC Device")
  }

  /// READ BINARY of page 4 on an NTAG215, Le 4 and Le 16: the uTrust gives one page whatever Le
  /// says, the OMNIKEYs four pages whatever Le says, the others what was asked.
  @Test(arguments: [(ReaderFaceKind.acr1252u, 4, 16), (.acr1552u, 4, 16), (.utrust3700f, 4, 4),
                    (.omnikey5022, 16, 16), (.omnikey5422, 16, 16), (.scl3711, 4, 16)])
  func type2ReadBinaryLengths(kind: ReaderFaceKind, forLe4: Int, forLe16: Int) throws {
    let face = try Self.face(kind, try Type2VirtualTag(chip: .ntag215))
    let four = face.transmit(hex("FF B0 00 04 04")), sixteen = face.transmit(hex("FF B0 00 04 10"))
    #expect(four.count == forLe4 + 2 && four.suffix(2) == [0x90, 0x00])
    #expect(sixteen.count == forLe16 + 2 && sixteen.suffix(2) == [0x90, 0x00])
    #expect(four.dropLast(2).prefix(4) == sixteen.dropLast(2).prefix(4))
    #expect(face.transmit(hex("FF D6 00 04 04 11 22 33 44")) == hex("90 00"))
    #expect(face.transmit(hex("FF D6 00 04 10") + [UInt8](repeating: 0, count: 16)) == face.profile.failed.bytes)
  }

  /// ISO 15693: the ACR1552U reads several blocks at once, the OMNIKEY 5022 one block whatever Le says.
  @Test func type5ReadBinaryLengths() throws {
    let acs = try Self.face(.acr1552u, try ICODESLIX2VirtualTag())
    #expect(acs.transmit(hex("FF B0 00 00 08")).count == 10)
    let hid = try Self.face(.omnikey5022, try ICODESLIX2VirtualTag())
    #expect(hid.transmit(hex("FF B0 00 00 00")).count == 6)
    #expect(hid.transmit(hex("FF B0 00 00 08")).count == 6)
    #expect(hid.transmit(hex("FF D6 00 05 04 01 02 03 04")) == hex("90 00"))
    #expect(hid.transmit(hex("FF D6 00 05 08 01 02 03 04 05 06 07 08")) == hex("63 00"))
  }

  /// What each reader answers to a command it does not have (here the ACR122U's firmware command).
  @Test(arguments: [(ReaderFaceKind.acr1252u, "6A81"), (.acr1552u, "6A81"), (.utrust3700f, "6A81"),
                    (.omnikey5022, "6D00"), (.omnikey5422, "6D00"), (.scl3711, "6A81")])
  func unsupportedCommand(kind: ReaderFaceKind, answer: String) throws {
    let face = try Self.face(kind, try Type2VirtualTag(chip: .ntag213))
    #expect(face.transmit(hex("FF 00 48 00 00")) == hex(answer))
    #expect(face.transmit(hex("FF CA 01 00 00")) == hex(answer))  // no ATS on a Type 2 tag
  }

  /// Transparent exchange and direct transmit: the ACS readers have FF C2, the others not; only
  /// the ACR1252U carries FeliCa commands in direct transmit.
  @Test func exchangePaths() throws {
    let start = hex("FF C2 00 00 02 81 00 00")
    for kind in Self.part3Faces {
      let face = try Self.face(kind, try Type2VirtualTag(chip: .ntag213))
      let expected = [.acr1252u, .acr1552u].contains(kind) ? hex("C0 03 00 90 00 90 00") : face.profile.unsupported.bytes
      #expect(face.transmit(start) == expected, "\(kind)")
    }
    let felica = try VirtualTagKind.felicaLiteS.makeTag(uid: nil)
    let acr1252 = try Self.face(.acr1252u, felica)
    // FeliCa Read Without Encryption of block 0 of service 000B: 10 bytes with the length byte.
    let read = [0x10, 0x06] + felica.identifier + [0x01, 0x0B, 0x00, 0x01, 0x80, 0x00]
    let answer = acr1252.transmit([0xFF, 0x00, 0x00, 0x00, UInt8(read.count)] + read)
    #expect(answer.count == 1 + 1 + 8 + 2 + 1 + 16 + 2 && answer.suffix(2) == [0x90, 0x00] && answer[1] == 0x07)
    #expect(acr1252.atr == hex("3B 8F 80 01 80 4F 0C A0 00 00 03 06 11 00 3B 00 00 00 00 42"))  // ACM1252U-Y3 manual p.45
    #expect(acr1252.transmit(hex("FF CA 00 00 00")) == felica.identifier + hex("90 00"))
  }

  /// The ACR1252U keeps the ACR122U's LED command; the others refuse it.
  @Test func acr122LEDCommand() throws {
    #expect(try Self.face(.acr1252u, try Type2VirtualTag(chip: .ntag213)).transmit(hex("FF 00 40 05 04 00 00 00 00")) == hex("90 01"))
    #expect(try Self.face(.acr1552u, try Type2VirtualTag(chip: .ntag213)).transmit(hex("FF 00 40 05 04 00 00 00 00")) == hex("6A 81"))
  }

  /// Each reader's ATRs: Part 3 storage cards and ISO-DEP alike on all, the SCL3711's own Topaz
  /// form, and the ICODE name for ISO 15693.
  @Test func atrs() throws {
    let ntag = hex("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 03 00 00 00 00 68")
    let type4 = try VirtualTagKind.type4.makeTag(uid: nil)
    guard case .typeA(_, _, let ats?) = type4.technology else { Issue.record("no ATS"); return }
    for kind in Self.part3Faces {
      #expect(try Self.face(kind, try Type2VirtualTag(chip: .ntag215)).atr == ntag, "\(kind)")
      // ISO-DEP: the ATS's historical bytes only (ACR1255U-J1 manual; CLOUD 47x0 F manual §5.3.3.2;
      // SCL3711 manual §5.3.3.5), not the whole ATS the ACR122U shows.
      #expect(try Self.face(kind, type4).atr == isoDEPATR(historicalBytes: PartThreeFace.historicalBytes(ofATS: ats)), "\(kind)")
    }
    for kind in [ReaderFaceKind.acr1552u, .omnikey5022] {
      #expect(try Self.face(kind, try ICODESLIX2VirtualTag()).atr == hex("3B 8F 80 01 80 4F 0C A0 00 00 03 06 0B 00 14 00 00 00 00 77"))
    }
    let topaz = try Type1VirtualTag(chip: .topaz512, uid: nil)
    #expect(try Self.face(.scl3711, topaz).atr == hex("3B 82 80 01 02 44 45"))  // SCL3711 Reference Manual §5.3.3.3
  }

  /// LOAD KEYS as each reader takes it: key numbers, persistent keys, and the status of a refusal.
  @Test func loadKeys() throws {
    let key = "FF FF FF FF FF FF"
    func face(_ kind: ReaderFaceKind) throws -> PartThreeFace {
      try Self.face(kind, try MIFAREClassicVirtualTag(chip: .classic1K, uid: nil))
    }
    let acs = try face(.acr1252u)
    #expect(acs.transmit(hex("FF 82 00 01 06 \(key)")) == hex("90 00"))
    #expect(acs.transmit(hex("FF 82 00 02 06 \(key)")) == hex("63 00"))       // two volatile slots
    #expect(acs.transmit(hex("FF 82 20 00 06 \(key)")) == hex("63 00"))       // no persistent store
    #expect(acs.transmit(hex("FF 86 00 00 05 01 00 04 60 01")) == hex("90 00"))
    let hid = try face(.omnikey5022)
    #expect(hid.transmit(hex("FF 82 20 1F 06 \(key)")) == hex("90 00"))       // persistent, slot 1F
    #expect(hid.persistentKeyNumbers == [0x1F])
    #expect(hid.transmit(hex("FF 82 80 00 06 \(key)")) == hex("69 83"))       // reader keys: not taken
    #expect(hid.transmit(hex("FF 86 00 00 05 01 00 04 60 1F")) == hex("90 00"))
    #expect(hid.transmit(hex("FF 88 00 04 60 1F")) == hex("6D 00"))           // no obsolete AUTHENTICATE
    let scl = try face(.scl3711)
    #expect(scl.transmit(hex("FF 82 00 00 06 \(key)")) == hex("69 88"))       // P2 is the key type
    #expect(scl.transmit(hex("FF 82 00 60 06 \(key)")) == hex("90 00"))
    #expect(scl.transmit(hex("FF 86 00 00 05 01 00 04 60 60")) == hex("90 00"))
    let identiv = try face(.utrust3700f)
    #expect(identiv.transmit(hex("FF 82 20 00 06 \(key)")) == hex("69 87"))  // card keys only volatile
    #expect(identiv.transmit(hex("FF 86 00 00 05 01 00 04 60 00")) == hex("6A 82"))  // no key loaded
  }

  /// Each reader's escapes through SCardControl (codes as pcsc-lite numbers them).
  @Test func controlEscapes() throws {
    let escape = ReaderControlCode.vendorEscape, acsccid = ReaderControlCode.pcscLite(3500)
    func face(_ kind: ReaderFaceKind) throws -> PartThreeFace { try Self.face(kind, try Type2VirtualTag(chip: .ntag213)) }
    let acr1252 = try face(.acr1252u)
    #expect(acr1252.control(code: escape, hex("E0 00 00 18 00")) == hex("E1 00 00 00 0F") + Array("ACR1252U_V202.2".utf8))
    #expect(acr1252.control(code: acsccid, hex("E0 00 00 29 01 02")) == hex("E1 00 00 00 01 02"))
    #expect(acr1252.control(code: escape, hex("E0 00 00 29 00")) == hex("E1 00 00 00 01 02"))
    #expect(acr1252.control(code: escape, hex("E0 00 00 28 01 0A")) == hex("E1 00 00 00 01 00"))
    #expect(acr1252.control(code: escape, hex("E0 00 00 28 03 01 02 03")) == nil)
    #expect(try face(.acr1552u).control(code: escape, hex("E0 00 00 28 03 01 02 03")) == hex("E1 00 00 00 03 01 02 03"))
    let utrust = try face(.utrust3700f)
    #expect(utrust.control(code: escape, hex("B2 01")) == hex("01"))
    #expect(utrust.control(code: escape, hex("B2 FF")) == hex("01"))
    #expect(utrust.control(code: acsccid, hex("B2 FF")) == nil)
    #expect(utrust.control(code: escape, hex("E0 00 00 18 00")) == nil)
    let firmware = hex("FF 70 07 6B 08 A2 06 A0 04 A0 02 85 00 00")
    for kind in [ReaderFaceKind.omnikey5022, .omnikey5422] {
      let hid = try face(kind)
      #expect(hid.control(code: escape, firmware) == hex("BD 05 85 03 01 0A 00 90 00"))
      #expect(hid.transmit(firmware) == hex("BD 05 85 03 01 0A 00 90 00"))  // also through SCardTransmit
    }
    #expect(try face(.scl3711).control(code: escape, hex("E0 00 00 18 00")) == nil)
    #expect(try face(.scl3711).control(code: escape, firmware) == nil)
  }

  /// A family the reader does not read: the one-line refusal with a face that does.
  @Test(arguments: [(ReaderFaceKind.acr1252u, VirtualTagKind.icodeSLIX2, ReaderFaceKind.acr1552u),
                    (.acr1252u, .topaz512, .acr122u), (.acr1552u, .felicaLiteS, .acr122u),
                    (.utrust3700f, .icodeSLIX2, .acr1552u), (.utrust3700f, .topaz512, .acr122u),
                    (.omnikey5022, .topaz96, .acr122u), (.omnikey5422, .icodeSLIX2, .acr1552u),
                    (.scl3711, .icodeSLIX2, .acr1552u), (.omnikey5022, .felicaLiteS, .acr122u)])
  func refusesAFamilyItDoesNotRead(kind: ReaderFaceKind, tag: VirtualTagKind, working: ReaderFaceKind) throws {
    let error = #expect(throws: EmulatorError.self) { try kind.makeFace(tag: try tag.makeTag(uid: nil)) }
    #expect(error?.workingFace == working)
    #expect(error?.message.contains(kind.profile?.productName ?? "?") == true)
  }
}
