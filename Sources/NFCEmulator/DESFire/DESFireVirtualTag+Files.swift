import NFCTransport

/// The native file commands (NXP MF3ICDx21_41_81 data sheet §9.5 "Application level commands" and
/// §9.6 "Data manipulation commands", standard data files) and the ISO/IEC 7816-4 commands on
/// files with ISO file identifiers (§2.2; NXP AN11004 for the NDEF application).
extension DESFireVirtualTag {
  /// The selected application for a file command, or the refusal: 9Dh at the PICC level (it has
  /// no files), the master-key refusal when `freeBit` of KS1 is clear and the master key is not
  /// authenticated.
  private func applicationForFiles(freeBit: UInt8) -> Result<DESFireApplication, DESFireStatus> {
    guard let application = currentApplication else { return .failure(.permissionDenied) }
    guard application.keySettings & freeBit != 0 || masterKeyAuthenticated else { return .failure(needsMasterKey) }
    return .success(application)
  }

  /// GetFileIDs (6Fh): the file numbers.
  func getFileIDs(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard data.isEmpty else { return (.lengthError, []) }
    switch applicationForFiles(freeBit: 0x02) {
    case .failure(let status): return (status, [])
    case .success(let application): return (.operationOK, application.files.keys.sorted())
    }
  }

  /// GetISOFileIDs (61h): the ISO file identifiers, 2 bytes each, least significant first.
  func getISOFileIDs(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard data.isEmpty else { return (.lengthError, []) }
    switch applicationForFiles(freeBit: 0x02) {
    case .failure(let status): return (status, [])
    case .success(let application):
      let ids = application.files.keys.sorted().compactMap { application.files[$0]?.isoFileID }
      return chained(ids.flatMap(DESFireBytes.uint16))
    }
  }

  /// GetFileSettings (F5h): type, option, access rights (2), then each kind's layout
  /// (``DESFireFile/settings``).
  func getFileSettings(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard data.count == 1, let number = data.first else { return (.lengthError, []) }
    switch applicationForFiles(freeBit: 0x02) {
    case .failure(let status): return (status, [])
    case .success(let application):
      guard number <= 0x1F else { return (.parameterError, []) }
      guard let file = application.files[number] else { return (.fileNotFound, []) }
      return (.operationOK, sdmFileSettings(file) ?? file.settings)  // SDM on: the 424 DNA's layout (DESFireVirtualTag+SDM.swift)
    }
  }

  /// CreateStdDataFile (CDh): FileNo [ISO FID(2) when the application has them] option AR(2) size(3).
  func createStdDataFile(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    let application: DESFireApplication
    switch applicationForFiles(freeBit: 0x04) {
    case .failure(let status): return (status, [])
    case .success(let found): application = found
    }
    let fidLength = application.usesISOFileIDs ? 2 : 0
    guard data.count == 7 + fidLength, let number = data.first,
          let size = DESFireBytes.uint24(data, at: 4 + fidLength) else { return (.lengthError, []) }
    let at = data.startIndex
    let isoFileID = application.usesISOFileIDs ? UInt16(data[at + 1]) | UInt16(data[at + 2]) << 8 : nil
    let option = sdmFileOption(data[at + 1 + fidLength])  // EV3: bit 6 pre-enables SDM (DESFireVirtualTag+SDM.swift)
    guard number <= 0x1F, size > 0,
          let mode = DESFireCommunicationMode(optionByte: option.option) else { return (.parameterError, []) }
    if let fid = isoFileID, [0x0000, 0x3F00, 0x3FFF, 0xFFFF].contains(fid) { return (.parameterError, []) }
    guard application.files[number] == nil,
          isoFileID == nil || !application.files.values.contains(where: { $0.isoFileID == isoFileID }) else {
      return (.duplicateError, [])
    }
    let allocated = (size + 31) / 32 * 32
    guard allocated <= freeMemory else { return (.outOfEEPROM, []) }
    freeMemory -= allocated
    let access = DESFireAccessRights(bytes: data[at + 2 + fidLength], data[at + 3 + fidLength])
    updateCurrent {
      $0.files[number] = DESFireFile(number: number, isoFileID: isoFileID, communication: mode, access: access,
                                     data: [UInt8](repeating: 0, count: size))
      if option.preEnabled { $0.files[number]?.sdm = DESFireFileSDM() }
    }
    return (.operationOK, [])
  }

