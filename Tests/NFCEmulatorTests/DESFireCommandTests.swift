import NFCTransport
import Testing
@testable import NFCEmulator

/// The virtual DESFire EV1's native commands, framings, chains and status answers.
@Suite struct DESFireCommandTests {
  @Test func identityAndGetVersionOfEachSize() throws {
    for (chip, size) in [(DESFireChip.ev1With2K, "16"), (.ev1With4K, "18"), (.ev1With8K, "1A")] {
      let tag = try DESFireVirtualTag.factory(chip)
      #expect(tag.technology == .typeA(sensRes: [0x03, 0x44], selRes: 0x20, ats: desfireBytes("06 75 77 81 02 80")))
      #expect(tag.platform == .type4 && tag.identifier.count == 7)
      #expect(tag.send("90 60 00 00 00") == desfireBytes("04 01 01 01 00 \(size) 05 91 AF"))
      #expect(tag.send("90 AF 00 00 00") == desfireBytes("04 01 01 01 04 \(size) 05 91 AF"))
      #expect(tag.send("90 AF 00 00 00") == desfireBytes("04 95 91 0A 5D 6D 80 BA 00 00 00 00 20 13 91 00"))
      #expect(tag.send("90 AF 00 00 00") == desfireBytes("91 1C"))            // no chain open any more
    }
    #expect(DESFireChip.ev1With2K.memorySize == 2048 && DESFireChip.ev1With8K.memorySize == 8192)
    #expect(throws: EmulatorError.self) { try DESFireVirtualTag(chip: .ev1With4K, uid: [0x04, 0x01, 0x02, 0x03]) }
  }

  @Test func nativeFramingAnswersStatusFirst() throws {
    let tag = try DESFireVirtualTag.factory()
    #expect(tag.send("60") == desfireBytes("AF 04 01 01 01 00 1A 05"))
    #expect(tag.send("AF") == desfireBytes("AF 04 01 01 01 04 1A 05"))
    #expect(tag.send("6E") == desfireBytes("CA"))                              // another command ends the chain
    #expect(tag.send("6E") == desfireBytes("00 00 20 00"))                     // and then runs
    #expect(tag.respond(to: []) == .mute)
  }

  @Test func aBrokenChainIsAbortedAsTagInfoSawIt() throws {
    let tag = try DESFireVirtualTag.factory()
    #expect(tag.send("90 60 00 00 00").suffix(2) == [0x91, 0xAF])
    #expect(tag.send("90 5A 00 00 03 00 00 00 00") == desfireBytes("91 CA"))
    #expect(tag.send("90 5A 00 00 03 00 00 00 00") == desfireBytes("91 00"))
    #expect(tag.send("90 60 00 00 00").suffix(2) == [0x91, 0xAF])             // an ISO command inside a chain
    #expect(tag.send("00 A4 04 00 07 D2 76 00 00 85 01 01 00") == desfireBytes("6A 82"))
    #expect(tag.send("90 AF 00 00 00") == desfireBytes("91 1C"))              // ends it too
  }

  @Test func factoryPICCLevel() throws {
    let tag = try DESFireVirtualTag.factory()
    #expect(tag.send("90 6A 00 00 00") == desfireBytes("91 00"))              // no applications
    #expect(tag.send("90 6E 00 00 00") == desfireBytes("00 20 00 91 00"))     // 8192 bytes free
    #expect(tag.send("90 45 00 00 00") == desfireBytes("0F 01 91 00"))        // KS 0F, one DES key
    #expect(tag.send("90 64 00 00 01 00 00") == desfireBytes("00 91 00"))     // key 0, version 0
    #expect(tag.send("90 64 00 00 01 01 00") == desfireBytes("91 40"))        // no key 1
    #expect(tag.send("90 6F 00 00 00") == desfireBytes("91 9D"))              // the PICC level has no files
    #expect(tag.send("90 FC 00 00 00") == desfireBytes("91 AE"))              // FormatPICC needs the PICC key
    #expect(tag.send("90 0A 00 00 01 00 00") == desfireBytes("91 1C"))        // no cryptography installed
    #expect(tag.send("90 6E 00 00 01 00 00") == desfireBytes("91 7E"))
    #expect(tag.send("90 6E 01 00 00") == desfireBytes("6A 86"))              // P1 P2 must be 00 00
    #expect(tag.send("90 6E 00 00 05 00") == desfireBytes("67 00"))           // Lc says 5, 1 byte follows
  }

