// libFuzzer entry point over a MIFARE Classic sector without I/O: its trailer (access bits with
// their inverted copies, MF1S50yyX §8.7.1; the rights of Tables 7 and 8; the GPB as AN1304 reads
// it) and its data blocks as value blocks (MF1S50yyX §8.6.2.1). Built by scripts/fuzz.sh with
// NFCTransport and NFCTags.
//
// Input: up to 16 blocks of 16 bytes (a 4K's large sector), the last one read as the trailer;
// a short last block is padded with zeros.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: min(size, 256)))
  guard !bytes.isEmpty else { return 0 }
  let count = (bytes.count + 15) / 16
  let padded = bytes + [UInt8](repeating: 0, count: count * 16 - bytes.count)
  let blocks = (0..<count).map { Array(padded[$0 * 16 ..< $0 * 16 + 16]) }
  guard let trailer = blocks.last else { return 0 }

  // The trailer: decoding either fails (then decode names it) or gives conditions whose bytes
  // are the input's, and every right it grants is one of the four.
  let access = Array(trailer[6..<9])
  if let conditions = MIFAREClassicAccessConditions(bytes: access) {
    guard conditions.bytes == access else { fatalError("access bits \(access) re-encode as \(conditions.bytes)") }
    guard (try? MIFAREClassicAccessConditions.decode(access)) == conditions else { fatalError("decode and init disagree") }
    for group in conditions.groups {
      let rights = [group.dataRead, group.dataWrite, group.dataIncrement, group.dataDecrementTransferRestore,
                    group.trailerKeyAWrite, group.trailerAccessBitsRead, group.trailerAccessBitsWrite,
                    group.trailerKeyBRead, group.trailerKeyBWrite]
      for right in rights where right == .never && (right.allows(.a) || right.allows(.b)) {
        fatalError("a right of never allows a key")
      }
    }
    if conditions.isPermanent != (conditions.groups[3].trailerAccessBitsWrite == .never) {
      fatalError("isPermanent disagrees with the trailer's rights")
    }
    _ = MIFAREClassicTag.describe(conditions)
    guard conditions.summary.count == 15 else { fatalError("summary \(conditions.summary)") }
  } else {
    do throws(MIFAREClassicError) {
      _ = try MIFAREClassicAccessConditions.decode(access)
      fatalError("decode accepts the access bits \(access) init refuses")
    } catch {
      guard case .accessBitsInvalid(let named) = error, named == access else { fatalError("invalid access bits \(access) named as \(error)") }
    }
  }
  _ = MIFAREClassicNDEF.access(generalPurposeByte: trailer[9])

  // Every data block as a value block: a decoded one encodes to the same 16 bytes.
  for block in blocks.dropLast() {
    if let value = MIFAREClassicValueBlock(block: block), value.bytes != block {
      fatalError("value block \(block) re-encodes as \(value.bytes)")
    }
  }
  return 0
}
