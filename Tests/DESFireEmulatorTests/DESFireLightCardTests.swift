import DESFire
import DESFireEmulator
import EV2SecureMessaging
@testable import NFCEmulator
import Testing

/// ISO SELECT of the Light's application by its DF name, no answer data (P2 0Ch), as AN12343's
/// examples and the hosts that cite it begin.
private let selectDF = "00 A4 04 0C 10 A0 00 00 03 96 56 43 41 03 F0 15 40 00 00 00 0B"

extension DESFireVirtualTag {
  /// A factory `desfire-light` with DESFireEmulator's cryptography.
  fileprivate static func light() throws -> DESFireVirtualTag {
    let tag = try #require(try VirtualTagKind.desfireLight.makeTag(uid: nil) as? DESFireVirtualTag)
    tag.security = OpenSSLDESFireSecurity()
    return tag
  }
}

/// The virtual MIFARE DESFire Light (docs/desfire.md, "DESFire Light"): its GetVersion, ISO and
/// wrapped framing only, the fixed file set, EV2 secure messaging and the ReadData/WriteData codes
/// AN12343 uses (ADh, 8Dh).
@Suite struct DESFireLightCardTests {
  @Test func getVersionNamesTheLight() throws {
    let tag = try DESFireVirtualTag.light()
    #expect(tag.productName == "MIFARE DESFire Light")
    #expect(tag.send("90 60 00 00 00") == hex("04 08 01 30 00 13 05 91 AF"))
    #expect(tag.send("90 AF 00 00 00") == hex("04 08 01 30 00 13 05 91 AF"))
    #expect(tag.send("90 AF 00 00 00").suffix(2) == [0x91, 0x00])
  }

  @Test func nativeFramingIsRefused() throws {
    let tag = try DESFireVirtualTag.light()
    #expect(tag.send("60") == hex("6E 00"))
    #expect(tag.send("5A 00 00 00") == hex("6E 00"))
  }

  @Test(arguments: ["90 5A 00 00 03 00 00 00 00", "90 6A 00 00 00", "90 CA 00 00 05 01 00 00 0F 81 00",
                    "90 DA 00 00 03 01 00 00 00", "90 FC 00 00 00", "90 6E 00 00 00", "90 CD 00 00 07 05 00 EE EE 20 00 00 00",
                    "90 AA 00 00 01 00 00"])
  func applicationManagementIsRefused(command: String) throws {
    let tag = try DESFireVirtualTag.light()
    #expect(tag.send(command) == hex("91 1C"), "\(command)")
    #expect(tag.send(selectDF) == hex("90 00"))
    #expect(tag.send(command) == hex("91 1C"), "\(command)")
  }

  @Test func theFixedFilesAfterAnISOSelect() throws {
    let tag = try DESFireVirtualTag.light()
    #expect(tag.send("90 6F 00 00 00") == hex("91 9D"))   // the MF holds no files
    #expect(tag.send(selectDF) == hex("90 00"))
    #expect(tag.send("90 6F 00 00 00") == hex("00 01 03 04 0F 1F 91 00"))   // 0Fh: the Transaction MAC file
    #expect(tag.send("90 61 00 00 00") == hex("00 EF 01 EF 04 EF 1F EF 91 00"))
    #expect(tag.send("90 F5 00 00 01 00 00") == hex("00 03 30 1F 00 01 00 91 00"))           // standard, full, 256 bytes
    #expect(tag.send("90 F5 00 00 01 01 00") == hex("04 03 30 12 10 00 00 05 00 00 00 00 00 91 00"))  // cyclic, 16 × 5
    #expect(tag.send("90 F5 00 00 01 04 00") == hex("00 03 30 12 00 01 00 91 00"))
    #expect(tag.send("90 F5 00 00 01 1F 00") == hex("00 00 30 EF 20 00 00 91 00"))           // the FCI file, plain, free read
    #expect(Array(tag.send("90 F5 00 00 01 03 00").prefix(4)) == hex("02 03 30 12"))
    // By the DF's ISO file ID too, and back to the MF.
    #expect(tag.send("00 A4 00 0C 02 3F 00") == hex("90 00"))
    #expect(tag.send("00 A4 00 0C 02 DF 01") == hex("90 00"))
    #expect(tag.send("90 6F 00 00 00") == hex("00 01 03 04 0F 1F 91 00"))   // 0Fh: the Transaction MAC file
  }

  @Test func noAuthenticationAtTheMF() throws {
    let tag = try DESFireVirtualTag.light()
    #expect(tag.send("90 71 00 00 02 00 00 00") == hex("91 40"))
  }

