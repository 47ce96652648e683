// In-process benchmarks: NDEF codec throughput, and reader round trips per tag operation.
// Run through `make bench` (release build); figures go to stdout.
import NDEF
import NDEFJSON
import NFCEmulator
import NFCReaders
import NFCTags
import NFCTransport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func now() -> Double {
  var t = timespec()
  clock_gettime(CLOCK_MONOTONIC, &t)
  return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

// MARK: Codec throughput

func corpus() -> [[UInt8]] {
  var out: [[UInt8]] = []
  for i in 0..<2000 {
    let records: [NDEFRecord]
    switch i % 4 {
    case 0: records = [TextRecord(text: "Hello number \(i)", language: "en").record]
    case 1: records = [URIRecord(uri: "https://www.example.com/item/\(i)").record]
    case 2: records = [SmartPosterRecord(uri: "https://nfc.example/\(i)", titles: [TextRecord(text: "Poster \(i)")]).record]
    default: records = [MIMERecord(mediaType: "text/plain", data: Array("payload \(i)".utf8)).record,
                        AndroidApplicationRecord(packageName: "com.example.app").record]
    }
    out.append((try? NDEFMessage(records: records).encoded()) ?? [])
  }
  return out
}

let messages = corpus()
let totalBytes = messages.reduce(0) { $0 + $1.count }
let rounds = 50
var decodedRecords = 0
var start = now()
for _ in 0..<rounds {
  for m in messages { decodedRecords += (try? NDEFMessage(decoding: m))?.records.count ?? 0 }
}
var elapsed = now() - start
print("decode:      \(Int(Double(decodedRecords) / elapsed)) records/s, \(String(format2(Double(totalBytes * rounds) / elapsed / 1e6))) MB/s")

let decoded = messages.compactMap { try? NDEFMessage(decoding: $0) }
start = now()
var encodedBytes = 0
for _ in 0..<rounds { for m in decoded { encodedBytes += (try? m.encoded())?.count ?? 0 } }
elapsed = now() - start
print("encode:      \(Int(Double(decoded.count * rounds) / elapsed)) messages/s, \(String(format2(Double(encodedBytes) / elapsed / 1e6))) MB/s")

start = now()
var jsonBytes = 0
var writer = JSONWriter(capacity: 4096)
for _ in 0..<rounds {
  for m in messages {
    writer.bytes.removeAll(keepingCapacity: true)
    if let d = try? NDEFMessage(decoding: m) { writer.message(d) }
    jsonBytes += writer.bytes.count
  }
}
elapsed = now() - start
print("decode+JSON: \(Int(Double(messages.count * rounds) / elapsed)) messages/s")

func format2(_ x: Double) -> String {
  let scaled = Int((x * 100).rounded())
  return "\(scaled / 100).\(scaled % 100 < 10 ? "0" : "")\(scaled % 100)"
}

// MARK: Reader round trips

/// Counts APDUs between the driver and the reader.
final class CountingAPDU: APDUTransport {
  let base: any APDUTransport
  var count = 0
  init(_ base: any APDUTransport) { self.base = base }
  var readerName: String { base.readerName }
  var atr: [UInt8] { base.atr }
  func transmit(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    count += 1
    return try base.transmit(apdu)
  }
}

func roundTrips(chip: Type2Chip, messageLength: Int, readerFace acr122u: Bool) -> (read: Int, write: Int)? {
  guard let tag = try? Type2VirtualTag(chip: chip) else { return nil }
  let payload = [UInt8](repeating: 0x61, count: messageLength - (messageLength - 3 > 255 ? 6 : 3))
  guard let message = try? NDEFMessage(records: [NDEFRecord(tnf: .unknown, payload: payload)]).encoded() else { return nil }
  let transport = CountingAPDU(SimulatedAPDUTransport(card: acr122u ? ACR122UFace(tag: tag) : PartThreeOnlyFace(tag: tag)))
  guard let target = try? detectTarget(on: transport), let platform = try? makePlatform(for: target) else { return nil }
  guard (try? platform.writeNDEF(message, verify: true)) != nil else { return nil }
  let write = transport.count
  guard let target2 = try? detectTarget(on: transport) else { return nil }
  transport.count = 0
  guard let target3 = try? detectTarget(on: transport), let platform3 = try? makePlatform(for: target3),
        let read = try? platform3.readNDEF(), read == message else { return nil }
  _ = target2
  return (transport.count, write)
}

/// A reader that only knows the Part 3 pseudo-APDUs (FF CA, FF B0 16 bytes, FF D6): what
/// nfc-pcsc and most tools use.
final class PartThreeOnlyFace: VirtualCard {
  let inner: ACR122UFace
  init(tag: any VirtualTag) { inner = ACR122UFace(tag: tag, firmware: "GENERIC") }
  var atr: [UInt8] { inner.atr }
  func powerOn() {}
  func powerOff() {}
  func reset() {}
  func transmit(_ apdu: [UInt8]) -> [UInt8] {
    if apdu.starts(with: [0xFF, 0x00, 0x48]) { return [0x6A, 0x81] }
    if apdu.starts(with: [0xFF, 0x00, 0x00, 0x00]) { return [0x6A, 0x81] }
    return inner.transmit(apdu)
  }
}

print("")
print("reader round trips (APDUs, identification included)      ACR122U   Part 3 READ BINARY (16 B)")
for (chip, length) in [(Type2Chip.ntag213, 137), (.ntag215, 480), (.ntag216, 868)] {
  let fast = roundTrips(chip: chip, messageLength: length, readerFace: true)
  let slow = roundTrips(chip: chip, messageLength: length, readerFace: false)
  let name = "\(chip.productName) \(length)-byte message"
  print("  read  \(pad(name, 40)) \(fast.map { String($0.read) } ?? "-")         \(slow.map { String($0.read) } ?? "-")")
  print("  write \(pad(name, 40)) \(fast.map { String($0.write) } ?? "-")         \(slow.map { String($0.write) } ?? "-")")
}

// MARK: Every tag type: a full read and a full write of a message as large as the tag holds

/// A link that passes at most `blockSize` bytes per answer: the one-block-per-command approach of
/// simple tools, on the same platform code.
final class OneBlockLink: Transceiver {
  let base: any Transceiver
  let capabilities: LinkCapabilities
  init(_ base: any Transceiver, blockSize: Int) {
    self.base = base
    capabilities = LinkCapabilities(maxResponseLength: min(blockSize, base.capabilities.maxResponseLength),
                                    maxCommandLength: base.capabilities.maxCommandLength,
                                    rawCommands: base.capabilities.rawCommands)
  }
  func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] { try base.transceive(command) }
}

