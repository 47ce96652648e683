import Hex
import NDEF
import Testing
@testable import NTAG424

/// The SDM planner: offsets and bytes against a hand-worked example and NXP AN12196 rev 2.0's
/// settings, and a round trip through a file filled in as the tag fills it.
@Suite struct SDMPlanTests {
  /// By hand: NLEN 0048, then D1 01 44 55 04 (SR URI record, payload 68 bytes, "https://"), then
  /// "example.com/t?p=" from file offset 7: PICCData at 7 + 16 = 23 (17h), "&c=" after its 32
  /// digits, the MAC at 23 + 32 + 3 = 58 (3Ah), 16 digits; 74 bytes in all.
  @Test func handWorkedExample() throws {
    let plan = try SDMPlan.plan(template: "https://example.com/t?p={picc}&c={cmac}")
    let zeros32 = String(repeating: "0", count: 32), zeros16 = String(repeating: "0", count: 16)
    #expect(plan.url == "https://example.com/t?p=\(zeros32)&c=\(zeros16)")
    #expect(plan.ndefFile == bytes("0048 D1 01 44 55 04") + Array("example.com/t?p=\(zeros32)&c=\(zeros16)".utf8))
    #expect(plan.ndefFile.count == 74)
    #expect(try plan.settings.changeData() == bytes("40 00E0 C1 F121 170000 3A0000 3A0000"))
    #expect(plan.urlLayout == SUNURLLayout(piccDataOffset: 24, macInputOffset: 59, macOffset: 59))
  }

  /// AN12196 §5.9's URL, https://choose.url.com/ntag424?e=…&c=…, gives its ChangeFileSettings data.
  @Test func an12196ChangeFileSettings() throws {
    let plan = try SDMPlan.plan(template: "https://choose.url.com/ntag424?e={picc}&c={cmac}")
    #expect(try plan.settings.changeData() == bytes("4000E0C1F121200000430000430000"))
  }

  /// AN12196 §5.4's settings (keys 0, everything free) are those of its SUN example's URL with file data.
  @Test func an12196SettingsWithFileData() throws {
    let plan = try SDMPlan.plan(
      template: "https://www.my424dna.com/?picc_data={picc}&enc={enc:32}&cmac={cmac}",
      roles: SDMKeyRoles(metaReadKey: 0, fileReadKey: 0, counterRetrieval: .free),
      accessRights: AccessRights(read: .free, write: .free, readWrite: .free, change: .free), fileData: "xxxxxxxxxxxxxxxx")
    #expect(try plan.settings.changeData() == bytes("40 EEEE D1 FE00 1F0000 440000 440000 200000 6A0000"))
  }

  /// What no verifier here can check is refused by the planner itself,
  /// with what is wrong (NTAG424's `SUNTemplateRule`): placeholders outside the query, run
  /// together or inside a value; plain `{uid}`/`{ctr}` mirrors; `{picc}` without `{cmac}` and
  /// `{cmac}` without `{picc}`.
  @Test func unverifiableShapesAreRefusedWithTheReason() {
    let cases: [(String, String)] = [
      ("https://example.com/{picc}/{cmac}", "in the path or host"),
      ("https://{picc}.example.com/?c={cmac}", "in the path or host"),
      ("https://example.com/t?p={picc}{cmac}", "run together"),
      ("https://example.com/t?p=1{picc}&c={cmac}", "the whole value"),
      ("https://example.com/t?p={picc}#c={cmac}", "fragment"),
      ("https://example.com/?u={uid}&n={ctr}&m={cmac}", "{uid} and {ctr}"),
      ("https://example.com/?u={uid}", "{uid} and {ctr}"),
      ("tel:+1{uid}", "{uid} and {ctr}"),
      ("https://example.com/t?c={cmac}", "{cmac} needs {picc}"),
      ("https://example.com/t?p={picc}", "{picc} needs {cmac}"),
      ("https://example.com/t?p={picc}&x=1&p=2&c={cmac}", "more than once"),
      ("https://example.com/t?p={picc}&e={enc:32}&x=%20&c={cmac}", "percent"),
    ]
    for (template, why) in cases {
      do {
        _ = try SDMPlan.plan(template: template)
        Issue.record("accepted: \(template)")
      } catch {
        #expect(error.description.contains(why), "\(template): \(error)")
      }
    }
  }

