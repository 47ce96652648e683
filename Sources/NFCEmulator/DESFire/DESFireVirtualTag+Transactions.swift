/// Transactions over backup data, value and record files (NXP MF3ICDx21_41_81 data sheet §9.6:
/// CommitTransaction C7h, AbortTransaction A7h). Writes to those files change a working copy of
/// the file; CommitTransaction makes every copy the file, AbortTransaction, selecting an
/// application (or the PICC level) and a reset drop them. Reads (ReadData, GetValue, ReadRecords)
/// see the committed file.
struct DESFireTransaction {
  /// The working copies of the files the transaction changed, by number.
  var files: [UInt8: DESFireFile] = [:]
  /// The record files whose new record this transaction has started (WriteRecord writes into it).
  var openRecords: Set<UInt8> = []
  /// The sum of the Debits of this transaction per value file.
  var debited: [UInt8: Int64] = [:]
  /// The value files a LimitedCredit of this transaction changed.
  var limitedCredits: Set<UInt8> = []
  /// The commands of this transaction that make its Transaction MAC Input (a Light's,
  /// DESFireVirtualTag+TransactionMAC.swift).
  var transactionMACInput: [DESFireTMICommand] = []

  /// Whether there is nothing to commit or abort.
  var isEmpty: Bool { files.isEmpty }
}

extension DESFireVirtualTag {
  /// File `number` of the selected application as the transaction sees it: its working copy, or
  /// the committed file.
  func workingFile(_ number: UInt8) -> DESFireFile? {
    transaction.files[number] ?? currentApplication?.files[number]
  }

  /// A command that names a file of a kind it does not take (ReadData on a value file, GetValue
  /// on a data file): 9Eh. The public data sheet names no status for it; PARAMETER_ERROR ("value
  /// of the parameter(s) invalid") is the file number's.
  static let wrongFileKind = DESFireStatus.parameterError

  /// CommitTransaction (C7h): every working copy becomes its file; 0Ch when there is none (the
  /// status table's NO_CHANGES, "CommitTransaction/AbortTransaction not necessary").
  func commitTransaction(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard data.isEmpty else { return (.lengthError, []) }
    guard currentApplication != nil else { return (.permissionDenied, []) }
    guard !transaction.isEmpty else { return (.noChanges, []) }
    let done = transaction
    transaction = DESFireTransaction()
    updateCurrent { application in
      for (number, working) in done.files {
        guard var file = application.files[number] else { continue }
        file.data = working.data
        switch working.kind {
        case .value(var value):
          if let debited = done.debited[number], debited > 0 {
            value.limitedCreditValue = Int32(clamping: debited)
          } else if done.limitedCredits.contains(number) {
            value.limitedCreditValue = 0
          }
          file.kind = .value(value)
        case .records(var records):
          if records.records.count > records.capacity { records.records.removeFirst(records.records.count - records.capacity) }
          file.kind = .records(records)
        case .standard, .backup:
          file.kind = working.kind
        }
        application.files[number] = file
      }
    }
    return (.operationOK, [])
  }

  /// AbortTransaction (A7h): every working copy is dropped; 0Ch when there is none.
  func abortTransaction(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard data.isEmpty else { return (.lengthError, []) }
    guard currentApplication != nil else { return (.permissionDenied, []) }
    guard !transaction.isEmpty else { return (.noChanges, []) }
    transaction = DESFireTransaction()
    return (.operationOK, [])
  }

  /// WriteData's bytes into file `number`: a standard data file at once, a backup data file into
  /// its working copy.
  func storeData(_ bytes: [UInt8], number: UInt8, offset: Int) {
    guard let file = workingFile(number), offset >= 0, offset + bytes.count <= file.data.count else { return }
    if case .backup = file.kind {
      var copy = file
      copy.data.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
      transaction.files[number] = copy
    } else {
      updateCurrent { $0.files[number]?.data.replaceSubrange(offset..<(offset + bytes.count), with: bytes) }
    }
  }
}
