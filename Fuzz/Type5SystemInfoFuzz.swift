// libFuzzer entry point over the Type 5 GET SYSTEM INFORMATION answer (Type5SystemInfo(parsing:))
// and the chip table it feeds (Type5Chip). Built by scripts/fuzz.sh with NFCTransport and NFCTags.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  guard let info = try? Type5SystemInfo(parsing: bytes) else { return 0 }
  guard info.raw == bytes, info.uid.count == 8, info.infoFlags == bytes.first else {
    fatalError("system info lost its input")
  }
  if let count = info.blockCount, !(1...256).contains(count) { fatalError("block count \(count) out of range") }
  if let size = info.blockSize, !(1...32).contains(size) { fatalError("block size \(size) out of range") }
  // The fields the flags announce are all there, in order, and nothing else was consumed.
  let flags = info.infoFlags
  let needed = 9 + (flags & 0x01 != 0 ? 1 : 0) + (flags & 0x02 != 0 ? 1 : 0) + (flags & 0x04 != 0 ? 2 : 0)
    + (flags & 0x08 != 0 ? 1 : 0)
  guard bytes.count >= needed else { fatalError("parsed \(needed) bytes out of \(bytes.count)") }
  return 0
}
