/// The legacy (D40) secure messaging a virtual DESFire speaks after Authenticate (0Ah) with a
/// DES or 2K3DES key (NXP MIFARE DESFire data sheet M075031; DESFire's `DESFireLegacyChannel`
/// describes the scheme): no MAC on plain commands or answers, a 4-byte MAC after the data in
/// MAC mode, `data ‖ CRC16 ‖ 00…` enciphered in full mode, each message from a zero IV. The
/// ciphers are the installed ``DESFireSecurity``'s (NFCEmulator has none); a failed check is 1Eh.
public protocol DESFireLegacySecureChannel: AnyObject {
  /// `data ‖ MAC(data)` (4 bytes), an answer in MAC mode.
  func legacyMACAnswer(_ data: [UInt8]) -> [UInt8]
  /// Whether `mac` (4 bytes) is the MAC of `data`.
  func legacyCheckMAC(_ data: [UInt8], mac: [UInt8]) -> Bool
  /// `data ‖ CRC16(data) ‖ 00…` enciphered, an answer in full mode.
  func legacyEncipherAnswer(_ data: [UInt8]) -> [UInt8]
  /// A full-mode command's `length` data bytes, or nil when its CRC16 or padding is wrong.
  func legacyDecipher(_ ciphertext: [UInt8], length: Int) -> [UInt8]?
}

extension DESFireVirtualTag {
  /// The legacy channel, when the session is an Authenticate (0Ah) one.
  var legacyChannel: (any DESFireLegacySecureChannel)? {
    guard let channel, channel.isLegacy else { return nil }
    return channel as? any DESFireLegacySecureChannel
  }

  /// How a file command's data travels (ReadData, WriteData, GetValue, Credit, Debit,
  /// LimitedCredit, WriteRecord, ReadRecords): as ``transfer(_:granting:)``, and under a legacy
  /// session the file's MAC or full mode when the authenticated key grants the access.
  func dataTransfer(_ file: DESFireFile, granting nibbles: [UInt8]) -> DESFireCommunicationMode? {
    if let key = authenticatedKey, nibbles.contains(key), file.communication != .plain, legacyChannel != nil {
      return file.communication
    }
    return transfer(file, granting: nibbles)
  }

  /// A ReadData, ReadRecords or GetValue answer in `mode` under a legacy session: `data ‖ MAC`, or
  /// `data ‖ CRC16 ‖ 00…` enciphered (nil when there is none or it is plain).
  func legacyAnswer(_ bytes: [UInt8], mode: DESFireCommunicationMode) -> [UInt8]? {
    guard mode != .plain, let legacy = legacyChannel else { return nil }
    return mode == .full ? legacy.legacyEncipherAnswer(bytes) : legacy.legacyMACAnswer(bytes)
  }

  /// How many bytes a WriteData or WriteRecord of `length` data bytes sends in `mode` under a
  /// legacy session (nil when there is none).
  func legacyExpected(_ length: Int, mode: DESFireCommunicationMode) -> Int? {
    guard legacyChannel != nil else { return nil }
    switch mode {
    case .plain: return length
    case .mac: return length + 4
    case .full: return (length + 2 + 7) / 8 * 8
    }
  }

  /// The data of a complete WriteData or WriteRecord, or of a Credit's, Debit's or
  /// LimitedCredit's amount (`length` 4), in MAC or full mode under a legacy session: `.some(nil)`
  /// when the check fails (1Eh), nil when there is no legacy session or the mode is plain.
  func legacyUnwrap(_ received: [UInt8], length: Int, mode: DESFireCommunicationMode) -> [UInt8]?? {
    guard mode != .plain, let legacy = legacyChannel else { return nil }
    if mode == .full { return .some(legacy.legacyDecipher(received, length: length)) }
    guard received.count == length + 4 else { return .some(nil) }
    let data = Array(received.prefix(length))
    return .some(legacy.legacyCheckMAC(data, mac: Array(received.suffix(4))) ? data : nil)
  }
}

extension DESFireVirtualTag {
  /// A data answer (ReadData, ReadRecords, GetValue) as `mode` sends it: the legacy scheme's after
  /// 0Ah, enciphered in full mode under an EV1 session, else plain (an EV1 session's CMAC is added
  /// to a plain answer afterwards). Marks the answer protected when it is.
  func protectedAnswer(_ bytes: [UInt8], mode: DESFireCommunicationMode) -> [UInt8] {
    if let protected = legacyAnswer(bytes, mode: mode) {
      answerProtected = true
      return protected
    }
    if mode == .full, let channel = ev1Channel {
      answerProtected = true
      return channel.encipherAnswer(bytes)
    }
    return bytes
  }
}
