/// One access condition: the nibble a file's access rights and SDM access rights hold for each
/// right (NT4H2421Gx datasheet §8.2.3.3, "Access rights", and §9.3 for SDM).
public enum AccessCondition: Hashable, Sendable, CustomStringConvertible {
  /// Granted after authentication with key 0–4 (0h–4h).
  case key(UInt8)
  /// Granted without authentication (Eh, "free access").
  case free
  /// Never granted (Fh, "no access").
  case never
  /// 5h–Dh, reserved for future use: kept as read so a setting round-trips.
  case reserved(UInt8)

  /// The condition a nibble codes (only its low 4 bits are read).
  public init(nibble: UInt8) {
    switch nibble & 0x0F {
    case 0...4: self = .key(nibble & 0x0F)
    case 0x0E: self = .free
    case 0x0F: self = .never
    default: self = .reserved(nibble & 0x0F)
    }
  }

  /// The nibble, 0h–Fh.
  public var nibble: UInt8 {
    switch self {
    case .key(let number): return number & 0x0F
    case .free: return 0x0E
    case .never: return 0x0F
    case .reserved(let value): return value & 0x0F
    }
  }

  /// "key 2", "free", "never", "reserved 7h".
  public var description: String {
    switch self {
    case .key(let number): return "key \(number)"
    case .free: return "free"
    case .never: return "never"
    case .reserved(let value): return "reserved \(String(value, radix: 16, uppercase: true))h"
    }
  }

  /// Throws unless the condition can be sent: a key 0–4, free or never.
  package func checked(_ role: String) throws(NTAG424Error) -> AccessCondition {
    switch self {
    case .key(let number) where number > 4: throw .invalidParameter("\(role): key \(number) is not 0–4")
    case .reserved: throw .invalidParameter("\(role): \(self) is reserved for future use")
    default: return self
    }
  }
}

/// A file's four access rights, two bytes as sent: `RW<<4 | Change`, then `Read<<4 | Write`
/// (NT4H2421Gx datasheet §8.2.3.3; NXP AN12196 §5.9 sends `00 E0`: read free, the rest key 0).
public struct AccessRights: Hashable, Sendable {
  /// Read&Write: grants both.
  public var readWrite: AccessCondition
  /// Change: ChangeFileSettings.
  public var change: AccessCondition
  /// Read: ReadData and ISOReadBinary.
  public var read: AccessCondition
  /// Write: WriteData and ISOUpdateBinary.
  public var write: AccessCondition

  /// Access rights from each condition.
  public init(read: AccessCondition, write: AccessCondition, readWrite: AccessCondition, change: AccessCondition) {
    self.read = read
    self.write = write
    self.readWrite = readWrite
    self.change = change
  }

  /// Access rights from their two bytes as sent.
  public init(bytes first: UInt8, _ second: UInt8) {
    readWrite = AccessCondition(nibble: first >> 4)
    change = AccessCondition(nibble: first)
    read = AccessCondition(nibble: second >> 4)
    write = AccessCondition(nibble: second)
  }

  /// The two bytes as sent.
  public var bytes: [UInt8] {
    [readWrite.nibble << 4 | change.nibble, read.nibble << 4 | write.nibble]
  }

  /// The communication mode a command needs when it is granted by `condition`: Plain for free
  /// access, the file's own mode otherwise (NT4H2421Gx datasheet §8.2.3.3).
  static func mode(for condition: AccessCondition, file: CommunicationMode) -> CommunicationMode {
    condition == .free ? .plain : file
  }
}

/// The SDM access rights of a file, two bytes as sent: `RFU(Fh)<<4 | SDMCtrRet`, then
/// `SDMMetaRead<<4 | SDMFileRead` (NT4H2421Gx datasheet §10.7.1,; AN12196 §5.9 sends `F1 21`).
public struct SDMAccessRights: Hashable, Sendable {
  /// SDMMetaRead: Eh mirrors UID and counter in plain; a key 0–4 encrypts them into PICCData
  /// with that key; Fh mirrors nothing.
  public var metaRead: AccessCondition
  /// SDMFileRead: the key of the SDM session keys (SDMMAC, SDMENCFileData); Fh: no SDMMAC.
  public var fileRead: AccessCondition
  /// SDMCtrRet: who may read the counter with GetFileCounters.
  public var counterRetrieval: AccessCondition

  /// SDM access rights from each condition.
  public init(metaRead: AccessCondition, fileRead: AccessCondition, counterRetrieval: AccessCondition) {
    self.metaRead = metaRead
    self.fileRead = fileRead
    self.counterRetrieval = counterRetrieval
  }

  /// SDM access rights from their two bytes as sent (the RFU nibble is not kept).
  public init(bytes first: UInt8, _ second: UInt8) {
    counterRetrieval = AccessCondition(nibble: first)
    metaRead = AccessCondition(nibble: second >> 4)
    fileRead = AccessCondition(nibble: second)
  }

  /// The two bytes as sent, the RFU nibble Fh.
  public var bytes: [UInt8] {
    [0xF0 | counterRetrieval.nibble, metaRead.nibble << 4 | fileRead.nibble]
  }
}
