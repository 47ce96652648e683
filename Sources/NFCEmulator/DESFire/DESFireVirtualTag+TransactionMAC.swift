/// The Transaction MAC of the virtual DESFire Light (NXP MF2DL(H)x0 data sheet rev. 3.3, §10.3;
/// docs/desfire.md, "Transaction MAC"): its file 0Fh holds `TMC ‖ TMV` (12 bytes, read like a
/// standard data file); every ReadData, WriteData, GetValue, Credit, Debit, LimitedCredit,
/// ReadRecords, WriteRecord and ClearRecordFile that succeeds in the application (on another file
/// than 0Fh) joins the transaction's Transaction MAC Input; CommitTransaction raises TMC, stores
/// the TMV of that input and, with option 01h, answers `TMC ‖ TMV`. The cryptography and the
/// input's layouts are the installed security's (``DESFireTransactionMACComputing``: DESFireEmulator
/// runs the DESFire module's `DESFireTransactionMAC`), NFCEmulator having no cipher.
///
/// The virtual EV2/EV3 behave the same once an application has a Transaction MAC file, created
/// by CreateTransactionMACFile (CEh) with its own key (DESFireVirtualTag+TransactionMACFile.swift).
/// Not modelled: DeleteTransactionMACFile, CommitReaderID (C8h), TMCLimit; the Light's
/// AppTransactionMACKey is the all-zero AES key (``lightTransactionMACKey``).
package struct DESFireTMICommand: Hashable, Sendable {
  /// The command code as sent (BDh or ADh, 3Dh or 8Dh, …).
  package var command: UInt8
  /// The command's plain parameters and data after the code (deciphered, without MAC).
  package var parameters: [UInt8]
  /// The plain answer data (ReadData's bytes, GetValue's value, ReadRecords' records).
  package var answer: [UInt8]
  /// The record size of a ReadRecords' file (0 for the other commands).
  package var recordSize: Int

  package init(command: UInt8, parameters: [UInt8], answer: [UInt8], recordSize: Int) {
    self.command = command
    self.parameters = parameters
    self.answer = answer
    self.recordSize = recordSize
  }
}

/// The Transaction MAC a ``DESFireSecurity`` may also supply (DESFireEmulator's does, over OpenSSL).
package protocol DESFireTransactionMACComputing: Sendable {
  /// The 8-byte TMV of `commands` (the Transaction MAC Input they make) for the transaction that
  /// commits as `committedCounter`; nil when a command's bytes are malformed or libcrypto fails.
  func transactionMACValue(key: [UInt8], committedCounter: UInt32, uid: [UInt8], commands: [DESFireTMICommand]) -> [UInt8]?
}

extension DESFireVirtualTag {
  /// The Light's Transaction MAC file number (fixed on the Light).
  static let transactionMACFileNumber: UInt8 = 0x0F
  /// The Light's AppTransactionMACKey in this model: AES 00…00 (CreateTransactionMACFile, which
  /// would set another, is not modelled; what a factory Light holds is not confirmed here).
  package static let lightTransactionMACKey = [UInt8](repeating: 0, count: 16)
  /// The commands whose success joins the Transaction MAC Input (§10.3.4.2).
  static let transactionMACCommands: Set<UInt8> = [0xBD, 0xAD, 0x3D, 0x8D, 0x6C, 0x0C, 0xDC, 0x1C, 0x3B, 0xBB, 0xEB]

  /// The selected application's Transaction MAC file and its AppTransactionMACKey: on a Light,
  /// file 0Fh when it is there (key ``lightTransactionMACKey``); on an EV2/EV3, the file
  /// CreateTransactionMACFile made.
  var transactionMACFile: (file: DESFireFile, key: [UInt8])? {
    guard let application = currentApplication else { return nil }
    if chip.isLight {
      guard let file = application.files[Self.transactionMACFileNumber], file.data.count == 12 else { return nil }
      return (file, Self.lightTransactionMACKey)
    }
    guard let file = application.files.values.first(where: { $0.transactionMACKey != nil }),
          let key = file.transactionMACKey?.key, file.data.count == 12 else { return nil }
    return (file, key)
  }

  /// Adds a command that `answer` shows succeeded to the Transaction MAC Input, when the
  /// application has a Transaction MAC file. The answer's data is the plain data: an EV2 session
  /// protects it afterwards (the Light has no EV1 session).
  func recordTransactionMAC(_ command: UInt8, _ data: ArraySlice<UInt8>, _ answer: (DESFireStatus, [UInt8])) {
    guard Self.transactionMACCommands.contains(command), let tm = transactionMACFile, ev1Channel == nil,
          let number = data.first, number != tm.file.number else { return }
    var plain = answer.1
    switch answer.0 {
    case .operationOK: break
    case .additionalFrame:
      guard case .answer(let rest)? = pending else { return }  // a write still waiting for its data
      plain += rest.flatMap { $0 }
    default: return
    }
    var recordSize = 0
    if command == 0xBB, case .records(let records)? = currentApplication?.files[number]?.kind { recordSize = records.recordSize }
    let isRead = [0xBD, 0xAD, 0xBB, 0x6C].contains(command)
    transaction.transactionMACInput.append(
      DESFireTMICommand(command: command, parameters: Array(data), answer: isRead ? plain : [], recordSize: recordSize))
  }

  /// CommitTransaction (C7h, option 00h or 01h) and AbortTransaction (A7h) in an application with
  /// a Transaction MAC file; nil elsewhere (the transaction's own commands answer). A transaction
  /// of reads alone commits too (its TMV proves what was read); with neither changes nor input
  /// both answer 0Ch as before.
  /// Also CreateTransactionMACFile (CEh) on the EV2/EV3, and WriteData to the Transaction MAC file,
  /// always refused (9Dh: only a commit writes it).
  func transactionMACCommand(_ command: UInt8, _ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8])? {
    if command == 0xCE, let answer = createTransactionMACFile(data) { return answer }
    if command == 0x3D || command == 0x8D, data.count >= 7, let tm = transactionMACFile, data.first == tm.file.number {
      return (.permissionDenied, [])
    }
    guard command == 0xC7 || command == 0xA7, let (file, key) = transactionMACFile else { return nil }
    let input = transaction.transactionMACInput
    if command == 0xA7 {
      guard data.isEmpty else { return (.lengthError, []) }
      guard !transaction.isEmpty || !input.isEmpty else { return (.noChanges, []) }
      transaction = DESFireTransaction()
      return (.operationOK, [])
    }
    guard data.count <= 1 else { return (.lengthError, []) }
    let option = data.first ?? 0
    guard option <= 0x01 else { return (.parameterError, []) }
    guard !transaction.isEmpty || !input.isEmpty else { return (.noChanges, []) }
    let old = file.data.prefix(4).enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    guard old < UInt32.max, let computing = security as? DESFireTransactionMACComputing,
          let tmv = computing.transactionMACValue(key: key, committedCounter: old + 1, uid: uid,
                                                  commands: input), tmv.count == 8 else {
      return (.integrityError, [])
    }
    if transaction.isEmpty {
      transaction = DESFireTransaction()
    } else {
      let (status, _) = commitTransaction([])
      guard status == .operationOK else { return (status, []) }
    }
    let record = (0..<4).map { UInt8(truncatingIfNeeded: (old + 1) >> (8 * UInt32($0))) } + tmv
    updateCurrent { $0.files[file.number]?.data = record }
    return (.operationOK, option == 0x01 ? record : [])
  }
}
