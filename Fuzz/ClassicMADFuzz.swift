// libFuzzer entry point over the MIFARE Classic directory without I/O: the MAD (AN10787: GPB,
// CRC, MAD1 and MAD2) and the NDEF TLV across the sectors it names (AN1304). Built by
// scripts/fuzz.sh with NFCTransport and NFCTags. The sector trailers and value blocks are
// ClassicSectorFuzz's.
//
// Input: chip selector (0 Mini, 1 1K, 2 4K), then the card image (.mfd layout), cut or padded
// with zeros to the chip's size.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  guard let selector = bytes.first else { return 0 }
  let chip = [MIFAREClassicChip.mini, .classic1K, .classic4K][Int(selector % 3)]
  var image = Array(bytes.dropFirst().prefix(chip.memorySize))
  image += [UInt8](repeating: 0, count: chip.memorySize - image.count)
  func block(_ n: Int) -> [UInt8] { Array(image[n * 16 ..< n * 16 + 16]) }

  // The MAD: a decoded one encodes to the same bytes (its CRC was checked).
  let gpb = block(3)[9]
  let sector0 = block(1) + block(2)
  let sector16 = chip == .classic4K ? block(64) + block(65) + block(66) : nil
  guard let mad = try? MIFAREApplicationDirectory.decode(generalPurposeByte: gpb, sector0: sector0, sector16: sector16) else {
    return 0
  }
  guard mad.sector0Blocks == sector0 else { fatalError("MAD sector 0 does not round-trip") }
  if mad.version == .mad2, mad.sector16Blocks != sector16 { fatalError("MAD sector 16 does not round-trip") }

  // The NDEF area and its message: never past the area, never longer than its capacity.
  guard let area = try? MIFAREClassicNDEFArea(chip: chip, mad: mad) else { return 0 }
  guard area.blocks.allSatisfy({ $0 > 0 && $0 < chip.blockCount && $0 != chip.trailer(of: chip.sector(of: $0)) }) else {
    fatalError("the NDEF area holds block 0 or a trailer: \(area.blocks)")
  }
  let data = area.blocks.flatMap(block)
  if let message = try? area.message(in: data), message.count > area.size {
    fatalError("a \(message.count)-byte message from a \(area.size)-byte area")
  }
  return 0
}
