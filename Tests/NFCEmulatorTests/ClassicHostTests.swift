import NDEF
import NFCEmulator
import NFCReaders
import NFCTags
import NFCTestSupport
import NFCTransport
import Testing

private let uid: [UInt8] = [0xA1, 0xB2, 0xC3, 0xD4]

/// The host side of MIFARE Classic over both reader faces: detection, the MAD, NDEF read and
/// write (tear-safe, read back), format, erase, lock and info, against the virtual card.
@Suite struct ClassicHost {
  /// A detected platform for `tag` through `face`, and the tag.
  static func connect(_ tag: MIFAREClassicVirtualTag, face: ReaderFaceKind,
                      extraKeys: [[UInt8]] = []) throws -> (MIFAREClassicTag, SimulatedAPDUTransport) {
    let transport = SimulatedAPDUTransport(readerName: face.simulatedReaderName, card: try face.makeFace(tag: tag))
    let target = try detectTarget(on: transport)
    #expect(target.platform == .mifareClassic)
    let platform = try #require(try makePlatform(for: target) as? MIFAREClassicTag)
    platform.keys = MIFAREClassicKeyList(extra: extraKeys)
    return (platform, transport)
  }

  static func message(_ size: Int) -> [UInt8] {
    // One MIME record whose payload fills `size` bytes of message (3-byte header, 1 type byte, 4-byte length).
    let payload = (0..<(size - 7)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    return [0xC2, 0x01] + [UInt8(payload.count >> 24 & 0xFF), UInt8(payload.count >> 16 & 0xFF),
                           UInt8(payload.count >> 8 & 0xFF), UInt8(payload.count & 0xFF)] + [0x78] + payload
  }

  @Test(arguments: classicKeyFaces)
  func readsTheEmptyMessageOfAnNDEFCard(face: ReaderFaceKind) throws {
    let tag = try MIFAREClassicVirtualTag.ndefFormatted(chip: .classic1K, uid: uid)
    let (platform, _) = try Self.connect(tag, face: face)
    let status = try platform.queryNDEFStatus()
    #expect(status.status == .readWrite)
    #expect(status.capacity == 716)
    #expect(status.messageLength == 0)
    #expect(try platform.readNDEF() == [])
  }

  @Test(arguments: classicKeyFaces, [MIFAREClassicChip.classic1K, .classic4K, .mini])
  func formatsAFactoryCardAndWritesAFullMessage(face: ReaderFaceKind, chip: MIFAREClassicChip) throws {
    let tag = try MIFAREClassicVirtualTag(chip: chip, uid: uid)
    let (platform, _) = try Self.connect(tag, face: face)
    #expect(throws: TagError.self) { try platform.readNDEF() }  // factory: no MAD
    try platform.format()
    let capacity = try platform.queryNDEFStatus().capacity
    #expect(capacity == [.classic1K: 716, .classic4K: 3356, .mini: 190][chip])
    let full = Self.message(capacity)
    try platform.writeNDEF(full, verify: true)
    #expect(try platform.readNDEF() == full)
    let tooBig = #expect(throws: TagError.self) { try platform.writeNDEF(Self.message(capacity + 1), verify: true) }
    guard case .insufficientCapacity(capacity + 1, capacity)? = tooBig else {
      Issue.record("expected insufficient capacity, got \(String(describing: tooBig))")
      return
    }
    // The card itself reads as formatted: MAD trailer with the public key A.
    #expect(tag.storedBlock(3).map { Array($0.prefix(6)) } == MIFAREApplicationDirectory.publicKeyA)
    try platform.erase()
    #expect(try platform.readNDEF() == [])
  }

  /// Reading a full 1K message: 1 authentication and 3 reads for the MAD sector, 1 read of the
  /// first NDEF trailer, then 1 authentication and 3 reads per NDEF sector.
  @Test func roundTripsForAFull1KRead() throws {
    let tag = try MIFAREClassicVirtualTag.ndefFormatted(chip: .classic1K, uid: uid)
    let (platform, transport) = try Self.connect(tag, face: .acr122u)
    try platform.writeNDEF(Self.message(716), verify: false)
    let before = platform.exchangeCount
    let apdusBefore = transport.answered
    _ = try platform.readNDEF()
    #expect(platform.exchangeCount - before == 4 + 1 + 15 * 4)
    #expect(transport.answered - apdusBefore == 65)
  }

  @Test(arguments: classicKeyFaces)
  func aTearSafeWriteZeroesTheLengthFirst(face: ReaderFaceKind) throws {
    let tag = try MIFAREClassicVirtualTag.ndefFormatted(chip: .classic1K, uid: uid)
    let (platform, _) = try Self.connect(tag, face: face)
    try platform.writeNDEF(Self.message(100), verify: true)
    // A card whose NDEF key is unknown: the first write fails and nothing changed.
    var image = tag.memoryImage
    let secret: [UInt8] = [0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
    for sector in 1..<16 {
      image.replaceSubrange(sector * 64 + 48 ..< sector * 64 + 54, with: secret)  // key A
      image.replaceSubrange(sector * 64 + 58 ..< sector * 64 + 64, with: secret)  // key B
    }
    let locked = try MIFAREClassicVirtualTag(chip: .classic1K, image: image)
    let (noKey, _) = try Self.connect(locked, face: face)
    let error = #expect(throws: TagError.self) { try noKey.writeNDEF(Self.message(20), verify: true) }
    guard case .authenticationFailed(let why)? = error else {
      Issue.record("expected an authentication failure, got \(String(describing: error))")
      return
    }
    #expect(why == "no key opened sector 1")
    #expect(locked.memoryImage == image)
    // With the key from a keys file it reads and writes.
    let (withKey, _) = try Self.connect(locked, face: face, extraKeys: [secret])
    #expect(try withKey.readNDEF() == Self.message(100))
    try withKey.writeNDEF(Self.message(20), verify: true)
    #expect(try withKey.readNDEF() == Self.message(20))
  }

  @Test func aWrongMADCRCIsReportedNotTrusted() throws {
    var image = try MIFAREClassicVirtualTag.ndefFormatted(chip: .classic1K, uid: uid).memoryImage
    image[16] ^= 0x01
    let (platform, _) = try Self.connect(try MIFAREClassicVirtualTag(chip: .classic1K, image: image), face: .part3)
    let error = #expect(throws: TagError.self) { try platform.readNDEF() }
    guard case .malformed(let why, _)? = error else {
      Issue.record("expected malformed, got \(String(describing: error))")
      return
    }
    #expect(why.contains("CRC 15") && why.contains("not trusted"))
  }

  @Test(arguments: classicKeyFaces)
  func lockMakesItReadOnlyForGood(face: ReaderFaceKind) throws {
    let tag = try MIFAREClassicVirtualTag.ndefFormatted(chip: .classic1K, uid: uid)
    let (platform, _) = try Self.connect(tag, face: face)
    try platform.writeNDEF(Self.message(30), verify: true)
    try platform.makeReadOnly()
    #expect(try platform.queryNDEFStatus().status == .readOnly)
    #expect(try platform.readNDEF() == Self.message(30))
    let refused = #expect(throws: TagError.self) { try platform.writeNDEF(Self.message(10), verify: true) }
    guard case .readOnly? = refused else {
      Issue.record("expected read-only, got \(String(describing: refused))")
      return
    }
    let conditions = try #require(tag.accessConditions(sector: 1))
    #expect(conditions.isPermanent && conditions.groups[0].dataWrite == .never)
    #expect(tag.storedBlock(7).map { $0[9] } == MIFAREClassicNDEF.gpbReadOnly)
  }

  /// `info`'s lock state follows the NDEF sectors: read/write on a formatted card, read-only after
  /// the lock (AN1305 §6.4.9), nothing on a factory card (no NDEF).
  @Test func infoTellsTheNDEFSectorsWriteAccess() throws {
    let (formatted, _) = try Self.connect(try MIFAREClassicVirtualTag.ndefFormatted(chip: .classic1K, uid: uid), face: .acr122u)
    #expect(try formatted.info().lockState == "NDEF sectors read/write")
    try formatted.makeReadOnly()
    #expect(try formatted.info().lockState == "NDEF sectors read-only")
    let (factory, _) = try Self.connect(try MIFAREClassicVirtualTag(chip: .classic1K, uid: uid), face: .acr122u)
    #expect(try factory.info().locks.allSatisfy { $0.key != "ndefWriteAccess" })
  }

  @Test func infoNamesKeysAndClosedSectors() throws {
    var image = try MIFAREClassicVirtualTag.ndefFormatted(chip: .classic1K, uid: uid).memoryImage
    image.replaceSubrange(15 * 64 + 48 ..< 15 * 64 + 54, with: [1, 2, 3, 4, 5, 6])
    image.replaceSubrange(15 * 64 + 58 ..< 15 * 64 + 64, with: [1, 2, 3, 4, 5, 6])
    let (platform, _) = try Self.connect(try MIFAREClassicVirtualTag(chip: .classic1K, image: image), face: .acr122u)
    let info = try platform.info()
    #expect(info.platform == .mifareClassic && info.chip == "MIFARE Classic 1K")
    #expect(info.lockState == "NDEF sectors read/write; no key opened sector 15")
    let sector0 = try #require(info.details.first { $0.key == "sector0" })
    #expect(sector0.text.hasPrefix("key A: the MAD public key A0A1A2A3A4A5; data read key A or B, write key B"))
    let sector1 = try #require(info.details.first { $0.key == "sector1" })
    #expect(sector1.text == "key A: the NDEF public key D3F7D3F7D3F7; data read key A or B, write key A or B; "
            + "trailer written with key B; GPB 40")
    #expect(info.details.filter { $0.key.hasPrefix("sector") }.count == 15)
    #expect(!info.details.contains { $0.key == "sector15" })
  }
}

extension ClassicHost {
  /// The memory dump is the `.mfd` layout: every block, trailers with the keys that opened them.
  @Test(arguments: classicKeyFaces)
  func dumpIsTheMFDLayoutWithTheOpeningKeys(face: ReaderFaceKind) throws {
    let tag = try MIFAREClassicVirtualTag.ndefFormatted(chip: .classic1K, uid: uid)
    let (platform, _) = try Self.connect(tag, face: face)
    try platform.writeNDEF(Self.message(200), verify: false)
    let dump = try platform.readMemory()
    #expect(dump.count == 1024)
    var expected = tag.memoryImage
    for sector in 0..<16 { expected.replaceSubrange(sector * 64 + 58 ..< sector * 64 + 64, with: [UInt8](repeating: 0, count: 6)) }
    #expect(dump == expected)  // key A in place, key B (not readable) as zeros
  }
}

/// Records the APDUs a platform sends, for order checks.
final class RecordingTransport: WrappingAPDUTransport {
  let base: any APDUTransport
  private(set) var sent: [[UInt8]] = []
  init(_ base: any APDUTransport) { self.base = base }
  /// Times the card was reactivated (`reactivateCard()`, passed on to the base).
  private(set) var reactivations = 0
  func transmit(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    sent.append(apdu)
    return try base.transmit(apdu)
  }
  func reactivateCard() throws(TransceiveError) {
    reactivations += 1
    try base.reactivateCard()
  }
}

extension ClassicHost {
  /// Tear-safe order on the Part 3 face: the block with the NDEF TLV's length is written first
  /// with length 00, the other blocks next, the length last.
  @Test func writesTheLengthZeroFirstAndTheLengthLast() throws {
    let tag = try MIFAREClassicVirtualTag.ndefFormatted(chip: .classic1K, uid: uid)
    let recorder = RecordingTransport(SimulatedAPDUTransport(readerName: ReaderFaceKind.part3.simulatedReaderName,
                                                             card: try ReaderFaceKind.part3.makeFace(tag: tag)))
    let platform = try #require(try makePlatform(for: try detectTarget(on: recorder)) as? MIFAREClassicTag)
    let message = Self.message(300)  // 3-byte length: 03 FF 01 2C in block 4
    try platform.writeNDEF(message, verify: false)
    let updates = recorder.sent.filter { $0.count == 21 && $0.prefix(2) == [0xFF, 0xD6] }
    #expect(updates.first.map { Array($0[3...3]) + Array($0[5..<9]) } == [0x04, 0x03, 0x00, 0x01, 0x2C])
    #expect(updates.last.map { Array($0[3...3]) + Array($0[5..<9]) } == [0x04, 0x03, 0xFF, 0x01, 0x2C])
    // 304 TLV bytes and the Terminator: area blocks 0–19; the first twice (length 00, then the length).
    #expect(updates.count == 21)
    #expect(!updates.contains { [7, 11, 15, 19, 23, 27].contains($0[3]) })  // no trailer written
  }

