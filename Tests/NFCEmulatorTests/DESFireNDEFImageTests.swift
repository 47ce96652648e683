import Foundation
import NFCTags
import NFCTransport
import Testing
@testable import NFCEmulator

/// NDEF on the virtual DESFire as NXP AN11004 maps it, the reader faces, and the image file.
@Suite struct DESFireNDEFImageTests {
  /// Formats `tag` for NDEF with the APDUs Android's Type 4 formatter sends to an EV1 (AN11004,
  /// mapping 2.0: application 000001 with the DF name D2760000850101 and ISO FID E105, the CC
  /// file E103 and the NDEF file E104, all free), without any authentication.
  static func formatAsAndroidDoes(_ tag: DESFireVirtualTag, ndefSize: Int = 0x1E00) {
    let fileSize = hex([UInt8(ndefSize & 0xFF), UInt8(ndefSize >> 8), 0])          // 3 bytes, LSB first
    let ccSize = hex([UInt8(ndefSize >> 8), UInt8(ndefSize & 0xFF)])             // the CC's, MSB first
    #expect(tag.send("90 CA 00 00 0E 01 00 00 0F 21 05 E1 D2 76 00 00 85 01 01 00") == desfireBytes("91 00"))
    #expect(tag.send("90 5A 00 00 03 01 00 00 00") == desfireBytes("91 00"))
    #expect(tag.send("90 CD 00 00 09 01 03 E1 00 EE EE 0F 00 00 00") == desfireBytes("91 00"))
    #expect(tag.send("90 CD 00 00 09 02 04 E1 00 EE EE \(fileSize) 00") == desfireBytes("91 00"))
    #expect(tag.send("90 3D 00 00 16 01 00 00 00 0F 00 00 00 0F 20 00 3B 00 34 04 06 E1 04 \(ccSize) 00 00 00")
            == desfireBytes("91 00"))
    #expect(tag.send("90 3D 00 00 09 02 00 00 00 02 00 00 00 00 00") == desfireBytes("91 00"))
  }

  static func hex(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined(separator: " ")
  }

  @Test func anAN11004CardAnswersTheType4Reader() throws {
    let tag = try DESFireVirtualTag.factory()
    #expect(tag.send("00 A4 04 00 07 D2 76 00 00 85 01 01 00") == desfireBytes("6A 82"))  // factory: no NDEF application
    #expect(tag.send("00 A4 04 00 07 D2 76 00 00 85 01 00") == desfireBytes("90 00"))     // the PICC level's name
    Self.formatAsAndroidDoes(tag)
    tag.reset()
    #expect(tag.send("00 A4 04 00 07 D2 76 00 00 85 01 01 00") == desfireBytes("90 00"))
    #expect(tag.send("00 B0 00 00 02") == desfireBytes("69 86"))                         // no file selected
    #expect(tag.send("00 A4 00 0C 02 E1 03") == desfireBytes("90 00"))
    #expect(tag.send("00 B0 00 00 0F") == desfireBytes("00 0F 20 00 3B 00 34 04 06 E1 04 1E 00 00 00 90 00"))
    #expect(tag.send("00 B0 00 0A 08") == desfireBytes("04 1E 00 00 00 62 82"))           // past the end
    #expect(tag.send("00 B0 00 0F 01") == desfireBytes("6B 00"))
    #expect(tag.send("00 B0 81 00 02") == desfireBytes("6A 81"))                          // short file identifiers: no
    #expect(tag.send("00 A4 00 0C 02 E1 04") == desfireBytes("90 00"))
    #expect(tag.send("00 B0 00 00 02") == desfireBytes("00 00 90 00"))                    // NLEN 0
    #expect(tag.send("00 D6 00 00 0B 00 09 D1 01 05 55 04 61 2E 62 63") == desfireBytes("90 00"))
    #expect(tag.send("00 D6 1D FF 02 00 00") == desfireBytes("67 00"))                    // runs past 7680 bytes
    #expect(tag.send("00 A4 00 0C 02 E1 99") == desfireBytes("6A 82"))
    #expect(tag.send("00 CA 00 00 00") == desfireBytes("6D 00"))
    // The same bytes through the native command.
    #expect(tag.send("90 5A 00 00 03 01 00 00 00") == desfireBytes("91 00"))
    #expect(tag.send("90 BD 00 00 07 02 00 00 00 0B 00 00 00") == desfireBytes("00 09 D1 01 05 55 04 61 2E 62 63 91 00"))
    #expect(tag.send("90 61 00 00 00") == desfireBytes("03 E1 04 E1 91 00"))
    // By ISO FID: the application E105 from the PICC level, 3F00 back to it.
    #expect(tag.send("00 A4 00 0C 02 3F 00") == desfireBytes("90 00"))
    #expect(tag.send("00 A4 00 0C 02 E1 05") == desfireBytes("90 00"))
    #expect(tag.send("00 A4 00 0C 02 E1 04") == desfireBytes("90 00"))
    #expect(tag.send("00 B0 00 02 03") == desfireBytes("D1 01 05 90 00"))
  }

  @Test func protectedNDEFFilesRefuseISOAccess() throws {
    // libfreefare's layout: the CC file's write right is key 0 (E000), so UPDATE BINARY is refused.
    let tag = try DESFireVirtualTag.factory(.ev1With4K)
    _ = tag.send("90 CA 00 00 0E 01 00 00 0F 21 10 E1 D2 76 00 00 85 01 01 00")
    _ = tag.send("90 5A 00 00 03 01 00 00 00")
    #expect(tag.send("90 CD 00 00 09 01 03 E1 00 00 E0 0F 00 00 00") == desfireBytes("91 00"))
    #expect(tag.send("90 CD 00 00 09 02 04 E1 00 00 00 00 01 00 00") == desfireBytes("91 00"))  // every right: key 0
    #expect(tag.send("00 A4 00 0C 02 E1 03") == desfireBytes("90 00"))
    #expect(tag.send("00 D6 00 00 01 00") == desfireBytes("69 82"))
    #expect(tag.send("00 B0 00 00 01") == desfireBytes("00 90 00"))
    #expect(tag.send("00 A4 00 0C 02 E1 04") == desfireBytes("90 00"))
    #expect(tag.send("00 B0 00 00 01") == desfireBytes("69 82"))
    #expect(tag.send("90 CD 00 00 09 03 04 E1 00 EE EE 01 00 00 00") == desfireBytes("91 DE"))  // E104 again
  }

  @Test func theHostsType4PlatformReadsAndWritesIt() throws {
    let tag = try DESFireVirtualTag.factory()
    Self.formatAsAndroidDoes(tag)
    let target = DetectedTarget(readerName: "test", identifier: tag.identifier, atr: [], platform: tag.platform,
                                cardName: tag.productName, details: TargetDetails(),
                                link: VirtualTagLink(tag, capabilities: LinkCapabilities(maxResponseLength: 253, maxCommandLength: 261, rawCommands: false)))
    let platform = try makePlatform(for: target)
    let message: [UInt8] = [0xD1, 0x01, 0x05, 0x54, 0x02, 0x65, 0x6E, 0x68, 0x69]
    try platform.writeNDEF(message, verify: true)
    #expect(try platform.readNDEF() == message)
    #expect(try platform.queryNDEFStatus().messageLength == message.count)
  }

  @Test func reachableBehindTheISO14443FourFaces() throws {
    let face = try ReaderFaceKind.acr122u.makeFace(tag: try DESFireVirtualTag.factory())
    var atr = desfireBytes("3B 86 80 01 06 75 77 81 02 80")
    atr.append(atr.dropFirst().reduce(0, ^))
    #expect(face.atr == atr)
    #expect(face.transmit(desfireBytes("90 60 00 00 00")) == desfireBytes("04 01 01 01 00 1A 05 91 AF"))
    let part3 = try ReaderFaceKind.acr1552u.makeFace(tag: try DESFireVirtualTag.factory())
    #expect(part3.transmit(desfireBytes("90 6E 00 00 00")) == desfireBytes("00 20 00 91 00"))
  }

  @Test func theImageKeepsTheWholeCard() throws {
    let tag = try DESFireVirtualTag(chip: .ev1With4K, uid: desfireBytes("04 11 22 33 44 55 66"))
    Self.formatAsAndroidDoes(tag, ndefSize: 0x0800)
    _ = tag.send("90 5A 00 00 03 00 00 00 00")
    _ = tag.send("90 CA 00 00 05 02 00 00 09 83 00")                            // three AES keys, no ISO
    _ = tag.send("90 5A 00 00 03 02 00 00 00")
    tag.authenticatedKey = 0
    #expect(tag.send("90 CD 00 00 07 05 01 21 43 05 00 00 00") == desfireBytes("91 00"))  // MAC mode, rights 4321
    tag.authenticatedKey = 3                                                   // the write key
    _ = tag.send("90 3D 00 00 0C 05 00 00 00 05 00 00 48 65 6C 6C 6F 00")
    tag.applications[1].keys[2] = DESFireKey(type: .aes, value: Array(1...16), version: 7)
    let image = tag.memoryImage
    #expect(Array(image.prefix(5)) == Array("DESF".utf8) + [0x01])

    let again = try DESFireImage.decode(image, chip: .ev1With4K)
    #expect(again.memoryImage == image)
    #expect(again.identifier == tag.identifier && again.freeMemory == tag.freeMemory)
    #expect(again.applications == tag.applications && again.picc == tag.picc)
    #expect(again.send("90 6A 00 00 00") == desfireBytes("01 00 00 02 00 00 91 00"))
    #expect(again.send("00 A4 04 00 07 D2 76 00 00 85 01 01 00") == desfireBytes("90 00"))
    #expect(again.send("90 F5 00 00 01 05 00") == desfireBytes("91 F0"))        // file 5 is in application 2
    #expect(again.send("90 5A 00 00 03 02 00 00 00") == desfireBytes("91 00"))
    #expect(again.send("90 F5 00 00 01 05 00") == desfireBytes("91 AE"))        // KS1 09: bit 1 clear
    again.authenticatedKey = 0
    #expect(again.send("90 F5 00 00 01 05 00") == desfireBytes("00 01 21 43 05 00 00 91 00"))
    #expect(again.send("90 45 00 00 00") == desfireBytes("09 83 91 00"))
    #expect(again.send("90 64 00 00 01 02 00") == desfireBytes("07 91 00"))
    again.authenticatedKey = 4                                                 // the read key
    #expect(again.send("90 BD 00 00 07 05 00 00 00 00 00 00 00") == desfireBytes("48 65 6C 6C 6F 91 00"))
    #expect(try DESFireImage.decode(image, chip: .ev1With4K, uid: desfireBytes("04 01 02 03 04 05 06")).identifier
            == desfireBytes("04 01 02 03 04 05 06"))
    #expect(throws: EmulatorError.self) { try DESFireImage.decode(image, chip: .ev1With8K) }  // another size
    #expect(throws: EmulatorError.self) { try DESFireImage.decode(image + [0], chip: .ev1With4K) }
    for length in 0..<image.count {                                             // every cut is refused, no trap
      #expect(throws: EmulatorError.self) { try DESFireImage.decode(Array(image.prefix(length)), chip: .ev1With4K) }
    }
  }
}

