/// Why the card refused a secure-messaging command: what a 424 DNA answers instead of `91 00`.
///
/// NT4H2421Gx datasheet §10.3, Table 23.
public enum PICCMessagingError: Error, Hashable, Sendable {
  /// The command MAC does not verify, or decrypted data has no valid padding: `91 1E`
  /// (INTEGRITY_ERROR).
  case integrity
  /// The data field is too short for its MAC or not whole blocks: `91 7E` (LENGTH_ERROR).
  case length
  /// swift-crypto refused an operation (a broken invariant); the card answers `91 EE`.
  case crypto(NTAG424Error)

  /// SW2 of the status word the card answers (SW1 is 91h).
  public var statusByte: UInt8 {
    switch self {
    case .integrity: return 0x1E
    case .length: return 0x7E
    case .crypto: return 0xEE
    }
  }
}

/// The card's side of an AES secure-messaging session after AuthenticateEV2First, without I/O.
///
/// ``unwrapCommand(_:header:body:mode:)`` checks a command's MAC (and decrypts Full-mode data) for
/// the current CmdCtr; ``wrapResponse(_:mode:)`` advances CmdCtr and builds the answer's data:
/// plain, data || MACt, or E(data padded) || MACt. The host's side is ``SecureMessagingSession``.
///
/// MAC input: `Cmd || CmdCtr (LSB first) || TI || CmdHeader || CmdData` for commands, `RC (00) ||
/// CmdCtr+1 || TI || RespData` for responses (NT4H2421Gx datasheet §9.1.9); Full mode's IVs are
/// `E(SesAuthENCKey, A5 5A || TI || CmdCtr || 00…)` for commands and `E(SesAuthENCKey, 5A A5 || TI ||
/// CmdCtr+1 || 00…)` for responses, padding ISO/IEC 9797-1 method 2 (§9.1.4, §9.1.10). Checked
/// against NXP AN12196 rev 2.0 §5.4, §5.8.2, §5.9, §5.16 and §6.3 from the card's side.
public struct PICCSession: Sendable {
  /// The transaction identifier chosen in AuthenticateEV2First (4 bytes, §9.1.1).
  public let transactionIdentifier: [UInt8]
  /// CmdCtr: the commands answered since AuthenticateEV2First (§9.1.2).
  public private(set) var commandCounter: UInt16
  /// The key the session was authenticated with.
  public let keyNumber: UInt8
  /// SesAuthENCKey and SesAuthMACKey.
  let keys: SessionKeys

  /// A session from keys and a TI known from elsewhere, for instance a published transcript.
  ///
  /// - Throws: ``NTAG424Error/invalidLength(field:expected:actual:)`` when TI is not 4 bytes,
  ///   ``NTAG424Error/invalidKeyNumber(_:)``.
  public init(transactionIdentifier: [UInt8], keys: SessionKeys, keyNumber: UInt8,
              commandCounter: UInt16 = 0) throws(NTAG424Error) {
    guard transactionIdentifier.count == 4 else {
      throw .invalidLength(field: "TI", expected: 4, actual: transactionIdentifier.count)
    }
    guard keyNumber <= 4 else { throw .invalidKeyNumber(keyNumber) }
    self.init(unchecked: transactionIdentifier, keys: keys, keyNumber: keyNumber, commandCounter: commandCounter)
  }

  init(unchecked ti: [UInt8], keys: SessionKeys, keyNumber: UInt8, commandCounter: UInt16) {
    self.transactionIdentifier = ti
    self.keys = keys
    self.keyNumber = keyNumber
    self.commandCounter = commandCounter
  }

  /// True when CmdCtr reached FFFFh: the session takes no more commands (§9.1.2).
  public var isExhausted: Bool { commandCounter == .max }

  /// Checks a command's MAC and returns its plain data.
  ///
  /// - Parameters:
  ///   - code: the command code (`8D` WriteData…), the first byte of the MAC input.
  ///   - header: CmdHeader (sent in plain in every mode).
  ///   - body: what followed the header in the data field: CmdData, then the 8-byte MACt in
  ///     MAC and Full mode (CmdData encrypted in Full mode).
  ///   - mode: the command's communication mode.
  /// - Returns: CmdData in plain (unpadded in Full mode).
  /// - Throws: ``PICCMessagingError/length`` when the MAC or whole blocks are missing,
  ///   ``PICCMessagingError/integrity`` when the MAC or the padding is wrong.
  public func unwrapCommand(_ code: UInt8, header: [UInt8], body: [UInt8],
                            mode: CommunicationMode) throws(PICCMessagingError) -> [UInt8] {
    guard mode != .plain else { return body }
    guard body.count >= 8 else { throw .length }
    let sent = Array(body[..<(body.count - 8)])
    let macInput = [code] + counterBytes(commandCounter) + transactionIdentifier + header + sent
    let expected = try crypto { () throws(NTAG424Error) in try AESPrimitives.truncatedCMAC(macInput, key: keys.mac) }
    guard AESPrimitives.macsMatch(expected, Array(body[(body.count - 8)...])) else { throw .integrity }
    guard mode == .full, !sent.isEmpty else { return sent }
    guard sent.count % 16 == 0 else { throw .length }
    let plain = try crypto { () throws(NTAG424Error) in
      let iv = try AESPrimitives.encryptBlock(ivInput(label: (0xA5, 0x5A), counter: commandCounter), key: keys.encryption)
      return try AESPrimitives.cbcDecrypt(sent, key: keys.encryption, iv: iv)
    }
    do { return try AESPrimitives.unpad(plain) } catch { throw .integrity }
  }