  @Test func refusals() {
    let cases = [
      "https://example.com/", "https://example.com/?p={picc}&u={uid}", "https://example.com/?p={picc}&p2={picc}",
      "https://example.com/?x={foo}", "https://example.com/?e={enc:30}&c={cmac}&p={picc}",
      "https://example.com/?p={picc}&e={enc:32}", "https://example.com/?p={picc}&c={cmac}&e={enc:32}",
      "https://example.com/?u={uid}&e={enc:32}&c={cmac}", "https://example.com/?p={picc", "https://example.com/?p=picc}",
      "https://example.com/?p={picc}&c={cmac}&pad=" + String(repeating: "x", count: 200),
    ]
    for template in cases {
      #expect(throws: NTAG424Error.self, "\(template)") { try SDMPlan.plan(template: template) }
    }
    #expect(throws: NTAG424Error.invalidKeyNumber(5)) {
      try SDMPlan.plan(template: "https://e.com/?p={picc}&c={cmac}", roles: SDMKeyRoles(metaReadKey: 5))
    }
    #expect(throws: NTAG424Error.self) {
      try SDMPlan.plan(template: "https://e.com/?p={picc}&e={enc:32}&c={cmac}", fileData: "too short")
    }
    // {enc:N} without its data (it encrypted zeros) is refused.
    #expect(throws: NTAG424Error.self) { try SDMPlan.plan(template: "https://e.com/?p={picc}&e={enc:32}&c={cmac}") }
  }

  /// Plan, fill the file as the tag does at a read, take the URL out of the NDEF message, verify it.
  @Test func roundTripThroughTheVerifier() throws {
    let metaKey = key("0c3b25d92b38ae443229dd59ad34b85d"), fileKey = key("b45775776cb224c75bcde7ca3704e933")
    let plan = try SDMPlan.plan(template: "https://sun.example/t?p={picc}&enc={enc:32}&c={cmac}",
                                fileData: "secret data 0042")
    let uid = bytes("04996C6A926980"), counter: UInt32 = 0x01_0203
    let file = try TagSimulation.read(plan.ndefFile, settings: try #require(plan.settings.sdm), uid: uid,
                                      counter: counter, metaReadKey: metaKey, fileReadKey: fileKey)
    let message = try NDEFMessage(decoding: Array(file[2...]))
    let url = try #require(message.records.first.flatMap { URIRecord($0) }?.uri)
    #expect(url.hasPrefix("https://sun.example/t?p="))
    for sun in [try SUNURL(parsing: url, piccDataParameter: "p", macParameter: "c", fileDataParameter: "enc"),
                try SUNURL(parsing: url, layout: try #require(plan.urlLayout))] {
      let verified = try SecureDynamicMessaging.verify(
        encryptedPICCData: sun.encryptedPICCData, sdmMAC: sun.sdmMAC, macInput: sun.macInput,
        encryptedFileData: sun.encryptedFileData, metaReadKey: metaKey, fileReadKey: fileKey)
      #expect(verified.uid == uid)
      #expect(verified.readCounter == counter)
      #expect(verified.fileData == Array("secret data 0042".utf8))
    }
    // The same file with another counter's MAC does not verify.
    let stale = try TagSimulation.read(plan.ndefFile, settings: try #require(plan.settings.sdm), uid: uid,
                                       counter: counter + 1, metaReadKey: metaKey, fileReadKey: fileKey)
    var forged = file
    let mac = try #require(plan.settings.sdm?.macOffset)
    forged[mac..<(mac + 16)] = stale[mac..<(mac + 16)]
    let forgedURL = try #require(URIRecord(try NDEFMessage(decoding: Array(forged[2...])).records[0])?.uri)
    let sun = try SUNURL(parsing: forgedURL)
    #expect(throws: NTAG424Error.sdmMACMismatch) {
      try SecureDynamicMessaging.verify(encryptedPICCData: sun.encryptedPICCData, sdmMAC: sun.sdmMAC, macInput: sun.macInput,
                                        encryptedFileData: sun.encryptedFileData, metaReadKey: metaKey, fileReadKey: fileKey)
    }
  }
}