/// The `desfire-ev1-…` kinds: names, factories, image files and feeder UIDs.
@Suite struct DESFireKindTests {
  @Test func theKindsBuildFactoryCardsOfTheirSize() throws {
    for (name, free) in [("desfire-ev1-2k", "00 08 00"), ("desfire-ev1-4k", "00 10 00"), ("desfire-ev1-8k", "00 20 00")] {
      let kind = try #require(VirtualTagKind(rawValue: name))
      #expect(kind.externalModel == nil && kind.defaultFace == .acr122u)
      let tag = try #require(try kind.makeTag(uid: nil) as? DESFireVirtualTag)
      #expect(tag.send("90 6E 00 00 00") == desfireBytes("\(free) 91 00"))
      #expect(tag.productName.hasPrefix("MIFARE DESFire EV1 "))
      let uid = FeederUIDs.uid(for: kind, seed: 7, index: 3)
      #expect(try kind.makeTag(uid: uid).identifier == uid && uid.count == 7)
      #expect(throws: EmulatorError.self) { try kind.makeTag(image: Array("DESF".utf8)) }
    }
    #expect(VirtualTagKind.names.contains("desfire-ev1-2k|desfire-ev1-4k|desfire-ev1-8k"))
  }

  @Test func anImageFileReloadsTheSameCard() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("desfire-\(UUID().uuidString).bin").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let (file, made) = try ImageFile.open(path: path, kind: .desfireEV1With2K, uid: nil)
    let tag = try #require(made as? DESFireVirtualTag)
    DESFireNDEFImageTests.formatAsAndroidDoes(tag, ndefSize: 0x0400)
    #expect(tag.send("00 A4 00 0C 02 E1 04") == desfireBytes("90 00"))
    #expect(tag.send("00 D6 00 00 03 00 01 AA") == desfireBytes("90 00"))
    try file.saveIfChanged(tag)
    let (_, reloaded) = try ImageFile.open(path: path, kind: .desfireEV1With2K, uid: nil)
    #expect(reloaded.memoryImage == tag.memoryImage)
    #expect(reloaded.respond(to: desfireBytes("00 A4 04 00 07 D2 76 00 00 85 01 01 00")) == .data(desfireBytes("90 00")))
    #expect(reloaded.respond(to: desfireBytes("00 A4 00 0C 02 E1 04")) == .data(desfireBytes("90 00")))
    #expect(reloaded.respond(to: desfireBytes("00 B0 00 00 03")) == .data(desfireBytes("00 01 AA 90 00")))
    #expect(throws: EmulatorError.self) { try ImageFile.open(path: path, kind: .desfireEV1With8K, uid: nil) }
  }
}
