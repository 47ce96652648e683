import EV2SecureMessaging

/// The Transaction MAC Input (TMI) a transaction accumulates, command by command, for its TMV
/// (NXP MF2DL(H)x0 data sheet rev. 3.3, §10.3.4.2): each data-reading or data-changing command
/// appends its code and parameters zero-padded to 16 bytes, then its plain data (whatever the
/// communication mode) zero-padded to 16 bytes. CommitTransaction and AbortTransaction start a new,
/// empty one. Integers are least significant byte first, as on the command interface.
///
/// The layouts as NXP's reader library (NxpNfcRdLib, `phTMIUtils_CollectTMI` and the
/// `phalMfdfLight` commands) collects them, which is how the data sheet's table reads:
/// - ReadData, WriteData: `Cmd ‖ FileNo ‖ Offset(3) ‖ Length(3) ‖ 00…` then `Data ‖ 00…`; a ReadData
///   of length 0 (to the file's end) carries the length actually read;
/// - ReadRecords: `Cmd ‖ FileNo ‖ RecNo(3) ‖ RecCount(3) ‖ 00…` then the records `‖ 00…`; a count of
///   0 (all) carries the number of records read;
/// - WriteRecord: as WriteData;
/// - GetValue: `Cmd ‖ FileNo ‖ Value(4) ‖ 00…` (the value the card answered);
/// - Credit, Debit, LimitedCredit: `Cmd ‖ FileNo ‖ Value(4) ‖ 00…` (the amount sent);
/// - ClearRecordFile: `Cmd ‖ FileNo ‖ 00…`.
/// No data adds no data block. No independent vector exists for these layouts (see
/// ``DESFireTransactionMAC``).
public struct DESFireTransactionMACInput: Hashable, Sendable {
  /// The TMI so far: whole 16-byte blocks.
  public private(set) var bytes: [UInt8] = []

  /// An empty TMI (the start of a transaction).
  public init() {}

  /// True before any command of the transaction.
  public var isEmpty: Bool { bytes.isEmpty }

  /// ReadData (BDh): `data` is what the card answered (deciphered, its MAC checked); `length` as
  /// sent (0: to the end of the file, the TMI then carries `data.count`).
  ///
  /// - Throws: ``EV2Error/invalidLength(field:expected:actual:)`` for an offset or length past 24 bits.
  public mutating func readData(file: UInt8, offset: Int, length: Int, data: [UInt8], command: UInt8 = 0xBD) throws(EV2Error) {
    try append(header: [command, file] + u24(offset, "offset") + u24(length == 0 ? data.count : length, "length"), data: data)
  }

  /// WriteData (3Dh) of `data` at `offset`.
  ///
  /// - Throws: as ``readData(file:offset:length:data:command:)``.
  public mutating func writeData(file: UInt8, offset: Int, data: [UInt8], command: UInt8 = 0x3D) throws(EV2Error) {
    try append(header: [command, file] + u24(offset, "offset") + u24(data.count, "length"), data: data)
  }

  /// WriteRecord (3Bh) of `data` at `offset` within the new record.
  ///
  /// - Throws: as ``readData(file:offset:length:data:command:)``.
  public mutating func writeRecord(file: UInt8, offset: Int, data: [UInt8], command: UInt8 = 0x3B) throws(EV2Error) {
    try writeData(file: file, offset: offset, data: data, command: command)
  }

  /// ReadRecords (BBh): `record` and `count` as sent, `data` the records answered, `recordSize`
  /// the file's (for a count of 0, whose TMI carries the number read).
  ///
  /// - Throws: ``EV2Error/invalidLength(field:expected:actual:)`` for a field past 24 bits, or a
  ///   count of 0 whose data is not whole records.
  public mutating func readRecords(file: UInt8, record: Int, count: Int, recordSize: Int, data: [UInt8],
                                   command: UInt8 = 0xBB) throws(EV2Error) {
    var read = count
    if count == 0 {
      guard recordSize > 0, data.count % recordSize == 0 else {
        throw .invalidLength(field: "records read", expected: recordSize, actual: data.count)
      }
      read = data.count / recordSize
    }
    try append(header: [command, file] + u24(record, "record number") + u24(read, "record count"), data: data)
  }

  /// GetValue (6Ch) answered `value`, or Credit (0Ch), Debit (DCh) or LimitedCredit (1Ch) of `value`.
  public mutating func value(command: UInt8, file: UInt8, value: Int32) {
    let v = UInt32(bitPattern: value)
    try? append(header: [command, file] + (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) }, data: [])
  }

  /// ClearRecordFile (EBh).
  public mutating func clearRecordFile(file: UInt8, command: UInt8 = 0xEB) {
    try? append(header: [command, file], data: [])
  }

  /// Empties the TMI (CommitTransaction, AbortTransaction, a selection).
  public mutating func reset() { bytes = [] }

  private mutating func append(header: [UInt8], data: [UInt8]) throws(EV2Error) {
    bytes += Self.zeroPadded(header)
    if !data.isEmpty { bytes += Self.zeroPadded(data) }
  }

  private static func zeroPadded(_ part: [UInt8]) -> [UInt8] {
    part + [UInt8](repeating: 0, count: (EV2Frames.blockLength - part.count % EV2Frames.blockLength) % EV2Frames.blockLength)
  }

  private func u24(_ value: Int, _ field: String) throws(EV2Error) -> [UInt8] {
    guard (0...0xFF_FFFF).contains(value) else { throw .invalidLength(field: field, expected: 0xFF_FFFF, actual: value) }
    return [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF)]
  }
}
