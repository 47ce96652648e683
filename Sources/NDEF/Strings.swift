/// Strict UTF-8 decoding: nil for invalid bytes (never repaired).
///
/// The same answer as `String(validating:as:)`, faster on contiguous bytes: ASCII (checked eight
/// bytes at a time) is valid as it is; anything else goes through the standard library's
/// repairing decoder, specialized for UTF-8, and is valid when nothing was repaired.
/// `String(validating:as:)` is generic over the encoding and, unspecialized, looks up type
/// metadata on every call: a tenth of `ndef decode --lines` went there.
/// - Parameter bytes: the UTF-8 bytes (text record, URI, MIME text, record ID…).
/// - Returns: the text, or nil when `bytes` is not valid UTF-8.
public func strictUTF8<C: Collection>(_ bytes: C) -> String? where C.Element == UInt8 {
  let decoded: String?? = bytes.withContiguousStorageIfAvailable { buffer in
    let raw = UnsafeRawBufferPointer(buffer)
    var text = String(decoding: buffer, as: UTF8.self)
    if isASCII(raw) { return text }
    return text.withUTF8 { sameBytes(UnsafeRawBufferPointer($0), raw) } ? text : nil
  }
  if let decoded { return decoded }
  return String(validating: bytes, as: UTF8.self)
}

/// True when no byte has its top bit set.
private func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
  var i = 0
  var high: UInt64 = 0
  while bytes.count - i >= 8 {
    high |= bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
    i += 8
  }
  while i < bytes.count {
    high |= UInt64(bytes[i])
    i += 1
  }
  return high & 0x8080_8080_8080_8080 == 0
}

/// True when `a` and `b` hold the same bytes; compares eight at a time.
private func sameBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
  guard a.count == b.count else { return false }
  var i = 0
  while a.count - i >= 8 {
    guard a.loadUnaligned(fromByteOffset: i, as: UInt64.self) == b.loadUnaligned(fromByteOffset: i, as: UInt64.self)
    else { return false }
    i += 8
  }
  while i < a.count {
    guard a[i] == b[i] else { return false }
    i += 1
  }
  return true
}

/// Strict UTF-16 decoding of bytes: a byte-order mark picks the order, none means big-endian.
/// nil for an odd length or invalid surrogates.
func strictUTF16<C: Collection>(_ bytes: C) -> String? where C.Element == UInt8 {
  guard bytes.count % 2 == 0 else { return nil }
  var units: [UInt16] = []
  units.reserveCapacity(bytes.count / 2)
  var iterator = bytes.makeIterator()
  while let a = iterator.next(), let b = iterator.next() { units.append(UInt16(a) << 8 | UInt16(b)) }
  var bigEndian = true
  if let first = units.first {
    if first == 0xFEFF { units.removeFirst() }
    else if first == 0xFFFE { units.removeFirst(); bigEndian = false }
  }
  if !bigEndian { units = units.map { $0.byteSwapped } }
  var scalars = String.UnicodeScalarView()
  var failed = false
  let stoppedOnError = transcode(units.makeIterator(), from: UTF16.self, to: UTF32.self, stoppingOnError: true) { value in
    if let scalar = Unicode.Scalar(value) { scalars.append(scalar) } else { failed = true }
  }
  guard !failed, !stoppedOnError else { return nil }
  return String(scalars)
}

/// UTF-16 big-endian with a byte-order mark, as nfctag writes it.
func utf16BigEndianWithBOM(_ text: String) -> [UInt8] {
  var out: [UInt8] = [0xFE, 0xFF]
  for unit in text.utf16 { out.append(UInt8(unit >> 8)); out.append(UInt8(unit & 0xFF)) }
  return out
}

/// Bytes of an ASCII string (type names).
@inline(__always) func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
