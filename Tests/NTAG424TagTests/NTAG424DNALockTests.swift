import NFCEmulator
import NFCTransport
import NTAG424Emulator
import Testing
@testable import NTAG424
@testable import NTAG424Tag

/// `NTAG424DNA.lockNDEFFile(changeKey:)` against the virtual 424 DNA: ChangeFileSettings of the
/// NDEF file with Write, Read&Write and Change never (NT4H2421Gx datasheet §10.7.1, §8.2.3.3).
@Suite struct NTAG424DNALockTests {
  static func host(_ tag: NTAG424DNAVirtualTag) -> (NTAG424DNA, RecordingVirtualLink) {
    let link = RecordingVirtualLink(tag)
    return (NTAG424DNA(link: link), link)
  }

  /// A factory tag, key 0 all zeros: locked, read back, writes refused, reads still free.
  @Test func aFactoryTagIsLockedForGood() throws {
    let tag = try NTAG424DNAVirtualTag()
    let (host, _) = Self.host(tag)
    #expect(try host.lockNDEFFile(changeKey: .factory) == .locked)

    let (again, link) = Self.host(tag)
    try again.selectApplication()
    let rights = try again.fileSettings(file: NativeCommand.ndefFile).settings.accessRights
    #expect(rights.write == .never && rights.readWrite == .never && rights.change == .never)
    #expect(rights.read == .free)
    #expect(throws: NTAG424DNAError.self) {
      try again.writeData(file: NativeCommand.ndefFile, data: [0x00, 0x00], mode: .plain)
    }
    #expect(try again.readData(file: NativeCommand.ndefFile, length: 2, mode: .plain).count == 2)
    // Key 0 no longer changes the settings: a second lock finds the file locked and sends no change.
    #expect(try again.lockNDEFFile(changeKey: .factory) == .alreadyLocked)
    #expect(link.count(0x5F) == 0)
    #expect(link.count(0x71) == 0)
  }

  /// A wrong key: the authentication fails before any change, and the file stays writable.
  @Test func aWrongKeyChangesNothing() throws {
    let tag = try NTAG424DNAVirtualTag()
    let (host, link) = Self.host(tag)
    let wrong = try AESKey(bytes: [UInt8](repeating: 0x11, count: 16))
    // 91 AE (AUTHENTICATION_ERROR) to the second part: the tag could not decrypt our answer.
    #expect(throws: NTAG424DNAError.tag(.status(command: 0xAF, sw1: 0x91, sw2: 0xAE), command: "AuthenticateEV2First (key 0)")) {
      try host.lockNDEFFile(changeKey: wrong)
    }
    #expect(link.count(0x5F) == 0)
    let (again, _) = Self.host(tag)
    try again.selectApplication()
    let rights = try again.fileSettings(file: NativeCommand.ndefFile).settings.accessRights
    #expect(rights.write == .free && rights.change == .key(0))
  }
}
