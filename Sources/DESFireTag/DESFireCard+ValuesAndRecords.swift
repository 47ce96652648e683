import DESFire
import Hex
import NFCTags

/// The value and record file commands in the three communication modes, under EV1 secure
/// messaging (NXP MF3ICDx21_41_81 data sheet §2.5 for the modes, §9.6 for the commands), as
/// `DESFireCard+DataModes.swift` does ReadData and WriteData:
///
/// - GetValue (6Ch): plain and MAC as NFCTags' ``DESFireCard/value(of:)`` (in a session the
///   answer's CMAC is checked); full: the answer `value ‖ CRC32(value ‖ 00) ‖ 00…` enciphered.
/// - Credit (0Ch), Debit (DCh), LimitedCredit (1Ch): MAC: `FileNo ‖ amount ‖ CMAC(cmd ‖ FileNo ‖
///   amount)` (first 8 bytes); full: `FileNo ‖ E(amount ‖ CRC32(cmd ‖ FileNo ‖ amount) ‖ 00…)`.
/// - WriteRecord (3Bh): as WriteData; ReadRecords (BBh): as ReadData.
///
/// The mode is the file's when the authenticated key is what grants the access, plain otherwise
/// (``DESFireCard/communication(for:granting:)``). After the legacy Authenticate (0Ah) MAC and
/// full are the legacy scheme's (DESFireCard+LegacyFiles.swift: a 4-byte MAC, or `data ‖ CRC16 ‖
/// 00…` enciphered, over the data alone). Without a session the host refuses MAC and full before
/// sending anything.
extension DESFireCard {
  /// The mode a command's data travels in for file `settings` when `granting` (the file's rights
  /// that open the command) are the ones the card looks at: the file's mode when the EV1 session's
  /// key is one of them, else plain (a free right, or no session: the card takes plain then). After
  /// the legacy Authenticate (0Ah) the same, in the legacy scheme's MAC and full modes
  /// (DESFireCard+LegacyModes.swift, DESFireCard+LegacyFiles.swift).
  public func communication(for settings: DESFireFileSettings, granting: [UInt8]) -> DESFireFileCommunication {
    let keyNumber: UInt8
    if let session = secureMessaging as? DESFireEV1SecureMessaging {
      keyNumber = session.keyNumber
    } else if let legacy = secureMessaging as? DESFireLegacySecureMessaging {
      keyNumber = legacy.keyNumber
    } else if let ev2 = secureMessaging as? DESFireEV2SecureMessaging {
      keyNumber = ev2.keyNumber
    } else {
      return .plain
    }
    guard granting.contains(keyNumber), let mode = settings.communication else { return .plain }
    return mode
  }

  /// GetValue (6Ch) of value file `number` in `communication`: the committed value.
  /// - Throws: as `readData(file:offset:length:communication:)`.
  public func value(of number: UInt8, communication: DESFireFileCommunication) throws(DESFireCommandError) -> Int32 {
    let name = "GetValue \(hexString([number]))"
    if let ev2 = secureMessaging as? DESFireEV2SecureMessaging {  // DESFireCard+EV2Commands.swift
      return try ev2Value(of: number, communication: communication, session: ev2)
    }
    if communication != .plain, let legacy = secureMessaging as? DESFireLegacySecureMessaging {  // DESFireCard+LegacyFiles.swift
      return try legacyValue(of: number, communication: communication, session: legacy)
    }
    switch communication {
    case .plain:
      return try value(of: number)
    case .mac:
      _ = try ev1Session(name, needs: "MAC mode")
      return try value(of: number)
    case .full:
      let session = try ev1Session(name, needs: "full mode")
      try session.willSend([0x6C, number], command: name)
      let data = try sendProtected(0x6C, [number], name: name, session: session) { session, answer throws(DESFireCommandError) in
        try Self.decipher(answer, session: session, length: 4, name: name)
      }
      return try Self.parseValue(data, name: name)
    }
  }

  /// Credit, Debit or LimitedCredit of `amount` on value file `number`, in `communication`.
  /// - Throws: as `writeData(file:offset:_:communication:)`.
  public func changeValue(_ change: DESFireValueChange, file number: UInt8, amount: Int32,
                          communication: DESFireFileCommunication) throws(DESFireCommandError) {
    if let ev2 = secureMessaging as? DESFireEV2SecureMessaging {  // DESFireCard+EV2Commands.swift
      return try ev2ChangeValue(change, file: number, amount: amount, communication: communication, session: ev2)
    }
    guard communication != .plain else { return try changeValue(change, file: number, amount: amount) }
    if let legacy = secureMessaging as? DESFireLegacySecureMessaging {  // DESFireCard+LegacyFiles.swift
      return try legacyChangeValue(change, file: number, amount: amount, communication: communication, session: legacy)
    }
    let name = change.commandName(number)
    let session = try ev1Session(name, needs: communication == .mac ? "MAC mode" : "full mode")
    guard amount >= 0 else { throw .invalidArgument("an amount is 0 or more, not \(amount)") }
    try sendProtectedData(change.rawValue, header: [number], Self.int32(amount), communication: communication,
                          session: session, name: name)
  }