  /// DeleteFile (DFh): the file goes; its memory stays allocated until FormatPICC.
  func deleteFile(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard data.count == 1, let number = data.first else { return (.lengthError, []) }
    switch applicationForFiles(freeBit: 0x04) {
    case .failure(let status): return (status, [])
    case .success(let application):
      guard number <= 0x1F else { return (.parameterError, []) }
      guard application.files[number] != nil else { return (.fileNotFound, []) }
      if selectedFile == number { selectedFile = nil }
      transaction.files[number] = nil
      transaction.openRecords.remove(number)
      updateCurrent { $0.files[number] = nil }
      return (.operationOK, [])
    }
  }

  /// The file a ReadData or WriteData names (FileNo offset(3) length(3)), with its access
  /// checked against `nibbles`; or the refusal.
  private func dataFile(_ data: ArraySlice<UInt8>, access nibbles: (DESFireAccessRights) -> [UInt8])
    -> Result<(file: DESFireFile, offset: Int, length: Int), DESFireStatus> {
    guard data.count >= 7, let number = data.first, let offset = DESFireBytes.uint24(data, at: 1),
          let length = DESFireBytes.uint24(data, at: 4) else { return .failure(.lengthError) }
    guard let application = currentApplication else { return .failure(.permissionDenied) }
    guard number <= 0x1F else { return .failure(.parameterError) }
    guard let file = application.files[number] else { return .failure(.fileNotFound) }
    guard file.isDataFile else { return .failure(Self.wrongFileKind) }
    if let refused = refusal(granting: nibbles(file.access)) { return .failure(refused) }
    return .success((file, offset, length))
  }

  /// How a file's data travels for a command its rights grant with `nibbles`: in the file's
  /// mode when the authenticated key is what grants it, else plain (a free right); nil when that
  /// mode is MAC or full under the legacy scheme, whose commands ask `dataTransfer` instead
  /// (DESFireVirtualTag+Legacy.swift).
  func transfer(_ file: DESFireFile, granting nibbles: [UInt8]) -> DESFireCommunicationMode? {
    guard let key = authenticatedKey, nibbles.contains(key), file.communication != .plain, channel != nil else { return .plain }
    return ev1Channel == nil ? nil : file.communication
  }

  /// ReadData (BDh): FileNo offset(3) length(3), length 0 reading to the end; the read or
  /// read-and-write key, or free. In full mode the answer is enciphered; in plain and MAC modes
  /// an EV1 session's CMAC follows the data.
  func readData(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard data.count == 7 else { return (.lengthError, []) }
    switch dataFile(data, access: { [$0.read, $0.readWrite] }) {
    case .failure(let status): return (status, [])
    case .success(let (file, offset, length)):
      let end = length == 0 ? file.data.count : offset + length
      guard offset < file.data.count, end <= file.data.count else { return (.boundaryError, []) }
      guard let mode = dataTransfer(file, granting: [file.access.read, file.access.readWrite]) else { return (.permissionDenied, []) }
      var contents = file.data
      switch sdmContents(of: file, from: offset) {  // SDM's mirrors (DESFireVirtualTag+SDM.swift)
      case .failure(let status)?: return (status, [])
      case .success(let mirrored)?: contents = mirrored
      case nil: break
      }
      let bytes = Array(contents[offset..<end])
      return chained(protectedAnswer(bytes, mode: mode))
    }
  }

