/// The state of a virtual MIFARE DESFire EV1: its applications, their keys and files.
///
/// Sources (primary): NXP MF3ICDx21_41_81 "MIFARE DESFire EV1 contactless multi-application IC"
/// product short data sheet (Rev. 3.1: §2.4 "NV-memory organization", up to 28 applications of up
/// to 32 files; §2.5 "Security", the key types; §8 "Functional description", the file types; §9.3-
/// 9.6, the command set), NXP AN11004 "MIFARE DESFire as Type 4 Tag" (the NDEF application), and
/// NXP's MIFARE support forum on the EV1 limits (`91 CE` for the 29th application, a 64-byte
/// frame). NXP's full data sheet, with the bytes of each command, is not public: where the short
/// one is silent, the behaviour is what real cards answer (NXP TagInfo's reports and recorded
/// exchanges, named at the place they are used).

/// A native DESFire status (the second status byte of a wrapped answer, `91 xx`; the first byte
/// of a native answer). Names and meanings as in the EV1 data sheet's status table.
public enum DESFireStatus: UInt8, Error, Sendable, CaseIterable {
  /// Success.
  case operationOK = 0x00
  /// No changes to commit or abort.
  case noChanges = 0x0C
  /// Not enough non-volatile memory for the command.
  case outOfEEPROM = 0x0E
  /// The command code is not supported (or an additional frame that nobody expects).
  case illegalCommand = 0x1C
  /// CRC or MAC does not match, or the padding bytes are invalid.
  case integrityError = 0x1E
  /// Invalid key number.
  case noSuchKey = 0x40
  /// The length of the command string is invalid.
  case lengthError = 0x7E
  /// The current configuration or status does not allow the command.
  case permissionDenied = 0x9D
  /// A parameter's value is invalid.
  case parameterError = 0x9E
  /// The AID is not on the card.
  case applicationNotFound = 0xA0
  /// The current authentication status does not allow the command.
  case authenticationError = 0xAE
  /// More frames: the answer goes on, or the card waits for the rest of the command.
  case additionalFrame = 0xAF
  /// Reading or writing beyond the file's limits.
  case boundaryError = 0xBE
  /// The previous command was not completed (not all its frames were asked for or sent).
  case commandAborted = 0xCA
  /// EV1: the card holds 28 applications already.
  case countError = 0xCE
  /// An application or a file of that number or name exists already.
  case duplicateError = 0xDE
  /// No file of that number.
  case fileNotFound = 0xF0
  /// Not in the EV1 data sheet's table: what a MIFARE DESFire EV2 answers to SelectApplication
  /// after its random-FCI answer to an ISO SELECT of the missing NDEF application
  /// (https://github.com/revtel/react-native-nfc-manager/issues/815; ``DESFireChip/answersRandomFCIForMissingNDEFApplication``).
  case ev2SelectionFault = 0x1B
}

/// A DESFire chip: what GetVersion says and how much memory the applications can have.
///
/// EV2 and EV3 are modelled as an EV1 with their own GetVersion bytes (their own commands, secure
/// messaging and file types are not modelled); the EV2 adds its random-FCI fault
/// (``answersRandomFCIForMissingNDEFApplication``).
public struct DESFireChip: Hashable, Sendable {
  /// "MIFARE DESFire EV1 4K".
  public let productName: String
  /// GetVersion's first frame: vendor, type, subtype, major, minor, storage size, protocol.
  public let hardwareVersion: [UInt8]
  /// GetVersion's second frame, the same seven fields for the software.
  public let softwareVersion: [UInt8]
  /// The user memory in bytes, GetFreeMemory's answer on a factory card.
  public let memorySize: Int
  /// Whether an ISO SELECT of the NDEF application's DF name (D2760000850101) on a card without
  /// that application answers a random FCI (`6F …`, `90 00`) instead of `6A 82`, after which
  /// SelectApplication answers `91 1B` until the PICC level is selected again by ISO SELECT or
  /// the field is reset: the MIFARE DESFire EV2's behaviour (https://github.com/revtel/react-native-nfc-manager/issues/815;
  /// EV1 and EV3 answer `6A 82`). What ends the fault is this model's choice: the report
  /// names only a new connection and creating the NDEF application (docs/desfire.md).
  public let answersRandomFCIForMissingNDEFApplication: Bool

