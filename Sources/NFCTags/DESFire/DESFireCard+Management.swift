import NFCTransport

/// A file's settings as GetFileSettings (F5h) answers them (MF3ICDx21_41_81 §9, GetFileSettings):
/// file type, communication settings, access rights, then what the type has (a data file's size,
/// a value file's limits, a record file's record size and counts).
public struct DESFireFileSettings: Hashable, Sendable {
  /// The file types (MF3ICDx21_41_81 §9, the FileType byte of GetFileSettings).
  public enum FileType: UInt8, Hashable, Sendable, CustomStringConvertible {
    case standardData = 0x00, backupData = 0x01, value = 0x02, linearRecord = 0x03, cyclicRecord = 0x04
    public var description: String {
      switch self {
      case .standardData: return "standard data"
      case .backupData: return "backup data"
      case .value: return "value"
      case .linearRecord: return "linear record"
      case .cyclicRecord: return "cyclic record"
      }
    }
  }

  /// The file type byte as the card gave it.
  public var fileTypeByte: UInt8
  /// The file type, nil for a byte no data sheet names.
  public var fileType: FileType? { FileType(rawValue: fileTypeByte) }
  /// The communication settings byte (bits 1-0: 00 plain, 01 MACed, 11 fully enciphered).
  public var communicationByte: UInt8
  /// The communication mode, nil for 10b (reserved).
  public var communication: DESFireFileCommunication? { DESFireFileCommunication(rawValue: communicationByte & 0x03) }
  /// The access rights.
  public var access: DESFireFileAccess
  /// A standard or backup data file's size in bytes; nil for other types.
  public var size: Int?
  /// A value file's lower and upper limits and limited credit value; nil for other types.
  public var valueLimits: (lower: Int32, upper: Int32, limitedCredit: Int32, limitedCreditEnabled: Bool)? {
    guard fileType == .value, rest.count >= 13 else { return nil }
    func int32(_ at: Int) -> Int32 { Int32(bitPattern: UInt32(truncatingIfNeeded: DESFireCard.littleEndian(Array(rest[at..<(at + 4)])))) }
    return (int32(0), int32(4), int32(8), rest[12] & 0x01 != 0)
  }
  /// A record file's record size, maximum and current number of records; nil for other types.
  public var records: (size: Int, maximum: Int, current: Int)? {
    guard fileType == .linearRecord || fileType == .cyclicRecord, rest.count >= 9 else { return nil }
    return (DESFireCard.littleEndian(Array(rest[0..<3])), DESFireCard.littleEndian(Array(rest[3..<6])),
            DESFireCard.littleEndian(Array(rest[6..<9])))
  }
  /// The bytes after the access rights, as the card gave them.
  public var rest: [UInt8]

  /// Parses GetFileSettings' answer (at least type, communication and access rights; a data file
  /// 3 more bytes, a value file 13, a record file 9).
  /// - Throws: ``DESFireCommandError/malformed(_:command:)`` for an answer too short for its type.
  public init(parsing data: [UInt8], command: String = "GetFileSettings") throws(DESFireCommandError) {
    guard data.count >= 4 else { throw .malformed("\(data.count) bytes, not a file's settings", command: command) }
    fileTypeByte = data[0]
    communicationByte = data[1]
    access = DESFireFileAccess(read: data[3] >> 4, write: data[3] & 0x0F, readWrite: data[2] >> 4, change: data[2] & 0x0F)
    rest = Array(data[4...])
    let needed: Int
    switch FileType(rawValue: fileTypeByte) {
    case .standardData?, .backupData?: needed = 3
    case .value?: needed = 13
    case .linearRecord?, .cyclicRecord?: needed = 9
    case nil: needed = 0
    }
    guard rest.count >= needed else {
      throw .malformed("\(data.count) bytes, too few for a \(FileType(rawValue: fileTypeByte)?.description ?? "") file's settings", command: command)
    }
    size = needed == 3 ? DESFireCard.littleEndian(Array(rest[0..<3])) : nil
  }
}

extension DESFireFileAccess {
  /// One right as people read it: "key 3", "free" (Eh), "never" (Fh).
  public static func rightText(_ nibble: UInt8) -> String {
    switch nibble & 0x0F {
    case 0x0E: return "free"
    case 0x0F: return "never"
    case let key: return "key \(key)"
    }
  }
}

/// The host's MIFARE DESFire management commands beside ``DESFireCard``'s: deleting applications
/// and files, formatting the card, file settings and key versions (MF3ICDx21_41_81 §9). Each is a
/// native command in ISO 7816-4 wrapping, through ``DESFireCard/send(_:_:name:)`` (so an
/// authentication's secure messaging checks its answer).
extension DESFireCard {
  /// DeleteApplication (DAh): deletes application `aid` and its files, for good; needs the PICC
  /// master key's authentication (or the application master key's, the application selected).
  public func deleteApplication(_ aid: DESFireApplicationID) throws(DESFireCommandError) {
    guard aid != .picc else { throw .invalidArgument("AID 000000 is the PICC level, not an application") }
    let name = "DeleteApplication \(aid)"
    try expectNothing(try send(0xDA, aid.wireBytes, name: name), name)
  }

  /// FormatPICC (FCh): deletes every application and file, the PICC master key and its settings
  /// staying; needs the PICC master key's authentication, the PICC level selected.
  public func formatPICC() throws(DESFireCommandError) {
    try expectNothing(try send(0xFC, name: "FormatPICC"), "FormatPICC")
  }

  /// DeleteFile (DFh): file `number` (0-31) of the selected application.
  public func deleteFile(_ number: UInt8) throws(DESFireCommandError) {
    guard number <= 0x1F else { throw .invalidArgument("a file number is 0 to 31, not \(number)") }
    let name = "DeleteFile \(hexString([number]))"
    try expectNothing(try send(0xDF, [number], name: name), name)
  }

  /// GetFileSettings (F5h) of file `number`, parsed.
  public func fileSettings(_ number: UInt8) throws(DESFireCommandError) -> DESFireFileSettings {
    guard number <= 0x1F else { throw .invalidArgument("a file number is 0 to 31, not \(number)") }
    let name = "GetFileSettings \(hexString([number]))"
    return try DESFireFileSettings(parsing: try send(0xF5, [number], name: name), command: name)
  }

  /// GetKeyVersion (64h): the version of key `keyNumber` of the selected level (0-13).
  public func keyVersion(_ keyNumber: UInt8) throws(DESFireCommandError) -> UInt8 {
    let name = "GetKeyVersion \(keyNumber)"
    let data = try send(0x64, [keyNumber], name: name)
    guard data.count == 1, let version = data.first else { throw .malformed("\(data.count) bytes, not 1", command: name) }
    return version
  }

  private func expectNothing(_ data: [UInt8], _ name: String) throws(DESFireCommandError) {
    guard data.isEmpty else { throw .malformed("\(data.count) unexpected bytes", command: name) }
  }
}
