import NDEF
import NFCReaders
import NFCTags
import NFCTransport
import Testing
@testable import NFCEmulator

/// Round trips of NDEF on a MIFARE DESFire EV1 of each size, against the bound the card's and the
/// reader's frames allow plus the fixed costs docs/performance.md ("DESFire round trips") names, so
/// that a change that adds round trips fails here. `make bench` prints them
/// (Benchmarks/NFCBench/DESFireRoundTrips.swift).
@Suite struct DESFireRoundTrips {
  /// APDUs of identification, of `format` with the NDEF file at its largest (`size`), of a full
  /// write (no read-back) of a message filling it, and of a full read.
  func roundTrips(_ kind: VirtualTagKind, size: Int, on face: ReaderFaceKind) throws
    -> (ident: Int, bytes: Int, format: Int, write: Int, read: Int) {
    let card = try face.makeFace(tag: try kind.makeTag(uid: nil))
    let transport = SimulatedAPDUTransport(readerName: "\(face.simulatedReaderName) 00 00", card: card)
    var start = 0
    func connect() throws -> any NDEFTagPlatform {
      card.reset()
      start = transport.answered
      return try makePlatform(for: try detectTarget(on: transport))
    }
    let formatter = try connect()
    let ident = transport.answered - start
    (formatter as? Type4Tag)?.desfireFormatOptions = DESFireNDEFFormatOptions(ndefFileSize: size)
    try formatter.format()
    let format = transport.answered - start
    let capacity = try connect().queryNDEFStatus().capacity
    #expect(capacity == size - 2)
    let payload = [UInt8](repeating: 0x61, count: capacity - 6)
    let message = try NDEFMessage(records: [NDEFRecord(tnf: .unknown, payload: payload)]).encoded()
    try connect().writeNDEF(message, verify: false)
    let write = transport.answered - start
    #expect(try connect().readNDEF() == message)
    return (ident, message.count, format, write, transport.answered - start)
  }

  /// Bound (Benchmarks/NFCBench/DESFireRoundTrips.swift, `desfireBound`): identification (2) +
  /// SELECT application, SELECT CC, READ CC, SELECT NDEF (4) + NLEN and the message in READ BINARYs
  /// of 59 bytes (the CC's MLe, one card frame) or UPDATE BINARYs of 52 (MLc); `format`:
  /// identification + GetVersion (3) + GetFreeMemory + CreateApplication + SelectApplication + two
  /// CreateStdDataFile + WriteData of the CC and of NLEN = 2 + 10.
  @Test(arguments: [(VirtualTagKind.desfireEV1With2K, 2016, 35, 39), (.desfireEV1With4K, 4064, 69, 79),
                    (.desfireEV1With8K, 8160, 139, 157)])
  func ev1(kind: VirtualTagKind, size: Int, readFrames: Int, writeFrames: Int) throws {
    for face in [ReaderFaceKind.acr122u, .acr1552u] {
      let cell = try roundTrips(kind, size: size, on: face)
      #expect(cell.ident == 2)
      #expect(cell.bytes == size - 2)
      // The read is at its bound.
      #expect(cell.read <= 2 + 4 + readFrames, "\(face) read \(cell.read)")
      // The write: a READ BINARY of the NDEF file before writing (1), and NLEN written apart, 0000
      // first and the length last, tear-safe (2).
      #expect(cell.write <= 2 + 4 + writeFrames + 3, "\(face) write \(cell.write)")
      // format: the Type 4 discovery that finds no NDEF application first (SELECT v2, SELECT v1,
      // SELECT CC: 3); the ISO SELECT of the PICC level, SelectApplication of the PICC level,
      // GetKeySettings and the SelectApplication that tells whether the application exists (4);
      // the empty message written as on any Type 4 tag with its read-back (SELECT application,
      // SELECT CC, READ CC, SELECT NDEF, UPDATE BINARY, READ BINARY: 6).
      #expect(cell.format <= 2 + 10 + 3 + 4 + 6, "\(face) format \(cell.format)")
    }
  }
}
