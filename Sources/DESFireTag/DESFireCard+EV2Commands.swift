import DESFire
import EV2SecureMessaging
import Hex
import NFCTags

/// The commands with a communication mode of their own under EV2 secure messaging
/// (``DESFireEV2SecureMessaging``), each as one ``DESFireCard`` `ev2Exchange`: CmdHeader plain,
/// CmdData in the mode, the answer's MACt checked before its data is used (NT4H2421Gx datasheet
/// §9.1.8–§9.1.10; the DESFire EV2/EV3 command set as NXP AN12343 §7 and proxmark3's
/// `client/src/mifare/desfirecore.c` send it, https://github.com/RfidResearchGroup/proxmark3):
///
/// - ReadData (BDh), ReadRecords (BBh): `FileNo ‖ Offset ‖ Length` header, the answer in the file's mode;
/// - WriteData (3Dh), WriteRecord (3Bh): the same header, the data in the file's mode;
/// - GetValue (6Ch): `FileNo` header; Credit (0Ch), Debit (DCh), LimitedCredit (1Ch): `FileNo`
///   header, the 4-byte amount in the file's mode;
/// - ChangeFileSettings (5Fh): `FileNo` header, `CommSett ‖ AR` in CommMode.Full (CommMode.Plain
///   when the change right is free);
/// - ChangeKeySettings (54h): `KS1` in CommMode.Full; GetCardUID (51h): the answer in CommMode.Full;
/// - ChangeKey (C4h): `KeyNo` header, `(NewKey ⊕ OldKey) ‖ KeyVer ‖ CRC32(NewKey)` in
///   CommMode.Full (the session's own key: `NewKey ‖ KeyVer`, the answer without MAC, and the
///   session ends), `EV2HostSession.changeKeyPlaintext` with DESFire's CRC32.
///
/// The mode is the caller's, as under EV1: ``DESFireCard/communication(for:granting:)`` gives the
/// file's when the session's key grants the command, CommMode.Plain otherwise (a free right).
extension DESFireCard {
  func ev2ReadData(file number: UInt8, offset: Int, length: Int, communication: DESFireFileCommunication,
                   session: DESFireEV2SecureMessaging) throws(DESFireCommandError) -> [UInt8] {
    guard (0...0xFF_FFFF).contains(offset), (0...0xFF_FFFF).contains(length) else {
      throw .invalidArgument("offset \(offset) or length \(length) is past 16777215")
    }
    let name = "ReadData \(hexString([number]))"
    let data = try ev2Exchange(0xBD, header: [number] + Self.uint24(offset) + Self.uint24(length), mode: communication.ev2Mode,
                               name: name, session: session)
    guard length == 0 || data.count == length else { throw .malformed("\(data.count) bytes for \(length) asked", command: name) }
    return data
  }

  func ev2WriteData(_ code: UInt8, file number: UInt8, offset: Int, _ bytes: [UInt8], communication: DESFireFileCommunication,
                    name: String, session: DESFireEV2SecureMessaging) throws(DESFireCommandError) {
    guard !bytes.isEmpty, (0...0xFF_FFFF).contains(offset), bytes.count <= 0xFF_FFFF else {
      throw .invalidArgument("\(code == 0x3B ? "WriteRecord" : "WriteData") needs 1 to 16777215 bytes at an offset up to 16777215")
    }
    try ev2ExchangeExpectingNothing(code, header: [number] + Self.uint24(offset) + Self.uint24(bytes.count), data: bytes,
                                    mode: communication.ev2Mode, name: name, session: session)
  }

  func ev2Value(of number: UInt8, communication: DESFireFileCommunication,
                session: DESFireEV2SecureMessaging) throws(DESFireCommandError) -> Int32 {
    guard number <= 0x1F else { throw .invalidArgument("a file number is 0 to 31, not \(number)") }
    let name = "GetValue \(hexString([number]))"
    return try Self.parseValue(try ev2Exchange(0x6C, header: [number], mode: communication.ev2Mode, name: name, session: session),
                               name: name)
  }