struct TypeRoundTrips {
  var capacity: Int, detection: Int, read: Int, write: Int, maxAnswer: Int
  /// The memory image after the write: where the message ends tells how much a read must cover.
  var image: [UInt8]
}

/// The fewest APDUs a full read can take on this reader: identification, then what the tag's
/// command set and the reader's frame carry per exchange, over the memory from its start to the
/// message's last byte (the filler payload is 61h). Per type:
/// - Type 1 (ACR122U): RALL gives bytes 0–119 in one APDU; past them READ8 carries 8 bytes in
///   3 APDUs (the PN532 firmware has no READ8 or RSEG: its contactless unit is programmed with
///   WriteRegister/ReadRegister, and its 64-byte FIFO cannot hold a 128-byte RSEG segment).
/// - Type 2: FAST_READ from page 0, as many bytes as the link's answer carries.
/// - Type 3 (FeliCa Lite-S): Check of at most 4 blocks (16 bytes each), the MC block included.
/// - Type 4: SELECT application, SELECT CC, READ CC, SELECT NDEF, then NLEN and the message in
///   READ BINARYs as long as MLe and the link allow.
/// - Type 5 (Part 3 reader): start the transparent session and switch to ISO 15693 (2 APDUs),
///   GET SYSTEM INFORMATION, then READ MULTIPLE BLOCKS as long as the link carries.
func frameBound(_ kind: VirtualTagKind, _ result: TypeRoundTrips) -> Int? {
  guard let last = result.image.lastIndex(of: 0x61) else { return nil }
  let span = last + 1
  func chunks(_ bytes: Int, _ size: Int) -> Int { size > 0 ? (max(0, bytes) + size - 1) / size : 0 }
  switch kind {
  case .topaz96, .topaz512:
    // The message skips the reserved and lock blocks: count the blocks past RALL that hold it.
    let blocks = Set(result.image.indices.filter { $0 >= 120 && result.image[$0] == 0x61 }.map { $0 / 8 })
    return result.detection + 1 + 3 * blocks.count
  case .ntag210, .ntag213, .ntag213Locked, .ntag215, .ntag216, .ultralight, .ultralightEV1:
    return result.detection + chunks(span, result.maxAnswer / 4 * 4)
  case .felicaLiteS: return result.detection + chunks(chunks(span, 16) + 1, 4)
  case .type4, .ntag424dna: return result.detection + 4 + chunks(span - 32, result.maxAnswer)
  case .icodeSLIX2: return result.detection + 3 + chunks(span, result.maxAnswer / 4 * 4)
  case .mifareClassic1K, .mifareClassic4K, .mifareClassicMini: return nil  // factory cards: no NDEF
  case .desfireEV1With2K, .desfireEV1With4K, .desfireEV1With8K, .desfireEV2With2K, .desfireEV2With4K, .desfireEV2With8K,
       .desfireEV3With2K, .desfireEV3With4K, .desfireEV3With8K, .desfireLight: return nil  // factory cards: no NDEF application
  case .mifareClassic1KNDEF, .mifareClassic4KNDEF, .mifareClassicMiniNDEF:
    return nil  // counted exactly by the Classic host tests (docs/mifare-classic.md)
  }
}


