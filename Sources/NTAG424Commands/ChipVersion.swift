import Hex

/// What GetVersion (60h) tells about the chip, its three frames joined: hardware, software,
/// production (NT4H2421Gx datasheet §10.5.2, Tables 54, 56 and 58; NT4H2421Tx, the TagTamper
/// variant's datasheet, same section).
///
/// The host sends `90 60 00 00 00`, then `90 AF 00 00 00` while the tag answers `91 AF`; the data
/// of the three answers, joined, is what ``init(parsing:)`` takes: 7 + 7 + 14 bytes (15 when the
/// production part ends with a FabKeyID byte).
public struct ChipVersion: Hashable, Sendable {
  /// One of the hardware and software parts: seven bytes, each named as in the datasheet.
  public struct Part: Hashable, Sendable {
    /// VendorID: 04h, NXP.
    public var vendorID: UInt8
    /// Type: 04h, NTAG.
    public var type: UInt8
    /// SubType: the variant (see ``ChipVersion/chip``).
    public var subType: UInt8
    /// Major version.
    public var majorVersion: UInt8
    /// Minor version.
    public var minorVersion: UInt8
    /// StorageSize: 2^(n>>1) bytes, "more than" that when bit 0 is set (11h: between 256 and 512).
    public var storageSize: UInt8
    /// Protocol: 05h, ISO/IEC 14443-2 and -3.
    public var communicationProtocol: UInt8

    init(_ b: [UInt8]) {
      vendorID = b[0]; type = b[1]; subType = b[2]; majorVersion = b[3]; minorVersion = b[4]
      storageSize = b[5]; communicationProtocol = b[6]
    }
  }

  /// The 424 DNA variants GetVersion tells apart.
  public enum Chip: Hashable, Sendable, CustomStringConvertible {
    /// NTAG 424 DNA (NT4H2421Gx): hardware type 04h, subtype X2h (50 pF): 02h with strong back
    /// modulation, the factory setting, 82h with standard (NT4H2421Gx datasheet §10.5.2, Table 54).
    case ntag424DNA
    /// NTAG 424 DNA TT, with the TagTamper loop (NT4H2421Tx): hardware type 04h, subtype X8h,
    /// the high nibble the back modulation as for the 424 DNA. The NT4H2421Tx table was not at
    /// hand when this was written: X8h is what TT tags are reported to answer, not a citation.
    case ntag424DNATagTamper
    /// Another chip: vendor, type and subtype as read.
    case other(vendor: UInt8, type: UInt8, subType: UInt8)

    /// "NTAG 424 DNA", "NTAG 424 DNA TT", or the three bytes.
    public var description: String {
      switch self {
      case .ntag424DNA: return "NTAG 424 DNA"
      case .ntag424DNATagTamper: return "NTAG 424 DNA TT"
      case .other(let vendor, let type, let subType):
        return "unknown chip (vendor \(hexString([vendor])), type \(hexString([type])), subtype \(hexString([subType])))"
      }
    }
  }

  /// Whether the chip answers with strong back modulation: bit 7 of the hardware subtype clear.
  ///
  /// NT4H2421Gx datasheet §10.5.2, Table 54: HWSubType 0Xh is strong back modulation, 8Xh
  /// standard; SetConfiguration option 0Bh (§10.5.1, Table 50) chooses it, strong by default.
  public var strongBackModulation: Bool { hardware.subType & 0x80 == 0 }

  /// The storage size a StorageSize byte codes: "416 bytes" is not sayable, so the datasheet's
  /// form, "256 to 512 bytes" for 11h, "256 bytes" for 10h.
  public static func storageText(_ code: UInt8) -> String {
    let exponent = Int(code >> 1)
    guard exponent < 31 else { return "\(hexString([code]))" }
    return code & 0x01 == 0 ? "\(1 << exponent) bytes" : "\(1 << exponent) to \(1 << (exponent + 1)) bytes"
  }

  /// The hardware part (first frame).
  public var hardware: Part
  /// The software part (second frame).
  public var software: Part
  /// The 7-byte UID.
  public var uid: [UInt8]
  /// The production batch number: the 4 BatchNo bytes and the byte whose high nibble ends it.
  public var batchNumber: [UInt8]
  /// The calendar week of production, BCD (CWProd, the low 7 bits of its byte).
  public var productionWeek: UInt8
  /// The year of production, BCD (YearProd: 19h is 2019).
  public var productionYear: UInt8
  /// FabKeyID, when the tag sends it (a 15-byte production part).
  public var fabKeyID: UInt8?

  /// The chip the hardware part names. Bit 7 of the subtype is the back modulation
  /// (SetConfiguration option 0Bh), not the variant, so it is left out here.
  public var chip: Chip {
    switch (hardware.vendorID, hardware.type, hardware.subType & 0x7F) {
    case (0x04, 0x04, 0x02): return .ntag424DNA
    case (0x04, 0x04, 0x08): return .ntag424DNATagTamper
    case let (vendor, type, subType): return .other(vendor: vendor, type: type, subType: subType)
    }
  }

  /// Parses the three frames' data, joined.
  ///
  /// - Throws: ``NTAG424Error/malformedResponse(command:reason:)`` unless the data is 28 or 29 bytes.
  public init(parsing bytes: [UInt8]) throws(NTAG424Error) {
    var reader = ByteReader(bytes, command: 0x60)
    hardware = Part(try reader.bytes(7, "hardware version"))
    software = Part(try reader.bytes(7, "software version"))
    uid = try reader.bytes(7, "UID")
    batchNumber = try reader.bytes(5, "BatchNo")
    productionWeek = try reader.byte("CWProd") & 0x7F
    productionYear = try reader.byte("YearProd")
    fabKeyID = reader.isAtEnd ? nil : try reader.byte("FabKeyID")
    try reader.finish()
  }
}
