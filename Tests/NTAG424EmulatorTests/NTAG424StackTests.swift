import Foundation
import NFCReaders
import NFCTags
import NFCTransport
import NTAG424
import Testing
import NFCEmulator
@testable import NTAG424Emulator

/// A tap: the field off and on, then detection and the platform, through `face`.
private func tap(_ face: any VirtualCard, readerName: String) throws -> (any NDEFTagPlatform, DetectedTarget) {
  face.powerOff()
  face.powerOn()
  let transport = SimulatedAPDUTransport(readerName: readerName, card: face)
  let target = try detectTarget(on: transport)
  return (try makePlatform(for: target), target)
}

/// One URI record (04 = "https://").
private func sunURIMessage(_ rest: String) -> [UInt8] {
  let payload: [UInt8] = [0x04] + Array(rest.utf8)
  return [0xD1, 0x01, UInt8(payload.count), 0x55] + payload
}

/// Where `needle` starts in `haystack`.
private func offset(of needle: String, in haystack: [UInt8]) -> Int? {
  let bytes = Array(needle.utf8)
  guard bytes.count <= haystack.count else { return nil }
  return (0...(haystack.count - bytes.count)).first { Array(haystack[$0..<($0 + bytes.count)]) == bytes }
}

/// The NTAG 424 DNA is a Type 4 tag: the existing Type 4 platform reads and writes NDEF on it
/// through both reader faces, and SUN messages it produces pass the existing verifier.
@Suite struct NTAG424StackTests {
  @Test(arguments: [ReaderFaceKind.acr122u, .part3])
  func ndefThroughTheType4Platform(face kind: ReaderFaceKind) throws {
    let tag = try NTAG424DNAVirtualTag()
    let face = try kind.makeFace(tag: tag)
    let (t4, target) = try tap(face, readerName: kind.simulatedReaderName)
    #expect(target.platform == .type4)
    #expect(target.identifier == tag.identifier)
    #expect(try t4.queryNDEFStatus() == NDEFStatusReport(status: .readWrite, capacity: 254, messageLength: 0))
    let url = sunURIMessage("example.com/products/ntag424?serial=0123456789")
    try t4.writeNDEF(url, verify: true)
    #expect(try t4.readNDEF() == url)
    #expect(tag.files[1][0..<2] == [0x00, UInt8(url.count)])                  // NLEN, then the message
    #expect(Array(tag.files[1][2..<(2 + url.count)]) == url)
    let (again, _) = try tap(face, readerName: kind.simulatedReaderName)
    #expect(try again.readNDEF() == url)
  }

