/// The kinds of DESFire EV1 file beyond the standard data file (NXP MF3ICDx21_41_81 data sheet §8
/// "Functional description", the five file types, and §9.5, GetFileSettings): what each holds and
/// the layout GetFileSettings answers for it.
public enum DESFireFileKind: Hashable, Sendable {
  /// A standard data file: its bytes are ``DESFireFile/data``.
  case standard
  /// A backup data file: its committed bytes are ``DESFireFile/data``; writes go to a copy that
  /// CommitTransaction makes visible.
  case backup
  /// A value file.
  case value(DESFireValueFile)
  /// A linear or cyclic record file.
  case records(DESFireRecordFile)
}

/// A value file's limits, value and limited-credit state (data sheet §9.5 CreateValueFile, §9.6
/// Credit, Debit, LimitedCredit).
public struct DESFireValueFile: Hashable, Sendable {
  /// The lowest value a Debit may leave.
  public var lowerLimit: Int32
  /// The highest value a Credit may reach.
  public var upperLimit: Int32
  /// The committed value (GetValue).
  public var value: Int32
  /// CreateValueFile's last byte: bit 0 enables LimitedCredit, bit 1 EV1's free GetValue (NXP's
  /// reader library names the byte "Limited Credit and free getvalue setting").
  public var options: UInt8
  /// What a LimitedCredit may add: the sum of the Debits of the last committed transaction that
  /// had one; 0 after a LimitedCredit.
  public var limitedCreditValue: Int32

  /// Whether LimitedCredit is enabled.
  public var limitedCreditEnabled: Bool { options & 0x01 != 0 }
  /// Whether GetValue is free: answered in plain to anyone, whatever the read rights.
  public var freeGetValue: Bool { options & 0x02 != 0 }
}

/// A record file's layout and records (data sheet §9.5 CreateLinearRecordFile,
/// CreateCyclicRecordFile; §9.6 WriteRecord, ReadRecords, ClearRecordFile).
public struct DESFireRecordFile: Hashable, Sendable {
  /// The bytes of one record.
  public var recordSize: Int
  /// The records the file is created with. A cyclic file keeps one of them spare for the record
  /// being written, so it holds at most `maxRecords - 1` committed records.
  public var maxRecords: Int
  /// Whether a new record past the last replaces the oldest (cyclic) or is refused (linear).
  public var cyclic: Bool
  /// The committed records, oldest first.
  public var records: [[UInt8]]

  /// The most committed records the file holds.
  public var capacity: Int { cyclic ? maxRecords - 1 : maxRecords }
}

extension DESFireFile {
  /// The file type byte GetFileSettings answers: 00h standard, 01h backup, 02h value, 03h linear
  /// record, 04h cyclic record.
  public var fileType: UInt8 {
    switch kind {
    case .standard: 0x00
    case .backup: 0x01
    case .value: 0x02
    case .records(let file): file.cyclic ? 0x04 : 0x03
    }
  }

  /// Whether ReadData and WriteData take the file (a standard or backup data file).
  var isDataFile: Bool {
    switch kind {
    case .standard, .backup: true
    case .value, .records: false
    }
  }

  /// GetFileSettings' answer: type, option, access rights (2), then the size (3) of a data file;
  /// lower limit (4), upper limit (4), limited credit value (4) and its enabled byte of a value
  /// file; record size (3), maximum and current number of records (3 each) of a record file.
  var settings: [UInt8] {
    let head = [fileType, communication.rawValue] + access.bytes
    switch kind {
    case .standard, .backup:
      return head + DESFireBytes.uint24(data.count)
    case .value(let value):
      return head + DESFireBytes.int32(value.lowerLimit) + DESFireBytes.int32(value.upperLimit)
        + DESFireBytes.int32(value.limitedCreditValue) + [value.options]
    case .records(let file):
      return head + DESFireBytes.uint24(file.recordSize) + DESFireBytes.uint24(file.maxRecords)
        + DESFireBytes.uint24(file.records.count)
    }
  }

  /// The non-volatile memory the file takes, in 32-byte blocks: a backup file twice its size (its
  /// mirror), a value file one block, a record file its records.
  static func allocation(kind: DESFireFileKind, size: Int) -> Int {
    let rounded = { (bytes: Int) in (bytes + 31) / 32 * 32 }
    switch kind {
    case .standard: return rounded(size)
    case .backup: return 2 * rounded(size)
    case .value: return 32
    case .records(let file): return rounded(file.recordSize * file.maxRecords)
    }
  }
}

extension DESFireBytes {
  /// `value` as 4 bytes, least significant first (two's complement).
  static func int32(_ value: Int32) -> [UInt8] {
    let bits = UInt32(bitPattern: value)
    return [UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 24)]
  }

  /// The signed 4-byte little-endian number at `at`; nil when `bytes` is too short.
  static func int32(_ bytes: ArraySlice<UInt8>, at: Int) -> Int32? {
    let start = bytes.startIndex + at
    guard at >= 0, start + 4 <= bytes.endIndex else { return nil }
    let bits = UInt32(bytes[start]) | UInt32(bytes[start + 1]) << 8 | UInt32(bytes[start + 2]) << 16
      | UInt32(bytes[start + 3]) << 24
    return Int32(bitPattern: bits)
  }
}
