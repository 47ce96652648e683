/// The host's side of an EV2 secure-messaging session after AuthenticateEV2First, without I/O.
///
/// ``command(_:header:data:mode:)`` builds the wrapped command for the current CmdCtr;
/// ``response(to:_:mode:)`` checks the card's answer to it (status, then MAC), advances CmdCtr and
/// returns the plain answer data. An answer MAC that does not verify is
/// ``EV2Error/responseMACMismatch(command:)``, never data. Any status other than `91 00` ends the
/// session, as it ends the card's authentication (NT4H2421Gx datasheet §9.1.9). Frames are single:
/// chained commands and `91 AF` answers are the caller's to join.
///
/// MAC inputs: `Cmd || CmdCtr || TI || CmdHeader || CmdData` for commands, `RC || CmdCtr+1 || TI ||
/// RespData` for answers (§9.1.9); Full mode's IVs: `E(SesAuthENCKey, A5 5A || TI || CmdCtr || 00…)`
/// and `E(SesAuthENCKey, 5A A5 || TI || CmdCtr+1 || 00…)` (§9.1.4). CommMode.Plain commands carry no
/// MAC but still advance CmdCtr (§9.1.8).
public struct EV2HostSession<Cipher: EV2Cipher>: Sendable {
  /// The transaction identifier the card chose in AuthenticateEV2First (4 bytes, §9.1.1).
  public let transactionIdentifier: [UInt8]
  /// CmdCtr: the number of commands answered since AuthenticateEV2First (§9.1.2).
  public private(set) var commandCounter: UInt16
  /// The key number the session was authenticated with.
  public let keyNumber: UInt8
  /// PDcap2 and PCDcap2 from the authentication; nil for a session built from known keys.
  public let capabilities: AuthenticationCapabilities?
  /// True once the session takes no more commands (an error status, the session's key changed,
  /// or CmdCtr at FFFFh).
  public private(set) var hasEnded = false
  /// SesAuthENCKey and SesAuthMACKey.
  public let keys: EV2SessionKeys

  /// A session from keys and a TI known from elsewhere, for instance a published transcript.
  ///
  /// - Throws: ``EV2Error/invalidLength(field:expected:actual:)`` when TI is not 4 bytes.
  public init(transactionIdentifier: some Collection<UInt8>, keys: EV2SessionKeys, keyNumber: UInt8,
              commandCounter: UInt16 = 0) throws(EV2Error) {
    guard transactionIdentifier.count == 4 else {
      throw .invalidLength(field: "TI", expected: 4, actual: transactionIdentifier.count)
    }
    self.init(unchecked: Array(transactionIdentifier), keys: keys, keyNumber: keyNumber, capabilities: nil,
              commandCounter: commandCounter)
  }

  init(unchecked ti: [UInt8], keys: EV2SessionKeys, keyNumber: UInt8, capabilities: AuthenticationCapabilities?,
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
  ///   - code: the native command code.
  ///   - header: CmdHeader, sent in plain in every mode (a file number, offset and length…).
  ///   - data: CmdData in plain; encrypted here in Full mode.
  ///   - mode: the communication mode the command's access rights require.
  /// - Throws: ``EV2Error/sessionEnded``, ``EV2Error/invalidLength(field:expected:actual:)`` when the
  ///   data field does not fit a short APDU.
  public func command(_ code: UInt8, header: [UInt8] = [], data: [UInt8] = [],
                      mode: CommunicationMode) throws(EV2Error) -> [UInt8] {
    try EV2Frames.wrapped(code, field: header + (try protectedData(code, header: header, data: data, mode: mode)))
  }

  /// CmdData as it travels in `mode`, MACt included: for framings other than one short APDU (ISO
  /// chaining, a native frame).
  public func protectedData(_ code: UInt8, header: [UInt8] = [], data: [UInt8] = [],
                            mode: CommunicationMode) throws(EV2Error) -> [UInt8] {
    guard !hasEnded, commandCounter < .max else { throw .sessionEnded }
    switch mode {
    case .plain:
      return data
    case .mac, .full:
      let sent = mode == .full ? try encryptCommandData(data) : data
      let input = EV2Frames.commandMACInput(code: code, counter: commandCounter, transactionIdentifier: transactionIdentifier,
                                            header: header, data: sent)
      return sent + (try Cipher.truncatedCMAC(input, key: keys.mac))
    }
  }

  /// Checks the card's answer to the command just built, advances CmdCtr, returns RespData in plain.
  ///
  /// - Parameters:
  ///   - code: the command code the answer is to (for errors).
  ///   - response: the whole answer, `91 00` included.
  ///   - mode: the communication mode of the command.
  /// - Throws: ``EV2Error/status(command:sw1:sw2:)`` for any status but `91 00` (the session ends),
  ///   ``EV2Error/responseMACMismatch(command:)``, ``EV2Error/invalidPadding``,
  ///   ``EV2Error/invalidLength(field:expected:actual:)``.
  public mutating func response(to code: UInt8, _ response: some Collection<UInt8>,
                                mode: CommunicationMode) throws(EV2Error) -> [UInt8] {
    guard !hasEnded, commandCounter < .max else { throw .sessionEnded }
    let body = try checkedBody(of: Array(response), command: code)
    return try answerData(to: code, body: body, mode: mode)
  }

  /// Checks an answer's data (its status already checked and removed, chained frames joined),
  /// advances CmdCtr, returns RespData in plain.
  ///
  /// - Throws: as ``response(to:_:mode:)``, without the status.
  public mutating func answerData(to code: UInt8, body: [UInt8], mode: CommunicationMode) throws(EV2Error) -> [UInt8] {
    guard !hasEnded, commandCounter < .max else { throw .sessionEnded }
    commandCounter += 1
    if commandCounter == .max { hasEnded = true }
    do { return try plainData(fromBody: body, command: code, mode: mode) } catch {
      if case .responseMACMismatch = error { hasEnded = true }
      throw error
    }
  }

  /// The plaintext of a key-change cryptogram: `NewKey || KeyVer` when the key changed is the
  /// session's own (or `oldKey` is nil), otherwise `(NewKey XOR OldKey) || KeyVer || CRC32NK`, CRC32NK
  /// being `crc32` of the new key, least significant byte first (NT4H2421Gx datasheet §10.6.1,
  /// Table 63). Send it with ``command(_:header:data:mode:)`` in Full mode and check the answer with
  /// ``changeKeyResponse(keyNumber:_:)``.
  public static func changeKeyPlaintext(newKey: [UInt8], newVersion: UInt8, oldKey: [UInt8]?,
                                        crc32: ([UInt8]) -> UInt32) -> [UInt8] {
    guard let oldKey else { return newKey + [newVersion] }
    let crc = crc32(newKey)
    return zip(newKey, oldKey).map { $0 ^ $1 } + [newVersion]
      + [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)]
  }

