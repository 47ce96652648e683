/// Lowercase hex, written two digits per byte through a 256-entry table.
///
/// The one hex encoder of the package: tag and reader messages (through `NFCTransport`), the
/// message JSON (`NDEFJSON`) and the tool all write hex here. The table holds both digits of a
/// byte as one little-endian `UInt16`, so the hot loop is one load and one store per byte.
let hexPairs: [UInt16] = (0..<256).map { byte in
  let digits: [UInt8] = Array("0123456789abcdef".utf8)
  return UInt16(digits[byte >> 4]) | UInt16(digits[byte & 0x0F]) << 8
}

/// Writes the hex of `bytes` at `destination`, which must have room for `2 * bytes.count` bytes.
///
/// - Parameters:
///   - bytes: the bytes to encode.
///   - destination: where the first digit goes.
func writeHex(_ bytes: UnsafeRawBufferPointer, to destination: UnsafeMutableRawPointer) {
  hexPairs.withUnsafeBufferPointer { pairs in
    var out = destination
    for byte in bytes {
      out.storeBytes(of: pairs[Int(byte)].littleEndian, as: UInt16.self)
      out += 2
    }
  }
}

/// Appends the lowercase hex of `bytes` (two digits per byte, no separator) to `output`.
///
/// The fast path of the package: `ndef decode --lines` writes every payload through it.
/// - Parameters:
///   - bytes: the bytes to encode.
///   - output: the buffer the digits are appended to.
@inlinable
public func appendHex<C: Collection>(_ bytes: C, to output: inout [UInt8]) where C.Element == UInt8 {
  let done: Void? = bytes.withContiguousStorageIfAvailable { source in
    appendHex(UnsafeRawBufferPointer(source), to: &output)
  }
  if done == nil {
    Array(bytes).withUnsafeBytes { appendHex($0, to: &output) }
  }
}

/// Appends the lowercase hex of the bytes in `source` to `output`.
///
/// - Parameters:
///   - source: the bytes to encode.
///   - output: the buffer the digits are appended to.
public func appendHex(_ source: UnsafeRawBufferPointer, to output: inout [UInt8]) {
  guard !source.isEmpty else { return }
  // Written on the stack, 256 bytes at a time, and appended with one copy: cheaper than growing
  // the array with zeros and writing over them.
  withUnsafeTemporaryAllocation(byteCount: 512, alignment: 2) { digits in
    guard let base = digits.baseAddress else { return }
    var start = 0
    while start < source.count {
      let count = min(256, source.count - start)
      writeHex(UnsafeRawBufferPointer(rebasing: source[start..<(start + count)]), to: base)
      output.append(contentsOf: UnsafeRawBufferPointer(start: base, count: 2 * count))
      start += count
    }
  }
}

/// Lowercase hex of `bytes`, with `separator` between two bytes.
///
/// `hexString([0x04, 0xA1])` is `"04a1"`; `hexString(uid, separator: ":")` is `"04:a1"`.
/// - Parameters:
///   - bytes: the bytes to encode.
///   - separator: written between two bytes (not before the first or after the last).
/// - Returns: the hex text.
public func hexString(_ bytes: some Sequence<UInt8>, separator: String = "") -> String {
  let source = Array(bytes)
  if separator.isEmpty {
    return String(unsafeUninitializedCapacity: source.count * 2) { buffer in
      source.withUnsafeBytes { raw in
        if let base = buffer.baseAddress { writeHex(raw, to: UnsafeMutableRawPointer(base)) }
      }
      return source.count * 2
    }
  }
  var out: [UInt8] = []
  let gap = Array(separator.utf8)
  out.reserveCapacity(source.count * (2 + gap.count))
  for (index, byte) in source.enumerated() {
    if index > 0 { out.append(contentsOf: gap) }
    let pair = hexPairs[Int(byte)]
    out.append(UInt8(truncatingIfNeeded: pair))
    out.append(UInt8(truncatingIfNeeded: pair >> 8))
  }
  return String(decoding: out, as: UTF8.self)
}
