/// Strict UTF-8 decoding: nil for invalid bytes (never repaired).
///
/// The same answer as `String(validating:as:)`, faster on contiguous bytes: ASCII (checked eight
/// bytes at a time) is valid as it is; anything else is checked by `isValidUTF8(_:)`
/// before the String is built. `String(validating:as:)` is generic over the encoding and,
/// unspecialized, looks up type metadata on every call: a tenth of `ndef decode --lines` went there.
/// - Parameter bytes: the UTF-8 bytes (text record, URI, MIME text, record ID…).
/// - Returns: the text, or nil when `bytes` is not valid UTF-8.
public func strictUTF8<C: Collection>(_ bytes: C) -> String? where C.Element == UInt8 {
  let decoded: String?? = bytes.withContiguousStorageIfAvailable { buffer in
    isValidUTF8(UnsafeRawBufferPointer(buffer)) ? String(decoding: buffer, as: UTF8.self) : nil
  }
  if let decoded { return decoded }
  return String(validating: bytes, as: UTF8.self)
}

/// True when `bytes` are well-formed UTF-8 (Unicode 15 §3.9, table 3-7: no overlong forms, no
/// surrogates, nothing above U+10FFFF): what ``strictUTF8(_:)`` accepts, without building a String.
///
/// ASCII is checked eight bytes at a time; anything else goes through the standard library's
/// validator (`UTF8Span(validating:)`), which allocates nothing.
/// - Parameter bytes: the bytes to check.
public func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
  if isASCII(bytes) { return true }
  return (try? UTF8Span(validating: bytes.assumingMemoryBound(to: UInt8.self).span)) != nil
}

/// True when `bytes` are well-formed UTF-8: the same test as `isValidUTF8(_:)` on a raw buffer.
/// - Parameter bytes: the bytes to check (a record's type, ID or payload, or a slice of one).
@inlinable
public func isValidUTF8<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
  if let valid = bytes.withContiguousStorageIfAvailable({ isValidUTF8(UnsafeRawBufferPointer($0)) }) { return valid }
  return String(validating: bytes, as: UTF8.self) != nil
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

/// Strict UTF-16 decoding of bytes: a byte-order mark picks the order, none means big-endian.
/// nil for an odd length or invalid surrogates.
func strictUTF16<C: Collection>(_ bytes: C) -> String? where C.Element == UInt8 {
  var utf8: [UInt8] = []
  let valid = bytes.withContiguousStorageIfAvailable { appendUTF8(fromStrictUTF16: UnsafeRawBufferPointer($0), to: &utf8) }
    ?? Array(bytes).withUnsafeBytes { appendUTF8(fromStrictUTF16: $0, to: &utf8) }
  return valid ? String(decoding: utf8, as: UTF8.self) : nil
}

/// Appends the UTF-8 of strict UTF-16 bytes to `output`: the text of a UTF-16 Text record
/// (NFC Forum Text RTD 1.0 §3.2.1), without a String per character.
///
/// A byte-order mark (FE FF or FF FE, the first two bytes only) picks the order and is dropped;
/// none means big-endian (RFC 2781 §4.3). Surrogates must pair, high then low (Unicode 15 §3.9, D91).
/// - Parameters:
///   - bytes: the UTF-16 bytes.
///   - output: where the UTF-8 goes; on failure it holds what it held before.
/// - Returns: false for an odd length or a surrogate that is not part of a pair.
public func appendUTF8(fromStrictUTF16 bytes: UnsafeRawBufferPointer, to output: inout [UInt8]) -> Bool {
  let n = bytes.count
  guard n % 2 == 0 else { return false }
  guard n > 0, let base = bytes.baseAddress else { return true }
  let input = base.assumingMemoryBound(to: UInt8.self)
  var i = 0
  var bigEndian = true
  let first = UInt16(input[0]) << 8 | UInt16(input[1])
  if first == 0xFEFF { i = 2 } else if first == 0xFFFE { i = 2; bigEndian = false }
  // Every 2-byte unit makes at most 3 bytes of UTF-8 (a pair of units, 4 bytes).
  let start = output.count
  let room = (n - i) / 2 * 3
  output.append(contentsOf: repeatElement(0, count: room))
  let written: Int? = output.withUnsafeMutableBufferPointer { buffer in
    guard let out = buffer.baseAddress.map({ $0 + start }) else { return room == 0 ? 0 : nil }
    @inline(__always) func unit(_ k: Int) -> UInt32 {
      bigEndian ? UInt32(input[k]) << 8 | UInt32(input[k + 1]) : UInt32(input[k + 1]) << 8 | UInt32(input[k])
    }
    var j = 0
    while i < n {
      let u = unit(i)
      i += 2
      if u < 0x80 {
        out[j] = UInt8(truncatingIfNeeded: u)
        j += 1
      } else if u < 0x800 {
        out[j] = UInt8(truncatingIfNeeded: 0xC0 | u >> 6)
        out[j + 1] = UInt8(truncatingIfNeeded: 0x80 | u & 0x3F)
        j += 2
      } else if u & 0xF800 != 0xD800 {
        out[j] = UInt8(truncatingIfNeeded: 0xE0 | u >> 12)
        out[j + 1] = UInt8(truncatingIfNeeded: 0x80 | u >> 6 & 0x3F)
        out[j + 2] = UInt8(truncatingIfNeeded: 0x80 | u & 0x3F)
        j += 3
      } else {
        guard u < 0xDC00, i < n else { return nil }  // a low surrogate first, or a high one at the end
        let low = unit(i)
        guard low & 0xFC00 == 0xDC00 else { return nil }
        i += 2
        let scalar = 0x10000 + ((u - 0xD800) << 10 | (low - 0xDC00))
        out[j] = UInt8(truncatingIfNeeded: 0xF0 | scalar >> 18)
        out[j + 1] = UInt8(truncatingIfNeeded: 0x80 | scalar >> 12 & 0x3F)
        out[j + 2] = UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F)
        out[j + 3] = UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F)
        j += 4
      }
    }
    return j
  }
  guard let written else {
    output.removeLast(output.count - start)
    return false
  }
  output.removeLast(room - written)
  return true
}

/// UTF-16 big-endian with a byte-order mark, as nfctag writes it.
func utf16BigEndianWithBOM(_ text: String) -> [UInt8] {
  var out: [UInt8] = [0xFE, 0xFF]
  for unit in text.utf16 { out.append(UInt8(unit >> 8)); out.append(UInt8(unit & 0xFF)) }
  return out
}

/// Bytes of an ASCII string (type names).
@inline(__always) func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
