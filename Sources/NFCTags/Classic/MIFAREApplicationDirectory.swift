import NFCTransport

/// A MIFARE application identifier: function cluster code and application code (NXP AN10787
/// "MIFARE Application Directory (MAD)" §3). The MAD stores it least significant byte first:
/// the application code, then the function cluster code.
public struct MIFAREApplicationID: Hashable, Sendable, CustomStringConvertible {
  /// The function cluster code (the AID's high byte).
  public var functionCluster: UInt8
  /// The application code (the AID's low byte).
  public var applicationCode: UInt8

  /// The AID with these two codes.
  public init(functionCluster: UInt8, applicationCode: UInt8) {
    self.functionCluster = functionCluster
    self.applicationCode = applicationCode
  }

  /// From the two bytes as the MAD stores them (application code first).
  public init(stored bytes: (UInt8, UInt8)) { self.init(functionCluster: bytes.1, applicationCode: bytes.0) }

  /// The two bytes as the MAD stores them.
  public var stored: [UInt8] { [applicationCode, functionCluster] }

  /// A free sector (AN10787 §3, "Administration codes": 0000h "sector is free").
  public static let free = MIFAREApplicationID(functionCluster: 0x00, applicationCode: 0x00)
  /// A sector that does not exist on this card (AN10787 §3, "Administration codes": 0005h
  /// "sector not applicable (above memory size)").
  public static let notApplicable = MIFAREApplicationID(functionCluster: 0x00, applicationCode: 0x05)
  /// The NFC Forum's NDEF application, stored `03 E1` (AN1304 "NFC Type MIFARE Classic Tag
  /// Operation", the "NFC AID").
  public static let ndef = MIFAREApplicationID(functionCluster: 0xE1, applicationCode: 0x03)

  /// The stored bytes in hex ("03E1" for NDEF), as the application notes write AIDs.
  public var description: String { hexString(stored) }
}

/// The MIFARE Application Directory: which application owns each sector. NXP AN10787 §3.
///
/// MAD1 sits in sector 0, blocks 1 and 2: CRC, info byte, then the AIDs of sectors
/// 1–15 (AN10787 Table 9, "Schematic of sector 0"). MAD2 (on cards with more than 16 sectors)
/// adds sector 16, blocks 0–2: CRC, info byte, then the AIDs of sectors 17–39 (Table 10). Sector 0's General Purpose Byte says whether there is a
/// MAD and which version (bit 7 DA, bit 6 MA, bits 1–0 ADV).
public struct MIFAREApplicationDirectory: Hashable, Sendable {
  /// MAD1 (sector 0) or MAD2 (sectors 0 and 16).
  public enum Version: Int, Hashable, Sendable { case mad1 = 1, mad2 = 2 }

  /// MAD1 or MAD2, as sector 0's GPB says.
  public var version: Version
  /// The info byte of sector 0: bits 5–0 point to the card publisher sector (AN10787 §3,
  /// "Pointer to card publisher sector").
  public var infoByte: UInt8
  /// The info byte of sector 16 (MAD2 only).
  public var infoByte2: UInt8
  /// The AID of each sector 0 up to the last the MAD covers (16 for MAD1, 40 for MAD2); nil for
  /// the MAD's own sectors (0, and 16 in MAD2).
  public var sectors: [MIFAREApplicationID?]

  /// The public key A of the MAD sectors (AN10787 §3, AN1304).
  public static let publicKeyA: [UInt8] = [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5]

  /// A MAD of `version` with every sector free.
  public init(version: Version, infoByte: UInt8 = 0x01, infoByte2: UInt8 = 0x01) {
    self.version = version
    self.infoByte = infoByte
    self.infoByte2 = infoByte2
    let count = version == .mad1 ? 16 : 40
    sectors = (0..<count).map { $0 == 0 || (version == .mad2 && $0 == 16) ? nil : .free }
  }

  /// The MAD for an NDEF card of `chip`: every sector but the MAD's holds the NDEF AID (MAD1 on
  /// the Mini and the 1K, MAD2 on the 4K: AN1304); sectors a Mini lacks are "not applicable".
  public static func ndef(for chip: MIFAREClassicChip) -> MIFAREApplicationDirectory {
    var mad = MIFAREApplicationDirectory(version: chip == .classic4K ? .mad2 : .mad1)
    for sector in mad.sectors.indices where mad.sectors[sector] != nil {
      mad.sectors[sector] = sector < chip.sectorCount ? .ndef : .notApplicable
    }
    return mad
  }

