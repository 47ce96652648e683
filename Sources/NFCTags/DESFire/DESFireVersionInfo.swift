import NFCTransport

/// What GetVersion (60h) tells of a MIFARE DESFire: three frames of 7, 7 and 14 bytes (NXP
/// MF3ICDx21_41_81, MIFARE DESFire EV1 data sheet, §9, GetVersion): the hardware's vendor, type,
/// subtype, major and minor version, storage size and protocol; the same for the software; then
/// the UID (7 bytes), the batch number (5), the production week and year. Later generations may
/// add bytes after those 28; they are ignored.
///
/// Tag data is hostile: every field is read through a bounds check, and a short answer is refused.
public struct DESFireVersionInfo: Hashable, Sendable {
  /// One of the two 7-byte version frames.
  public struct Part: Hashable, Sendable {
    /// Vendor (04h: NXP).
    public var vendor: UInt8
    /// Type (01h: MIFARE DESFire; 08h: DESFire Light; 04h: NTAG 4xx).
    public var type: UInt8
    /// Subtype.
    public var subType: UInt8
    /// Major version.
    public var majorVersion: UInt8
    /// Minor version.
    public var minorVersion: UInt8
    /// Storage size byte: 2^(n >> 1) bytes, "more than" that when bit 0 is set.
    public var storageSize: UInt8
    /// Protocol (05h: ISO/IEC 14443-2 and -3).
    public var protocolType: UInt8
  }

  /// The DESFire generations, as the hardware major version tells them (what Proxmark3's
  /// `hf mfdes info` and NXP TagInfo go by: the software major of real cards is 01h on an EV1 but
  /// 02h on an EV2 and 03h on an EV3, docs/desfire.md).
  public enum Generation: Hashable, Sendable, CustomStringConvertible {
    /// The first DESFire, MF3ICD40 (hardware major 0).
    case original
    /// EV1 (hardware major 01h).
    case ev1
    /// EV2 (hardware major 1xh or 2xh: 12h, and 22h for EV2 XL).
    case ev2
    /// EV3 (hardware major 3xh: 33h).
    case ev3
    /// A major version no generation above has.
    case unknown(UInt8)

    /// Its generation from the hardware major version.
    public init(hardwareMajor major: UInt8) {
      switch major {
      case 0x00: self = .original
      case 0x01: self = .ev1
      case 0x10...0x2F: self = .ev2
      case 0x30...0x3F: self = .ev3
      default: self = .unknown(major)
      }
    }

    /// "EV1", "EV2", "EV3"; empty for the first DESFire.
    public var description: String {
      switch self {
      case .original: return ""
      case .ev1: return "EV1"
      case .ev2: return "EV2"
      case .ev3: return "EV3"
      case .unknown(let major): return "(hardware \(hexString([major])))"
      }
    }
  }

  /// The hardware frame.
  public var hardware: Part
  /// The software frame.
  public var software: Part
  /// The UID as GetVersion gives it (zeros on a card that shows a random ID).
  public var uid: [UInt8]
  /// The batch number.
  public var batchNumber: [UInt8]
  /// Production week and year as the card gives them (BCD).
  public var productionWeek: UInt8, productionYear: UInt8

  /// Parses the three frames' data, joined.
  /// - Throws: ``DESFireCommandError/malformed(_:command:)`` for fewer than 28 bytes.
  public init(parsing data: [UInt8]) throws(DESFireCommandError) {
    guard data.count >= 28 else {
      throw .malformed("GetVersion gave \(data.count) bytes, not 28", command: "GetVersion")
    }
    func part(_ start: Int) -> Part {
      let b = Array(data[start..<(start + 7)])
      return Part(vendor: b[0], type: b[1], subType: b[2], majorVersion: b[3], minorVersion: b[4],
                  storageSize: b[5], protocolType: b[6])
    }
    hardware = part(0)
    software = part(7)
    uid = Array(data[14..<21])
    batchNumber = Array(data[21..<26])
    productionWeek = data[26]
    productionYear = data[27]
  }

  /// True for NXP's MIFARE DESFire (vendor 04h, type 01h; 81h in some dual-interface forms) and
  /// the MIFARE DESFire Light (``isLight``).
  public var isDESFire: Bool { hardware.vendor == 0x04 && (hardware.type & 0x7F == 0x01 || isLight) }