  /// MF3ICD21 (EV1 2K): HW 1.0, SW 1.4, storage byte 16h (2^11 bytes).
  public static let ev1With2K = ev1(size: 0x16, name: "2K")
  /// MF3ICD41 (EV1 4K): storage byte 18h (2^12 bytes).
  public static let ev1With4K = ev1(size: 0x18, name: "4K")
  /// MF3ICD81 (EV1 8K): storage byte 1Ah (2^13 bytes).
  public static let ev1With8K = ev1(size: 0x1A, name: "8K")
  /// MF3D22 (EV2 2K): HW 12h.00h, SW 02h.01h, storage byte 16h.
  public static let ev2With2K = ev2(size: 0x16, name: "2K")
  /// MF3D42 (EV2 4K): storage byte 18h.
  public static let ev2With4K = ev2(size: 0x18, name: "4K")
  /// MF3D82 (EV2 8K): storage byte 1Ah.
  public static let ev2With8K = ev2(size: 0x1A, name: "8K")
  /// MF3D23 (EV3 2K): HW 33h.00h, SW 03h.00h, storage byte 16h.
  public static let ev3With2K = ev3(size: 0x16, name: "2K")
  /// MF3D43 (EV3 4K): storage byte 18h.
  public static let ev3With4K = ev3(size: 0x18, name: "4K")
  /// MF3D83 (EV3 8K): storage byte 1Ah.
  public static let ev3With8K = ev3(size: 0x1A, name: "8K")

  /// MF2DL(H)x0 (MIFARE DESFire Light): its fixed files and one application
  /// (DESFireVirtualTag+Light.swift). HW type 08h subtype 01h version 30h.00h, as Proxmark3's
  /// `hf mfdes info` names a Light (client/src/cmdhfmfdes.c: type 08h with major 30h minor 00h)
  /// and https://github.com/nfcim/nfsee/issues/41 reports one ("between 512 and 1024" bytes). The storage byte 13h is
  /// that size in GetVersion's encoding, inferred, not seen; the software frame repeats the
  /// hardware's version, unconfirmed (no source shows a Light's). GetFreeMemory is not a Light
  /// command: the size counts nothing here.
  public static let light = DESFireChip(productName: "MIFARE DESFire Light",
                                        hardwareVersion: [0x04, 0x08, 0x01, 0x30, 0x00, 0x13, 0x05],
                                        softwareVersion: [0x04, 0x08, 0x01, 0x30, 0x00, 0x13, 0x05],
                                        memorySize: 1 << 9, answersRandomFCIForMissingNDEFApplication: false)

  /// Whether this is the MIFARE DESFire Light (GetVersion's hardware type 08h): ISO/IEC 7816-4
  /// and wrapped commands only, no application management (DESFireVirtualTag+Light.swift).
  public var isLight: Bool { hardwareVersion.count > 1 && hardwareVersion[1] == 0x08 }

  /// GetVersion (data sheet §9.4, "returns manufacturing related data") as an EV1 answers it:
  /// vendor 04h NXP, type 01h MIFARE DESFire, subtype 01h, HW version 1.0, SW version 1.4,
  /// storage size byte n for 2^(n/2) bytes, protocol 05h; the values NXP TagInfo reads from an
  /// MF3ICD81 and an MF3ICDH41 ("Type/subtype: 0x01/0x01, Version: 1.0 … 1.4, Storage size: 8192
  /// bytes", 4096 bytes).
  private static func ev1(size: UInt8, name: String) -> DESFireChip {
    chip("EV1", name, size: size, hardware: (0x01, 0x00), software: (0x01, 0x04), randomFCI: false)
  }

  /// GetVersion as an EV2 answers it: HW major 12h minor 00h, SW 02h.01h, as real cards answer it
  /// (NXP's MF3D(H)x2 data sheet was not at hand): a real EV2 8K in Flipper Zero's NFC file format
  /// documentation, `04 01 01 12 00 1A 05 04 01 01 02 01 1A 05`, and a real EV2 4K in
  /// https://github.com/RfidResearchGroup/proxmark3/issues/583, "Version 18.0 (Desfire EV2)", software 2.1.
  private static func ev2(size: UInt8, name: String) -> DESFireChip {
    chip("EV2", name, size: size, hardware: (0x12, 0x00), software: (0x02, 0x01), randomFCI: true)
  }

