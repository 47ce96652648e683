/// The native commands of the PICC level and of applications' keys (NXP MF3ICDx21_41_81 data
/// sheet §9.3 "Security related commands" and §9.4 "PICC level commands").
extension DESFireVirtualTag {
  /// Runs one native command (no chain open); a Light's Transaction MAC sees it first and last
  /// (DESFireVirtualTag+TransactionMAC.swift).
  func perform(_ command: UInt8, _ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    if let answer = transactionMACCommand(command, data) { return answer }
    let answer = performCommand(command, data)
    recordTransactionMAC(command, data, answer)
    return answer
  }

  /// The command's own work.
  private func performCommand(_ command: UInt8, _ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    switch command {
    case 0x60: return getVersion(data)
    case 0x6A: return getApplicationIDs(data)
    case 0x5A: return selectApplication(data)
    case 0xCA: return createApplication(data)
    case 0xDA: return deleteApplication(data)
    case 0xFC: return formatPICC(data)
    case 0x6E: return getFreeMemory(data)
    case 0x45: return getKeySettings(data)
    case 0x64: return getKeyVersion(data)
    case 0x6F: return getFileIDs(data)
    case 0x61: return getISOFileIDs(data)
    case 0xF5: return getFileSettings(data)
    case 0xCD: return createStdDataFile(data)
    case 0xDF: return deleteFile(data)
    case 0xBD: return readData(data)
    case 0x3D: return writeData(data)
    case 0xAD where chip.isLight: return readData(data)   // AN12343's ReadData and WriteData codes
    case 0x8D where chip.isLight: return writeData(data)
    case 0x0A, 0x1A, 0xAA: return authenticate(command, data)
    case 0xC4: return changeKey(data)
    case 0x54: return changeKeySettings(data)
    case 0x51: return getCardUID(data)
    case 0x5C: return setConfiguration(data)
    case 0x6D: return getDFNames(data)
    case 0xCB: return createBackupDataFile(data)
    case 0xCC: return createValueFile(data)
    case 0xC1: return createRecordFile(data, cyclic: false)
    case 0xC0: return createRecordFile(data, cyclic: true)
    case 0x5F: return changeFileSettings(data)
    case 0x6C: return getValue(data)
    case 0x0C: return credit(data)
    case 0xDC: return debit(data)
    case 0x1C: return limitedCredit(data)
    case 0x3B: return writeRecord(data)
    case 0xBB: return readRecords(data)
    case 0xEB: return clearRecordFile(data)
    case 0xC7: return commitTransaction(data)
    case 0xA7: return abortTransaction(data)
    default: return (.illegalCommand, [])
    }
  }

  /// GetVersion (60h): the hardware frame, the software frame, then UID, batch and production date.
  private func getVersion(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard data.isEmpty else { return (.lengthError, []) }
    return chained(frames: [chip.hardwareVersion, chip.softwareVersion, versionUID + Self.production])
  }

  /// GetApplicationIDs (6Ah): every AID, 3 bytes each, 19 to a frame; at the PICC level, free
  /// when the PICC key settings' bit 1 is set.
  private func getApplicationIDs(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard data.isEmpty else { return (.lengthError, []) }
    guard selectedAID == 0 else { return (.permissionDenied, []) }
    guard picc.keySettings & 0x02 != 0 || masterKeyAuthenticated else { return (needsMasterKey, []) }
    let aids = applications.flatMap { DESFireBytes.uint24(Int($0.aid)) }
    guard !aids.isEmpty else { return (.operationOK, []) }
    let perFrame = 19 * 3
    let frames = stride(from: 0, to: aids.count, by: perFrame).map { Array(aids[$0..<min(aids.count, $0 + perFrame)]) }
    return chained(frames: frames)
  }

  /// GetDFNames (6Dh): for each application with a DF name, AID(3) ISO FID(2) name, one to a
  /// frame; at the PICC level, free when the PICC key settings' bit 1 is set.
  private func getDFNames(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard data.isEmpty else { return (.lengthError, []) }
    guard selectedAID == 0 else { return (.permissionDenied, []) }
    guard picc.keySettings & 0x02 != 0 || masterKeyAuthenticated else { return (needsMasterKey, []) }
    let frames = applications.compactMap { application -> [UInt8]? in
      guard let name = application.dfName else { return nil }
      return DESFireBytes.uint24(Int(application.aid)) + DESFireBytes.uint16(application.isoFileID ?? 0) + name
    }
    return frames.isEmpty ? (.operationOK, []) : chained(frames: frames)
  }

  /// SelectApplication (5Ah): AID 000000 is the PICC level; ends any authentication.
  private func selectApplication(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard data.count == 3, let aid = DESFireBytes.uint24(data, at: 0) else { return (.lengthError, []) }
    guard !selectionFault else { return (.ev2SelectionFault, []) }  // the EV2 after its random FCI
    guard aid == 0 || applications.contains(where: { $0.aid == UInt32(aid) }) else { return (.applicationNotFound, []) }
    select(aid: UInt32(aid))
    return (.operationOK, [])
  }