func typeRoundTrips(_ kind: VirtualTagKind, naiveBlock: Int?) -> TypeRoundTrips? {
  guard let tag = try? kind.makeTag(uid: nil), let face = try? kind.defaultFace.makeFace(tag: tag) else { return nil }
  let transport = CountingAPDU(SimulatedAPDUTransport(readerName: kind.defaultFace.simulatedReaderName, card: face))
  func connect() -> (any NDEFTagPlatform, Int, Int)? {
    transport.count = 0
    guard var target = try? detectTarget(on: transport) else { return nil }
    let detection = transport.count
    let maxAnswer = target.link.capabilities.maxResponseLength
    if let naiveBlock { target.link = OneBlockLink(target.link, blockSize: naiveBlock) }
    guard let platform = try? makePlatform(for: target) else { return nil }
    return (platform, detection, maxAnswer)
  }
  guard let (probe, _, _) = connect(), let capacity = try? probe.queryNDEFStatus().capacity, capacity > 8 else { return nil }
  // One unknown-type record filling the tag: header 3 bytes (short) or 6 (long).
  let payloadLength = capacity - (capacity - 3 > 255 ? 6 : 3)
  guard let message = try? NDEFMessage(records: [NDEFRecord(tnf: .unknown, payload: [UInt8](repeating: 0x61, count: payloadLength))]).encoded(),
        message.count <= capacity else { return nil }
  guard let (writer, _, _) = connect(), (try? writer.writeNDEF(message, verify: true)) != nil else { return nil }
  let write = transport.count
  guard let (reader, detection, maxAnswer) = connect(), let read = try? reader.readNDEF(), read == message else { return nil }
  return TypeRoundTrips(capacity: message.count, detection: detection, read: transport.count, write: write, maxAnswer: maxAnswer,
                        image: tag.memoryImage)
}

print("")
print("every type: full read / full write of a message filling the tag (APDUs, identification included)")
print("  \(pad("tag (reader)", 34)) \(pad("bytes", 6)) \(pad("read", 5)) \(pad("bound", 6)) \(pad("naive", 6)) \(pad("write", 6)) naive")
let naiveBlocks: [VirtualTagKind: Int] = [.topaz512: 8, .ntag215: 16, .ntag216: 16, .felicaLiteS: 16, .type4: 15, .icodeSLIX2: 4]
for kind in [VirtualTagKind.topaz512, .ntag215, .ntag216, .felicaLiteS, .type4, .icodeSLIX2] {
  let name = "\(kind.rawValue) (\(kind.defaultFace.rawValue))"
  guard let best = typeRoundTrips(kind, naiveBlock: nil) else {
    print("  \(pad(name, 34)) not available")
    continue
  }
  var naive = typeRoundTrips(kind, naiveBlock: naiveBlocks[kind])
  if kind == .topaz512, var one = naive, let last = one.image.lastIndex(of: 0x61) {
    // Type 1's naive read is READ8 for every block from 0 (no RALL): 3 APDUs each on a PN532.
    one.read = one.detection + 3 * (last / 8 + 1)
    naive = one
  }
  let bound = frameBound(kind, best).map(String.init) ?? "-"
  print("  \(pad(name, 34)) \(pad(String(best.capacity), 6)) \(pad(String(best.read), 5)) \(pad(bound, 6)) "
        + "\(pad(naive.map { String($0.read) } ?? "-", 6)) \(pad(String(best.write), 6)) \(naive.map { String($0.write) } ?? "-")")
}
print("  bound: the fewest APDUs the tag's commands and the reader's frame allow (see frameBound); naive: one block per command")

func pad(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }

printFaceRoundTrips()  // FaceRoundTrips.swift
printDESFireRoundTrips()  // DESFireRoundTrips.swift
printDESFireProvisioning()  // DESFireProvisioningCounts.swift
