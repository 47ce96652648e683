import DESFire
import DESFireEmulator
import EV2SecureMessaging
@testable import NFCEmulator
import NTAG424
import Testing

private let url = Array("https://sun.example/?p=00000000000000000000000000000000&c=0000000000000000".utf8)
private let piccOffset = 23, macOffset = 58

extension DESFireVirtualTag {
  /// An EV3 8K with application 000001 of five AES keys (00…00), file 02 (256 bytes, created with
  /// FileOption bit 6 when `preEnabled`) holding a SUN URL, free read and write, change key 0.
  fileprivate static func ev3Card(_ chip: DESFireChip = .ev3With8K, preEnabled: Bool = true) throws -> DESFireVirtualTag {
    let tag = try DESFireVirtualTag(chip: chip)
    tag.security = OpenSSLDESFireSecurity()
    #expect(tag.send([0x90, 0xCA, 0x00, 0x00, 0x05, 0x01, 0x00, 0x00, 0x0F, 0x85, 0x00]) == [0x91, 0x00])
    #expect(tag.send([0x90, 0x5A, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x00]) == [0x91, 0x00])
    #expect(tag.send([0x90, 0xCD, 0x00, 0x00, 0x07, 0x02, preEnabled ? 0x40 : 0x00, 0x00, 0xEE, 0x00, 0x01, 0x00, 0x00])
      == [0x91, 0x00])
    let write: [UInt8] = [0x02, 0, 0, 0, UInt8(url.count), 0, 0] + url
    #expect(tag.send([0x90, 0x3D, 0x00, 0x00, UInt8(write.count)] + write + [0x00]) == [0x91, 0x00])
    return tag
  }
}

/// ChangeFileSettings with the 424 DNA's SDM layout (PICCData under key 1, SDMMAC under key 2),
/// in an EV2 Full session with key 0, the file's change key; the card's status word.
private func enableSDM(_ tag: DESFireVirtualTag) throws -> [UInt8] {
  let first = tag.send(HostAuthentication.firstCommand(keyNumber: 0))
  try #require(first.suffix(2) == [0x91, 0xAF])
  let host = try HostAuthentication(key: zeroKey, keyNumber: 0, encryptedRndB: first.dropLast(2))
  let session = try host.finish(response: tag.send(try host.secondCommand()))
  let sdm = SDMSettings(options: [.uid, .readCounter, .asciiEncoding],
                        accessRights: SDMAccessRights(metaRead: .key(1), fileRead: .key(2), counterRetrieval: .never),
                        piccDataOffset: piccOffset, macInputOffset: macOffset, macOffset: macOffset)
  let settings = FileSettings(communicationMode: .plain,
                              accessRights: AccessRights(read: .free, write: .free, readWrite: .key(0), change: .key(0)), sdm: sdm)
  let answer = tag.send(try session.command(0x5F, header: [0x02], data: try settings.changeData(), mode: .full))
  return Array(answer.suffix(2))
}

/// ReadData of file 02 (plain), its `91 AF` frames joined.
private func readData(_ tag: DESFireVirtualTag, offset: Int, length: Int) -> [UInt8] {
  var answer = tag.send([0x90, 0xBD, 0x00, 0x00, 0x07, 0x02, UInt8(offset), 0, 0, UInt8(length), 0, 0, 0x00])
  var body: [UInt8] = []
  while answer.suffix(2) == [0x91, 0xAF] {
    body += answer.dropLast(2)
    answer = tag.send([0x90, 0xAF, 0x00, 0x00, 0x00])
  }
  #expect(answer.suffix(2) == [0x91, 0x00])
  return body + answer.dropLast(2)
}

/// A read of the whole file without authentication after a new selection, in one ReadData or in
/// two (the second from the mirror the first made).
private func readURL(_ tag: DESFireVirtualTag, inTwoParts: Bool) -> String {
  tag.reset()
  _ = tag.send([0x90, 0x5A, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x00])
  let bytes = inTwoParts ? readData(tag, offset: 0, length: 30) + readData(tag, offset: 30, length: url.count - 30)
    : readData(tag, offset: 0, length: url.count)
  return String(decoding: bytes, as: UTF8.self)
}

/// Secure Dynamic Messaging on the virtual DESFire EV3 (the 424 DNA's SDM, NT4H2421Gx §9.3): each
/// read checked by the verifier `sdm verify` runs (`SUNVerification`), the counter rising.
@Suite struct DESFireEV3SDMTests {
  @Test func readsMirrorASUNThatVerifiesWithTheCounterRising() throws {
    let tag = try DESFireVirtualTag.ev3Card()
    #expect(try enableSDM(tag) == [0x91, 0x00])
    let keys = SUNKeys.byRole(metaRead: try AESKey(bytes: zeroKey), fileRead: try AESKey(bytes: zeroKey))
    for expected in UInt32(1)...5 {
      let text = readURL(tag, inTwoParts: expected % 2 == 0)
      let message = try SUNVerification.verify(try SUNURL(parsing: text), keys: keys)
      #expect(message.uid == tag.uid)
      #expect(message.readCounter == expected)
    }
    // The stored file keeps its placeholders.
    #expect(tag.currentApplication?.files[2]?.data.prefix(url.count).elementsEqual(url) == true)
  }

  @Test func sdmIsRefusedOnAFileCreatedWithoutBit6() throws {
    let tag = try DESFireVirtualTag.ev3Card(preEnabled: false)
    #expect(try enableSDM(tag) == [0x91, 0x9E])
    #expect(readURL(tag, inTwoParts: false) == String(decoding: url, as: UTF8.self))
  }

  @Test func anEV2TakesNoBit6() throws {
    let tag = try DESFireVirtualTag(chip: .ev2With8K)
    tag.security = OpenSSLDESFireSecurity()
    #expect(tag.send([0x90, 0xCA, 0x00, 0x00, 0x05, 0x01, 0x00, 0x00, 0x0F, 0x85, 0x00]) == [0x91, 0x00])
    #expect(tag.send([0x90, 0x5A, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x00]) == [0x91, 0x00])
    #expect(tag.send([0x90, 0xCD, 0x00, 0x00, 0x07, 0x02, 0x40, 0x00, 0xEE, 0x00, 0x01, 0x00, 0x00]) == [0x91, 0x9E])
  }
}