  /// Selects an application (or the PICC level): no authentication, no ISO file, no transaction.
  func select(aid: UInt32) {
    selectedAID = aid
    endAuthentication()
    selectedFile = nil
    transaction = DESFireTransaction()
  }

  /// CreateApplication (CAh): AID(3) KS1 KS2 [ISO FID(2) [DF name 1-16]] when KS2 bit 5.
  private func createApplication(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard data.count >= 5, let aid = DESFireBytes.uint24(data, at: 0) else { return (.lengthError, []) }
    let ks1 = data[data.startIndex + 3], ks2 = data[data.startIndex + 4]
    let usesISO = ks2 & 0x20 != 0
    let rest = data.dropFirst(5)
    var isoFileID: UInt16?
    var dfName: [UInt8]?
    if usesISO {
      guard rest.count >= 2, rest.count <= 2 + 16 else { return (.lengthError, []) }
      isoFileID = UInt16(rest[rest.startIndex]) | UInt16(rest[rest.startIndex + 1]) << 8
      if rest.count > 2 { dfName = Array(rest.dropFirst(2)) }
    } else {
      guard rest.isEmpty else { return (.lengthError, []) }
    }
    guard selectedAID == 0 else { return (.permissionDenied, []) }
    guard picc.keySettings & 0x04 != 0 || masterKeyAuthenticated else { return (needsMasterKey, []) }
    let keyCount = Int(ks2 & 0x0F)
    guard aid != 0, (1...14).contains(keyCount), ks2 & 0x10 == 0,
          let keyType = DESFireKeyType(rawValue: ks2 & 0xC0) else { return (.parameterError, []) }
    if let fid = isoFileID, [0x0000, 0x3F00, 0x3FFF, 0xFFFF].contains(fid) { return (.parameterError, []) }
    guard !applications.contains(where: { $0.aid == UInt32(aid) }) else { return (.duplicateError, []) }
    if let fid = isoFileID, applications.contains(where: { $0.isoFileID == fid }) { return (.duplicateError, []) }
    if let name = dfName, name == Self.piccDFName || applications.contains(where: { $0.dfName == name }) {
      return (.duplicateError, [])
    }
    guard applications.count < Self.maxApplications else { return (.countError, []) }
    applications.append(DESFireApplication(aid: UInt32(aid), keySettings: ks1,
                                           keys: Array(repeating: .zero(keyType), count: keyCount),
                                           isoFileID: isoFileID, usesISOFileIDs: usesISO, dfName: dfName, files: [:]))
    memoryGeneration += 1
    return (.operationOK, [])
  }

  /// DeleteApplication (DAh): with the PICC master key, or the application's own master key
  /// while it is selected. Deleting the selected application returns to the PICC level.
  private func deleteApplication(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard data.count == 3, let aid = DESFireBytes.uint24(data, at: 0) else { return (.lengthError, []) }
    guard aid != 0 else { return (.parameterError, []) }
    guard let index = applications.firstIndex(where: { $0.aid == UInt32(aid) }) else { return (.applicationNotFound, []) }
    guard masterKeyAuthenticated, selectedAID == 0 || selectedAID == UInt32(aid) else { return (needsMasterKey, []) }
    applications.remove(at: index)
    if selectedAID == UInt32(aid) { select(aid: 0) }
    memoryGeneration += 1
    return (.operationOK, [])
  }

  /// FormatPICC (FCh): every application goes, the memory comes back; the PICC key stays.
  private func formatPICC(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard data.isEmpty else { return (.lengthError, []) }
    guard selectedAID == 0 else { return (.permissionDenied, []) }
    guard masterKeyAuthenticated else { return (needsMasterKey, []) }
    guard !configuration.contains(.formatDisabled) else { return (.permissionDenied, []) }  // SetConfiguration bit 0
    applications = []
    freeMemory = chip.memorySize
    memoryGeneration += 1
    return (.operationOK, [])
  }

  /// GetFreeMemory (6Eh): 3 bytes, least significant first.
  private func getFreeMemory(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard data.isEmpty else { return (.lengthError, []) }
    return (.operationOK, DESFireBytes.uint24(freeMemory))
  }

  /// GetKeySettings (45h): KS1, then the key count with the key type in bits 7-6; free when
  /// KS1 bit 1 is set.
  private func getKeySettings(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard data.isEmpty else { return (.lengthError, []) }
    let level = currentApplication ?? picc
    guard level.keySettings & 0x02 != 0 || masterKeyAuthenticated else { return (needsMasterKey, []) }
    return (.operationOK, [level.keySettings, UInt8(level.keys.count) | level.keyType.rawValue])
  }

  /// GetKeyVersion (64h): KeyNo → the key's version; no authentication needed.
  private func getKeyVersion(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard data.count == 1, let keyNumber = data.first else { return (.lengthError, []) }
    let keys = (currentApplication ?? picc).keys
    guard Int(keyNumber) < keys.count else { return (.noSuchKey, []) }
    return (.operationOK, [keys[Int(keyNumber)].version])
  }
}
