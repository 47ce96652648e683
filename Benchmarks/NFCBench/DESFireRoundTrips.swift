// Round trips of NDEF on a MIFARE DESFire EV1 (NXP AN11004, mapping 2.0): `format` of a factory card
// with the NDEF file at its largest, a full write of a message filling it and a full read, on the
// ACR122U and a Part 3 face, beside the fewest round trips the card's and the reader's frames
// allow (docs/performance.md, "DESFire round trips").
import NDEF
import NFCEmulator
import NFCReaders
import NFCTags
import NFCTransport

/// One DESFire cell: APDUs of identification (in every count), of `format`, of a full write
/// (without read-back) and of a full read; the NDEF file's size and the message's length.
struct DESFireCell {
  var fileSize: Int
  var bytes: Int
  var identification: Int
  var format: Int
  var write: Int
  var read: Int
}

/// The NDEF file at its largest on `chip`: the free memory less the CC file's 32-byte block (a
/// file takes its size rounded up to 32 bytes; docs/desfire.md, "Memory").
func largestDESFireNDEFFile(_ chip: DESFireChip) -> Int { min(chip.memorySize - 32, 0x7FFF) }

/// Measures one DESFire kind on one face through the path `nfctag format`, `write --no-verify` and
/// `read` take on `sim:KIND@FACE`; nil when a step fails.
func measureDESFire(_ kind: VirtualTagKind, on face: ReaderFaceKind) -> DESFireCell? {
  guard let chip = kind.desfireChip, let tag = try? kind.makeTag(uid: nil), let card = try? face.makeFace(tag: tag) else { return nil }
  let transport = RoundTripCounter(SimulatedAPDUTransport(readerName: "\(face.simulatedReaderName) 00 00", card: card))
  func connect() -> (platform: any NDEFTagPlatform, identification: Int)? {
    card.reset()
    transport.count = 0
    guard let target = try? detectTarget(on: transport), let platform = try? makePlatform(for: target) else { return nil }
    return (platform, transport.count)
  }
  let fileSize = largestDESFireNDEFFile(chip)
  guard let (formatter, identification) = connect(), let type4 = formatter as? Type4Tag else { return nil }
  type4.desfireFormatOptions = DESFireNDEFFormatOptions(ndefFileSize: fileSize)
  do throws(TagError) { try formatter.format() } catch { return nil }
  let format = transport.count
  guard let (probe, _) = connect(), let capacity = try? probe.queryNDEFStatus().capacity, capacity > 8 else { return nil }
  let payload = [UInt8](repeating: 0x61, count: capacity - (capacity - 3 > 255 ? 6 : 3))
  guard let message = try? NDEFMessage(records: [NDEFRecord(tnf: .unknown, payload: payload)]).encoded() else { return nil }
  guard let (writer, _) = connect(), (try? writer.writeNDEF(message, verify: false)) != nil else { return nil }
  let write = transport.count
  guard let (reader, _) = connect(), let read = try? reader.readNDEF(), read == message else { return nil }
  return DESFireCell(fileSize: fileSize, bytes: message.count, identification: identification, format: format,
                     write: write, read: transport.count)
}

/// The fewest APDUs for each operation, from the frames' sizes, not from the tool's code:
/// - read: identification, SELECT application, SELECT CC, READ CC, SELECT NDEF, then NLEN and the
///   message in READ BINARYs of min(MLe 59, the reader's answer) bytes (AN11004's CC: MLe 003Bh,
///   the 59 data bytes of the card's 64-byte frame);
/// - write: the same four, then UPDATE BINARYs of min(MLc 52, the reader's command) bytes (MLc 0034h);
/// - format: identification, GetVersion (3 APDUs: the card answers it in three frames), GetFreeMemory
///   (the NDEF file's size comes from it), CreateApplication, SelectApplication, two
///   CreateStdDataFile, WriteData of the 15-byte CC (one frame) and of NLEN 0000: 10 more.
func desfireBound(_ cell: DESFireCell, face: ReaderFaceKind) -> (format: Int, write: Int, read: Int)? {
  guard let rule = faceRule(face, .type4) else { return nil }
  func chunks(_ bytes: Int, _ size: Int) -> Int { (bytes + size - 1) / size }
  let file = 2 + cell.bytes
  return (format: cell.identification + 10,
          write: cell.identification + 4 + chunks(file, min(52, rule.writeBytes)),
          read: cell.identification + 4 + chunks(file, min(59, rule.readBytes)))
}

/// The DESFire kinds and faces the section measures.
let desfireBenchKinds: [VirtualTagKind] = [.desfireEV1With2K, .desfireEV1With4K, .desfireEV1With8K]
let desfireBenchFaces: [ReaderFaceKind] = [.acr122u, .acr1552u]

/// Prints the section: one line per kind × face.
func printDESFireRoundTrips() {
  print("")
  print("MIFARE DESFire EV1, NDEF (AN11004): format with the NDEF file at its largest, full write (no read-back), full read")
  print("(APDUs; ident: identification, in every count; bound: the fewest the card's and the reader's frames allow, desfireBound)")
  print("  \(pad("kind", 16)) \(pad("face", 10)) \(pad("file", 5)) \(pad("bytes", 6)) \(pad("ident", 6)) \(pad("format", 7)) "
        + "\(pad("bound", 6)) \(pad("write", 6)) \(pad("bound", 6)) \(pad("read", 5)) bound")
  for kind in desfireBenchKinds {
    for face in desfireBenchFaces {
      let name = "  \(pad(kind.rawValue, 16)) \(pad(face.rawValue, 10))"
      guard let cell = measureDESFire(kind, on: face), let bound = desfireBound(cell, face: face) else {
        print("\(name) not measured")
        continue
      }
      print("\(name) \(pad(String(cell.fileSize), 5)) \(pad(String(cell.bytes), 6)) \(pad(String(cell.identification), 6)) "
            + "\(pad(String(cell.format), 7)) \(pad(String(bound.format), 6)) \(pad(String(cell.write), 6)) "
            + "\(pad(String(bound.write), 6)) \(pad(String(cell.read), 5)) \(bound.read)")
    }
  }
}