  /// Advances CmdCtr and returns the response data the card sends before `91 00`.
  ///
  /// - Parameters:
  ///   - data: RespData in plain.
  ///   - mode: plain (data as is), MAC (data || MACt) or Full (E(data padded) || MACt; MACt
  ///     alone for empty data, as AN12196 §5.9's ChangeFileSettings answer shows).
  public mutating func wrapResponse(_ data: [UInt8], mode: CommunicationMode) throws(PICCMessagingError) -> [UInt8] {
    commandCounter &+= 1
    guard mode != .plain else { return data }
    var sent = data
    if mode == .full, !data.isEmpty {
      sent = try crypto { () throws(NTAG424Error) in
        let iv = try AESPrimitives.encryptBlock(ivInput(label: (0x5A, 0xA5), counter: commandCounter), key: keys.encryption)
        return try AESPrimitives.cbcEncrypt(AESPrimitives.pad(data), key: keys.encryption, iv: iv)
      }
    }
    let macInput = [0x00] + counterBytes(commandCounter) + transactionIdentifier + sent
    return sent + (try crypto { () throws(NTAG424Error) in try AESPrimitives.truncatedCMAC(macInput, key: keys.mac) })
  }

  /// Advances CmdCtr for an answer without MAC: ChangeKey of the session's own key, after which
  /// the authentication ends (NXP AN12196 rev 2.0 §5.16).
  public mutating func countUnMACedResponse() {
    commandCounter &+= 1
  }

  private func ivInput(label: (UInt8, UInt8), counter: UInt16) -> [UInt8] {
    [label.0, label.1] + transactionIdentifier + counterBytes(counter) + [UInt8](repeating: 0, count: 8)
  }

  private func counterBytes(_ counter: UInt16) -> [UInt8] { [UInt8(counter & 0xFF), UInt8(counter >> 8)] }

  private func crypto<T>(_ body: () throws(NTAG424Error) -> T) throws(PICCMessagingError) -> T {
    do { return try body() } catch { throw .crypto(error) }
  }
}

/// The card's side of ChangeKey's key data (NT4H2421Gx datasheet §10.6.1, Table 63).
public enum PICCKeyChange {
  /// Decodes ChangeKey's decrypted KeyData.
  ///
  /// Key 0 is sent as `NewKey || KeyVer` (17 bytes); keys 1–4 as `(NewKey XOR OldKey) || KeyVer ||
  /// CRC32NK` (21 bytes), CRC32NK being ``JAMCRC32`` of the new key, least significant byte first.
  ///
  /// - Parameters:
  ///   - keyData: the decrypted, unpadded KeyData.
  ///   - keyNumber: the key being changed.
  ///   - oldKey: its current 16 bytes (used for keys 1–4).
  /// - Returns: the new key's 16 bytes and its version. The card stores them; the bytes leave no
  ///   other way (key material of the card itself).
  /// - Throws: ``PICCMessagingError/length`` for a wrong length, ``PICCMessagingError/integrity``
  ///   when CRC32NK does not match.
  public static func decode(_ keyData: [UInt8], keyNumber: UInt8,
                            oldKey: [UInt8]) throws(PICCMessagingError) -> (newKey: [UInt8], version: UInt8) {
    if keyNumber == 0 {
      guard keyData.count == 17 else { throw .length }
      return (Array(keyData[0..<16]), keyData[16])
    }
    guard keyData.count == 21, oldKey.count == 16 else { throw .length }
    let newKey = zip(keyData[0..<16], oldKey).map { $0 ^ $1 }
    let crc = JAMCRC32.checksum(newKey)
    let sent = UInt32(keyData[17]) | UInt32(keyData[18]) << 8 | UInt32(keyData[19]) << 16 | UInt32(keyData[20]) << 24
    guard crc == sent else { throw .integrity }
    return (newKey, keyData[16])
  }
}