  /// SUN end to end: keys 1 and 2 changed, ChangeFileSettings with encrypted PICCData (SDMMetaRead
  /// key 1), the SDMMAC (SDMFileRead key 2) over the URL from the PICCData to the MAC, and a
  /// SDMReadCtrLimit of 3; then each tap's URL verifies with the existing verifier, the counter
  /// rising by one a tap, until the limit refuses the read.
  @Test func sunMessagesVerifyAndTheCounterRisesToItsLimit() throws {
    let tag = try NTAG424DNAVirtualTag()
    let face = try ReaderFaceKind.acr122u.makeFace(tag: tag)
    let placeholder = "example.com/t?p=" + String(repeating: "0", count: 32) + "&c=" + String(repeating: "0", count: 16)
    let message = sunURIMessage(placeholder)
    let (writer, _) = try tap(face, readerName: ReaderFaceKind.acr122u.simulatedReaderName)
    try writer.writeNDEF(message, verify: true)
    let file = Array(tag.files[1])
    let piccOffset = try #require(offset(of: "p=", in: file)) + 2
    let macOffset = try #require(offset(of: "&c=", in: file)) + 3

    let metaKey = key424("0C3B25D92B38AE443229DD59AD34B85D"), fileKey = key424("B45775776CB224C75BCDE7CA3704E933")
    tag.selectApplication()
    var session = try authenticate(tag, keyNumber: 0)
    for (number, key) in [(UInt8(1), metaKey), (2, fileKey)] {
      let answer = tag.send(try session.changeKeyCommand(keyNumber: number, newKey: key, newVersion: 0x01))
      try session.changeKeyResponse(keyNumber: number, answer)
    }
    // FileOption 40 (SDM, plain), AccessRights E0 EE as shipped, SDMOptions E1 (UID, SDMReadCtr,
    // SDMReadCtrLimit, ASCII), SDMAccessRights FE 12 (SDMCtrRet free, SDMMetaRead 1, SDMFileRead 2),
    // PICCDataOffset, SDMMACInputOffset (= PICCDataOffset), SDMMACOffset, SDMReadCtrLimit 3.
    let settings = hex424("40 E0EE E1 FE12") + le3(UInt32(piccOffset)) + le3(UInt32(piccOffset)) + le3(UInt32(macOffset)) + le3(3)
    #expect(try exchange(tag, &session, 0x5F, header: [0x02], data: settings, mode: .full) == [])

    for expected in 1...3 as ClosedRange<UInt32> {
      let (reader, _) = try tap(face, readerName: ReaderFaceKind.acr122u.simulatedReaderName)
      let read = try reader.readNDEF()
      #expect(read.count == message.count)
      let picc = try #require(offset(of: "p=", in: read)) + 2, mac = try #require(offset(of: "&c=", in: read)) + 3
      let piccData = try #require(parseLenientHex(Array(read[picc..<(picc + 32)])))
      let sdmMAC = try #require(parseLenientHex(Array(read[mac..<(mac + 16)])))
      let sun = try SecureDynamicMessaging.verify(
        encryptedPICCData: piccData, sdmMAC: sdmMAC, macInput: Array(read[picc..<mac]), metaReadKey: metaKey, fileReadKey: fileKey)
      #expect(sun.uid == tag.identifier)
      #expect(sun.readCounter == expected)
      #expect(tag.readCounter(file: 2) == expected)
      // The same URL under swapped key roles does not verify.
      #expect(throws: NTAG424Error.self) {
        try SecureDynamicMessaging.verify(encryptedPICCData: piccData, sdmMAC: sdmMAC, macInput: Array(read[picc..<mac]),
                                          metaReadKey: fileKey, fileReadKey: metaKey)
      }
    }
    // SDMReadCtr reached SDMReadCtrLimit: an unauthenticated read is refused (69 82 / 91 9D).
    let (refused, _) = try tap(face, readerName: ReaderFaceKind.acr122u.simulatedReaderName)
    #expect(throws: TagError.self) { try refused.readNDEF() }
    #expect(tag.readCounter(file: 2) == 3)
    tag.reset()
    tag.selectApplication()
    #expect(tag.send("90AD0000070200000000000000") == hex424("919D"))          // ReadData in plain, too
    // The file itself still holds the placeholders: the mirrors exist only in what is read.
    #expect(Array(tag.files[1]) == file)
  }

  /// Plain mirrors (SDMMetaRead Eh): the UID as 14 hex digits and SDMReadCtr as 6, most significant
  /// first, and SDMENCFileData with its MAC; a plain ReadData gets them too, and GetFileCounters
  /// (SDMCtrRet free) tells the counter.
  @Test func plainMirrorsAndEncryptedFileData() throws {
    let tag = try NTAG424DNAVirtualTag(uid: hex424("04958CAA5C5E80"))
    tag.selectApplication()
    // The file: "u=" UID(14) "&n=" ctr(6) "&e=" enc(32) "&m=" mac(16), the encrypted part's 16
    // plain bytes first in its place.
    let head: String = "u=" + String(repeating: "_", count: 14) + "&n=" + String(repeating: "_", count: 6) + "&e="
    var text: [UInt8] = Array(head.utf8)
    let encOffset = text.count
    text += Array("xxxxxxxxxxxxxxxx".utf8) + [UInt8](repeating: 0x2E, count: 16)
    text += Array("&m=".utf8)
    let macOffset = text.count
    text += [UInt8](repeating: 0x2E, count: 16)
    #expect(tag.send([0x90, 0x8D, 0x00, 0x00, UInt8(7 + text.count), 0x02, 0, 0, 0] + le3(UInt32(text.count)) + text + [0x00])
            == hex424("9100"))
    var session = try authenticate(tag, keyNumber: 0)
    let settings = hex424("40 E0EE D1 FEE0 020000 130000 000000") + le3(UInt32(encOffset)) + le3(32) + le3(UInt32(macOffset))
    #expect(try exchange(tag, &session, 0x5F, header: [0x02], data: settings, mode: .full) == [])
    tag.selectApplication()
    let read = tag.send("90AD00000702000000000000 00")
    #expect(read.suffix(2) == [0x91, 0x00])
    let body = Array(read.dropLast(2).prefix(text.count))
    #expect(Array(body[2..<16]) == Array("04958CAA5C5E80".utf8))
    #expect(Array(body[19..<25]) == Array("000001".utf8))
    let encrypted = try #require(parseLenientHex(Array(body[encOffset..<(encOffset + 32)])))
    let keys = try SDMSessionKeys(fileReadKey: .factory, uid: hex424("04958CAA5C5E80"), readCounter: 1)
    try SecureDynamicMessaging.checkMAC(try #require(parseLenientHex(Array(body[macOffset..<(macOffset + 16)]))),
                                        over: Array(body[0..<macOffset]), sessionKeys: keys)
    #expect(try SecureDynamicMessaging.decryptFileData(encrypted, readCounter: 1, sessionKeys: keys) == Array("xxxxxxxxxxxxxxxx".utf8))
    #expect(tag.send("90F60000010200") == hex424("010000 0000 9100"))            // GetFileCounters, free
    // A second read in the same selection shows the same count; a new selection the next one.
    #expect(tag.send("90AD00000702000000000000 00") == read)
    tag.selectApplication()
    let next = tag.send("90AD00000702000000000000 00")
    #expect(Array(next[19..<25]) == Array("000002".utf8))
  }
}
