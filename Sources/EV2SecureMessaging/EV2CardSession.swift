/// Why the card refuses a command of an EV2 session, as the status byte it answers with.
public enum EV2CardError: Error, Hashable, Sendable {
  /// The command's MAC does not verify, or its decrypted data is not padded: `91 1E` (INTEGRITY_ERROR).
  case integrity
  /// The command is too short for its MAC or its ciphertext is not whole blocks: `91 7E` (LENGTH_ERROR).
  case length
  /// The cryptographic library failed: `91 EE`.
  case crypto(EV2Error)

  /// The second status byte the card answers with (after `91`).
  public var statusByte: UInt8 {
    switch self {
    case .integrity: return 0x1E
    case .length: return 0x7E
    case .crypto: return 0xEE
    }
  }
}

/// The card's side of an EV2 session: it checks and opens the host's commands and protects its
/// answers, with the host's MAC inputs and IVs (``EV2HostSession``), NT4H2421Gx datasheet §9.1.
public struct EV2CardSession<Cipher: EV2Cipher>: Sendable {
  /// TI.
  public let transactionIdentifier: [UInt8]
  /// CmdCtr before the next command.
  public private(set) var commandCounter: UInt16
  /// The key number the session was authenticated with.
  public let keyNumber: UInt8
  let keys: EV2SessionKeys

  /// A session from keys known from elsewhere (a transcript).
  ///
  /// - Throws: ``EV2Error/invalidLength(field:expected:actual:)`` when TI is not 4 bytes.
  public init(transactionIdentifier: [UInt8], keys: EV2SessionKeys, keyNumber: UInt8,
              commandCounter: UInt16 = 0) throws(EV2Error) {
    guard transactionIdentifier.count == 4 else {
      throw .invalidLength(field: "TI", expected: 4, actual: transactionIdentifier.count)
    }
    self.init(unchecked: transactionIdentifier, keys: keys, keyNumber: keyNumber, commandCounter: commandCounter)
  }

  init(unchecked ti: [UInt8], keys: EV2SessionKeys, keyNumber: UInt8, commandCounter: UInt16) {
    self.transactionIdentifier = ti
    self.keys = keys
    self.keyNumber = keyNumber
    self.commandCounter = commandCounter
  }

  /// True when CmdCtr is FFFFh: the card takes no more commands in this session (§9.1.2).
  public var isExhausted: Bool { commandCounter == .max }

  /// Checks a command's MAC and opens its data.
  ///
  /// - Parameters:
  ///   - code: the command code.
  ///   - header: CmdHeader (plain in every mode).
  ///   - body: what follows the header: CmdData (encrypted in Full mode) and MACt.
  ///   - mode: the mode the command's access rights require.
  /// - Returns: CmdData in plain.
  public func unwrapCommand(_ code: UInt8, header: [UInt8], body: [UInt8],
                            mode: CommunicationMode) throws(EV2CardError) -> [UInt8] {
    guard mode != .plain else { return body }
    guard body.count >= EV2Frames.macLength else { throw .length }
    let sent = Array(body[..<(body.count - EV2Frames.macLength)])
    let input = EV2Frames.commandMACInput(code: code, counter: commandCounter, transactionIdentifier: transactionIdentifier,
                                          header: header, data: sent)
    let expected = try crypto { () throws(EV2Error) in try Cipher.truncatedCMAC(input, key: keys.mac) }
    guard EV2Frames.macsMatch(expected, body[(body.count - EV2Frames.macLength)...]) else { throw .integrity }
    guard mode == .full, !sent.isEmpty else { return sent }
    guard sent.count % EV2Frames.blockLength == 0 else { throw .length }
    let plain = try crypto { () throws(EV2Error) in
      let iv = try Cipher.encryptBlock(
        EV2Frames.ivInput(label: (0xA5, 0x5A), transactionIdentifier: transactionIdentifier, counter: commandCounter), key: keys.encryption)
      return try Cipher.cbcDecrypt(sent, key: keys.encryption, iv: iv)
    }
    do { return try EV2Frames.unpad(plain) } catch { throw .integrity }
  }

  /// Advances CmdCtr and protects an answer's data for `mode` (the status `91 00` is the caller's).
  public mutating func wrapResponse(_ data: [UInt8], mode: CommunicationMode) throws(EV2CardError) -> [UInt8] {
    commandCounter &+= 1
    guard mode != .plain else { return data }
    var sent = data
    if mode == .full, !data.isEmpty {
      sent = try crypto { () throws(EV2Error) in
        let iv = try Cipher.encryptBlock(
          EV2Frames.ivInput(label: (0x5A, 0xA5), transactionIdentifier: transactionIdentifier, counter: commandCounter), key: keys.encryption)
        return try Cipher.cbcEncrypt(EV2Frames.pad(data), key: keys.encryption, iv: iv)
      }
    }
    let input = EV2Frames.macInput(transactionIdentifier: transactionIdentifier, counter: commandCounter, data: sent)
    return sent + (try crypto { () throws(EV2Error) in try Cipher.truncatedCMAC(input, key: keys.mac) })
  }

  /// Advances CmdCtr for an answer sent without a MAC (ChangeKey of the session's own key).
  public mutating func countUnMACedResponse() {
    commandCounter &+= 1
  }

  /// Opens a ChangeKey cryptogram (``EV2HostSession/changeKeyPlaintext(newKey:newVersion:oldKey:crc32:)``).
  ///
  /// - Parameters:
  ///   - keyData: the decrypted CmdData.
  ///   - keyLength: the new key's length (16 for AES).
  ///   - oldKey: nil for the session's own key (sent whole); the key's current value otherwise.
  ///   - crc32: the CRC32 the cryptogram carries (the 424 DNA's and DESFire's JAMCRC).
  /// - Returns: the new key and its version.
  public static func openChangeKey(_ keyData: [UInt8], keyLength: Int = 16, oldKey: [UInt8]?,
                                   crc32: ([UInt8]) -> UInt32) throws(EV2CardError) -> (newKey: [UInt8], version: UInt8) {
    guard let oldKey else {
      guard keyData.count == keyLength + 1 else { throw .length }
      return (Array(keyData[0..<keyLength]), keyData[keyLength])
    }
    guard keyData.count == keyLength + 5, oldKey.count == keyLength else { throw .length }
    let newKey = zip(keyData[0..<keyLength], oldKey).map { $0 ^ $1 }
    let crc = crc32(newKey)
    let sent = UInt32(keyData[keyLength + 1]) | UInt32(keyData[keyLength + 2]) << 8
      | UInt32(keyData[keyLength + 3]) << 16 | UInt32(keyData[keyLength + 4]) << 24
    guard crc == sent else { throw .integrity }
    return (newKey, keyData[keyLength])
  }

  private func crypto<T>(_ body: () throws(EV2Error) -> T) throws(EV2CardError) -> T {
    do { return try body() } catch { throw .crypto(error) }
  }
}
