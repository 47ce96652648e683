// Round trips per reader face: for every face of the virtual reader and every tag family it reads,
// a full read and a full write of the largest NDEF message the tag holds, beside the fewest
// round trips that face's commands allow (docs/performance.md, "Round trips per reader face").
import NDEF
import NFCEmulator
import NFCReaders
import NFCTags
import NFCTransport
import NTAG424Emulator

/// Counts what crosses to the reader: APDUs, and reactivations (a PC/SC `SCardReconnect`, which
/// the session's exchange count includes).
final class RoundTripCounter: APDUTransport {
  let base: any APDUTransport
  var count = 0
  init(_ base: any APDUTransport) { self.base = base }
  var readerName: String { base.readerName }
  var atr: [UInt8] { base.atr }
  func transmit(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    count += 1
    return try base.transmit(apdu)
  }
  func reactivateCard() throws(TransceiveError) {
    count += 1
    try base.reactivateCard()
  }
}

/// One family of the readers table (docs/readers.md), by the virtual tag that stands for it.
struct BenchFamily {
  var name: String
  var kind: VirtualTagKind
  static let all: [BenchFamily] = [
    BenchFamily(name: "NTAG215", kind: .ntag215), BenchFamily(name: "NTAG216", kind: .ntag216),
    BenchFamily(name: "Ultralight EV1", kind: .ultralightEV1), BenchFamily(name: "Topaz 512", kind: .topaz512),
    BenchFamily(name: "FeliCa Lite-S", kind: .felicaLiteS), BenchFamily(name: "Type 4", kind: .type4),
    BenchFamily(name: "NTAG 424 DNA", kind: .ntag424dna), BenchFamily(name: "ICODE SLIX2", kind: .icodeSLIX2),
    BenchFamily(name: "Classic 1K", kind: .mifareClassic1KNDEF), BenchFamily(name: "Classic 4K", kind: .mifareClassic4KNDEF),
  ]
}

/// What one face × family cell measured.
struct FaceCell {
  /// The tag's family (MIFARE Classic as `.mifareClassic`).
  var family: TagPlatform
  /// The message's length (the largest that fits).
  var bytes: Int
  /// APDUs of identification (`detectTarget`), part of both counts below.
  var identification: Int
  /// APDUs of a full read: identification, then `readNDEF()`.
  var read: Int
  /// APDUs of a full write on the fresh tag: identification, then `writeNDEF(_:verify: false)`.
  var write: Int
  /// The bytes before the filler payload (61h): the NDEF TLV's type and length, the record's header.
  var headerBytes: Int
  /// The tag's memory after the write (where the message lies).
  var image: [UInt8]
}

/// Why a cell has no counts.
enum CellOutcome {
  case measured(FaceCell)
  /// The face does not read the family (the face refuses the tag, or the tool does).
  case notRead(String)
}

/// Measures one cell through the path the tool takes on a `sim:KIND@FACE` reader: the face, the
/// simulator's transport with the reader's name, NFCReaders' identification, NFCTags' platform.
func measureCell(face: ReaderFaceKind, kind: VirtualTagKind) -> CellOutcome {
  let tag: any VirtualTag
  let card: any VirtualCard
  do throws(EmulatorError) {
    tag = try kind.makeTag(uid: nil)
    card = try face.makeFace(tag: tag)
  } catch {
    return .notRead("\(error)")
  }
  let transport = RoundTripCounter(SimulatedAPDUTransport(readerName: "\(face.simulatedReaderName) 00 00", card: card))
  func connect() -> (platform: any NDEFTagPlatform, identification: Int)? {
    card.reset()
    transport.count = 0
    guard let target = try? detectTarget(on: transport), let platform = try? makePlatform(for: target) else { return nil }
    return (platform, transport.count)
  }
  guard let (probe, _) = connect() else { return .notRead("not identified") }
  let capacity: Int
  do throws(TagError) { capacity = try probe.queryNDEFStatus().capacity } catch { return .notRead("\(error)") }
  guard capacity > 8 else { return .notRead("capacity \(capacity)") }
  // One unknown-type record filling the tag: header 3 bytes (short record) or 6 (long).
  let payload = [UInt8](repeating: 0x61, count: capacity - (capacity - 3 > 255 ? 6 : 3))
  guard let message = try? NDEFMessage(records: [NDEFRecord(tnf: .unknown, payload: payload)]).encoded() else {
    return .notRead("no message")
  }
  guard let (writer, identification) = connect() else { return .notRead("not identified") }
  do throws(TagError) { try writer.writeNDEF(message, verify: false) } catch { return .notRead("write: \(error)") }
  let write = transport.count
  guard let (reader, _) = connect() else { return .notRead("not identified") }
  guard let read = try? reader.readNDEF(), read == message else { return .notRead("read back differs") }
  let family = tag is MIFAREClassicVirtualTag ? TagPlatform.mifareClassic : tag.platform
  return .measured(FaceCell(family: family, bytes: message.count, identification: identification, read: transport.count, write: write,
                            headerBytes: (message.count < 255 ? 2 : 4) + message.count - payload.count, image: tag.memoryImage))
}

/// Prints the section: one line per face × family the face reads.
func printFaceRoundTrips() {
  NTAG424Emulator.register()  // the 424 DNA's model lives in its own module (swift-crypto)
  print("")
  print("round trips per reader face: full read / full write (no read-back) of a message filling the tag")
  print("(APDUs; ident: identification, in every count; bound: the fewest the face's commands allow, FaceBounds.swift)")
  print("  \(pad("face", 12)) \(pad("family", 15)) \(pad("bytes", 6)) \(pad("ident", 6)) \(pad("read", 5)) \(pad("bound", 6)) "
        + "\(pad("write", 6)) \(pad("bound", 6))")
  for face in ReaderFaceKind.allCases {
    for family in BenchFamily.all {
      let name = "  \(pad(face.rawValue, 12)) \(pad(family.name, 15))"
      switch measureCell(face: face, kind: family.kind) {
      case .notRead(let why):
        print("\(name) not read: \(why)")
      case .measured(let cell):
        let bound = roundTripBound(face: face, kind: family.kind, cell: cell)
        var above: [String] = []
        if let bound, cell.read > bound.read { above.append("read") }
        if let bound, cell.write > bound.write { above.append("write") }
        print("\(name) \(pad(String(cell.bytes), 6)) \(pad(String(cell.identification), 6)) \(pad(String(cell.read), 5)) "
              + "\(pad(bound.map { String($0.read) } ?? "-", 6)) \(pad(String(cell.write), 6)) \(pad(bound.map { String($0.write) } ?? "-", 6))"
              + (above.isEmpty ? "" : " \(above.joined(separator: ", ")) above bound"))
      }
    }
  }
}
