import NTAG424

extension NTAG424DNA {
  /// The most bytes one Plain WriteData carries in a single ISO/IEC 14443-4 frame of the tag:
  /// its ATS (T0 = 77h) announces FSCI 7, frames of at most 128 bytes (ISO/IEC 14443-4, the
  /// ATS format byte), which hold the block's PCB (1) and CRC (2) around the APDU, whose header (5),
  /// WriteData header (FileNo, Offset, Length: 7) and Le (1) leave 112 bytes of data: an
  /// `https://` URL of up to 113 characters (NLEN, the record's 4-byte header and the URI
  /// prefix code take 7 bytes, and `https://` none).
  public static let singleFrameWrite = 128 - 3 - (5 + 7 + 1)

  /// Writes the NDEF file (NLEN and the message) in CommMode Plain, tear-safe.
  ///
  /// The tag protects a WriteData sent in one frame against tearing (NT4H2421Gx datasheet
  /// §8.2.3.1, StandardData file, and §10.8.2, WriteData: "tearing protection for data that is
  /// sent within one communication frame"; only a chained write can leave a mix). So a file of up
  /// to ``singleFrameWrite`` bytes goes in one command: a removal leaves the old file or the new
  /// one. A longer file, chained by the link, keeps the tool's tear-safe order: NLEN zeroed, the
  /// message, then NLEN, so that a removal in between leaves an empty file, never a length over
  /// bytes of another message.
  ///
  /// - Returns: the WriteData commands sent (1 or 3).
  @discardableResult
  public func writeNDEFFile(_ file: [UInt8]) throws(NTAG424DNAError) -> Int {
    let number = NativeCommand.ndefFile
    if file.count <= Self.singleFrameWrite {
      try writeData(file: number, offset: 0, data: file, mode: .plain)
      return 1
    }
    try writeData(file: number, offset: 0, data: [0x00, 0x00], mode: .plain)
    try writeData(file: number, offset: 2, data: Array(file.dropFirst(2)), mode: .plain)
    try writeData(file: number, offset: 0, data: Array(file.prefix(2)), mode: .plain)
    return 3
  }
}