  /// True for the MIFARE DESFire Light (MF2DL(H)x0): vendor 04h, hardware type 08h, as Proxmark3's
  /// `hf mfdes info` tells one (client/src/cmdhfmfdes.c, citing NXP AN12343: type 08h "DESFire
  /// Light native IC", version 30h.00h). Its one application is selected by ISO SELECT
  /// (``DESFireCard/selectApplication(_:)``); its hardware major 30h reads as ``Generation/ev3``,
  /// which only says that it speaks EV2 secure messaging.
  public var isLight: Bool { hardware.vendor == 0x04 && hardware.type == 0x08 }

  /// The generation, from the hardware major version.
  public var generation: Generation { Generation(hardwareMajor: hardware.majorVersion) }

  /// The storage size in bytes (2^(n >> 1)), nil for a byte past 2^30.
  public var storageBytes: Int? {
    let exponent = Int(hardware.storageSize >> 1)
    return exponent <= 30 ? 1 << exponent : nil
  }

  /// "2K", "4K", "8K", "256 bytes"; "more than 4K" when bit 0 of the size byte is set.
  public var storageText: String {
    guard let bytes = storageBytes else { return "storage \(hexString([hardware.storageSize]))h" }
    let size = bytes >= 1024 ? "\(bytes / 1024)K" : "\(bytes) bytes"
    return hardware.storageSize & 1 == 1 ? "more than \(size)" : size
  }

  /// "MIFARE DESFire EV1 4K", "MIFARE DESFire Light"; other NXP types by their number.
  public var productName: String {
    guard isDESFire else {
      return "NXP chip of type \(hexString([hardware.type]))h (vendor \(hexString([hardware.vendor]))h)"
    }
    if isLight { return "MIFARE DESFire Light" }
    let generationText = generation.description
    return "MIFARE DESFire" + (generationText.isEmpty ? "" : " \(generationText)") + " \(storageText)"
  }
}

/// The DESFire key types as the key settings and CreateApplication name them (bits 7-6 of the key
/// count byte: 00 DES and 2K3DES, 01 3K3DES, 10 AES; MF3ICDx21_41_81 §9, CreateApplication).
public enum DESFireKeyAlgorithm: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  /// DES or 2K3DES (16 bytes).
  case des = 0x00
  /// 3K3DES (24 bytes).
  case tripleDES3K = 0x40
  /// AES-128.
  case aes = 0x80

  public var description: String {
    switch self {
    case .des: return "DES/2K3DES"
    case .tripleDES3K: return "3K3DES"
    case .aes: return "AES"
    }
  }
}

/// GetKeySettings' answer (45h): the key settings byte and the key count with the key type.
public struct DESFireKeySettingsInfo: Hashable, Sendable {
  /// The key settings (KS1): bit 0 the master key may change, bit 1 the directory lists are free,
  /// bit 2 create and delete are free, bit 3 the settings may change, bits 7-4 (in an
  /// application) which key may change the others.
  public var settings: UInt8
  /// How many keys (1 at the PICC level).
  public var keyCount: Int
  /// Their type, nil for the reserved 11b.
  public var keyType: DESFireKeyAlgorithm?

  /// Parses the two bytes.
  /// - Throws: ``DESFireCommandError/malformed(_:command:)`` for another length.
  public init(parsing data: [UInt8]) throws(DESFireCommandError) {
    guard data.count == 2, let first = data.first, let second = data.last else {
      throw .malformed("GetKeySettings gave \(data.count) bytes, not 2", command: "GetKeySettings")
    }
    settings = first
    keyCount = Int(second & 0x0F)
    keyType = DESFireKeyAlgorithm(rawValue: second & 0xC0)
  }

  /// Whether the master key may change (bit 0).
  public var masterKeyChangeable: Bool { settings & 0x01 != 0 }
  /// Whether GetApplicationIDs, GetFileIDs and the settings need no authentication (bit 1).
  public var freeDirectoryList: Bool { settings & 0x02 != 0 }
  /// Whether creating (and deleting) needs no authentication with the master key (bit 2).
  public var freeCreateDelete: Bool { settings & 0x04 != 0 }
  /// Whether the key settings may change (bit 3).
  public var settingsChangeable: Bool { settings & 0x08 != 0 }
}
