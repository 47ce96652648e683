/// The value file commands (NXP MF3ICDx21_41_81 data sheet §9.6 "Data manipulation commands":
/// GetValue 6Ch, Credit 0Ch, Debit DCh, LimitedCredit 1Ch; the bytes as libfreefare's
/// mifare_desfire.c sends them: FileNo, then the value or amount as 4 bytes, least significant
/// first). Credit, Debit and LimitedCredit change the transaction's working copy, which
/// CommitTransaction makes the value; GetValue answers the committed value.
///
/// Rights: GetValue and Debit take the read, write or read&write key (NXP's DESFire data sheet's
/// remarks, as vendor SDKs quote them: "requires a preceding authentication with the key specified
/// for Read, Write or Read&Write access"), LimitedCredit the write (or read&write) key, Credit the
/// read&write key only; a free (E) right opens the command in plain,
/// a key opens it in the file's communication mode (MAC: a CMAC of the whole command after the
/// amount; full: the amount and its CRC32 enciphered; after 0Ah the legacy scheme's,
/// DESFireVirtualTag+Legacy.swift).
extension DESFireVirtualTag {
  /// The value file a command names and the mode its data travels in; or the refusal.
  private func valueFile(_ number: UInt8, granting nibbles: (DESFireAccessRights) -> [UInt8])
    -> Result<(file: DESFireFile, mode: DESFireCommunicationMode), DESFireStatus> {
    guard let application = currentApplication else { return .failure(.permissionDenied) }
    guard number <= 0x1F else { return .failure(.parameterError) }
    guard let file = application.files[number] else { return .failure(.fileNotFound) }
    guard case .value = file.kind else { return .failure(Self.wrongFileKind) }
    let granting = nibbles(file.access)
    if let refused = refusal(granting: granting) { return .failure(refused) }
    guard let mode = dataTransfer(file, granting: granting) else { return .failure(.permissionDenied) }
    return .success((file, mode))
  }

  /// GetValue (6Ch): FileNo → the committed value (4 bytes), enciphered in full mode; in plain to
  /// anyone when the file's free GetValue bit is set.
  func getValue(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard data.count == 1, let number = data.first else { return (.lengthError, []) }
    if let file = currentApplication?.files[number], case .value(let value) = file.kind, value.freeGetValue {
      return (.operationOK, DESFireBytes.int32(value.value))
    }
    switch valueFile(number, granting: { [$0.read, $0.write, $0.readWrite] }) {
    case .failure(let status): return (status, [])
    case .success(let (file, mode)):
      guard case .value(let value) = file.kind else { return (Self.wrongFileKind, []) }
      let bytes = DESFireBytes.int32(value.value)
      return (.operationOK, protectedAnswer(bytes, mode: mode))
    }
  }

  /// Credit (0Ch): adds the amount, up to the upper limit (BEh past it); the read&write key.
  func credit(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    changeValue(0x0C, data, granting: { [$0.readWrite] }) { value, amount, _ in
      let result = Int64(value.value) + amount
      guard result <= Int64(value.upperLimit) else { return .boundaryError }
      value.value = Int32(result)
      return nil
    }
  }

  /// Debit (DCh): takes the amount, down to the lower limit (BEh below it); the read, write or
  /// read&write key.
  func debit(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    changeValue(0xDC, data, granting: { [$0.read, $0.write, $0.readWrite] }) { value, amount, number in
      let result = Int64(value.value) - amount
      guard result >= Int64(value.lowerLimit) else { return .boundaryError }
      value.value = Int32(result)
      self.transaction.debited[number, default: 0] += amount
      return nil
    }
  }

  /// LimitedCredit (1Ch): adds at most what the last committed transaction with a Debit took,
  /// once (BEh for more, or for a second one before another Debit is committed); 9Dh when the
  /// file was created without it; the write key.
  func limitedCredit(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    changeValue(0x1C, data, granting: { [$0.write, $0.readWrite] }) { value, amount, number in
      guard value.limitedCreditEnabled else { return .permissionDenied }
      guard !self.transaction.limitedCredits.contains(number), amount <= Int64(value.limitedCreditValue) else {
        return .boundaryError
      }
      let result = Int64(value.value) + amount
      guard result <= Int64(value.upperLimit) else { return .boundaryError }
      value.value = Int32(result)
      self.transaction.limitedCredits.insert(number)
      return nil
    }
  }

  /// Credit, Debit or LimitedCredit: FileNo, then the amount in the file's mode (plain 4 bytes;
  /// MAC 4 bytes and the command's CMAC; full the amount and CRC32 enciphered). A negative amount
  /// is 9Eh. `apply` changes the working copy's value or gives the refusal.
  private func changeValue(_ command: UInt8, _ data: ArraySlice<UInt8>, granting nibbles: (DESFireAccessRights) -> [UInt8],
                           apply: (inout DESFireValueFile, Int64, UInt8) -> DESFireStatus?) -> (DESFireStatus, [UInt8]) {
    guard let number = data.first, data.count >= 5 else { return (.lengthError, []) }
    let mode: DESFireCommunicationMode
    switch valueFile(number, granting: nibbles) {
    case .failure(let status): return (status, [])
    case .success(let found): mode = found.mode
    }
    let sent = Array(data.dropFirst())
    let amountBytes: [UInt8]
    if let unwrapped = legacyUnwrap(sent, length: 4, mode: mode) {  // DESFireVirtualTag+Legacy.swift
      guard let plain = unwrapped else { return (.integrityError, []) }
      amountBytes = plain
    } else {
      switch mode {
      case .plain:
        guard sent.count == 4 else { return (.lengthError, []) }
        ev1Channel?.received([command] + data)
        amountBytes = sent
      case .mac:
        guard sent.count == 12 else { return (.lengthError, []) }
        guard let channel = ev1Channel, channel.checkMAC([command, number] + sent.prefix(4), mac: Array(sent.suffix(8))) else {
          return (.integrityError, [])
        }
        amountBytes = Array(sent.prefix(4))
      case .full:
        guard let plain = ev1Channel?.decipher(prefix: [command, number], sent, length: 4) else { return (.integrityError, []) }
        amountBytes = plain
      }
    }
    guard let amount = DESFireBytes.int32(amountBytes[...], at: 0) else { return (.lengthError, []) }
    guard amount >= 0 else { return (.parameterError, []) }
    guard var working = workingFile(number), case .value(var value) = working.kind else { return (Self.wrongFileKind, []) }
    if let refused = apply(&value, Int64(amount), number) { return (refused, []) }
    working.kind = .value(value)
    transaction.files[number] = working
    return (.operationOK, [])
  }
}