extension SDMPlanTests {
  /// A tag keyed from a master key: ``SUNMasterKey`` holds the meta-read key derived once, and
  /// ``SUNVerification`` with it verifies the tag's URL (the file-read key derived from the UID
  /// PICCData gave); another master key's does not.
  @Test func aMasterKeyDerivesTheMetaReadKeyOnceAndVerifies() throws {
    let master = key("00112233445566778899aabbccddeeff"), uid = bytes("04996C6A926980")
    let keys = try SUNMasterKey(master)
    #expect(keys.metaRead.bytes == (try SDMKeyDiversification.metaReadKey(master: master)).bytes)
    let plan = try SDMPlan.plan(template: "https://sun.example/t?p={picc}&c={cmac}")
    let file = try TagSimulation.read(plan.ndefFile, settings: try #require(plan.settings.sdm), uid: uid, counter: 7,
                                      metaReadKey: keys.metaRead,
                                      fileReadKey: try SDMKeyDiversification.fileReadKey(master: master, uid: uid))
    let url = try #require(URIRecord(try NDEFMessage(decoding: Array(file[2...])).records[0])?.uri)
    let sun = try SUNURL(parsing: url, layout: try #require(plan.urlLayout))
    let message = try SUNVerification.verify(sun, keys: .master(keys))
    #expect(message.uid == uid && message.readCounter == 7)
    let other = try SUNMasterKey(key("ffeeddccbbaa99887766554433221100"))
    #expect(throws: NTAG424Error.invalidPICCData) { try SUNVerification.verify(sun, keys: .master(other)) }
  }
}

/// What the tag does to the NDEF file at an unauthenticated read with SDM on (NT4H2421Gx datasheet
/// §9.3): PICCData encrypted in, SDMENCFileData encrypted in place, then the SDMMAC over its input.
/// Built from NTAG424's own pieces, for the round trip only.
enum TagSimulation {
  static func read(_ file: [UInt8], settings: SDMSettings, uid: [UInt8], counter: UInt32,
                   metaReadKey: AESKey, fileReadKey: AESKey) throws -> [UInt8] {
    var out = file
    func put(_ bytes: [UInt8], at offset: Int) {
      out.replaceSubrange(offset..<(offset + bytes.count * 2), with: Array(hexString(bytes).uppercased().utf8))
    }
    let ctr = SecureDynamicMessaging.counterBytes(counter)
    if let offset = settings.piccDataOffset {
      let plain = [0xC7] + uid + ctr + [0x11, 0x22, 0x33, 0x44, 0x55]
      put(try AESPrimitives.cbcEncrypt(plain, key: metaReadKey, iv: EV2Authentication.zeroIV), at: offset)
    }
    let keys = try SDMSessionKeys(fileReadKey: fileReadKey, uid: uid, readCounter: counter)
    if let offset = settings.encryptedFileDataOffset, let length = settings.encryptedFileDataLength {
      let plain = Array(file[offset..<(offset + length / 2)])
      let iv = try AESPrimitives.encryptBlock(ctr + [UInt8](repeating: 0, count: 13), key: keys.encryption)
      put(try AESPrimitives.cbcEncrypt(plain, key: keys.encryption, iv: iv), at: offset)
    }
    if let input = settings.macInputOffset, let offset = settings.macOffset {
      put(try SecureDynamicMessaging.mac(over: Array(out[input..<offset]), sessionKeys: keys), at: offset)
    }
    return out
  }
}
