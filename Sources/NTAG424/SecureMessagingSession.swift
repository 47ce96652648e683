import EV2SecureMessaging

/// An AES secure-messaging session with a 424 DNA after AuthenticateEV2First, without I/O: the
/// shared ``EV2HostSession`` over swift-crypto (``SwiftCryptoAES``), with the 424 DNA's key numbers
/// (00h–04h), ``AESKey`` and ``NTAG424Error``.
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
  /// The shared session.
  private(set) var shared: EV2HostSession<SwiftCryptoAES>

  /// The transaction identifier the tag chose in AuthenticateEV2First (4 bytes, §9.1.1).
  public var transactionIdentifier: [UInt8] { shared.transactionIdentifier }
  /// CmdCtr: the number of commands answered since AuthenticateEV2First (§9.1.2).
  public var commandCounter: UInt16 { shared.commandCounter }
  /// The key number the session was authenticated with.
  public var keyNumber: UInt8 { shared.keyNumber }
  /// PDcap2 and PCDcap2 from the authentication; nil for a session built from known keys.
  public var capabilities: AuthenticationCapabilities? { shared.capabilities }
  /// True once the session can take no more commands (an error status, the authentication
  /// key changed, or CmdCtr at FFFFh).
  public var hasEnded: Bool { shared.hasEnded }
  /// SesAuthENCKey and SesAuthMACKey.
  var keys: SessionKeys { SessionKeys(shared.keys) }

  /// A session from keys and a TI known from elsewhere, for instance a published transcript.
  ///
  /// - Parameters:
  ///   - transactionIdentifier: TI, 4 bytes.
  ///   - keys: SesAuthENCKey and SesAuthMACKey.
  ///   - keyNumber: the key the session was authenticated with.
  ///   - commandCounter: CmdCtr before the next command.
  /// - Throws: ``NTAG424Error/invalidLength(field:expected:actual:)`` when TI is not 4 bytes,
  ///   ``NTAG424Error/invalidKeyNumber(_:)``.
  public init(transactionIdentifier: some Collection<UInt8>, keys: SessionKeys, keyNumber: UInt8,
              commandCounter: UInt16 = 0) throws(NTAG424Error) {
    let sharedKeys = try keys.shared
    let session = try SwiftCryptoAES.mapped { () throws(EV2Error) in
      try EV2HostSession<SwiftCryptoAES>(transactionIdentifier: transactionIdentifier, keys: sharedKeys, keyNumber: keyNumber,
                                         commandCounter: commandCounter)
    }
    guard keyNumber <= 4 else { throw .invalidKeyNumber(keyNumber) }
    self.init(session)
  }

  /// The session the shared authentication started.
  init(_ shared: EV2HostSession<SwiftCryptoAES>) {
    self.shared = shared
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
    try SwiftCryptoAES.mapped { () throws(EV2Error) in try shared.command(code, header: header, data: data, mode: mode) }
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
    do { return try shared.response(to: code, response, mode: mode) } catch { throw NTAG424Error(error) }
  }

  /// ChangeKey (`C4`) in CommMode.Full, NT4H2421Gx datasheet §10.6.1.
  ///
  /// Key 0 is sent as `NewKey || KeyVer`; keys 1–4 as `(NewKey XOR OldKey) || KeyVer || CRC32NK`
  /// (Table 63), CRC32NK being ``JAMCRC32`` of the new key, least significant byte first
  /// (``EV2HostSession/changeKeyPlaintext(newKey:newVersion:oldKey:crc32:)``). Only a session
  /// authenticated with key 0 may change keys. Answer it with ``changeKeyResponse(keyNumber:_:)``.
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
    let plain = EV2HostSession<SwiftCryptoAES>.changeKeyPlaintext(
      newKey: newKey.bytes, newVersion: newVersion, oldKey: keyNumber == 0 ? nil : oldKey.bytes, crc32: { JAMCRC32.checksum($0) })
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
    do { try shared.changeKeyResponse(keyNumber: keyNumber, response) } catch { throw NTAG424Error(error) }
  }
}

/// ``SecureMessagingResponseCipher`` with swift-crypto and a session's keys: MACt over
/// SesAuthMACKey, AES-128-CBC under SesAuthENCKey.
struct SessionResponseCipher: SecureMessagingResponseCipher {
  let keys: SessionKeys

  func macMatches(_ mac: ArraySlice<UInt8>, over message: [UInt8]) throws(NTAG424Error) -> Bool {
    EV2Frames.macsMatch(try SwiftCryptoAES.truncatedCMAC(message, key: keys.mac), mac)
  }

  func decrypt(_ ciphertext: [UInt8], ivInput: [UInt8]) throws(NTAG424Error) -> [UInt8] {
    let iv = try SwiftCryptoAES.encryptBlock(ivInput, key: keys.encryption)
    return try SwiftCryptoAES.cbcDecrypt(ciphertext, key: keys.encryption, iv: iv)
  }
}