  /// WriteData (3Dh): FileNo offset(3) length(3) data; the data may come in several frames. In MAC
  /// mode an 8-byte CMAC of the whole command follows the data; in full mode the data comes
  /// enciphered with its CRC32.
  func writeData(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    switch dataFile(data, access: { [$0.write, $0.readWrite] }) {
    case .failure(let status): return (status, [])
    case .success(let (file, offset, length)):
      guard length > 0 else { return (.lengthError, []) }
      guard offset + length <= file.data.count else { return (.boundaryError, []) }
      guard let mode = dataTransfer(file, granting: [file.access.write, file.access.readWrite]) else { return (.permissionDenied, []) }
      let block = ev1Channel?.blockLength ?? 8
      let expected = legacyExpected(length, mode: mode)
        ?? (mode == .full ? (length + 4 + block - 1) / block * block : length + (mode == .mac ? 8 : 0))
      return continueWrite(command: 0x3D, header: Array(data.prefix(7)), mode: mode, expected: expected,
                           received: Array(data.dropFirst(7)))
    }
  }

  /// A WriteData (3Dh) or WriteRecord (3Bh) with `received` of the `expected` bytes: AFh for more;
  /// once complete, its MAC checked or its data deciphered (1Eh when that fails), then the write.
  func continueWrite(command: UInt8, header: [UInt8], mode: DESFireCommunicationMode, expected: Int,
                     received: [UInt8]) -> (DESFireStatus, [UInt8]) {
    guard received.count <= expected else { return (.lengthError, []) }
    guard received.count == expected else {
      pending = .write(command: command, header: header, mode: mode, expected: expected, received: received)
      return (.additionalFrame, [])
    }
    let prefix = [command] + header
    guard let number = header.first, let offset = DESFireBytes.uint24(header[...], at: 1),
          let length = DESFireBytes.uint24(header[...], at: 4) else { return (.lengthError, []) }
    var bytes = received
    if let unwrapped = legacyUnwrap(received, length: length, mode: mode) {
      guard let plain = unwrapped else { return (.integrityError, []) }
      bytes = plain
    } else {
      switch mode {
      case .plain:
        ev1Channel?.received(prefix + received)
      case .mac:
        guard let channel = ev1Channel, channel.checkMAC(prefix + received.prefix(length), mac: Array(received.suffix(8))) else {
          return (.integrityError, [])
        }
        bytes = Array(received.prefix(length))
      case .full:
        guard let plain = ev1Channel?.decipher(prefix: prefix, received, length: length) else { return (.integrityError, []) }
        bytes = plain
      }
    }
    guard bytes.count == length else { return (.lengthError, []) }
    if command == 0x3B {
      storeRecord(bytes, number: number, offset: offset)
    } else {
      storeData(bytes, number: number, offset: offset)
    }
    return (.operationOK, [])
  }

  // MARK: - ISO/IEC 7816-4

  /// SELECT, READ BINARY and UPDATE BINARY (CLA 00), answered with ISO status words.
  func iso(_ frame: [UInt8]) -> [UInt8] {
    guard let apdu = ShortAPDU(frame) else { return StatusWord.wrongLength.bytes }
    switch apdu.ins {
    case 0xA4: return isoSelect(apdu)
    case 0xB0: return readBinary(apdu)
    case 0xD6: return updateBinary(apdu)
    default: return StatusWord.instructionNotSupported.bytes
    }
  }

