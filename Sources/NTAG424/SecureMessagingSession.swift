/// An AES secure-messaging session with a 424 DNA after AuthenticateEV2First, without I/O.
///
/// ``command(_:header:data:mode:)`` builds the command APDU for the current CmdCtr;
/// ``response(to:_:mode:)`` checks the tag's answer to it (status, then MAC), advances CmdCtr and
/// returns the plain response data. A response MAC that does not verify is
/// ``NTAG424Error/responseMACMismatch(command:)``, never data. Any status other than `91 00` ends
/// the session, as it ends the tag's authentication (NT4H2421Gx datasheet §9.1.9). Frames are
/// single: chained commands and `91 AF` answers are the caller's to join before and after.
///
/// The MAC input is `Cmd || CmdCtr (LSB first) || TI || CmdHeader || CmdData` for commands and
/// `RC || CmdCtr+1 || TI || RespData` for responses (§9.1.9); Full mode's IVs are
/// `E(SesAuthENCKey, A5 5A || TI || CmdCtr || 00…)` and `E(SesAuthENCKey, 5A A5 || TI || CmdCtr+1 || 00…)` (§9.1.4).
public struct SecureMessagingSession: Sendable {
  /// The transaction identifier the tag chose in AuthenticateEV2First (4 bytes, §9.1.1).
  public let transactionIdentifier: [UInt8]
  /// CmdCtr: the number of commands answered since AuthenticateEV2First (§9.1.2).
  public private(set) var commandCounter: UInt16
  /// The key number the session was authenticated with.
  public let keyNumber: UInt8
  /// PDcap2 and PCDcap2 from the authentication; nil for a session built from known keys.
  public let capabilities: AuthenticationCapabilities?
  /// True once the session can take no more commands (an error status, the authentication
  /// key changed, or CmdCtr at FFFFh).
  public private(set) var hasEnded = false
  /// SesAuthENCKey and SesAuthMACKey.
  let keys: SessionKeys

  /// A session from keys and a TI known from elsewhere, for instance a published transcript.
  ///
  /// - Parameters:
  ///   - transactionIdentifier: TI, 4 bytes.
  ///   - keys: SesAuthENCKey and SesAuthMACKey.
  ///   - keyNumber: the key the session was authenticated with.
  ///   - commandCounter: CmdCtr before the next command.
  /// - Throws: ``NTAG424Error/invalidLength(field:expected:actual:)`` when TI is not 4 bytes.
  public init(transactionIdentifier: some Collection<UInt8>, keys: SessionKeys, keyNumber: UInt8,
              commandCounter: UInt16 = 0) throws(NTAG424Error) {
    guard transactionIdentifier.count == 4 else {
      throw .invalidLength(field: "TI", expected: 4, actual: transactionIdentifier.count)
    }
    guard keyNumber <= 4 else { throw .invalidKeyNumber(keyNumber) }
    self.transactionIdentifier = Array(transactionIdentifier)
    self.keys = keys
    self.keyNumber = keyNumber
    self.commandCounter = commandCounter
    self.capabilities = nil
  }

  init(unchecked ti: [UInt8], keys: SessionKeys, keyNumber: UInt8, capabilities: AuthenticationCapabilities?,
       commandCounter: UInt16 = 0) {
    self.transactionIdentifier = ti
    self.keys = keys
    self.keyNumber = keyNumber
    self.commandCounter = commandCounter
    self.capabilities = capabilities
  }

  /// The command APDU `90 Cmd 00 00 Lc CmdHeader Data [MACt] 00` for the current CmdCtr.
  ///
  /// - Parameters:
  ///   - code: the native command code (`F5` GetFileSettings, `8D` WriteData…).
  ///   - header: CmdHeader, sent in plain in every mode (a file number, offset and length…).
  ///   - data: CmdData in plain; encrypted here in Full mode.
  ///   - mode: the communication mode the command's access rights require.
  /// - Returns: the complete short APDU.
  /// - Throws: ``NTAG424Error/sessionEnded`` and ``NTAG424Error/invalidLength(field:expected:actual:)``
  ///   when the data field would not fit a short APDU (255 bytes).
  public func command(_ code: UInt8, header: [UInt8] = [], data: [UInt8] = [],
                      mode: CommunicationMode) throws(NTAG424Error) -> [UInt8] {
    guard !hasEnded, commandCounter < .max else { throw .sessionEnded }
    var field = header
    switch mode {
    case .plain:
      field += data
    case .mac, .full:
      let sent = mode == .full ? try encryptCommandData(data) : data
      let macInput = [code] + counterBytes(commandCounter) + transactionIdentifier + header + sent
      field += sent + (try AESPrimitives.truncatedCMAC(macInput, key: keys.mac))
    }
    guard field.count <= 255 else { throw .invalidLength(field: "command data field", expected: 255, actual: field.count) }
    return [0x90, code, 0x00, 0x00] + (field.isEmpty ? [] : [UInt8(field.count)] + field) + [0x00]
  }