  /// GetVersion as an EV3 answers it: HW 33h.00h, SW 03h.00h, as real cards answer it (NXP's
  /// MF3D(H)x3 data sheet was not at hand): a real EV3 4K, `04 01 01 33 00 18 05`,
  /// `04 01 01 03 00 18 05`, in the captured exchanges of paultag's Rust `desfire` crate's tests,
  /// and a real EV3 2K's hardware frame, `04 01 01 33 00 16 05`, in
  /// flipperdevices/flipperzero-firmware pull request 4439.
  private static func ev3(size: UInt8, name: String) -> DESFireChip {
    chip("EV3", name, size: size, hardware: (0x33, 0x00), software: (0x03, 0x00), randomFCI: false)
  }

  private static func chip(_ generation: String, _ name: String, size: UInt8, hardware: (UInt8, UInt8),
                           software: (UInt8, UInt8), randomFCI: Bool) -> DESFireChip {
    DESFireChip(productName: "MIFARE DESFire \(generation) \(name)",
                hardwareVersion: [0x04, 0x01, 0x01, hardware.0, hardware.1, size, 0x05],
                softwareVersion: [0x04, 0x01, 0x01, software.0, software.1, size, 0x05],
                memorySize: 1 << Int(size >> 1), answersRandomFCIForMissingNDEFApplication: randomFCI)
  }
}

/// The cipher of a DESFire key (data sheet §2.5: DES, 3DES, 3K3DES, AES), as CreateApplication's
/// KS2 bits 7-6 name it.
public enum DESFireKeyType: UInt8, Sendable, CaseIterable {
  /// DES or 2K3DES (16 bytes; two equal halves act as single DES).
  case des = 0x00
  /// 3K3DES (24 bytes).
  case tripleDES3K = 0x40
  /// AES-128 (16 bytes).
  case aes = 0x80

  /// The key's length in bytes as the card keeps it.
  public var keyLength: Int { self == .tripleDES3K ? 24 : 16 }
}

/// One key slot: its cipher, value and version.
///
/// The value is kept so that the authentication layer can use it and an image can keep it; the
/// description never shows it (keys in images are test material, never production keys).
public struct DESFireKey: Hashable, Sendable, CustomStringConvertible {
  /// The cipher.
  public var type: DESFireKeyType
  /// The key bytes (``DESFireKeyType/keyLength``).
  public var value: [UInt8]
  /// The key version (GetKeyVersion).
  public var version: UInt8

  /// A key of `type` with the bytes `value` (``DESFireKeyType/keyLength`` of them) and `version`.
  public init(type: DESFireKeyType, value: [UInt8], version: UInt8) {
    self.type = type
    self.value = value
    self.version = version
  }

  /// A key of `type` whose bytes are all zero, version 0: the factory key.
  public static func zero(_ type: DESFireKeyType) -> DESFireKey {
    DESFireKey(type: type, value: [UInt8](repeating: 0, count: type.keyLength), version: 0)
  }

  /// The type and version, never the bytes.
  public var description: String { "DESFireKey(\(type), version \(version))" }
}

/// The communication setting of a file (the option byte's bits 1-0; 10b acts as plain).
public enum DESFireCommunicationMode: UInt8, Sendable {
  /// Plain.
  case plain = 0x00
  /// Plain data with a MAC.
  case mac = 0x01
  /// Enciphered.
  case full = 0x03

  /// The mode of an option byte; nil when bits other than 1-0 are set (not EV1's).
  init?(optionByte: UInt8) {
    guard optionByte & 0xFC == 0 else { return nil }
    self = optionByte & 0x03 == 0x03 ? .full : optionByte & 0x03 == 0x01 ? .mac : .plain
  }
}