  /// The General Purpose Byte of sector 0's trailer: MAD available, multi-application card,
  /// and the version (`C1` or `C2`, AN10787 §3).
  public var generalPurposeByte: UInt8 { 0xC0 | UInt8(version.rawValue) }

  /// The sectors holding `aid`, ascending.
  public func sectors(holding aid: MIFAREApplicationID) -> [Int] {
    sectors.indices.filter { sectors[$0] == aid }
  }

  // MARK: - CRC (AN10787 §3, "CRC calculation", its example in Table 11)

  /// The MAD's CRC-8: polynomial x⁸ + x⁴ + x³ + x² + 1 (1Dh), preset E3h as the note states it,
  /// which a most-significant-bit-first register holds as C7h (its bits in the order the note's
  /// reference routine shifts them). Over the info byte, then the AIDs as stored.
  public static func crc8(_ bytes: some Sequence<UInt8>) -> UInt8 {
    var crc: UInt8 = 0xC7
    for byte in bytes {
      crc ^= byte
      for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x1D : crc << 1 }
    }
    return crc
  }

  // MARK: - Decoding

  /// Decodes the MAD from sector 0's GPB and data blocks 1–2, and for MAD2 sector 16's blocks 0–2.
  /// - Parameters:
  ///   - generalPurposeByte: byte 9 of sector 0's trailer.
  ///   - sector0: blocks 1 and 2 of sector 0 (32 bytes).
  ///   - sector16: blocks 0–2 of sector 16 (48 bytes); needed when the GPB says MAD2.
  /// - Throws: ``MIFAREClassicError/madAbsent(generalPurposeByte:)``,
  ///   ``MIFAREClassicError/madCRCMismatch(sector:stored:computed:)`` (a MAD whose CRC is wrong is
  ///   never used), ``MIFAREClassicError/madMalformed(_:)``.
  public static func decode(generalPurposeByte: UInt8, sector0: [UInt8],
                            sector16: [UInt8]? = nil) throws(MIFAREClassicError) -> MIFAREApplicationDirectory {
    guard generalPurposeByte & 0x80 != 0 else { throw .madAbsent(generalPurposeByte: generalPurposeByte) }
    let version: Version
    switch generalPurposeByte & 0x03 {
    case 1: version = .mad1
    case 2: version = .mad2
    default: throw .madMalformed("GPB \(hexString([generalPurposeByte])) names MAD version \(generalPurposeByte & 0x03)")
    }
    guard sector0.count == 32 else { throw .madMalformed("sector 0 gave \(sector0.count) bytes, not 32") }
    try checkCRC(sector0, sector: 0)
    var mad = MIFAREApplicationDirectory(version: version, infoByte: sector0[1])
    for i in 0..<15 { mad.sectors[1 + i] = MIFAREApplicationID(stored: (sector0[2 + 2 * i], sector0[3 + 2 * i])) }
    guard version == .mad2 else { return mad }
    guard let sector16 else { throw .madMalformed("MAD2 without sector 16") }
    guard sector16.count == 48 else { throw .madMalformed("sector 16 gave \(sector16.count) bytes, not 48") }
    try checkCRC(sector16, sector: 16)
    mad.infoByte2 = sector16[1]
    for i in 0..<23 { mad.sectors[17 + i] = MIFAREApplicationID(stored: (sector16[2 + 2 * i], sector16[3 + 2 * i])) }
    return mad
  }

  private static func checkCRC(_ bytes: [UInt8], sector: Int) throws(MIFAREClassicError) {
    guard let stored = bytes.first else { throw .madMalformed("sector \(sector) is empty") }
    let computed = crc8(bytes.dropFirst())
    guard stored == computed else { throw .madCRCMismatch(sector: sector, stored: stored, computed: computed) }
  }

  // MARK: - Encoding

  /// Blocks 1 and 2 of sector 0 (32 bytes): CRC, info byte, the AIDs of sectors 1–15.
  public var sector0Blocks: [UInt8] { Self.withCRC([infoByte] + aids(1..<16)) }

  /// Blocks 0–2 of sector 16 (48 bytes), MAD2 only: CRC, info byte, the AIDs of sectors 17–39.
  public var sector16Blocks: [UInt8]? {
    version == .mad2 ? Self.withCRC([infoByte2] + aids(17..<40)) : nil
  }

  private func aids(_ range: Range<Int>) -> [UInt8] {
    range.flatMap { i -> [UInt8] in
      guard i < sectors.count, let aid = sectors[i] else { return MIFAREApplicationID.free.stored }
      return aid.stored
    }
  }

  private static func withCRC(_ body: [UInt8]) -> [UInt8] { [crc8(body)] + body }
}
