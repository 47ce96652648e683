import NFCTransport

/// The NDEF Attribute Information Block of a Type 3 tag (block 0 of service 000Bh).
///
/// | byte | field |
/// |---|---|
/// | 0 | Ver (major nibble 1) |
/// | 1 | Nbr: blocks per Check |
/// | 2 | Nbw: blocks per Update |
/// | 3–4 | Nmaxb, big-endian |
/// | 5–8 | unused |
/// | 9 | WriteF: 00 idle, 0F write in progress |
/// | 10 | RWFlag: 00 read-only, 01 read/write |
/// | 11–13 | Ln, big-endian |
/// | 14–15 | checksum: sum of bytes 0–13, big-endian |
///
/// Source: nfcpy `tt3.py` `_read_attribute_data`, `_write_attribute_data`.
public struct Type3Attributes: Hashable, Sendable {
  /// The 16 bytes as read (or as they will be written, after ``encoded``).
  public var raw: [UInt8]
  public var version: UInt8
  public var nbr: Int
  public var nbw: Int
  public var nmaxb: Int
  public var writeFlag: UInt8
  public var rwFlag: UInt8
  public var length: Int

  /// Parses an attribute block.
  /// - Throws: ``TagError/notFormatted(_:)`` when the size, checksum or major version is wrong.
  public init(block: [UInt8]) throws(TagError) {
    guard block.count == 16 else { throw .notFormatted("the attribute block has \(block.count) bytes, not 16") }
    let sum = block[0..<14].reduce(0) { $0 + Int($1) }
    let stored = Int(block[14]) << 8 | Int(block[15])
    guard sum == stored else {
      throw .notFormatted("the attribute block checksum is \(hexString(block[14..<16])), the bytes add up to "
                          + "\(hexString([UInt8(sum >> 8 & 0xFF), UInt8(sum & 0xFF)]))")
    }
    guard block[0] >> 4 == 1 else {
      throw .notFormatted("the attribute block has mapping version \(hexString([block[0]])), not 1.x")
    }
    raw = block
    version = block[0]
    nbr = Int(block[1])
    nbw = Int(block[2])
    nmaxb = Int(block[3]) << 8 | Int(block[4])
    writeFlag = block[9]
    rwFlag = block[10]
    length = Int(block[11]) << 16 | Int(block[12]) << 8 | Int(block[13])
  }

  /// A fresh attribute block: WriteF 00, the checksum computed.
  public init(version: UInt8 = 0x10, nbr: Int, nbw: Int, nmaxb: Int, rwFlag: UInt8, length: Int = 0) {
    raw = [UInt8](repeating: 0, count: 16)
    self.version = version
    self.nbr = nbr
    self.nbw = nbw
    self.nmaxb = nmaxb
    self.writeFlag = 0
    self.rwFlag = rwFlag
    self.length = length
    raw = encoded
  }

  /// The block with the fields of this value and the checksum recomputed; bytes 5–8 keep what was read.
  public var encoded: [UInt8] {
    var b = raw.count == 16 ? raw : [UInt8](repeating: 0, count: 16)
    b[0] = version
    b[1] = UInt8(truncatingIfNeeded: nbr)
    b[2] = UInt8(truncatingIfNeeded: nbw)
    b[3] = UInt8(truncatingIfNeeded: nmaxb >> 8)
    b[4] = UInt8(truncatingIfNeeded: nmaxb)
    b[9] = writeFlag
    b[10] = rwFlag
    b[11] = UInt8(truncatingIfNeeded: length >> 16)
    b[12] = UInt8(truncatingIfNeeded: length >> 8)
    b[13] = UInt8(truncatingIfNeeded: length)
    let sum = b[0..<14].reduce(0) { $0 + Int($1) }
    b[14] = UInt8(truncatingIfNeeded: sum >> 8)
    b[15] = UInt8(truncatingIfNeeded: sum)
    return b
  }
}