  @Test func applicationsAreCreatedSelectedAndRefused() throws {
    let tag = try DESFireVirtualTag.factory()
    #expect(tag.send("90 5A 00 00 01 01 00") == desfireBytes("91 7E"))        // a 1-byte AID (nfc-pcsc #78)
    #expect(tag.send("90 5A 00 00 03 01 00 00 00") == desfireBytes("91 A0"))  // no such application
    // AID 123456, KS1 2F, KS2 2E (14 DES keys, ISO FIDs), FID 2345, DF name "aid123456"
    #expect(tag.send("90 CA 00 00 10 56 34 12 2F 2E 45 23 61 69 64 31 32 33 34 35 36 00") == desfireBytes("91 00"))
    #expect(tag.send("90 CA 00 00 05 56 34 12 0F 01 00") == desfireBytes("91 DE"))   // the same AID
    #expect(tag.send("90 CA 00 00 07 01 00 00 0F 21 45 23 00") == desfireBytes("91 DE")) // the same ISO FID
    #expect(tag.send("90 CA 00 00 05 00 00 00 0F 01 00") == desfireBytes("91 9E"))   // AID 000000
    #expect(tag.send("90 CA 00 00 05 02 00 00 0F 00 00") == desfireBytes("91 9E"))   // no keys
    #expect(tag.send("90 CA 00 00 05 02 00 00 0F 0F 00") == desfireBytes("91 9E"))   // 15 keys
    #expect(tag.send("90 CA 00 00 05 02 00 00 0F C1 00") == desfireBytes("91 9E"))   // key type 11b
    #expect(tag.send("90 CA 00 00 06 02 00 00 0F 01 00 00") == desfireBytes("91 7E")) // bytes after KS2
    #expect(tag.send("90 CA 00 00 04 02 00 00 0F 00") == desfireBytes("91 7E"))
    #expect(tag.send("90 CA 00 00 05 02 00 00 09 82 00") == desfireBytes("91 00"))   // two AES keys
    #expect(tag.send("90 6A 00 00 00") == desfireBytes("56 34 12 02 00 00 91 00"))
    #expect(tag.send("90 5A 00 00 03 02 00 00 00") == desfireBytes("91 00"))
    #expect(tag.send("90 45 00 00 00") == desfireBytes("91 AE"))              // KS1 09: bit 1 clear
    #expect(tag.send("90 64 00 00 01 01 00") == desfireBytes("00 91 00"))
    #expect(tag.send("90 64 00 00 01 02 00") == desfireBytes("91 40"))
    #expect(tag.send("90 6A 00 00 00") == desfireBytes("91 9D"))              // only at the PICC level
    #expect(tag.send("90 CA 00 00 05 03 00 00 0F 01 00") == desfireBytes("91 9D"))
    #expect(tag.send("90 DA 00 00 03 02 00 00 00") == desfireBytes("91 AE"))  // needs a master key
    #expect(tag.send("90 DA 00 00 03 09 00 00 00") == desfireBytes("91 A0"))
    tag.reset()
    #expect(tag.send("90 6F 00 00 00") == desfireBytes("91 9D"))              // back at the PICC level
  }

