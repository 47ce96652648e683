/// Creating backup data, value and record files, and ChangeFileSettings (NXP MF3ICDx21_41_81 data
/// sheet §9.5 "Application level commands": CreateBackupDataFile CBh, CreateValueFile CCh,
/// CreateLinearRecordFile C1h, CreateCyclicRecordFile C0h, ChangeFileSettings 5Fh; the bytes as
/// libfreefare's mifare_desfire.c and the proxmark3 client's cmddesfire.c send them).
extension DESFireVirtualTag {
  /// CreateBackupDataFile (CBh): FileNo [ISO FID(2)] option AR(2) size(3), as CreateStdDataFile.
  func createBackupDataFile(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    createFile(data, takesISOFileID: true, parameterLength: 3) { parameters in
      guard let size = DESFireBytes.uint24(parameters, at: 0), size > 0 else { return nil }
      return (.backup, size)
    }
  }

  /// CreateValueFile (CCh): FileNo option AR(2) lower(4) upper(4) value(4) LimitedCredit(1); the
  /// limits in order and the value between them, else 9Eh.
  func createValueFile(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    createFile(data, takesISOFileID: false, parameterLength: 13) { parameters in
      guard let lower = DESFireBytes.int32(parameters, at: 0), let upper = DESFireBytes.int32(parameters, at: 4),
            let value = DESFireBytes.int32(parameters, at: 8), let options = parameters.last,
            lower <= upper, (lower...upper).contains(value), options & 0xFC == 0 else { return nil }
      return (.value(DESFireValueFile(lowerLimit: lower, upperLimit: upper, value: value, options: options,
                                      limitedCreditValue: 0)), 0)
    }
  }

  /// CreateLinearRecordFile (C1h) and CreateCyclicRecordFile (C0h): FileNo [ISO FID(2)] option
  /// AR(2) record size(3) maximum records(3); a cyclic file needs at least 2 (one is the spare).
  func createRecordFile(_ data: ArraySlice<UInt8>, cyclic: Bool) -> (DESFireStatus, [UInt8]) {
    createFile(data, takesISOFileID: true, parameterLength: 6) { parameters in
      guard let size = DESFireBytes.uint24(parameters, at: 0), let count = DESFireBytes.uint24(parameters, at: 3),
            size > 0, count >= (cyclic ? 2 : 1) else { return nil }
      return (.records(DESFireRecordFile(recordSize: size, maxRecords: count, cyclic: cyclic, records: [])), 0)
    }
  }

  /// The checks and the memory every Create…File shares: the application's KS1 bit 2 or its
  /// master key; 7Eh for a wrong length, 9Eh for a bad number, option, ISO FID or parameter, DEh
  /// for a number or ISO FID taken, 0Eh when the memory is short. `make` reads the parameters
  /// after the access rights and gives the kind and the data size (nil: 9Eh).
  private func createFile(_ data: ArraySlice<UInt8>, takesISOFileID: Bool, parameterLength: Int,
                          make: (ArraySlice<UInt8>) -> (kind: DESFireFileKind, size: Int)?) -> (DESFireStatus, [UInt8]) {
    guard let application = currentApplication else { return (.permissionDenied, []) }
    guard application.keySettings & 0x04 != 0 || masterKeyAuthenticated else { return (needsMasterKey, []) }
    let fidLength = takesISOFileID && application.usesISOFileIDs ? 2 : 0
    guard data.count == 4 + fidLength + parameterLength, let number = data.first else { return (.lengthError, []) }
    let at = data.startIndex
    let isoFileID = fidLength == 2 ? UInt16(data[at + 1]) | UInt16(data[at + 2]) << 8 : nil
    guard number <= 0x1F, let mode = DESFireCommunicationMode(optionByte: data[at + 1 + fidLength]),
          let (kind, size) = make(data.suffix(parameterLength)) else { return (.parameterError, []) }
    if let fid = isoFileID, [0x0000, 0x3F00, 0x3FFF, 0xFFFF].contains(fid) { return (.parameterError, []) }
    guard application.files[number] == nil,
          isoFileID == nil || !application.files.values.contains(where: { $0.isoFileID == isoFileID }) else {
      return (.duplicateError, [])
    }
    let allocated = DESFireFile.allocation(kind: kind, size: size)
    guard allocated <= freeMemory else { return (.outOfEEPROM, []) }
    freeMemory -= allocated
    let access = DESFireAccessRights(bytes: data[at + 2 + fidLength], data[at + 3 + fidLength])
    updateCurrent {
      $0.files[number] = DESFireFile(number: number, isoFileID: isoFileID, communication: mode, access: access,
                                     data: [UInt8](repeating: 0, count: size), kind: kind)
    }
    return (.operationOK, [])
  }

  /// ChangeFileSettings (5Fh): FileNo, then the new option and access rights (3 bytes). In plain
  /// when the file's change right is free (E); else only to that key, in an EV1 session enciphered
  /// with their CRC32 as ChangeKeySettings' (`E(option ‖ AR ‖ CRC32(5F ‖ FileNo ‖ option ‖ AR) ‖
  /// padding)`), after 0Ah with their CRC16 in send mode (the legacy channel's `decipher`); F never (9Dh).
  func changeFileSettings(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard let number = data.first else { return (.lengthError, []) }
    guard let application = currentApplication else { return (.permissionDenied, []) }
    guard number <= 0x1F else { return (.parameterError, []) }
    guard let file = application.files[number] else { return (.fileNotFound, []) }
    let settings: [UInt8]
    switch file.access.change {
    case DESFireAccessRights.free:
      guard data.count == 4 else { return (.lengthError, []) }
      ev1Channel?.received([0x5F] + data)
      settings = Array(data.dropFirst())
    case DESFireAccessRights.never:
      return (.permissionDenied, [])
    case let key:
      guard let authenticated = authenticatedKey else { return (.authenticationError, []) }
      guard authenticated == key else { return (.permissionDenied, []) }
      guard let channel else { return (.permissionDenied, []) }  // EV1's or the legacy scheme's (DESFireVirtualTag+Legacy.swift)
      guard let plain = channel.decipher(prefix: [0x5F, number], Array(data.dropFirst()), length: 3) else {
        return (.integrityError, [])
      }
      settings = plain
    }
    guard settings.count == 3, let mode = DESFireCommunicationMode(optionByte: settings[0]) else { return (.parameterError, []) }
    updateCurrent {
      $0.files[number]?.communication = mode
      $0.files[number]?.access = DESFireAccessRights(bytes: settings[1], settings[2])
    }
    return (.operationOK, [])
  }
}
