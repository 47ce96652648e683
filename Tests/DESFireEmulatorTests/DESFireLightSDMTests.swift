import DESFire
import DESFireEmulator
import EV2SecureMessaging
@testable import NFCEmulator
import NTAG424
import Testing

private let lightURL = Array("https://sun.example/?p=00000000000000000000000000000000&c=0000000000000000".utf8)
private let lightPICCOffset = 23, lightMACOffset = 58

/// SDM on the virtual MIFARE DESFire Light's standard data files (docs/desfire.md, "DESFire
/// Light"): ChangeFileSettings with the 424 DNA's SDM layout under EV2 Full with key 0 (the files'
/// Change key), then unauthenticated reads whose SUN verifies with the counter rising, as on the EV3.
@Suite struct DESFireLightSDMTests {
  /// A factory Light with the URL written to file 04h (Full mode, key 0 session) and SDM turned on
  /// there; the status word of the ChangeFileSettings.
  private func lightWithSDM(file: UInt8 = 0x04) throws -> (DESFireVirtualTag, [UInt8]) {
    let tag = try #require(try VirtualTagKind.desfireLight.makeTag(uid: nil) as? DESFireVirtualTag)
    tag.security = OpenSSLDESFireSecurity()
    #expect(tag.send("00 A4 04 0C 10 A0 00 00 03 96 56 43 41 03 F0 15 40 00 00 00 0B") == hex("90 00"))
    var session = try authenticate(tag, keyNumber: 0)
    // File 04h's write key is 2 as shipped: write the URL with key 0 after making it the write key.
    _ = try exchange(tag, &session, 0x5F, header: [file], data: hex("03 30 00"), mode: .full)
    _ = try exchange(tag, &session, 0x8D, header: [file, 0, 0, 0, UInt8(lightURL.count), 0, 0], data: lightURL, mode: .full)
    let sdm = SDMSettings(options: [.uid, .readCounter, .asciiEncoding],
                          accessRights: SDMAccessRights(metaRead: .key(1), fileRead: .key(2), counterRetrieval: .never),
                          piccDataOffset: lightPICCOffset, macInputOffset: lightMACOffset, macOffset: lightMACOffset)
    let settings = FileSettings(communicationMode: .plain,
                                accessRights: AccessRights(read: .free, write: .free, readWrite: .key(0), change: .key(0)), sdm: sdm)
    let answer = tag.send(try session.command(0x5F, header: [file], data: try settings.changeData(), mode: .full))
    return (tag, Array(answer.suffix(2)))
  }

  @Test func changeFileSettingsTurnsSDMOnAndReadsVerifyWithTheCounterRising() throws {
    let (tag, status) = try lightWithSDM()
    #expect(status == [0x91, 0x00])
    let keys = SUNKeys.byRole(metaRead: try AESKey(bytes: zeroKey), fileRead: try AESKey(bytes: zeroKey))
    for expected in UInt32(1)...5 {
      tag.reset()
      #expect(tag.send("00 A4 04 0C 10 A0 00 00 03 96 56 43 41 03 F0 15 40 00 00 00 0B") == hex("90 00"))
      // An unauthenticated ReadData (ADh, the Light's code) in plain.
      var answer = tag.send([0x90, 0xAD, 0x00, 0x00, 0x07, 0x04, 0, 0, 0, UInt8(lightURL.count), 0, 0, 0x00])
      var body: [UInt8] = []
      while answer.suffix(2) == [0x91, 0xAF] {
        body += answer.dropLast(2)
        answer = tag.send("90 AF 00 00 00")
      }
      #expect(answer.suffix(2) == [0x91, 0x00])
      body += answer.dropLast(2)
      let message = try SUNVerification.verify(try SUNURL(parsing: String(decoding: body, as: UTF8.self)), keys: keys)
      #expect(message.uid == tag.uid)
      #expect(message.readCounter == expected)
    }
    // GetFileSettings names the SDM part, as the 424 DNA's and the EV3's do.
    let settings = tag.send("90 F5 00 00 01 04 00")
    #expect(settings.first == 0x00 && settings.count > 1 && settings[1] & 0x40 != 0)
  }

  @Test func fileZeroTakesSDMToo() throws {
    let (_, status) = try lightWithSDM(file: 0x00)
    #expect(status == [0x91, 0x00])
  }
}
