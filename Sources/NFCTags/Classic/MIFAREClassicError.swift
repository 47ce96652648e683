import NFCTransport

/// Why a MIFARE Classic structure (MAD, trailer, NDEF sectors) or operation failed.
///
/// The MAD and trailer cases come from data the card holds, so a message names the sector and the
/// bytes that were wrong, never a key.
public enum MIFAREClassicError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Access bits whose inverted copy does not match (MF1S50yyX §8.7.1): the bytes 6–8 read.
  case accessBitsInvalid([UInt8])
  /// Sector 0's GPB says no MAD is present (DA bit clear: AN10787 §3).
  case madAbsent(generalPurposeByte: UInt8)
  /// A MAD sector's CRC does not match its contents (AN10787 §3, Table 11): the MAD is not trusted.
  case madCRCMismatch(sector: Int, stored: UInt8, computed: UInt8)
  /// The MAD is structurally wrong for this card (a version it cannot have, a missing sector).
  case madMalformed(String)
  /// The MAD names no NDEF sector (AID 03E1: AN1304).
  case noNDEFSector
  /// Access bits that no key could ever change again were about to be written without a
  /// confirmation (the sector).
  case permanentAccessBits(sector: Int)
  /// None of the keys tried opened these sectors (numbers, ascending).
  case sectorsNotOpened([Int])
  /// The reader refused the authentication (`63 00`, or the PN532's error) for this sector:
  /// the key is wrong, or the key type is not allowed.
  case authenticationRefused(sector: Int, key: MIFAREClassicKeyType)

  public var description: String {
    switch self {
    case .accessBitsInvalid(let bytes):
      return "the access bits \(hexString(bytes)) are invalid (a bit and its inverted copy agree)"
    case .madAbsent(let gpb):
      return "sector 0 holds no MIFARE Application Directory (GPB \(hexString([gpb])))"
    case .madCRCMismatch(let sector, let stored, let computed):
      return "the MIFARE Application Directory in sector \(sector) has CRC \(hexString([stored])), "
        + "its contents give \(hexString([computed])): not trusted"
    case .madMalformed(let why): return "the MIFARE Application Directory is malformed: \(why)"
    case .noNDEFSector: return "the MIFARE Application Directory names no NDEF sector (AID 03E1)"
    case .permanentAccessBits(let sector):
      return "the access bits for sector \(sector) could never be changed again"
    case .sectorsNotOpened(let sectors):
      let list = sectors.map(String.init).joined(separator: ", ")
      return "no key opened sector\(sectors.count == 1 ? "" : "s") \(list)"
    case .authenticationRefused(let sector, let key):
      return "the reader refused key \(key == .a ? "A" : "B") for sector \(sector)"
    }
  }
}
