import NFCTransport

/// A value file's settings at its creation (MF3ICDx21_41_81 §9, CreateValueFile): the limits, the
/// value it starts with, and whether LimitedCredit is enabled.
public struct DESFireValueFileLimits: Hashable, Sendable {
  /// The lowest value a Debit may leave.
  public var lower: Int32
  /// The highest value a Credit may reach.
  public var upper: Int32
  /// The value the file starts with (within the limits).
  public var value: Int32
  /// Whether LimitedCredit (1Ch) is allowed on the file (the LimitedCreditEnabled byte's bit 0).
  public var limitedCreditEnabled: Bool

  /// Limits `lower`...`upper`, starting at `value`.
  public init(lower: Int32, upper: Int32, value: Int32, limitedCreditEnabled: Bool = false) {
    (self.lower, self.upper, self.value, self.limitedCreditEnabled) = (lower, upper, value, limitedCreditEnabled)
  }
}

/// The host's commands for the file kinds beside the standard data file, in plain communication
/// (NXP MF3ICDx21_41_81 data sheet §9: CreateBackupDataFile CBh, CreateValueFile CCh,
/// CreateLinearRecordFile C1h, CreateCyclicRecordFile C0h; §9.6 "Data manipulation commands":
/// GetValue 6Ch, Credit 0Ch, Debit DCh, LimitedCredit 1Ch, WriteRecord 3Bh, ReadRecords BBh,
/// ClearRecordFile EBh, CommitTransaction C7h, AbortTransaction A7h). Integers go least
/// significant first. Each goes through ``DESFireCard/send(_:_:name:)``, so in an EV1 session the
/// command's CMAC moves the IV and the answer's CMAC is checked; the MAC and full modes of their
/// data are DESFireTag's (`DESFireCard+ValuesAndRecords.swift`).
///
/// A backup, value or record file changes in a transaction: Credit, Debit, LimitedCredit,
/// WriteRecord, ClearRecordFile and WriteData to a backup file change nothing the card keeps
/// until ``commitTransaction()``; a selection or the field going off drops them.
extension DESFireCard {
  /// CreateBackupDataFile (CBh): as ``createStandardDataFile(_:isoFileID:communication:access:size:)``,
  /// a data file whose writes take effect at the commit.
  public func createBackupDataFile(_ number: UInt8, isoFileID: UInt16? = nil, communication: DESFireFileCommunication = .plain,
                                   access: DESFireFileAccess, size: Int) throws(DESFireCommandError) {
    try checkFileNumber(number)
    guard (1...0xFF_FFFF).contains(size) else { throw .invalidArgument("a file size is 1 to 16777215 bytes, not \(size)") }
    var data = [number]
    if let isoFileID { data += Self.fileID(isoFileID) }
    data += [communication.rawValue] + access.wireBytes + Self.threeBytes(size)
    try sendExpectingNothing(0xCB, data, name: "CreateBackupDataFile \(hexString([number]))")
  }

  /// CreateValueFile (CCh): `FileNo ‖ CommSett ‖ AR ‖ lower(4) ‖ upper(4) ‖ value(4) ‖
  /// LimitedCreditEnabled(1)` (a value file has no ISO file ID).
  public func createValueFile(_ number: UInt8, communication: DESFireFileCommunication = .plain,
                              access: DESFireFileAccess, limits: DESFireValueFileLimits) throws(DESFireCommandError) {
    try checkFileNumber(number)
    guard limits.lower <= limits.upper, (limits.lower...limits.upper).contains(limits.value) else {
      throw .invalidArgument("a value file's value is within its limits, lower first")
    }
    let data = [number, communication.rawValue] + access.wireBytes + Self.int32(limits.lower) + Self.int32(limits.upper)
      + Self.int32(limits.value) + [limits.limitedCreditEnabled ? 0x01 : 0x00]
    try sendExpectingNothing(0xCC, data, name: "CreateValueFile \(hexString([number]))")
  }

  /// CreateLinearRecordFile (C1h) or, `cyclic`, CreateCyclicRecordFile (C0h): `FileNo [‖ ISO FID]
  /// ‖ CommSett ‖ AR ‖ record size(3) ‖ maximum records(3)`. A cyclic file keeps one record fewer
  /// than its maximum (the spare a new record is written to), so it needs at least 2.
  public func createRecordFile(_ number: UInt8, cyclic: Bool, isoFileID: UInt16? = nil,
                               communication: DESFireFileCommunication = .plain, access: DESFireFileAccess,
                               recordSize: Int, maximumRecords: Int) throws(DESFireCommandError) {
    try checkFileNumber(number)
    guard (1...0xFF_FFFF).contains(recordSize), ((cyclic ? 2 : 1)...0xFF_FFFF).contains(maximumRecords) else {
      throw .invalidArgument("a record is 1 to 16777215 bytes, and a record file holds 1 (cyclic: 2) to 16777215 records")
    }
    var data = [number]
    if let isoFileID { data += Self.fileID(isoFileID) }
    data += [communication.rawValue] + access.wireBytes + Self.threeBytes(recordSize) + Self.threeBytes(maximumRecords)
    let name = (cyclic ? "CreateCyclicRecordFile " : "CreateLinearRecordFile ") + hexString([number])
    try sendExpectingNothing(cyclic ? 0xC0 : 0xC1, data, name: name)
  }

