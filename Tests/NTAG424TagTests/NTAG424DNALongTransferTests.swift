import NFCEmulator
import NFCTestSupport
import NFCTransport
import NTAG424Emulator
import Testing
@testable import NTAG424
@testable import NTAG424Tag

/// Whole files in every communication mode: an answer holds 256 bytes with its secure messaging
/// and the tag never chains ReadData or WriteData with `91 AF` (NT4H2421Gx datasheet §10.8.1,
/// Table 79; §10.8.2, Table 81: 248 bytes of data with it), so the host splits.
@Suite struct NTAG424DNALongTransferTests {
  /// A fresh virtual tag with `file` in `mode`, read and write with key 0, and the host
  /// authenticated with key 0.
  static func tag(file: UInt8, mode: CommunicationMode) throws -> (NTAG424DNAVirtualTag, RecordingVirtualLink, NTAG424DNA) {
    let tag = try NTAG424DNAVirtualTag()
    let link = RecordingVirtualLink(tag)
    let host = NTAG424DNA(link: link)
    try host.selectApplication()
    try host.authenticate(keyNumber: 0, key: .factory)
    let rights = AccessRights(read: .key(0), write: .key(0), readWrite: .key(0), change: .key(0))
    try host.changeFileSettings(file: file, to: FileSettings(communicationMode: mode, accessRights: rights))
    return (tag, link, host)
  }

  static let sizes: [UInt8: Int] = [2: 256, 3: 128]

  /// Written and read back whole; the commands each took (Plain, MAC, Full): the NDEF file's 256
  /// bytes are 2 writes (248 + 8 in Plain, 240 + 16 in MAC, 239 + 17 in Full) and 1, 2, 2 reads;
  /// the proprietary file's 128 one of each.
  @Test(arguments: [(UInt8(2), CommunicationMode.plain, 2, 1), (2, .mac, 2, 2), (2, .full, 2, 2),
                    (3, .plain, 1, 1), (3, .mac, 1, 1), (3, .full, 1, 1)])
  func aWholeFile(file: UInt8, mode: CommunicationMode, writes: Int, reads: Int) throws {
    let (_, link, host) = try Self.tag(file: file, mode: mode)
    let size = try #require(Self.sizes[file])
    let data = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
    try host.writeData(file: file, data: data, mode: mode)
    #expect(try host.readData(file: file, length: size, mode: mode) == data)
    #expect(link.count(0x8D) == writes)
    #expect(link.count(0xAD) == reads)
    #expect(host.isAuthenticated)
  }

  /// The tag's side: one ReadData whose answer would pass 256 bytes is refused, not chained.
  @Test(arguments: [CommunicationMode.mac, .full]) func oneReadOfTheWholeNDEFFileIsRefused(mode: CommunicationMode) throws {
    let (_, _, host) = try Self.tag(file: 2, mode: mode)
    #expect(throws: NTAG424DNAError.tag(.status(command: 0xAD, sw1: 0x91, sw2: 0x7E), command: "ReadData (file 2)")) {
      try host.readData(file: 2, length: 0, mode: mode)   // length 0: the whole file in one command
    }
  }

  /// The frames of a long Plain read over a link that carries 100 bytes: three ReadData at
  /// offsets 0, 100 and 200, each answered `91 00` with its part (no `91 AF` chain).
  @Test func theFramesOfASplitRead() throws {
    let file = (0..<256).map { UInt8(truncatingIfNeeded: $0) }
    let link = EmbeddedTransceiver([
      (hex("90 AD 00 00 07 02 000000 640000 00"), .success(Array(file[0..<100]) + hex("9100"))),    // 100 at 0
      (hex("90 AD 00 00 07 02 640000 640000 00"), .success(Array(file[100..<200]) + hex("9100"))),  // 100 at 100
      (hex("90 AD 00 00 07 02 C80000 380000 00"), .success(Array(file[200...]) + hex("9100"))),     // 56 at 200
    ], capabilities: LinkCapabilities(maxResponseLength: 100, maxCommandLength: 250, rawCommands: true))
    #expect(try NTAG424DNA(link: link).readData(file: 2, length: 256, mode: .plain) == file)
    #expect(link.finish() == .clean)
  }

  /// The largest read per mode, and less when the link carries less.
  @Test func largestReads() {
    #expect(NTAG424DNA.largestRead(mode: .plain, maxResponseLength: 256) == 256)
    #expect(NTAG424DNA.largestRead(mode: .mac, maxResponseLength: 256) == 248)
    #expect(NTAG424DNA.largestRead(mode: .full, maxResponseLength: 256) == 239)   // 240 encrypted + 8
    #expect(NTAG424DNA.largestRead(mode: .plain, maxResponseLength: 250) == 250)  // a reader session's link
    #expect(NTAG424DNA.largestRead(mode: .full, maxResponseLength: 64) == 47)      // 48 encrypted + 8 = 56
  }
}