  func ev2ChangeValue(_ change: DESFireValueChange, file number: UInt8, amount: Int32, communication: DESFireFileCommunication,
                      session: DESFireEV2SecureMessaging) throws(DESFireCommandError) {
    guard number <= 0x1F else { throw .invalidArgument("a file number is 0 to 31, not \(number)") }
    guard amount >= 0 else { throw .invalidArgument("an amount is 0 or more, not \(amount)") }
    try ev2ExchangeExpectingNothing(change.rawValue, header: [number], data: Self.int32(amount), mode: communication.ev2Mode,
                                    name: change.commandName(number), session: session)
  }

  func ev2ReadRecords(file number: UInt8, offset: Int, count: Int, communication: DESFireFileCommunication,
                      session: DESFireEV2SecureMessaging) throws(DESFireCommandError) -> [UInt8] {
    guard (0...0xFF_FFFF).contains(offset), (0...0xFF_FFFF).contains(count) else {
      throw .invalidArgument("offset \(offset) or count \(count) is past 16777215")
    }
    return try ev2Exchange(0xBB, header: [number] + Self.uint24(offset) + Self.uint24(count), mode: communication.ev2Mode,
                           name: "ReadRecords \(hexString([number]))", session: session)
  }

  func ev2ChangeFileSettings(_ number: UInt8, settings: [UInt8], free: Bool,
                             session: DESFireEV2SecureMessaging) throws(DESFireCommandError) {
    try ev2ExchangeExpectingNothing(0x5F, header: [number], data: settings, mode: free ? .plain : .full,
                                    name: "ChangeFileSettings \(hexString([number]))", session: session)
  }

  func ev2ChangeKeySettings(_ settings: UInt8, session: DESFireEV2SecureMessaging) throws(DESFireCommandError) {
    try ev2ExchangeExpectingNothing(0x54, header: [], data: [settings], mode: .full, name: "ChangeKeySettings", session: session)
  }

  func ev2CardUID(session: DESFireEV2SecureMessaging) throws(DESFireCommandError) -> [UInt8] {
    let name = "GetCardUID"
    let uid = try ev2Exchange(0x51, header: [], mode: .full, name: name, session: session)
    guard [4, 7, 10].contains(uid.count) else { throw .malformed("a UID of \(uid.count) bytes", command: name) }
    return uid
  }

  /// ChangeKey (C4h) under EV2: AES keys only (a DES-family key is refused before anything is sent).
  func ev2ChangeKey(number: UInt8, keyByte: UInt8, to newKey: DESFireKeyMaterial, version: UInt8, oldKey: DESFireKeyMaterial?,
                    name: String, session: DESFireEV2SecureMessaging) throws(DESFireCommandError) {
    guard let newBytes = newKey.aesKeyBytes else {
      throw .invalidArgument("\(name): under EV2 secure messaging a key changes to an AES key, not a \(newKey.type) key")
    }
    let sameKey = number == session.keyNumber
    var oldBytes: [UInt8]?
    if !sameKey {
      guard let oldKey else {
        throw .invalidArgument("\(name): key \(number) is not the authenticated key \(session.keyNumber), so its current value is needed")
      }
      guard let bytes = oldKey.aesKeyBytes else { throw .invalidArgument("\(name): the current key given is not of the new key's type") }
      oldBytes = bytes
    }
    let plaintext = EV2HostSession<DESFireEV2Cipher>.changeKeyPlaintext(newKey: newBytes, newVersion: version, oldKey: oldBytes) { key in
      DESFireCRC.crc32(key).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }
    let protected = try session.protectedData(0xC4, header: [keyByte], data: plaintext, mode: .full, name: name)
    secureMessaging = nil
    let answer = try send(0xC4, [keyByte] + protected, name: name)
    try session.changeKeyAnswer(keyNumber: number, answer, name: name)
    if !sameKey { secureMessaging = session }  // changing the session's own key ends the session
  }
}