  /// WriteRecord (3Bh) of `bytes` at `offset` within the transaction's new record of file
  /// `number`, in `communication` (in frames as needed).
  /// - Throws: as `writeData(file:offset:_:communication:)`.
  public func writeRecord(file number: UInt8, offset: Int, _ bytes: [UInt8],
                          communication: DESFireFileCommunication) throws(DESFireCommandError) {
    if let ev2 = secureMessaging as? DESFireEV2SecureMessaging {  // DESFireCard+EV2Commands.swift
      guard number <= 0x1F else { throw .invalidArgument("a file number is 0 to 31, not \(number)") }
      return try ev2WriteData(0x3B, file: number, offset: offset, bytes, communication: communication,
                              name: "WriteRecord \(hexString([number]))", session: ev2)
    }
    guard communication != .plain else { return try writeRecord(file: number, offset: offset, bytes) }
    if let legacy = secureMessaging as? DESFireLegacySecureMessaging {  // DESFireCard+LegacyFiles.swift
      return try legacyWriteRecord(file: number, offset: offset, bytes, communication: communication, session: legacy)
    }
    let name = "WriteRecord \(hexString([number]))"
    let session = try ev1Session(name, needs: communication == .mac ? "MAC mode" : "full mode")
    guard !bytes.isEmpty, (0...0xFF_FFFF).contains(offset), bytes.count <= 0xFF_FFFF else {
      throw .invalidArgument("WriteRecord needs 1 to 16777215 bytes at an offset up to 16777215")
    }
    try sendProtectedData(0x3B, header: [number] + Self.uint24(offset) + Self.uint24(bytes.count), bytes,
                          communication: communication, session: session, name: name)
  }

  /// ReadRecords (BBh) of `count` committed records (0: all) of `recordSize` bytes ending `offset`
  /// records before the newest, oldest first, in `communication`.
  /// - Throws: as `readData(file:offset:length:communication:)`.
  public func readRecords(file number: UInt8, offset: Int, count: Int, recordSize: Int,
                          communication: DESFireFileCommunication) throws(DESFireCommandError) -> [UInt8] {
    let name = "ReadRecords \(hexString([number]))"
    if let ev2 = secureMessaging as? DESFireEV2SecureMessaging {  // DESFireCard+EV2Commands.swift
      return try ev2ReadRecords(file: number, offset: offset, count: count, communication: communication, session: ev2)
    }
    if communication != .plain, let legacy = secureMessaging as? DESFireLegacySecureMessaging {  // DESFireCard+LegacyFiles.swift
      return try legacyReadRecords(file: number, offset: offset, count: count, recordSize: recordSize,
                                   communication: communication, session: legacy)
    }
    switch communication {
    case .plain:
      return try readRecords(file: number, offset: offset, count: count)
    case .mac:
      _ = try ev1Session(name, needs: "MAC mode")
      return try readRecords(file: number, offset: offset, count: count)
    case .full:
      let session = try ev1Session(name, needs: "full mode")
      guard (0...0xFF_FFFF).contains(offset), (0...0xFF_FFFF).contains(count), recordSize > 0 else {
        throw .invalidArgument("offset \(offset) or count \(count) is past 16777215")
      }
      let header = [number] + Self.uint24(offset) + Self.uint24(count)
      try session.willSend([0xBB] + header, command: name)
      let (length, overflow) = count.multipliedReportingOverflow(by: recordSize)
      return try sendProtected(0xBB, header, name: name, session: session) { session, answer throws(DESFireCommandError) in
        try Self.decipher(answer, session: session, length: count == 0 || overflow ? nil : length, name: name)
      }
    }
  }

  /// Sends `cmd ‖ header ‖ data` with the data MACed or enciphered, and checks the empty answer.
  private func sendProtectedData(_ code: UInt8, header: [UInt8], _ bytes: [UInt8], communication: DESFireFileCommunication,
                                 session: DESFireEV1SecureMessaging, name: String) throws(DESFireCommandError) {
    let protected: [UInt8]
    do {
      protected = communication == .mac ? bytes + (try session.channel.mac([code] + header + bytes))
                                        : try session.channel.encipherCommand(prefix: [code] + header, bytes)
    } catch {
      secureMessaging = nil
      throw .malformed("the host's cipher failed: \(error)", command: name)
    }
    let answer = try sendProtected(code, header + protected, name: name, session: session) { session, answer throws(DESFireCommandError) in
      try session.received(answer, command: name)
    }
    guard answer.isEmpty else { throw .malformed("\(answer.count) unexpected bytes", command: name) }
  }
}