/// A file's access rights: four key numbers (0-D a key, E free, F never), sent as two bytes,
/// least significant first, of the word `read << 12 | write << 8 | readWrite << 4 | change`.
public struct DESFireAccessRights: Hashable, Sendable {
  /// The 16-bit word.
  public var word: UInt16
  /// From the word.
  public init(word: UInt16) { self.word = word }
  /// From the two bytes as sent (least significant first).
  public init(bytes low: UInt8, _ high: UInt8) { word = UInt16(high) << 8 | UInt16(low) }
  /// The two bytes as sent.
  public var bytes: [UInt8] { [UInt8(word & 0xFF), UInt8(word >> 8)] }
  /// The read key.
  public var read: UInt8 { UInt8(word >> 12) }
  /// The write key.
  public var write: UInt8 { UInt8(word >> 8 & 0x0F) }
  /// The read-and-write key.
  public var readWrite: UInt8 { UInt8(word >> 4 & 0x0F) }
  /// The key that changes the settings.
  public var change: UInt8 { UInt8(word & 0x0F) }
  /// The access nibble that means "free".
  public static let free: UInt8 = 0x0E
  /// The access nibble that means "never".
  public static let never: UInt8 = 0x0F
}

/// A file of an application: a standard or backup data file, a value file, or a linear or cyclic
/// record file (``DESFireFileKind``).
public struct DESFireFile: Hashable, Sendable {
  /// The file number, 00h-1Fh.
  public var number: UInt8
  /// The ISO/IEC 7816-4 file identifier, when the application has them.
  public var isoFileID: UInt16?
  /// The communication setting.
  public var communication: DESFireCommunicationMode
  /// The access rights.
  public var access: DESFireAccessRights
  /// The file's bytes (a standard or backup data file: its size is `data.count`, a backup file's
  /// committed bytes); empty for value and record files.
  public var data: [UInt8]
  /// What kind of file it is, with a value or record file's contents.
  public var kind: DESFireFileKind = .standard
  /// SDM on an EV3's standard data file (created with FileOption bit 6), nil without (DESFireVirtualTag+SDM.swift).
  package var sdm: DESFireFileSDM? = nil
  /// An EV2/EV3 Transaction MAC file's AppTransactionMACKey, from CreateTransactionMACFile; nil for
  /// every other file (DESFireVirtualTag+TransactionMACFile.swift).
  package var transactionMACKey: DESFireTransactionMACKey? = nil
}

/// An application: its AID, key settings, keys and files (or the PICC level, AID 000000).
public struct DESFireApplication: Hashable, Sendable {
  /// The AID as a number (sent least significant byte first).
  public var aid: UInt32
  /// Key settings 1 (data sheet §9.3, GetKeySettings/ChangeKeySettings: bits 7-4 the change-key key, bit 3 configuration
  /// changeable, bit 2 free create/delete, bit 1 free directory, bit 0 master key changeable).
  public var keySettings: UInt8
  /// The keys, key 0 the application master key.
  public var keys: [DESFireKey]
  /// The application's ISO file identifier, when it was created with them.
  public var isoFileID: UInt16?
  /// Whether the application's files take ISO file identifiers (KS2 bit 5).
  public var usesISOFileIDs: Bool
  /// The ISO DF name (1-16 bytes), when it has one.
  public var dfName: [UInt8]?
  /// The files by number.
  public var files: [UInt8: DESFireFile]

  /// The key type all keys of the application share.
  public var keyType: DESFireKeyType { keys.first?.type ?? .des }
}

extension DESFireApplication {
  /// The PICC level of a factory card: one DES key of zeros, key settings 0Fh (what NXP TagInfo
  /// reads from a new card: "Default PICC master key", "key configuration 0x0F01, 1 (3)DES key").
  static func factoryPICC() -> DESFireApplication {
    DESFireApplication(aid: 0, keySettings: 0x0F, keys: [.zero(.des)], isoFileID: nil, usesISOFileIDs: false,
                       dfName: nil, files: [:])
  }
}

/// Little-endian fields as DESFire sends them.
enum DESFireBytes {
  /// The 3-byte little-endian number at `at`; nil when `bytes` is too short.
  static func uint24(_ bytes: ArraySlice<UInt8>, at: Int) -> Int? {
    let start = bytes.startIndex + at
    guard at >= 0, start + 3 <= bytes.endIndex else { return nil }
    return Int(bytes[start]) | Int(bytes[start + 1]) << 8 | Int(bytes[start + 2]) << 16
  }

  /// `value` as 3 bytes, least significant first.
  static func uint24(_ value: Int) -> [UInt8] {
    [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)]
  }

  /// `value` as 2 bytes, least significant first.
  static func uint16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
}
