import NFCTransport

/// The capability container (CC file E103h) of an NFC Forum Type 4 tag.
///
/// Layout (NFC Forum T4T 2.0/3.0; nfcpy `tt4.py` `_discover_ndef`):
/// CCLEN (2), mapping version (1), MLe (2), MLc (2), then the NDEF File Control TLV
/// `04 06 FID(2) size(2) read(1) write(1)` or, from mapping version 3.0, the ENDEF File Control
/// TLV `06 08 FID(2) size(4) read(1) write(1)`. TLV 04 files start with a 2-byte NLEN, TLV 06
/// files with a 4-byte ENLEN.
public struct Type4CapabilityContainer: Hashable, Sendable {
  /// The CC bytes read (at least 15).
  public var bytes: [UInt8]
  /// CCLEN: the size of the CC the tag declares.
  public var length: Int
  /// Major version in the high nibble, minor in the low one (20h = 2.0).
  public var mappingVersion: UInt8
  /// MLe: the most data bytes one READ BINARY answer may carry.
  public var maxResponseData: Int
  /// MLc: the most data bytes one UPDATE BINARY command may carry.
  public var maxCommandData: Int
  /// The NDEF File Control TLV's tag: 04h (NLEN) or 06h (ENLEN).
  public var controlTLV: UInt8
  /// The NDEF file's identifier (usually E104h).
  public var ndefFileID: [UInt8]
  /// The NDEF file's size in bytes, length field included.
  public var ndefFileSize: Int
  /// Read access byte: 00 granted; anything else is read-protected (nfcpy: readable iff 00).
  public var readAccess: UInt8
  /// Write access byte: 00 granted, FFh no write access, other values proprietary (nfcpy:
  /// writable iff 00).
  public var writeAccess: UInt8

  /// 2 (NLEN) or 4 (ENLEN).
  public var lengthFieldSize: Int { controlTLV == 0x06 ? 4 : 2 }
  /// The largest NDEF message: the file size less the length field (nfcpy `_capacity`).
  public var capacity: Int { max(0, ndefFileSize - lengthFieldSize) }
  /// "2.0" and so on.
  public var versionText: String { "\(mappingVersion >> 4).\(mappingVersion & 0x0F)" }

  /// Parses the first 15 (TLV 04) or 17 (TLV 06) bytes of a CC file.
  /// - Throws: ``TagError/notFormatted(_:)`` for an unknown major version or a CC without an NDEF
  ///   File Control TLV; ``TagError/malformed(_:offset:)`` for impossible sizes.
  public init(parsing bytes: [UInt8]) throws(TagError) {
    guard bytes.count >= 15 else {
      throw .malformed("the CC file holds \(bytes.count) bytes; at least 15 are needed", offset: 0)
    }
    self.bytes = bytes
    length = Int(bytes[0]) << 8 | Int(bytes[1])
    mappingVersion = bytes[2]
    maxResponseData = Int(bytes[3]) << 8 | Int(bytes[4])
    maxCommandData = Int(bytes[5]) << 8 | Int(bytes[6])
    controlTLV = bytes[7]
    guard (1...3).contains(mappingVersion >> 4) else {
      throw .notFormatted("the CC names mapping version \(mappingVersion >> 4).\(mappingVersion & 0x0F); "
                          + "versions 1.x to 3.x are known")
    }
    guard length >= 15 else { throw .malformed("CCLEN is \(length), less than 15", offset: 0) }
    guard maxResponseData >= 1, maxCommandData >= 1 else {
      throw .malformed("the CC gives MLe \(maxResponseData) and MLc \(maxCommandData)", offset: 3)
    }
    switch (bytes[7], bytes[8]) {
    case (0x04, 0x06):
      ndefFileID = [bytes[9], bytes[10]]
      ndefFileSize = Int(bytes[11]) << 8 | Int(bytes[12])
      readAccess = bytes[13]
      writeAccess = bytes[14]
    case (0x06, 0x08):
      guard bytes.count >= 17, length >= 17 else {
        throw .malformed("the ENDEF File Control TLV is cut short (CC of \(bytes.count) bytes)", offset: 7)
      }
      ndefFileID = [bytes[9], bytes[10]]
      ndefFileSize = Int(bytes[11]) << 24 | Int(bytes[12]) << 16 | Int(bytes[13]) << 8 | Int(bytes[14])
      readAccess = bytes[15]
      writeAccess = bytes[16]
    default:
      throw .notFormatted("the CC holds TLV \(hexString(bytes[7...8], separator: " ")) at byte 7, not an NDEF "
                          + "File Control TLV (04 06 or 06 08)")
    }
    guard ndefFileSize > lengthFieldSize else {
      throw .malformed("the NDEF file is \(ndefFileSize) bytes, no room after its length field", offset: 11)
    }
    guard ndefFileID != [0xE1, 0x03], ndefFileID != [0x3F, 0x00], ndefFileID != [0x00, 0x00] else {
      throw .malformed("the CC names the reserved file \(hexString(ndefFileID)) as the NDEF file", offset: 9)
    }
  }
}