  private func isoSelect(_ apdu: ShortAPDU) -> [UInt8] {
    guard apdu.p2 == 0x00 || apdu.p2 == 0x0C else { return StatusWord.incorrectP1P2.bytes }
    switch apdu.p1 {
    case 0x04:
      guard !apdu.data.isEmpty else { return StatusWord.wrongLength.bytes }
      if apdu.data == Self.piccDFName {
        select(aid: 0)
        selectionFault = false
        return StatusWord.success.bytes
      }
      guard let application = applications.first(where: { $0.dfName == apdu.data }) else {
        if chip.answersRandomFCIForMissingNDEFApplication, apdu.data == Self.ndefDFName { return randomFCI() }
        return StatusWord.fileNotFound.bytes
      }
      select(aid: application.aid)
      return lightFCI(apdu) + StatusWord.success.bytes  // a DESFire Light's file 1Fh
    case 0x00, 0x02:
      guard apdu.data.count == 2 else { return StatusWord.wrongLength.bytes }
      let fid = UInt16(apdu.data[0]) << 8 | UInt16(apdu.data[1])
      if fid == 0x3F00, apdu.p1 == 0x00 {
        select(aid: 0)
        selectionFault = false
        return StatusWord.success.bytes
      }
      if let file = currentApplication?.files.values.first(where: { $0.isoFileID == fid }) {
        selectedFile = file.number
        return StatusWord.success.bytes
      }
      if apdu.p1 == 0x00, let application = applications.first(where: { $0.isoFileID == fid }) {
        select(aid: application.aid)
        return lightFCI(apdu) + StatusWord.success.bytes
      }
      return StatusWord.fileNotFound.bytes
    default:
      return StatusWord.incorrectP1P2.bytes
    }
  }

  /// The NDEF application's DF name (AN11004, mapping 2.0).
  static let ndefDFName: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]

  /// The EV2's answer to an ISO SELECT of the missing NDEF application (https://github.com/revtel/react-native-nfc-manager/issues/815:
  /// "a random File Control Information (`6F ...`)" where EV1 and EV3 answer `6A 82`):
  /// tag 6Fh, a length, that many random bytes, `90 00`. The selection stays as it was, and
  /// SelectApplication answers `91 1B` from here on (``selectionFault``).
  private func randomFCI() -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    let length = Int.random(in: 4...16, using: &generator)
    let body = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
    selectionFault = true
    return [0x6F, UInt8(length)] + body + StatusWord.success.bytes
  }

  /// The ISO-selected file; nil when none (or it was deleted).
  private var isoFile: DESFireFile? {
    guard let number = selectedFile else { return nil }
    return currentApplication?.files[number]
  }

  private func readBinary(_ apdu: ShortAPDU) -> [UInt8] {
    guard apdu.p1 & 0x80 == 0 else { return StatusWord.functionNotSupported.bytes }  // short file identifier
    guard apdu.data.isEmpty, let le = apdu.le else { return StatusWord.wrongLength.bytes }
    guard let file = isoFile else { return StatusWord.commandNotAllowed.bytes }
    guard refusal(granting: [file.access.read, file.access.readWrite]) == nil else {
      return StatusWord.securityStatusNotSatisfied.bytes
    }
    let offset = Int(apdu.p1) << 8 | Int(apdu.p2)
    guard offset < file.data.count else { return StatusWord.wrongParameters.bytes }
    let end = min(file.data.count, offset + le)
    let status = offset + le > file.data.count && le != 256 ? StatusWord.endOfFileReached : StatusWord.success
    var contents = file.data
    switch sdmContents(of: file, from: offset) {  // SDM's mirrors (DESFireVirtualTag+SDM.swift)
    case .failure?: return StatusWord.securityStatusNotSatisfied.bytes
    case .success(let mirrored)?: contents = mirrored
    case nil: break
    }
    return Array(contents[offset..<end]) + status.bytes
  }

  private func updateBinary(_ apdu: ShortAPDU) -> [UInt8] {
    guard apdu.p1 & 0x80 == 0 else { return StatusWord.functionNotSupported.bytes }
    guard !apdu.data.isEmpty else { return StatusWord.wrongLength.bytes }
    guard let file = isoFile else { return StatusWord.commandNotAllowed.bytes }
    guard refusal(granting: [file.access.write, file.access.readWrite]) == nil else {
      return StatusWord.securityStatusNotSatisfied.bytes
    }
    let offset = Int(apdu.p1) << 8 | Int(apdu.p2)
    guard offset < file.data.count else { return StatusWord.wrongParameters.bytes }
    guard offset + apdu.data.count <= file.data.count else { return StatusWord.wrongLength.bytes }
    updateCurrent { $0.files[file.number]?.data.replaceSubrange(offset..<(offset + apdu.data.count), with: apdu.data) }
    return StatusWord.success.bytes
  }
}
