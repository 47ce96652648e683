// libFuzzer entry point over the BER-TLV objects of PC/SC Part 3 sessions (BERObject.parse).
// Built by scripts/fuzz.sh with NFCTransport.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  guard let objects = BERObject.parse(bytes) else { return 0 }
  // The values never hold more bytes than the input had.
  guard objects.reduce(0, { $0 + $1.value.count }) + 2 * objects.count <= bytes.count else {
    fatalError("BER objects hold more than their input")
  }
  // Encoded again (shortest lengths), they parse to the same objects.
  var encoded: [UInt8] = []
  for object in objects {
    if object.tag > 0xFF { encoded += [UInt8(object.tag >> 8), UInt8(object.tag & 0xFF)] } else { encoded.append(UInt8(object.tag)) }
    let n = object.value.count
    if n < 0x80 { encoded.append(UInt8(n)) } else if n <= 0xFF { encoded += [0x81, UInt8(n)] } else { encoded += [0x82, UInt8(n >> 8), UInt8(n & 0xFF)] }
    encoded += object.value
  }
  guard BERObject.parse(encoded) == objects else { fatalError("BER objects do not survive a round trip") }
  return 0
}