  /// A tag torn away after every number of APDUs during a write holds the old message, an empty
  /// one, or the new one, never part of one.
  @Test func aTornWriteLeavesAWholeMessage() throws {
    let old = Self.message(40), new = Self.message(200)
    var outcomes: Set<String> = []
    for cut in 1...90 {
      let tag = try MIFAREClassicVirtualTag.ndefFormatted(chip: .classic1K, uid: uid)
      let (setup, _) = try Self.connect(tag, face: .acr122u)
      try setup.writeNDEF(old, verify: false)
      let torn = SimulatedAPDUTransport(card: ACR122UFace(tag: tag), removeAfter: cut)
      if let platform = try? makePlatform(for: try detectTarget(on: torn)) {
        _ = try? platform.writeNDEF(new, verify: false)
      }
      tag.reset()
      let (reader, _) = try Self.connect(tag, face: .acr122u)
      let after = try reader.readNDEF()
      #expect(after == old || after == [] || after == new, "cut after \(cut) APDUs: \(after.count) bytes")
      outcomes.insert(after == old ? "old" : after == new ? "new" : "empty")
    }
    #expect(outcomes == ["old", "empty", "new"])  // every state a tear can leave, and no other
  }
}

extension ClassicHost {
  /// `write image` over a card with a message: the NDEF length goes to 00 first and back last.
  @Test func aRestoreWritesTheNDEFLengthFirstAndLast() throws {
    let source = try MIFAREClassicVirtualTag.ndefFormatted(chip: .classic1K, uid: uid)
    let (writer, _) = try Self.connect(source, face: .acr122u)
    try writer.writeNDEF(Self.message(150), verify: false)
    let image = try writer.readMemory()
    let target = try MIFAREClassicVirtualTag.ndefFormatted(chip: .classic1K, uid: uid)
    let (platform, _) = try Self.connect(target, face: .part3)
    try platform.writeNDEF(Self.message(60), verify: false)
    let plan = try platform.planRestore(image: image, includingSystemAreas: false)
    #expect(plan.writes.first?.unit == 4 && plan.writes.first?.bytes[1] == 0x00)  // old length 00
    #expect(plan.writes.last?.unit == 4 && plan.writes.last?.bytes[1] == 150)
    #expect(plan.order.contains("NDEF length 00 first"))
    try platform.restore(plan, verify: true)
    #expect(try platform.readNDEF() == Self.message(150))
  }
}

extension ClassicHost {
  /// Formatting a factory 1K: every sector opened first with the factory key and its trailer read
  /// (the check that every sector can be written before the first write), no key tried in vain;
  /// then one authentication per sector, 2 MAD blocks and 3 data blocks per other sector, and
  /// every trailer.
  @Test func formatOpensEachSectorOnceToCheckAndOnceToWrite() throws {
    let tag = try MIFAREClassicVirtualTag(chip: .classic1K, uid: uid)
    let (platform, _) = try Self.connect(tag, face: .acr122u)
    try platform.format()
    #expect(platform.exchangeCount == 16 * 2 + 16 + (2 + 1) + 15 * (3 + 1))
  }
}