  /// Checks the tag's answer to the command just built, advances CmdCtr, returns RespData in plain.
  ///
  /// - Parameters:
  ///   - code: the command code the answer is to (for errors).
  ///   - response: the whole answer, `91 00` included.
  ///   - mode: the communication mode of the command.
  /// - Returns: the response data without MAC, decrypted and unpadded in Full mode.
  /// - Throws: ``NTAG424Error/status(command:sw1:sw2:)`` for any status but `91 00` (the session
  ///   ends), ``NTAG424Error/responseMACMismatch(command:)``, ``NTAG424Error/invalidPadding``,
  ///   ``NTAG424Error/invalidLength(field:expected:actual:)``.
  public mutating func response(to code: UInt8, _ response: some Collection<UInt8>,
                                mode: CommunicationMode) throws(NTAG424Error) -> [UInt8] {
    guard !hasEnded, commandCounter < .max else { throw .sessionEnded }
    let body = try checkedBody(of: Array(response), command: code)
    commandCounter += 1
    if commandCounter == .max { hasEnded = true }
    do {
      return try SecureMessagingResponse.data(fromBody: body, command: code, mode: mode, transactionIdentifier: transactionIdentifier,
                                              counter: commandCounter, cipher: SessionResponseCipher(keys: keys))
    } catch {
      if case .responseMACMismatch = error { hasEnded = true }
      throw error
    }
  }

  /// ChangeKey (`C4`) in CommMode.Full, NT4H2421Gx datasheet §10.6.1.
  ///
  /// Key 0 is sent as `NewKey || KeyVer`; keys 1–4 as `(NewKey XOR OldKey) || KeyVer || CRC32NK`
  /// (Table 63), CRC32NK being ``JAMCRC32`` of the new key, least significant byte first. Only a
  /// session authenticated with key 0 may change keys. Answer it with
  /// ``changeKeyResponse(keyNumber:_:)``.
  ///
  /// - Parameters:
  ///   - keyNumber: the key to change, 00h–04h.
  ///   - newKey: its new value.
  ///   - newVersion: its new key version.
  ///   - oldKey: its current value; used only for keys 1–4.
  /// - Throws: ``NTAG424Error/invalidKeyNumber(_:)``, ``NTAG424Error/sessionEnded``.
  public func changeKeyCommand(keyNumber: UInt8, newKey: AESKey, newVersion: UInt8,
                               oldKey: AESKey = .factory) throws(NTAG424Error) -> [UInt8] {
    guard keyNumber <= 4 else { throw .invalidKeyNumber(keyNumber) }
    var plain: [UInt8]
    if keyNumber == 0 {
      plain = newKey.bytes + [newVersion]
    } else {
      plain = zip(newKey.bytes, oldKey.bytes).map { $0 ^ $1 } + [newVersion]
      let crc = JAMCRC32.checksum(newKey.bytes)
      plain += [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)]
    }
    return try command(0xC4, header: [keyNumber], data: plain, mode: .full)
  }

  /// Checks the answer to ``changeKeyCommand(keyNumber:newKey:newVersion:oldKey:)``.
  ///
  /// When the session's own key was changed the tag answers `91 00` without a MAC and the
  /// authentication ends (NXP AN12196 rev 2.0 §5.16): so does this session.
  /// Otherwise the answer is checked as a MAC-mode response.
  ///
  /// - Throws: as ``response(to:_:mode:)``.
  public mutating func changeKeyResponse(keyNumber: UInt8, _ response: some Collection<UInt8>) throws(NTAG424Error) {
    if keyNumber == self.keyNumber {
      guard !hasEnded else { throw .sessionEnded }
      let body = try checkedBody(of: Array(response), command: 0xC4)
      guard body.isEmpty else { throw .invalidLength(field: "ChangeKey answer", expected: 0, actual: body.count) }
      commandCounter &+= 1
      hasEnded = true
    } else {
      _ = try self.response(to: 0xC4, response, mode: .full)
    }
  }

  /// The data before `91 00`; any other status ends the session and throws.
  private mutating func checkedBody(of bytes: [UInt8], command: UInt8) throws(NTAG424Error) -> [UInt8] {
    do { return try SecureMessagingResponse.body(of: bytes, command: command) } catch {
      if case .status = error { hasEnded = true }
      throw error
    }
  }

  private func encryptCommandData(_ data: [UInt8]) throws(NTAG424Error) -> [UInt8] {
    guard !data.isEmpty else { return [] }
    let iv = try AESPrimitives.encryptBlock(ivInput(label: (0xA5, 0x5A), counter: commandCounter), key: keys.encryption)
    return try AESPrimitives.cbcEncrypt(AESPrimitives.pad(data), key: keys.encryption, iv: iv)
  }

  private func ivInput(label: (UInt8, UInt8), counter: UInt16) -> [UInt8] {
    SecureMessagingResponse.ivInput(label: label, transactionIdentifier: transactionIdentifier, counter: counter)
  }

  private func counterBytes(_ counter: UInt16) -> [UInt8] { [UInt8(counter & 0xFF), UInt8(counter >> 8)] }
}

/// ``SecureMessagingResponseCipher`` with swift-crypto and a session's keys: MACt over
/// SesAuthMACKey, AES-128-CBC under SesAuthENCKey.
struct SessionResponseCipher: SecureMessagingResponseCipher {
  let keys: SessionKeys

  func macMatches(_ mac: ArraySlice<UInt8>, over message: [UInt8]) throws(NTAG424Error) -> Bool {
    SecureMessagingResponse.macsMatch(try AESPrimitives.truncatedCMAC(message, key: keys.mac), mac)
  }

  func decrypt(_ ciphertext: [UInt8], ivInput: [UInt8]) throws(NTAG424Error) -> [UInt8] {
    let iv = try AESPrimitives.encryptBlock(ivInput, key: keys.encryption)
    return try AESPrimitives.cbcDecrypt(ciphertext, key: keys.encryption, iv: iv)
  }
}
