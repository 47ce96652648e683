/// A cursor over a tag's answer: every read checks the length first and throws
/// ``NTAG424Error/malformedResponse(command:reason:)`` instead of trapping, so hostile answers
/// cannot crash a parser. Nothing is indexed without a check.
struct ByteReader {
  private var rest: ArraySlice<UInt8>
  /// The command the answer is to, for errors.
  let command: UInt8

  init(_ bytes: [UInt8], command: UInt8) {
    rest = bytes[...]
    self.command = command
  }

  var isAtEnd: Bool { rest.isEmpty }
  var remaining: Int { rest.count }

  mutating func byte(_ field: String) throws(NTAG424Error) -> UInt8 {
    guard let byte = rest.popFirst() else { throw .malformedResponse(command: command, reason: "\(field) is missing") }
    return byte
  }

  mutating func bytes(_ count: Int, _ field: String) throws(NTAG424Error) -> [UInt8] {
    guard count >= 0, rest.count >= count else {
      throw .malformedResponse(command: command, reason: "\(field) needs \(count) byte(s), \(rest.count) left")
    }
    defer { rest = rest.dropFirst(count) }
    return Array(rest.prefix(count))
  }

  /// A 3-byte little-endian value (offsets, lengths, sizes: NT4H2421Gx datasheet §10.7).
  mutating func uint24(_ field: String) throws(NTAG424Error) -> Int {
    let b = try bytes(3, field)
    return Int(b[0]) | Int(b[1]) << 8 | Int(b[2]) << 16
  }

  /// Throws when bytes are left over: an answer is parsed whole.
  func finish() throws(NTAG424Error) {
    guard rest.isEmpty else {
      throw .malformedResponse(command: command, reason: "\(rest.count) unexpected byte(s) at the end")
    }
  }
}

/// Three bytes, least significant first, of a value below 2^24.
func littleEndian24(_ value: Int, _ field: String) throws(NTAG424Error) -> [UInt8] {
  guard value >= 0, value <= 0xFF_FFFF else {
    throw .invalidParameter("\(field) \(value) does not fit 3 bytes (0...16777215)")
  }
  return [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)]
}
