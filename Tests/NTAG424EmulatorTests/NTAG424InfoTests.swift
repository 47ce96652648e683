import NFCEmulator
import NFCReaders
import NFCTags
import NFCTransport
import NTAG424
import NTAG424Originality
import Testing
@testable import NTAG424Emulator

/// `info` of the Type 4 platform on a virtual NTAG 424 DNA, through both reader faces: the chip
/// from GetVersion, the three files' settings with SDM decoded, the key versions and the
/// originality signature, all read without a key.
@Suite struct NTAG424InfoTests {
  private func info(_ tag: any VirtualTag, face kind: ReaderFaceKind) throws -> TagInfo {
    let face = try kind.makeFace(tag: tag)
    face.powerOff()
    face.powerOn()
    let transport = SimulatedAPDUTransport(readerName: kind.simulatedReaderName, card: face)
    return try makePlatform(for: try detectTarget(on: transport)).info()
  }

  private func fact(_ info: TagInfo, _ key: String) -> TagInfoFact? { info.details.first { $0.key == key } }

  @Test(arguments: [ReaderFaceKind.acr122u, .part3])
  func aFreshTagWithoutAKey(face kind: ReaderFaceKind) throws {
    let tag = try NTAG424DNAVirtualTag()
    let info = try info(tag, face: kind)
    #expect(info.chip == "NTAG 424 DNA")
    #expect(info.memorySize == 416)
    #expect(info.version == tag.versionFrames.flatMap { $0 })
    #expect(fact(info, "chipVersion")?.text.hasPrefix("hardware 30.00, software 01.02, 256 to 512 bytes, strong back modulation") == true)
    #expect(fact(info, "file1Settings")?.text == "32 bytes, Plain; read free, write key 0, read&write key 0, change key 0; SDM off")
    #expect(fact(info, "file2Settings")?.text == "256 bytes, Plain; read free, write free, read&write free, change key 0; SDM off")
    #expect(fact(info, "file3Settings")?.text == "128 bytes, Full; read key 2, write key 3, read&write key 3, change key 0; SDM off")
    #expect(fact(info, "keyVersions")?.text == "key 0: 00, key 1: 00, key 2: 00, key 3: 00, key 4: 00")
    let signature = try #require(info.originalitySignature)
    #expect(signature.uid == tag.identifier && signature.problem == nil)
    #expect(OriginalitySignature.check(uid: signature.uid, signature: signature.signature) == .testKey)
  }

  /// SDM on, key 2 changed to version 7: the offsets and key numbers as ChangeFileSettings set them.
  @Test func sdmOffsetsAndKeyVersions() throws {
    let tag = try NTAG424DNAVirtualTag()
    tag.selectApplication()
    var session = try authenticate(tag, keyNumber: 0)
    let change = try session.changeKeyCommand(keyNumber: 2, newKey: key424("00112233445566778899AABBCCDDEEFF"),
                                              newVersion: 7, oldKey: .factory)
    try session.changeKeyResponse(keyNumber: 2, tag.send(change))
    let sdm = SDMSettings(options: [.uid, .readCounter, .asciiEncoding],
                          accessRights: SDMAccessRights(metaRead: .key(1), fileRead: .key(2), counterRetrieval: .key(1)),
                          piccDataOffset: 32, macInputOffset: 67, macOffset: 67, readCounterLimit: nil)
    let settings = FileSettings(communicationMode: .plain,
                                accessRights: AccessRights(read: .free, write: .key(0), readWrite: .key(0), change: .key(0)), sdm: sdm)
    #expect(try exchange(tag, &session, 0x5F, header: [0x02], data: try settings.changeData(), mode: .full) == [])
    let info = try info(tag, face: .acr122u)
    #expect(fact(info, "file2Settings")?.text == "256 bytes, Plain; read free, write key 0, read&write key 0, change key 0; "
      + "SDM: PICCData (UID and counter) at 32, key 1, SDMMAC at 67 over the bytes from 67, key 2, counter retrieval key 1")
    guard case .object(let members)? = fact(info, "file2Settings")?.value,
          case .object(let sdmMembers)? = members.first(where: { $0.key == "sdm" })?.value else {
      Issue.record("no SDM object in the JSON value"); return
    }
    #expect(sdmMembers.first { $0.key == "piccDataOffset" }?.value == .number(32))
    #expect(sdmMembers.first { $0.key == "macOffset" }?.value == .number(67))
    #expect(sdmMembers.first { $0.key == "metaRead" }?.value == .number(1))
    #expect(fact(info, "keyVersions")?.text == "key 0: 00, key 1: 00, key 2: 07, key 3: 00, key 4: 00")
    #expect(fact(info, "keyVersions")?.value == .list([.number(0), .number(0), .number(7), .number(0), .number(0)]))
  }

  /// A Type 4 tag with the 424 DNA's ATS that does not answer GetVersion (the virtual Type 4
  /// tag): one refused command, then the Type 4 facts alone, as before.
  @Test(arguments: [ReaderFaceKind.acr122u, .part3])
  func anotherType4TagKeepsItsFacts(face kind: ReaderFaceKind) throws {
    let info = try info(try Type4VirtualTag(), face: kind)
    #expect(info.originalitySignature == nil)
    #expect(fact(info, "keyVersions") == nil && fact(info, "chipVersion") == nil)
    #expect(info.chip == "Type 4 tag (mapping version 2.0)")
  }
}
