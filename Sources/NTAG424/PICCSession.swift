import EV2SecureMessaging

/// Why the card refused a secure-messaging command: what a 424 DNA answers instead of `91 00`
/// (NT4H2421Gx datasheet §10.3, Table 23): the shared ``EV2CardError`` (`integrity`: `91 1E`,
/// `length`: `91 7E`, `crypto`: `91 EE`).
public typealias PICCMessagingError = EV2CardError

/// The card's side of an AES secure-messaging session after AuthenticateEV2First, without I/O:
/// the shared ``EV2CardSession`` over swift-crypto, with the 424 DNA's key numbers (00h–04h).
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
  /// The shared card session.
  private(set) var shared: EV2CardSession<SwiftCryptoAES>

  /// The transaction identifier chosen in AuthenticateEV2First (4 bytes, §9.1.1).
  public var transactionIdentifier: [UInt8] { shared.transactionIdentifier }
  /// CmdCtr: the commands answered since AuthenticateEV2First (§9.1.2).
  public var commandCounter: UInt16 { shared.commandCounter }
  /// The key the session was authenticated with.
  public var keyNumber: UInt8 { shared.keyNumber }
  /// SesAuthENCKey and SesAuthMACKey.
  var keys: SessionKeys { SessionKeys(shared.sessionKeys) }

  /// A session from keys and a TI known from elsewhere, for instance a published transcript.
  ///
  /// - Throws: ``NTAG424Error/invalidLength(field:expected:actual:)`` when TI is not 4 bytes,
  ///   ``NTAG424Error/invalidKeyNumber(_:)``.
  public init(transactionIdentifier: [UInt8], keys: SessionKeys, keyNumber: UInt8,
              commandCounter: UInt16 = 0) throws(NTAG424Error) {
    let sharedKeys = try keys.shared
    let session = try SwiftCryptoAES.mapped { () throws(EV2Error) in
      try EV2CardSession<SwiftCryptoAES>(transactionIdentifier: transactionIdentifier, keys: sharedKeys, keyNumber: keyNumber,
                                         commandCounter: commandCounter)
    }
    guard keyNumber <= 4 else { throw .invalidKeyNumber(keyNumber) }
    self.init(session)
  }

  /// The session the shared card authentication started.
  init(_ shared: EV2CardSession<SwiftCryptoAES>) {
    self.shared = shared
  }

  /// True when CmdCtr reached FFFFh: the session takes no more commands (§9.1.2).
  public var isExhausted: Bool { shared.isExhausted }

  /// Checks a command's MAC and returns its plain data.
  ///
  /// - Parameters:
  ///   - code: the command code (`8D` WriteData…), the first byte of the MAC input.
  ///   - header: CmdHeader (sent in plain in every mode).
  ///   - body: what followed the header in the data field: CmdData, then the 8-byte MACt in
  ///     MAC and Full mode (CmdData encrypted in Full mode).
  ///   - mode: the command's communication mode.
  /// - Returns: CmdData in plain (unpadded in Full mode).
  /// - Throws: ``EV2CardError/length`` when the MAC or whole blocks are missing,
  ///   ``EV2CardError/integrity`` when the MAC or the padding is wrong.
  public func unwrapCommand(_ code: UInt8, header: [UInt8], body: [UInt8],
                            mode: CommunicationMode) throws(PICCMessagingError) -> [UInt8] {
    try shared.unwrapCommand(code, header: header, body: body, mode: mode)
  }

  /// Advances CmdCtr and returns the response data the card sends before `91 00`.
  ///
  /// - Parameters:
  ///   - data: RespData in plain.
  ///   - mode: plain (data as is), MAC (data || MACt) or Full (E(data padded) || MACt; MACt
  ///     alone for empty data, as AN12196 §5.9's ChangeFileSettings answer shows).
  public mutating func wrapResponse(_ data: [UInt8], mode: CommunicationMode) throws(PICCMessagingError) -> [UInt8] {
    try shared.wrapResponse(data, mode: mode)
  }

  /// Advances CmdCtr for an answer without MAC: ChangeKey of the session's own key, after which
  /// the authentication ends (NXP AN12196 rev 2.0 §5.16).
  public mutating func countUnMACedResponse() {
    shared.countUnMACedResponse()
  }
}

/// The card's side of ChangeKey's key data (NT4H2421Gx datasheet §10.6.1, Table 63).
public enum PICCKeyChange {
  /// Decodes ChangeKey's decrypted KeyData (``EV2CardSession/openChangeKey(_:keyLength:oldKey:crc32:)``).
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
  /// - Throws: ``EV2CardError/length`` for a wrong length, ``EV2CardError/integrity``
  ///   when CRC32NK does not match.
  public static func decode(_ keyData: [UInt8], keyNumber: UInt8,
                            oldKey: [UInt8]) throws(PICCMessagingError) -> (newKey: [UInt8], version: UInt8) {
    try EV2CardSession<SwiftCryptoAES>.openChangeKey(keyData, keyLength: AESKey.length, oldKey: keyNumber == 0 ? nil : oldKey,
                                                     crc32: { JAMCRC32.checksum($0) })
  }
}