  /// Checks the answer to a ChangeKey (`C4`).
  ///
  /// When the session's own key was changed the card answers `91 00` without a MAC and the
  /// authentication ends (NXP AN12196 rev 2.0 §5.16): so does this session. Otherwise the answer is
  /// checked as a MAC-mode answer.
  public mutating func changeKeyResponse(keyNumber: UInt8, _ response: some Collection<UInt8>,
                                         code: UInt8 = 0xC4) throws(EV2Error) {
    if keyNumber == self.keyNumber {
      guard !hasEnded else { throw .sessionEnded }
      let body = try checkedBody(of: Array(response), command: code)
      guard body.isEmpty else { throw .invalidLength(field: "ChangeKey answer", expected: 0, actual: body.count) }
      commandCounter &+= 1
      hasEnded = true
    } else {
      _ = try self.response(to: code, response, mode: .full)
    }
  }

  /// Ends the session: the caller saw it end on the card (a selection, an error status it checked itself).
  public mutating func end() { hasEnded = true }

  private mutating func checkedBody(of bytes: [UInt8], command: UInt8) throws(EV2Error) -> [UInt8] {
    do { return try EV2Frames.body(of: bytes, command: command) } catch {
      if case .status = error { hasEnded = true }
      throw error
    }
  }

  private func plainData(fromBody body: [UInt8], command: UInt8, mode: CommunicationMode) throws(EV2Error) -> [UInt8] {
    guard mode != .plain else { return body }
    guard body.count >= EV2Frames.macLength else {
      throw .invalidLength(field: "response with MAC", expected: EV2Frames.macLength, actual: body.count)
    }
    let data = Array(body[..<(body.count - EV2Frames.macLength)])
    let input = EV2Frames.macInput(transactionIdentifier: transactionIdentifier, counter: commandCounter, data: data)
    guard EV2Frames.macsMatch(try Cipher.truncatedCMAC(input, key: keys.mac), body[(body.count - EV2Frames.macLength)...]) else {
      throw .responseMACMismatch(command: command)
    }
    guard mode == .full, !data.isEmpty else { return data }
    guard data.count % EV2Frames.blockLength == 0 else {
      throw .invalidLength(field: "encrypted response data",
                           expected: (data.count / EV2Frames.blockLength + 1) * EV2Frames.blockLength, actual: data.count)
    }
    let iv = try Cipher.encryptBlock(
      EV2Frames.ivInput(label: (0x5A, 0xA5), transactionIdentifier: transactionIdentifier, counter: commandCounter), key: keys.encryption)
    return try EV2Frames.unpad(try Cipher.cbcDecrypt(data, key: keys.encryption, iv: iv))
  }

  private func encryptCommandData(_ data: [UInt8]) throws(EV2Error) -> [UInt8] {
    guard !data.isEmpty else { return [] }
    let iv = try Cipher.encryptBlock(
      EV2Frames.ivInput(label: (0xA5, 0x5A), transactionIdentifier: transactionIdentifier, counter: commandCounter), key: keys.encryption)
    return try Cipher.cbcEncrypt(EV2Frames.pad(data), key: keys.encryption, iv: iv)
  }
}