  @Test func fullModeReadAndWriteUnderEV2WithTheAN12343Codes() throws {
    let tag = try DESFireVirtualTag.light()
    #expect(tag.send(selectDF) == hex("90 00"))
    var session = try authenticate(tag, keyNumber: 3)   // file 04's read&write key
    let header: [UInt8] = [0x04, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00]
    _ = try exchange(tag, &session, 0x8D, header: header, data: hex("01 02 03 04 05"), mode: .full)
    #expect(try exchange(tag, &session, 0xAD, header: header, mode: .full) == hex("01 02 03 04 05"))
    #expect(try exchange(tag, &session, 0xBD, header: header, mode: .full) == hex("01 02 03 04 05"))
    // File 00: key 1 reads, in full mode; without a key the card refuses.
    var reader = try authenticate(tag, keyNumber: 1)
    #expect(try exchange(tag, &reader, 0xAD, header: [0x00, 0, 0, 0, 0x10, 0, 0], mode: .full) == [UInt8](repeating: 0, count: 16))
    #expect(tag.send(selectDF) == hex("90 00"))
    #expect(tag.send("90 AD 00 00 07 00 00 00 00 10 00 00 00") == hex("91 AE"))
  }

  @Test func anISOSelectAnswersTheFCIFile() throws {
    let tag = try DESFireVirtualTag.light()
    #expect(tag.send(selectDF) == hex("90 00"))
    // File 1F is free to read but written with key 3: put an FCI there as a host would.
    var session = try authenticate(tag, keyNumber: 3)
    let fci = hex("6F 09 84 07 D2 76 00 00 85 01 01")
    _ = try exchange(tag, &session, 0x3D, header: [0x1F, 0, 0, 0, UInt8(fci.count), 0, 0], data: fci, mode: .plain)
    #expect(tag.send("00 A4 04 00 10 A0 00 00 03 96 56 43 41 03 F0 15 40 00 00 00 0B 00") == fci + hex("90 00"))
    #expect(tag.send(selectDF) == hex("90 00"))   // P2 0Ch: no answer data
  }

  /// The NDEF setup m5stack/M5Unit-NFC's `prepare_desfire_light` sends: SetConfiguration 08h
  /// (files 00h, 04h to E103h, E104h), ChangeFileSettings to plain and free, SetConfiguration 06h
  /// (the DF to D2760000850101 / E110h); then a Type 4 reader's commands reach the files.
  @Test func setConfigurationRenamesTheFilesAndTheDFOnce() throws {
    let tag = try DESFireVirtualTag.light()
    #expect(tag.send(selectDF) == hex("90 00"))
    var session = try authenticate(tag, keyNumber: 0)
    _ = try exchange(tag, &session, 0x5C, header: [0x08], data: hex("03 00 00 03 E1 04 04 04 E1"), mode: .full)
    for number: UInt8 in [0x00, 0x04] {
      _ = try exchange(tag, &session, 0x5F, header: [number], data: hex("00 EE EE"), mode: .full)
    }
    let name = hex("D2 76 00 00 85 01 01")
    let rename = [0x87] + name + [UInt8](repeating: 0, count: 9) + [0x10, 0xE1]
    _ = try exchange(tag, &session, 0x5C, header: [0x06], data: rename, mode: .full)
    // Once: the same again is refused, and so is renaming a renamed file.
    #expect(tag.send(try session.command(0x5C, header: [0x06], data: rename, mode: .full)) == hex("91 9D"))
    session = try authenticate(tag, keyNumber: 0)
    #expect(tag.send(try session.command(0x5C, header: [0x08], data: hex("01 00 00 05 E1"), mode: .full)) == hex("91 9D"))
    // A Type 4 reader: the NDEF application, the CC file, UPDATE and READ BINARY in plain.
    #expect(tag.send(selectDF) == hex("6A 82"))
    #expect(tag.send("00 A4 04 00 07 D2 76 00 00 85 01 01 00") == hex("90 00"))
    #expect(tag.send("00 A4 00 0C 02 E1 03") == hex("90 00"))
    let cc = hex("00 0F 20 00 3B 00 34 04 06 E1 04 01 00 00 00")
    #expect(tag.send(hex("00 D6 00 00 0F") + cc) == hex("90 00"))
    #expect(tag.send("00 B0 00 00 0F") == cc + hex("90 00"))
    #expect(tag.send("00 A4 00 0C 02 E1 04") == hex("90 00"))
    #expect(tag.send("00 B0 00 00 02") == hex("00 00 90 00"))
    #expect(tag.send("00 A4 00 0C 02 DF 01") == hex("6A 82"))
    #expect(tag.send("00 A4 00 0C 02 E1 10") == hex("90 00"))
  }

  @Test func theImageKeepsTheLightAndOnlyALightTakesIt() throws {
    let tag = try DESFireVirtualTag.light()
    #expect(tag.send(selectDF) == hex("90 00"))
    let image = tag.memoryImage
    let loaded = try #require(try VirtualTagKind.desfireLight.makeTag(image: image) as? DESFireVirtualTag)
    #expect(loaded.applications == tag.applications)
    #expect(loaded.chip == .light)
    #expect(throws: EmulatorError.self) { try VirtualTagKind.desfireEV3With4K.makeTag(image: image) }
    let ev3 = try DESFireVirtualTag(chip: .ev3With4K)
    #expect(throws: EmulatorError.self) { try VirtualTagKind.desfireLight.makeTag(image: ev3.memoryImage) }
  }
}
