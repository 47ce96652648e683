import DESFire
import EV2SecureMessaging
import Hex
import NFCTags

/// The host's side of the Transaction MAC (NXP MF2DL(H)x0 data sheet rev. 3.3, §10.3; the DESFire
/// EV2/EV3 the same): reading `TMC ‖ TMV` after a transaction, from CommitTransaction with option
/// 01h or from the Transaction MAC file, and checking the TMV with the AppTransactionMACKey
/// against the commands the host sent (``DESFireTransactionMACInput``, which the caller fills as
/// it sends them). The cryptography is the DESFire module's ``DESFireTransactionMAC``.
extension DESFireCard {
  /// CommitTransaction (C7h) with option 01h: the transaction's changes become the files' and the
  /// card answers `TMC ‖ TMV` (in an EV2 session in CommMode.MAC, the answer's MACt checked).
  ///
  /// - Throws: the card's refusal (`91 0C` with nothing to commit, `91 9E` without a Transaction
  ///   MAC file), or ``DESFireCommandError/malformed(_:command:)`` for an answer not of 12 bytes.
  public func commitTransactionWithTransactionMAC() throws(DESFireCommandError) -> DESFireTransactionMACRecord {
    let name = "CommitTransaction"
    let answer: [UInt8]
    if let ev2 = secureMessaging as? DESFireEV2SecureMessaging {
      answer = try ev2Exchange(0xC7, header: [0x01], mode: .mac, name: name, session: ev2)
    } else {
      answer = try send(0xC7, [0x01], name: name)
    }
    return try Self.transactionMACRecord(answer, command: name)
  }

  /// ReadData of the Transaction MAC file (`file`, 0Fh on a DESFire Light) in `communication`:
  /// its 12 bytes `TMC ‖ TMV`, as the last commit left them.
  ///
  /// - Throws: as ``readData(file:offset:length:communication:)``, or
  ///   ``DESFireCommandError/malformed(_:command:)`` for an answer not of 12 bytes.
  public func transactionMACFile(_ file: UInt8 = 0x0F,
                                 communication: DESFireFileCommunication = .plain) throws(DESFireCommandError) -> DESFireTransactionMACRecord {
    try Self.transactionMACRecord(try readData(file: file, offset: 0, length: 12, communication: communication),
                                  command: "ReadData \(hexString([file]))")
  }

  /// Whether `record` is the TMV of the transaction `input` describes, under the AES
  /// AppTransactionMACKey `key` and the card's real UID (GetCardUID's on a card with a random ID).
  /// A changed byte of any command, another key, UID or counter gives false.
  ///
  /// - Throws: ``DESFireCommandError/invalidArgument(_:)`` for a key that is not AES or a UID not
  ///   of 7 bytes (the key never shown).
  public static func verifyTransactionMAC(_ record: DESFireTransactionMACRecord, key: DESFireKeyMaterial, uid: [UInt8],
                                          input: DESFireTransactionMACInput) throws(DESFireCommandError) -> Bool {
    guard let bytes = key.aesKeyBytes else { throw .invalidArgument("the Transaction MAC key is an AES key, not a \(key.type) key") }
    guard uid.count == 7 else { throw .invalidArgument("the Transaction MAC needs the card's 7-byte UID, not \(uid.count) bytes") }
    do {
      return try DESFireTransactionMAC.verify(record, key: bytes, uid: uid, input: input)
    } catch {
      throw .invalidArgument("the Transaction MAC cannot be computed: \(error)")
    }
  }

  /// ReadData of `file` (as ``readData(file:offset:length:communication:)``), then
  /// CommitTransaction with option 01h, the TMV checked against that read under the AES
  /// AppTransactionMACKey `key` and the card's real `uid`: the data the card proved it gave, and
  /// the TMC that proof carries.
  ///
  /// - Throws: as the two commands and ``verifyTransactionMAC(_:key:uid:input:)``;
  ///   ``DESFireCommandError/integrity(_:command:)`` when the TMV does not verify (the data is not
  ///   given back).
  public func readDataWithTransactionMAC(file number: UInt8, offset: Int, length: Int, communication: DESFireFileCommunication,
                                         key: DESFireKeyMaterial, uid: [UInt8]) throws(DESFireCommandError) -> (data: [UInt8], counter: UInt32) {
    guard key.aesKeyBytes != nil else { throw .invalidArgument("the Transaction MAC key is an AES key, not a \(key.type) key") }
    let data = try readData(file: number, offset: offset, length: length, communication: communication)
    var input = DESFireTransactionMACInput()
    do { try input.readData(file: number, offset: offset, length: length, data: data) } catch {
      throw .invalidArgument("ReadData \(hexString([number])): \(error)")
    }
    let record = try commitTransactionWithTransactionMAC()
    guard try Self.verifyTransactionMAC(record, key: key, uid: uid, input: input) else {
      throw .integrity("the TMV does not verify for TMC \(record.counter) (another Transaction MAC key or UID, or the data changed)",
                       command: "CommitTransaction")
    }
    return (data, record.counter)
  }

  private static func transactionMACRecord(_ answer: [UInt8], command: String) throws(DESFireCommandError) -> DESFireTransactionMACRecord {
    guard let record = try? DESFireTransactionMACRecord(bytes: answer) else {
      throw .malformed("\(answer.count) bytes for TMC ‖ TMV (12)", command: command)
    }
    return record
  }
}
