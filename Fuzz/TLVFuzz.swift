// libFuzzer entry point over the TLV walk of Types 1, 2 and 5 (TLVLayout.parse over a data area)
// and the writer that places a message in what parses (TLVWriter.plan, orderedWrites). Built by
// scripts/fuzz.sh with NFCTransport and NFCTags.
//
// Input: area start, area size, reserved start, reserved length, message length, block size
// selector, then the memory image.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  guard bytes.count >= 6 else { return 0 }
  let start = Int(bytes[0] % 32)
  let end = start + Int(bytes[1]) * (bytes[5] & 0x80 != 0 ? 4 : 1)
  let reservedStart = Int(bytes[2])
  let reserved = bytes[3] == 0 ? [] : [reservedStart ..< reservedStart + Int(bytes[3] % 64)]
  let messageLength = Int(bytes[4]) * (bytes[5] & 0x40 != 0 ? 3 : 1)
  let blockSize = [4, 8, 16, 32][Int(bytes[5] & 0x03)]
  let image = Array(bytes[6...])
  let area = TLVArea(start: start, end: end, reserved: reserved)
  let memory = TLVMemoryImage(image)
  guard let layout = try? TLVLayout.parse(memory: memory, area: area) else { return 0 }
  _ = layout.summary
  _ = layout.lockRanges
  let capacity = layout.capacity
  if let message = try? layout.readMessage(from: memory), message.count != layout.ndefLength {
    fatalError("read \(message.count) bytes of a \(layout.ndefLength)-byte NDEF TLV")
  }
  // Plan a message, write the plan into the image, and walk the TLVs again: the message is there.
  let message = (0..<messageLength).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
  guard let plan = try? TLVWriter.plan(message: message, layout: layout) else {
    if message.count <= capacity, layout.writeAddress == layout.ndefTLVAddress, layout.ndefTLVAddress != nil {
      fatalError("a \(message.count)-byte message does not fit a capacity of \(capacity)")
    }
    return 0
  }
  guard plan.messageLength == message.count, plan.touchedRange.lowerBound >= area.start,
        plan.touchedRange.upperBound <= area.end else {
    fatalError("the plan writes outside the data area \(area.start)..<\(area.end): \(plan.touchedRange)")
  }
  for address in plan.bytes.keys where layout.isReserved(address) { fatalError("the plan writes reserved byte \(address)") }
  let blocks = (max(image.count, area.end) + blockSize - 1) / blockSize
  var written = image + [UInt8](repeating: 0, count: blocks * blockSize - image.count)
  var current: [Int: [UInt8]] = [:]
  for block in plan.touchedBlocks(blockSize: blockSize) {
    current[block] = Array(written[(block * blockSize)..<((block + 1) * blockSize)])
  }
  guard let writes = try? plan.orderedWrites(blockSize: blockSize, current: current) else {
    fatalError("orderedWrites refused blocks it was given")
  }
  for write in writes {
    guard write.bytes.count == blockSize, current[write.block] != nil else { fatalError("a write outside the plan") }
    written.replaceSubrange((write.block * blockSize)..<((write.block + 1) * blockSize), with: write.bytes)
  }
  var direct = image + [UInt8](repeating: 0, count: blocks * blockSize - image.count)
  for (address, value) in plan.bytes { direct[address] = value }
  guard written == direct else { fatalError("the ordered writes do not give the planned bytes") }
  let after = TLVMemoryImage(written)
  guard let again = try? TLVLayout.parse(memory: after, area: area), again.ndefLength == message.count,
        (try? again.readMessage(from: after)) == message else {
    fatalError("the written message does not read back")
  }
  return 0
}
