/// Strict UTF-8 decoding: nil for invalid bytes (never repaired).
///
/// The same answer as `String(validating:as:)`, faster on contiguous bytes: the standard
/// library's repairing decoder (specialized for UTF-8), then a check that nothing was repaired.
/// `String(validating:as:)` is generic over the encoding and, unspecialized, looks up type
/// metadata on every call: a tenth of `ndef decode --lines` went there.
/// - Parameter bytes: the UTF-8 bytes (text record, URI, MIME text, record ID…).
/// - Returns: the text, or nil when `bytes` is not valid UTF-8.
public func strictUTF8<C: Collection>(_ bytes: C) -> String? where C.Element == UInt8 {
  let decoded: String?? = bytes.withContiguousStorageIfAvailable { buffer in
    var text = String(decoding: buffer, as: UTF8.self)
    let unrepaired = text.withUTF8 { $0.count == buffer.count && $0.elementsEqual(buffer) }
    return unrepaired ? text : nil
  }
  if let decoded { return decoded }
  return String(validating: bytes, as: UTF8.self)
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
