// libFuzzer entry point over the Type 3 attribute information block (Type3Attributes(block:)).
// Built by scripts/fuzz.sh with NFCTransport and NFCTags.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  // Mostly 16-byte blocks, with a valid checksum half of the time so the fields get parsed.
  var block = Array(bytes.prefix(16))
  if bytes.count > 16, bytes[16] & 1 == 1, block.count == 16 {
    let sum = block[0..<14].reduce(0) { $0 + Int($1) }
    block[14] = UInt8(truncatingIfNeeded: sum >> 8)
    block[15] = UInt8(truncatingIfNeeded: sum)
  }
  for input in [bytes, block] {
    guard let attributes = try? Type3Attributes(block: input) else { continue }
    // A block that parses re-encodes to itself, and the fresh block parses to the same fields.
    guard attributes.encoded == input else { fatalError("the attribute block does not re-encode to itself") }
    let fresh = Type3Attributes(version: attributes.version, nbr: attributes.nbr, nbw: attributes.nbw,
                                nmaxb: attributes.nmaxb, rwFlag: attributes.rwFlag, length: attributes.length)
    guard let again = try? Type3Attributes(block: fresh.encoded), again.nbr == attributes.nbr,
          again.nbw == attributes.nbw, again.nmaxb == attributes.nmaxb, again.length == attributes.length,
          again.rwFlag == attributes.rwFlag, again.writeFlag == 0 else {
      fatalError("a fresh attribute block does not parse back")
    }
  }
  return 0
}
