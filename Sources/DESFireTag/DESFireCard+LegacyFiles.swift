import DESFire
import Hex
import NFCTags

/// The value and record commands, ChangeFileSettings and GetCardUID under a legacy session (after
/// Authenticate 0Ah with a DES or 2K3DES key; NXP MIFARE DESFire data sheet M075031). The MAC and
/// the CRC16 cover only the data after the command's plain header (FileNo, or FileNo, offset and
/// length), as libfreefare's `mifare_desfire.c` (`mifare_cryto_preprocess_data` from offset 2 for
/// Credit, Debit and LimitedCredit, 8 for WriteRecord, 2 for ChangeFileSettings) and proxmark3's
/// "d40" secure channel (`client/src/mifare/desfiresecurechan.c`, its command header lengths) send
/// them, https://github.com/nfc-tools/libfreefare, https://github.com/RfidResearchGroup/proxmark3:
///
/// - GetValue (6Ch): MAC: `value ‖ MAC(value)`; full: `value ‖ CRC16(value) ‖ 00 00` enciphered.
/// - Credit (0Ch), Debit (DCh), LimitedCredit (1Ch): `FileNo ‖ amount ‖ MAC(amount)`, or
///   `FileNo ‖` `amount ‖ CRC16(amount) ‖ 00 00` in send mode; the answer a bare `00`.
/// - WriteRecord (3Bh) and ReadRecords (BBh): as WriteData and ReadData.
/// - ChangeFileSettings (5Fh) to a key's change right: `FileNo ‖` `CommSett ‖ AR ‖ CRC16(CommSett
///   ‖ AR) ‖ 00…` in send mode, as ChangeKeySettings.
/// - GetCardUID (51h): `UID ‖ CRC16(UID) ‖ 00…` enciphered (proxmark3 lists GetCardUID as an
///   enciphered command of its d40 channel; no public source says a card refuses it after 0Ah).
extension DESFireCard {
  /// GetValue (6Ch) in MAC or full mode under a legacy session.
  func legacyValue(of number: UInt8, communication: DESFireFileCommunication,
                   session: DESFireLegacySecureMessaging) throws(DESFireCommandError) -> Int32 {
    let name = "GetValue \(hexString([number]))"
    let data = try legacyRead(0x6C, [number], length: 4, communication: communication, session: session, name: name)
    return try Self.parseValue(data, name: name)
  }

  /// Credit, Debit or LimitedCredit (`amount`, 0 or more) in MAC or full mode under a legacy session.
  func legacyChangeValue(_ change: DESFireValueChange, file number: UInt8, amount: Int32, communication: DESFireFileCommunication,
                         session: DESFireLegacySecureMessaging) throws(DESFireCommandError) {
    guard amount >= 0 else { throw .invalidArgument("an amount is 0 or more, not \(amount)") }
    try legacyWrite(change.rawValue, [number], Self.int32(amount), communication: communication, session: session,
                    name: change.commandName(number))
  }

  /// WriteRecord (3Bh) in MAC or full mode under a legacy session.
  func legacyWriteRecord(file number: UInt8, offset: Int, _ bytes: [UInt8], communication: DESFireFileCommunication,
                         session: DESFireLegacySecureMessaging) throws(DESFireCommandError) {
    guard !bytes.isEmpty, (0...0xFF_FFFF).contains(offset), bytes.count <= 0xFF_FFFF else {
      throw .invalidArgument("WriteRecord needs 1 to 16777215 bytes at an offset up to 16777215")
    }
    try legacyWrite(0x3B, [number] + Self.uint24(offset) + Self.uint24(bytes.count), bytes, communication: communication,
                    session: session, name: "WriteRecord \(hexString([number]))")
  }

  /// ReadRecords (BBh) in MAC or full mode under a legacy session (`count` 0: all, their length
  /// found by the CRC16 in full mode).
  func legacyReadRecords(file number: UInt8, offset: Int, count: Int, recordSize: Int, communication: DESFireFileCommunication,
                         session: DESFireLegacySecureMessaging) throws(DESFireCommandError) -> [UInt8] {
    guard (0...0xFF_FFFF).contains(offset), (0...0xFF_FFFF).contains(count), recordSize > 0 else {
      throw .invalidArgument("offset \(offset) or count \(count) is past 16777215")
    }
    let (length, overflow) = count.multipliedReportingOverflow(by: recordSize)
    return try legacyRead(0xBB, [number] + Self.uint24(offset) + Self.uint24(count), length: count == 0 || overflow ? nil : length,
                          communication: communication, session: session, name: "ReadRecords \(hexString([number]))")
  }

  /// ChangeFileSettings (5Fh) to a key's change right under a legacy session: `FileNo ‖` the
  /// settings and their CRC16 in send mode; the answer a bare `00`.
  func legacyChangeFileSettings(_ number: UInt8, settings: [UInt8], session: DESFireLegacySecureMessaging) throws(DESFireCommandError) {
    try legacyWrite(0x5F, [number], settings, communication: .full, session: session,
                    name: "ChangeFileSettings \(hexString([number]))")
  }

  /// GetCardUID (51h) under a legacy session: the answer deciphered, a 7-byte UID (then 4 or 10)
  /// whose CRC16 and zero padding follow.
  func legacyCardUID(session: DESFireLegacySecureMessaging) throws(DESFireCommandError) -> [UInt8] {
    let name = "GetCardUID"
    let answer = try send(0x51, [], name: name)
    do {
      for length in [7, 4, 10] {
        if let uid = try session.channel.decipherAnswer(answer, length: length) { return uid }
      }
    } catch {
      secureMessaging = nil
      throw .malformed("the host's cipher failed: \(error)", command: name)
    }
    secureMessaging = nil
    throw .integrity("the enciphered answer (\(answer.count) bytes) does not decipher to a UID, CRC16 and zero padding", command: name)
  }
}
