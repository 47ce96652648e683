/// The record file commands (NXP MF3ICDx21_41_81 data sheet §9.6 "Data manipulation commands":
/// WriteRecord 3Bh, ReadRecords BBh, ClearRecordFile EBh; the bytes as libfreefare's
/// mifare_desfire.c sends them). WriteRecord starts a new record in the transaction's working
/// copy (later WriteRecords of the same transaction write into it); CommitTransaction adds it,
/// a cyclic file then dropping its oldest record past `maxRecords - 1`; a linear file that is
/// full refuses a new record (BEh). ReadRecords sees committed records only.
extension DESFireVirtualTag {
  /// The record file a command names, with its access checked against `nibbles`; or the refusal.
  private func recordFile(_ number: UInt8, granting nibbles: (DESFireAccessRights) -> [UInt8])
    -> Result<(file: DESFireFile, records: DESFireRecordFile), DESFireStatus> {
    guard let application = currentApplication else { return .failure(.permissionDenied) }
    guard number <= 0x1F else { return .failure(.parameterError) }
    guard let file = application.files[number] else { return .failure(.fileNotFound) }
    guard case .records(let records) = file.kind else { return .failure(Self.wrongFileKind) }
    if let refused = refusal(granting: nibbles(file.access)) { return .failure(refused) }
    return .success((file, records))
  }

  /// WriteRecord (3Bh): FileNo offset(3) length(3) data, the offset within the record; the write
  /// (or read&write) key. The data may come in several frames and travels as WriteData's.
  func writeRecord(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard data.count >= 7, let number = data.first, let offset = DESFireBytes.uint24(data, at: 1),
          let length = DESFireBytes.uint24(data, at: 4) else { return (.lengthError, []) }
    switch recordFile(number, granting: { [$0.write, $0.readWrite] }) {
    case .failure(let status): return (status, [])
    case .success(let (file, committed)):
      guard length > 0 else { return (.lengthError, []) }
      guard offset + length <= committed.recordSize else { return (.boundaryError, []) }
      if !committed.cyclic, !transaction.openRecords.contains(number),
         let working = workingFile(number), case .records(let records) = working.kind, records.records.count >= records.maxRecords {
        return (.boundaryError, [])
      }
      guard let mode = dataTransfer(file, granting: [file.access.write, file.access.readWrite]) else { return (.permissionDenied, []) }
      let block = ev1Channel?.blockLength ?? 8
      let expected = legacyExpected(length, mode: mode)  // DESFireVirtualTag+Legacy.swift
        ?? (mode == .full ? (length + 4 + block - 1) / block * block : length + (mode == .mac ? 8 : 0))
      return continueWrite(command: 0x3B, header: Array(data.prefix(7)), mode: mode, expected: expected,
                           received: Array(data.dropFirst(7)))
    }
  }

  /// WriteRecord's bytes (checked and deciphered) into the transaction's new record of file
  /// `number`, started on the transaction's first WriteRecord to the file.
  func storeRecord(_ bytes: [UInt8], number: UInt8, offset: Int) {
    guard var working = workingFile(number), case .records(var file) = working.kind,
          offset >= 0, offset + bytes.count <= file.recordSize else { return }
    if !transaction.openRecords.contains(number) || file.records.isEmpty {
      file.records.append([UInt8](repeating: 0, count: file.recordSize))
      transaction.openRecords.insert(number)
    }
    let last = file.records.count - 1
    file.records[last].replaceSubrange(offset..<(offset + bytes.count), with: bytes)
    working.kind = .records(file)
    transaction.files[number] = working
  }

  /// ReadRecords (BBh): FileNo offset(3) count(3): `count` records (0: all) ending `offset`
  /// records before the newest, oldest first; BEh when the file has no record or they are not
  /// there. The read (or read&write) key; in full mode the answer is enciphered.
  func readRecords(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard data.count == 7, let number = data.first, let offset = DESFireBytes.uint24(data, at: 1),
          let count = DESFireBytes.uint24(data, at: 4) else { return (.lengthError, []) }
    switch recordFile(number, granting: { [$0.read, $0.readWrite] }) {
    case .failure(let status): return (status, [])
    case .success(let (file, committed)):
      let records = committed.records
      guard offset < records.count else { return (.boundaryError, []) }
      let available = records.count - offset
      let wanted = count == 0 ? available : count
      guard wanted <= available else { return (.boundaryError, []) }
      guard let mode = dataTransfer(file, granting: [file.access.read, file.access.readWrite]) else { return (.permissionDenied, []) }
      let end = records.count - offset
      let bytes = records[(end - wanted)..<end].flatMap { $0 }
      return chained(protectedAnswer(bytes, mode: mode))
    }
  }

  /// ClearRecordFile (EBh): FileNo; every record goes at the commit. The read&write key only.
  func clearRecordFile(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard data.count == 1, let number = data.first else { return (.lengthError, []) }
    switch recordFile(number, granting: { [$0.readWrite] }) {
    case .failure(let status): return (status, [])
    case .success:
      guard var working = workingFile(number), case .records(var file) = working.kind else { return (Self.wrongFileKind, []) }
      file.records = []
      working.kind = .records(file)
      transaction.files[number] = working
      transaction.openRecords.remove(number)
      return (.operationOK, [])
    }
  }
}
