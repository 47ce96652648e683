import NFCEmulator
import NFCTransport
import NTAG424Emulator
import Testing
@testable import NTAG424
@testable import NTAG424Tag

/// ChangeKey of a key other than the authenticated one with a wrong old value (NT4H2421Gx
/// datasheet §10.6.1: the command carries NewKey XOR OldKey and the CRC32 of NewKey; the tag
/// finds the CRC wrong and answers `91 1E`): the host names the old value, not the exchange.
@Suite struct NTAG424DNAChangeKeyTests {
  static let key1 = try! AESKey(bytes: [UInt8](repeating: 0x11, count: 16))
  static let other = try! AESKey(bytes: [UInt8](repeating: 0x22, count: 16))

  static func authenticated(_ tag: NTAG424DNAVirtualTag) throws -> (NTAG424DNA, RecordingVirtualLink) {
    let link = RecordingVirtualLink(tag)
    let host = NTAG424DNA(link: link)
    try host.selectApplication()
    try host.authenticate(keyNumber: 0, key: .factory)
    return (host, link)
  }

  /// Key 1 holds another value than the factory one: the factory value as the old one is
  /// refused as such, with one ChangeKey sent, and the key is unchanged.
  @Test func aWrongOldValueIsNamedOnce() throws {
    let tag = try NTAG424DNAVirtualTag()
    var (host, _) = try Self.authenticated(tag)
    try host.changeKey(keyNumber: 1, to: Self.key1, version: 1)
    (host, _) = try Self.authenticated(tag)
    let link = host.link as! RecordingVirtualLink
    #expect(throws: NTAG424DNAError.oldKeyMismatch(keyNumber: 1)) {
      try host.changeKey(keyNumber: 1, to: Self.other, version: 2, oldKey: .factory)
    }
    #expect(link.count(0xC4) == 1)
    #expect(tag.keyEquals(1, Self.key1.bytes))
    #expect(!host.isAuthenticated)
    #expect("\(NTAG424DNAError.oldKeyMismatch(keyNumber: 1))"
            == "ChangeKey (key 1): the old value given for key 1 is not the tag's (91 1E: the new key's CRC did not check against the key the tag holds)")
    // The right old value changes it.
    (host, _) = try Self.authenticated(tag)
    try host.changeKey(keyNumber: 1, to: Self.other, version: 2, oldKey: Self.key1)
    #expect(tag.keyEquals(1, Self.other.bytes))
  }
}