  /// GetValue (6Ch) in plain: the committed value of value file `number`.
  public func value(of number: UInt8) throws(DESFireCommandError) -> Int32 {
    try checkFileNumber(number)
    let name = "GetValue \(hexString([number]))"
    return try Self.parseValue(try send(0x6C, [number], name: name), name: name)
  }

  /// Credit (0Ch), Debit (DCh) or LimitedCredit (1Ch) in plain: `FileNo ‖ amount(4)`, into the
  /// transaction's working copy.
  public func changeValue(_ change: DESFireValueChange, file number: UInt8, amount: Int32) throws(DESFireCommandError) {
    try checkFileNumber(number)
    guard amount >= 0 else { throw .invalidArgument("an amount is 0 or more, not \(amount)") }
    try sendExpectingNothing(change.rawValue, [number] + Self.int32(amount), name: change.commandName(number))
  }

  /// WriteRecord (3Bh) in plain: `bytes` at `offset` within the transaction's new record of file
  /// `number`, in frames as needed.
  public func writeRecord(file number: UInt8, offset: Int, _ bytes: [UInt8]) throws(DESFireCommandError) {
    try checkFileNumber(number)
    guard !bytes.isEmpty, (0...0xFF_FFFF).contains(offset), bytes.count <= 0xFF_FFFF else {
      throw .invalidArgument("WriteRecord needs 1 to 16777215 bytes at an offset up to 16777215")
    }
    try sendExpectingNothing(0x3B, [number] + Self.threeBytes(offset) + Self.threeBytes(bytes.count) + bytes,
                             name: "WriteRecord \(hexString([number]))")
  }

  /// ReadRecords (BBh) in plain: `count` committed records (0: all) ending `offset` records before
  /// the newest, oldest first, joined.
  public func readRecords(file number: UInt8, offset: Int, count: Int) throws(DESFireCommandError) -> [UInt8] {
    try checkFileNumber(number)
    guard (0...0xFF_FFFF).contains(offset), (0...0xFF_FFFF).contains(count) else {
      throw .invalidArgument("offset \(offset) or count \(count) is past 16777215")
    }
    return try send(0xBB, [number] + Self.threeBytes(offset) + Self.threeBytes(count), name: "ReadRecords \(hexString([number]))")
  }

  /// ClearRecordFile (EBh): every record of file `number` goes at the commit.
  public func clearRecordFile(_ number: UInt8) throws(DESFireCommandError) {
    try checkFileNumber(number)
    try sendExpectingNothing(0xEB, [number], name: "ClearRecordFile \(hexString([number]))")
  }

  /// CommitTransaction (C7h): every change of the transaction becomes the files'.
  public func commitTransaction() throws(DESFireCommandError) {
    try sendExpectingNothing(0xC7, [], name: "CommitTransaction")
  }

  /// AbortTransaction (A7h): every change of the transaction is dropped.
  public func abortTransaction() throws(DESFireCommandError) {
    try sendExpectingNothing(0xA7, [], name: "AbortTransaction")
  }

  // MARK: Helpers

  /// A 4-byte signed integer, least significant first.
  public static func int32(_ value: Int32) -> [UInt8] {
    let bits = UInt32(bitPattern: value)
    return [UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 24)]
  }

  /// GetValue's 4 bytes as the value, or the malformed answer.
  public static func parseValue(_ data: [UInt8], name: String) throws(DESFireCommandError) -> Int32 {
    guard data.count == 4 else { throw .malformed("\(data.count) bytes, not a 4-byte value", command: name) }
    return Int32(bitPattern: UInt32(truncatingIfNeeded: littleEndian(data)))
  }

  private func checkFileNumber(_ number: UInt8) throws(DESFireCommandError) {
    guard number <= 0x1F else { throw .invalidArgument("a file number is 0 to 31, not \(number)") }
  }

  private func sendExpectingNothing(_ code: UInt8, _ data: [UInt8], name: String) throws(DESFireCommandError) {
    let answer = try send(code, data, name: name)
    guard answer.isEmpty else { throw .malformed("\(answer.count) unexpected bytes", command: name) }
  }
}

/// The three commands that change a value file (MF3ICDx21_41_81 §9.6).
public enum DESFireValueChange: UInt8, Hashable, Sendable, CaseIterable {
  /// Credit (0Ch): adds the amount, up to the upper limit; the read&write key.
  case credit = 0x0C
  /// Debit (DCh): takes the amount, down to the lower limit; the read, write or read&write key.
  case debit = 0xDC
  /// LimitedCredit (1Ch): adds at most what the last committed Debits took, once; the write key.
  case limitedCredit = 0x1C

  /// The command's name and file number, as errors show it ("Credit 02").
  public func commandName(_ number: UInt8) -> String {
    switch self {
    case .credit: return "Credit \(hexString([number]))"
    case .debit: return "Debit \(hexString([number]))"
    case .limitedCredit: return "LimitedCredit \(hexString([number]))"
    }
  }
}
