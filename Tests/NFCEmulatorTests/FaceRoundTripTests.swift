import NDEF
import NFCReaders
import NFCTags
import NFCTransport
import Testing
@testable import NFCEmulator

/// Round trips of a full read and a full write per reader face, against the bound the face's
/// commands allow plus the fixed costs docs/performance.md ("Round trips per reader face") names,
/// so that a change that adds round trips on one face fails here. `make bench` prints every cell
/// (Benchmarks/NFCBench/FaceRoundTrips.swift, FaceBounds.swift); these are some of them.
@Suite struct FaceRoundTrips {
  /// APDUs (reader round trips) of identification + `writeNDEF(verify: false)` on a fresh tag, then of
  /// identification + `readNDEF()`, with a message filling the tag; and the message's length.
  func roundTrips(_ kind: VirtualTagKind, on face: ReaderFaceKind) throws -> (bytes: Int, read: Int, write: Int) {
    let tag = try kind.makeTag(uid: nil)
    let card = try face.makeFace(tag: tag)
    let transport = SimulatedAPDUTransport(readerName: "\(face.simulatedReaderName) 00 00", card: card)
    func connect() throws -> any NDEFTagPlatform {
      card.reset()
      return try makePlatform(for: try detectTarget(on: transport))
    }
    let capacity = try connect().queryNDEFStatus().capacity
    let payload = [UInt8](repeating: 0x61, count: capacity - (capacity - 3 > 255 ? 6 : 3))
    let message = try NDEFMessage(records: [NDEFRecord(tnf: .unknown, payload: payload)]).encoded()
    var start = transport.answered
    try connect().writeNDEF(message, verify: false)
    let write = transport.answered - start
    start = transport.answered
    #expect(try connect().readNDEF() == message)
    return (message.count, transport.answered - start, write)
  }

  /// uTrust 3700 F: READ BINARY gives one 4-byte page (Identiv CLOUD 47x0 F Reference Manual
  /// §6.2.1). Bound: identification (2) + the CC and the 4 + 492-byte TLV, 500 bytes from page 3:
  /// 125 pages = 127; the write: 2 + the CC + 124 pages = 127.
  @Test func uTrustType2() throws {
    let cell = try roundTrips(.ntag215, on: .utrust3700f)
    #expect(cell.bytes == 492)
    // Fixed costs: the transparent-exchange probe (1) and pages 0–2, read from the chip's start (3).
    #expect(cell.read <= 127 + 1 + 3)
    // The probe, the CC read from page 0 (3), page 4's READ for the TLV walk (4 READ BINARY), the
    // first page written twice (the length last, tear-safe). The pages the message fills are not
    // read first: a READ BINARY of a page costs what its write costs (docs/performance.md); a
    // shorter message's last page, which its Terminator shares with bytes the write keeps, is
    // (4 more).
    #expect(cell.write <= 127 + 1 + 3 + 4 + 1)
  }

  /// OMNIKEY 5022: READ BINARY gives 16 bytes (https://github.com/martinpaljak/nfc4pc/issues/14). Bound: 2 + ceil(500 / 16) = 34;
  /// the write 127 as on any face that writes one page per command.
  @Test func omnikey5022Type2() throws {
    let cell = try roundTrips(.ntag215, on: .omnikey5022)
    #expect(cell.bytes == 492)
    #expect(cell.read <= 34 + 1)
    #expect(cell.write <= 127 + 1 + 31 + 1)
  }

  /// OMNIKEY 5022, ICODE SLIX2: one 4-byte block per READ/UPDATE BINARY (HID's sample code).
  /// Bound: 2 + the CC and the 4 + 308-byte TLV (80 blocks) = 81 for the read; 2 + the CC + 78
  /// blocks = 81 for the write.
  @Test func omnikey5022ICODESLIX2() throws {
    let cell = try roundTrips(.icodeSLIX2, on: .omnikey5022)
    #expect(cell.bytes == 308)
    #expect(cell.read <= 81 + 1)
    // The probe, the first data block's READ for the TLV walk, the length block written twice:
    // the blocks the message fills are not read.
    #expect(cell.write <= 81 + 1 + 1 + 1)
  }

  /// A Part 3 reader keeps a loaded key (PC/SC Part 3 §3.2.2.1.4): a Classic 1K's full read
  /// loads the MAD's key and the NDEF key once each. Bound: 67 as on the ACR122U + 2 LOAD KEYS.
  @Test(arguments: [ReaderFaceKind.acr1252u, .utrust3700f, .omnikey5022, .scl3711])
  func partThreeClassic1K(face: ReaderFaceKind) throws {
    let cell = try roundTrips(.mifareClassic1KNDEF, on: face)
    #expect(cell.bytes == 716)
    #expect(cell.read <= 69)
    // As on the ACR122U (below) + the 2 LOAD KEYS.
    #expect(cell.write <= 67 + 2 + 28 + 2 + 2)
  }

  /// ACR122U, MIFARE Classic 1K (NXP AN1304): 2 + sector 0 (authentication, blocks 1–3) + the
  /// first NDEF sector's trailer + 15 sectors × (authentication + 3 blocks) = 67, read and write.
  @Test func acr122uClassic1K() throws {
    let cell = try roundTrips(.mifareClassic1KNDEF, on: .acr122u)
    #expect(cell.bytes == 716)
    #expect(cell.read <= 67)
    // Sector 1 opened for the TLV walk (its authentication and first block: 2), every other NDEF
    // sector's trailer checked before the first write (14 × 2), the length block written last
    // (2). The blocks the message fills are not read first: a READ costs what a WRITE costs.
    #expect(cell.write <= 67 + 2 + 28 + 2)
  }

  /// ACR1552U, ICODE SLIX2: 2 + Manage Session, Switch Protocol and GET SYSTEM INFORMATION (3) +
  /// READ MULTIPLE BLOCKS of 240 bytes over the CC and the 4 + 308-byte TLV (2) = 7; the write:
  /// 5 + the CC + 78 blocks = 84.
  @Test func acr1552uICODESLIX2() throws {
    let cell = try roundTrips(.icodeSLIX2, on: .acr1552u)
    #expect(cell.bytes == 308)
    #expect(cell.read <= 7)
    // The area read before writing (2 READ MULTIPLE BLOCKS, not 1), the length block written last.
    #expect(cell.write <= 84 + 1 + 1)
  }
}