  @Test func twentyEightApplicationsAtMost() throws {
    let tag = try DESFireVirtualTag.factory()
    for n in 1...28 {
      #expect(tag.send("90 CA 00 00 05 \(String(n, radix: 16).count == 1 ? "0" : "")\(String(n, radix: 16)) 00 10 0F 01 00")
              == desfireBytes("91 00"))
    }
    #expect(tag.send("90 CA 00 00 05 01 00 20 0F 01 00") == desfireBytes("91 CE"))
    let first = tag.send("90 6A 00 00 00")                                    // 19 AIDs, then the other 9
    #expect(first.count == 19 * 3 + 2 && first.suffix(2) == [0x91, 0xAF] && first.prefix(3) == [0x01, 0x00, 0x10])
    let second = tag.send("90 AF 00 00 00")
    #expect(second.count == 9 * 3 + 2 && second.suffix(2) == [0x91, 0x00])
  }

  @Test func filesAndTheirAccessRights() throws {
    let tag = try DESFireVirtualTag.factory(.ev1With4K)
    _ = tag.send("90 CA 00 00 05 01 00 00 0F 03 00")                           // KS1 0F: free file management
    _ = tag.send("90 5A 00 00 03 01 00 00 00")
    #expect(tag.send("90 CD 00 00 07 01 00 EE EE 40 00 00 00") == desfireBytes("91 00"))  // 64 bytes free
    #expect(tag.send("90 CD 00 00 07 02 00 10 12 10 00 00 00") == desfireBytes("91 00"))  // read 1, write 2, RW 1, change 0
    #expect(tag.send("90 CD 00 00 07 03 03 FF FF 01 00 00 00") == desfireBytes("91 00"))  // never, full mode
    #expect(tag.send("90 CD 00 00 07 01 00 EE EE 10 00 00 00") == desfireBytes("91 DE"))
    #expect(tag.send("90 CD 00 00 07 20 00 EE EE 10 00 00 00") == desfireBytes("91 9E"))  // file 20h
    #expect(tag.send("90 CD 00 00 07 04 04 EE EE 10 00 00 00") == desfireBytes("91 9E"))  // option 04
    #expect(tag.send("90 CD 00 00 07 04 00 EE EE 00 00 00 00") == desfireBytes("91 9E"))  // size 0
    #expect(tag.send("90 CD 00 00 09 04 03 E1 00 EE EE 10 00 00 00") == desfireBytes("91 7E"))  // no ISO FIDs here
    #expect(tag.send("90 CD 00 00 07 05 00 EE EE 00 10 00 00") == desfireBytes("91 0E"))  // 4096 > 4096 - 128 free
    #expect(tag.send("90 6E 00 00 00") == desfireBytes("80 0F 00 91 00"))                 // 4096 - 64 - 32 - 32
    #expect(tag.send("90 6F 00 00 00") == desfireBytes("01 02 03 91 00"))
    #expect(tag.send("90 F5 00 00 01 02 00") == desfireBytes("00 00 10 12 10 00 00 91 00"))
    #expect(tag.send("90 F5 00 00 01 07 00") == desfireBytes("91 F0"))
    #expect(tag.send("90 BD 00 00 07 02 00 00 00 00 00 00 00") == desfireBytes("91 AE"))  // key 1 or 2
    #expect(tag.send("90 BD 00 00 07 03 00 00 00 00 00 00 00") == desfireBytes("91 9D"))  // never
    #expect(tag.send("90 BD 00 00 07 07 00 00 00 00 00 00 00") == desfireBytes("91 F0"))
    #expect(tag.send("90 BD 00 00 07 01 40 00 00 01 00 00 00") == desfireBytes("91 BE"))  // offset 64
    #expect(tag.send("90 BD 00 00 07 01 3F 00 00 02 00 00 00") == desfireBytes("91 BE"))  // runs past 64
    #expect(tag.send("90 BD 00 00 06 01 00 00 00 00 00 00") == desfireBytes("91 7E"))
    #expect(tag.send("90 3D 00 00 0A 01 02 00 00 03 00 00 0A 0B 0C 00") == desfireBytes("91 00"))
    #expect(tag.send("90 BD 00 00 07 01 00 00 00 05 00 00 00") == desfireBytes("00 00 0A 0B 0C 91 00"))
    #expect(tag.send("90 3D 00 00 09 01 00 00 00 01 00 00 0A 0B 00") == desfireBytes("91 7E"))  // more than said
    #expect(tag.send("90 3D 00 00 07 01 00 00 00 00 00 00 00") == desfireBytes("91 7E"))        // length 0
    #expect(tag.send("90 DF 00 00 01 03 00") == desfireBytes("91 00"))
    #expect(tag.send("90 6F 00 00 00") == desfireBytes("01 02 91 00"))
    #expect(tag.send("90 6E 00 00 00") == desfireBytes("80 0F 00 91 00"))     // memory stays allocated
  }

  @Test func longDataComesAndGoesInFrames() throws {
    let tag = try DESFireVirtualTag.factory()
    _ = tag.send("90 CA 00 00 05 01 00 00 0F 01 00")
    _ = tag.send("90 5A 00 00 03 01 00 00 00")
    _ = tag.send("90 CD 00 00 07 01 00 EE EE 80 00 00 00")                    // 128 bytes
    let content = (0..<100).map { UInt8($0) }
    let hex = { (b: ArraySlice<UInt8>) in b.map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined(separator: " ") }
    // WriteData of 100 bytes: 40 in the first frame, 40 and 20 in two AF frames.
    #expect(tag.send("90 3D 00 00 2F 01 00 00 00 64 00 00 \(hex(content[0..<40])) 00") == desfireBytes("91 AF"))
    #expect(tag.send("90 AF 00 00 28 \(hex(content[40..<80])) 00") == desfireBytes("91 AF"))
    #expect(tag.send("90 AF 00 00 14 \(hex(content[80..<100])) 00") == desfireBytes("91 00"))
    let first = tag.send("90 BD 00 00 07 01 00 00 00 00 00 00 00")           // the whole file: 59 + 59 + 10
    #expect(first == Array(content[0..<59]) + [0x91, 0xAF])
    let second = tag.send("90 AF 00 00 00")
    #expect(second == Array(content[59..<100]) + [UInt8](repeating: 0, count: 18) + [0x91, 0xAF])
    #expect(tag.send("90 AF 00 00 00") == [UInt8](repeating: 0, count: 10) + [0x91, 0x00])
    // A write whose frames stop: the next command aborts it, and the file is unchanged.
    #expect(tag.send("90 3D 00 00 09 01 00 00 00 04 00 00 FF FF 00") == desfireBytes("91 AF"))
    #expect(tag.send("90 6E 00 00 00") == desfireBytes("91 CA"))
    #expect(tag.send("90 BD 00 00 07 01 00 00 00 02 00 00 00") == desfireBytes("00 01 91 00"))
  }

  @Test func theMasterKeyOpensWhatItGuards() throws {
    // The state an authentication sets, set here directly (DESFireEmulatorTests authenticate).
    let tag = try DESFireVirtualTag.factory(.ev1With2K)
    _ = tag.send("90 CA 00 00 05 01 00 00 09 01 00")                           // KS1 09: files need the key
    _ = tag.send("90 5A 00 00 03 01 00 00 00")
    #expect(tag.send("90 CD 00 00 07 01 00 EE EE 20 00 00 00") == desfireBytes("91 AE"))
    tag.authenticatedKey = 1
    #expect(tag.send("90 CD 00 00 07 01 00 EE EE 20 00 00 00") == desfireBytes("91 9D"))  // not the master key
    tag.authenticatedKey = 0
    #expect(tag.send("90 CD 00 00 07 01 00 00 00 20 00 00 00") == desfireBytes("91 00"))  // every right: key 0
    #expect(tag.send("90 BD 00 00 07 01 00 00 00 01 00 00 00") == desfireBytes("00 91 00"))
    #expect(tag.send("90 DA 00 00 03 01 00 00 00") == desfireBytes("91 00"))  // its own master key deletes it
    #expect(tag.selectedAID == 0 && tag.authenticatedKey == nil)
    #expect(tag.send("90 6E 00 00 00") == desfireBytes("E0 07 00 91 00"))     // 2048 - 32 until FormatPICC
    tag.authenticatedKey = 0                                                   // the PICC master key
    _ = tag.send("90 CA 00 00 05 02 00 00 0F 01 00")
    #expect(tag.send("90 FC 00 00 00") == desfireBytes("91 00"))
    #expect(tag.send("90 6A 00 00 00") == desfireBytes("91 00"))
    #expect(tag.send("90 6E 00 00 00") == desfireBytes("00 08 00 91 00"))
  }

  @Test func hostileFramesGetAnAnswerAndNeverATrap() throws {
    let tag = try DESFireVirtualTag.factory()
    _ = tag.send("90 CA 00 00 0E 01 00 00 0F 21 05 E1 D2 76 00 00 85 01 01 00")
    _ = tag.send("90 5A 00 00 03 01 00 00 00")
    _ = tag.send("90 CD 00 00 09 01 03 E1 00 EE EE 0F 00 00 00")
    var generator = SystemRandomNumberGenerator()
    let commands: [UInt8] = [0x60, 0x6A, 0x5A, 0xCA, 0xDA, 0xFC, 0x6E, 0x45, 0x64, 0x6F, 0x61, 0xF5, 0xCD, 0xDF, 0xBD, 0x3D, 0xAF]
    for command in commands {
      for length in 0...24 {
        let data = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let wrapped = [0x90, command, 0x00, 0x00] + (data.isEmpty ? [] : [UInt8(data.count)] + data) + [0x00]
        guard case .data(let answer) = tag.respond(to: wrapped) else { Issue.record("mute"); continue }
        #expect(answer.count >= 2)
        guard case .data(let native) = tag.respond(to: [command] + data) else { Issue.record("mute"); continue }
        #expect(!native.isEmpty)
      }
    }
    for frame in [[0x00], [0x00, 0xB0], [0x00, 0xA4, 0x04, 0x00, 0x20], [0x90], [0x90, 0x60, 0x00]] as [[UInt8]] {
      guard case .data(let answer) = tag.respond(to: frame) else { Issue.record("mute"); continue }
      #expect(answer.count >= 1)
    }
  }
}
