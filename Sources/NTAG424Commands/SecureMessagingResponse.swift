/// The two cryptographic operations reading a secure-messaging response needs, supplied by the
/// caller so that the decoding itself (``SecureMessagingResponse``) needs no cryptography.
///
/// NTAG424 implements it with swift-crypto and a session's keys (AES-CMAC truncated to MACt,
/// AES-128-CBC; its `SecureMessagingSession` itself reads answers through EV2SecureMessaging's
/// `EV2HostSession`, which the fuzz target checks this decoding against); the fuzz build implements
/// it without cryptography so that generated answers reach past the MAC into the decoding.
public protocol SecureMessagingResponseCipher {
  /// True when `mac` (8 bytes) is MACt(SesAuthMACKey, `message`), NT4H2421Gx datasheet §9.1.9.
  /// Compares in constant time.
  func macMatches(_ mac: ArraySlice<UInt8>, over message: [UInt8]) throws(NTAG424Error) -> Bool
  /// AES-CBC decryption of `ciphertext` (whole 16-byte blocks, padding kept) with the IV
  /// E(SesAuthENCKey, `ivInput`), NT4H2421Gx datasheet §9.1.4.
  func decrypt(_ ciphertext: [UInt8], ivInput: [UInt8]) throws(NTAG424Error) -> [UInt8]
}

/// The decoding of a 424 DNA's answer to a native command in a secure-messaging session, without
/// cryptography: status word, RespData and MACt apart, the lengths checked, the MAC input and the
/// IV input built, the padding removed after decryption (NT4H2421Gx datasheet §9.1.4, §9.1.9, §10.2).
///
/// A response is `RespData || MACt || 91 00` in MAC mode, `E(RespData || 80 00…) || MACt || 91 00`
/// in Full mode (MACt alone when there is no RespData), `RespData || 91 00` in Plain. The MAC input
/// is `RC (00) || CmdCtr+1 (LSB first) || TI || RespData as sent`; Full mode's IV input is
/// `5A A5 || TI || CmdCtr+1 || 00…` (8 zero bytes). The layouts are EV2 secure messaging's
/// (``EV2Frames``, shared with DESFire EV2/EV3): this type names them in the 424 DNA's errors and
/// lets the caller supply the cipher (``SecureMessagingResponseCipher``), as the fuzz build does.
public enum SecureMessagingResponse {
  /// The AES block length: Full mode's data is whole blocks.
  public static let blockLength = EV2Frames.blockLength
  /// The length of MACt, the truncated CMAC appended to MAC and Full mode data.
  public static let macLength = EV2Frames.macLength

  /// The data before `91 00` (``EV2Frames/body(of:command:)``).
  ///
  /// - Throws: ``NTAG424Error/invalidLength(field:expected:actual:)`` for fewer than 2 bytes,
  ///   ``NTAG424Error/status(command:sw1:sw2:)`` for any status but `91 00`.
  public static func body(of response: [UInt8], command: UInt8) throws(NTAG424Error) -> [UInt8] {
    do { return try EV2Frames.body(of: response, command: command) } catch { throw NTAG424Error(error) }
  }

  /// RespData in plain from a body (the answer without `91 00`): MACt checked, then in Full mode
  /// decrypted and unpadded.
  ///
  /// - Parameters:
  ///   - body: the answer without its status word.
  ///   - command: the command code (for errors).
  ///   - mode: the command's communication mode.
  ///   - transactionIdentifier: TI (4 bytes).
  ///   - counter: CmdCtr after the command (CmdCtr+1 of the datasheet's formulas).
  ///   - cipher: the MAC check and the decryption.
  /// - Returns: at most `body.count - 8` bytes (MAC mode) or `body.count - 9` (Full mode, data present).
  /// - Throws: ``NTAG424Error/invalidLength(field:expected:actual:)`` when the MAC is missing or the
  ///   data is not whole blocks, ``NTAG424Error/responseMACMismatch(command:)``,
  ///   ``NTAG424Error/invalidPadding``, and what `cipher` throws.
  public static func data(fromBody body: [UInt8], command: UInt8, mode: CommunicationMode, transactionIdentifier: [UInt8],
                          counter: UInt16, cipher: some SecureMessagingResponseCipher) throws(NTAG424Error) -> [UInt8] {
    guard mode != .plain else { return body }
    guard body.count >= macLength else {
      throw .invalidLength(field: "response with MAC", expected: macLength, actual: body.count)
    }
    let data = Array(body[..<(body.count - macLength)])
    let input = macInput(transactionIdentifier: transactionIdentifier, counter: counter, data: data)
    guard try cipher.macMatches(body[(body.count - macLength)...], over: input) else {
      throw .responseMACMismatch(command: command)
    }
    guard mode == .full, !data.isEmpty else { return data }
    guard data.count % blockLength == 0 else {
      throw .invalidLength(field: "encrypted response data", expected: (data.count / blockLength + 1) * blockLength,
                           actual: data.count)
    }
    let plain = try cipher.decrypt(data, ivInput: ivInput(label: (0x5A, 0xA5), transactionIdentifier: transactionIdentifier,
                                                          counter: counter))
    guard plain.count == data.count else {
      throw .invalidLength(field: "decrypted response data", expected: data.count, actual: plain.count)
    }
    return try unpad(plain)
  }

  /// The response MAC input: `00 || counter (LSB first) || TI || data` (``EV2Frames/macInput(transactionIdentifier:counter:data:)``).
  public static func macInput(transactionIdentifier: [UInt8], counter: UInt16, data: [UInt8]) -> [UInt8] {
    EV2Frames.macInput(transactionIdentifier: transactionIdentifier, counter: counter, data: data)
  }

  /// An IV input: `label || TI || counter (LSB first) || 00 × 8`: `A5 5A` for commands, `5A A5`
  /// for responses (``EV2Frames/ivInput(label:transactionIdentifier:counter:)``).
  public static func ivInput(label: (UInt8, UInt8), transactionIdentifier: [UInt8], counter: UInt16) -> [UInt8] {
    EV2Frames.ivInput(label: label, transactionIdentifier: transactionIdentifier, counter: counter)
  }

  /// ISO/IEC 9797-1 padding method 2 (``EV2Frames/pad(_:)``).
  public static func pad(_ data: [UInt8]) -> [UInt8] { EV2Frames.pad(data) }

  /// Removes ISO/IEC 9797-1 padding method 2 (``EV2Frames/unpad(_:)``).
  ///
  /// - Throws: ``NTAG424Error/invalidPadding`` when the last block does not end in `80 00…`.
  public static func unpad(_ data: [UInt8]) throws(NTAG424Error) -> [UInt8] {
    do { return try EV2Frames.unpad(data) } catch { throw NTAG424Error(error) }
  }

  /// Constant-time comparison of two MACs; false when the lengths differ (``EV2Frames/macsMatch(_:_:)``).
  public static func macsMatch(_ a: [UInt8], _ b: ArraySlice<UInt8>) -> Bool { EV2Frames.macsMatch(a, b) }
}

extension NTAG424Error {
  /// The 424 DNA's error for a failure of the shared EV2 secure messaging: the one mapping, case
  /// for case (``EV2Error`` has the same cases and the same meaning).
  package init(_ error: EV2Error) {
    switch error {
    case .invalidLength(let field, let expected, let actual): self = .invalidLength(field: field, expected: expected, actual: actual)
    case .authenticationFailed: self = .authenticationFailed
    case .status(let command, let sw1, let sw2): self = .status(command: command, sw1: sw1, sw2: sw2)
    case .responseMACMismatch(let command): self = .responseMACMismatch(command: command)
    case .invalidPadding: self = .invalidPadding
    case .sessionEnded: self = .sessionEnded
    case .invalidKeyNumber(let number): self = .invalidKeyNumber(number)
    case .cryptoFailure(let operation): self = .cryptoFailure(operation: operation)
    }
  }
}

/// The joining of a chained answer: while the tag answers `91 AF`, the host asks for the next
/// frame with `90 AF 00 00 00`; the frames' data joined, then the last frame, is the answer
/// (NT4H2421Gx datasheet §10.2, "Additional frame"; GetVersion's three frames, §10.5.2).
///
/// No I/O: the caller sends, and hands each frame to ``add(_:)``.
public struct ChainedAnswer: Sendable {
  /// What ``add(_:)`` found.
  public enum Step: Equatable, Sendable {
    /// `91 AF`: send `90 AF 00 00 00` and add its answer.
    case more
    /// The last frame: the frames' data joined, then the last frame whole (its status word kept).
    case complete([UInt8])
    /// A frame of fewer than 2 bytes: no status word.
    case malformed([UInt8])
    /// More than ``maximumFrames`` frames.
    case tooManyFrames
  }

  /// The most frames an answer may have. GetVersion, with three, is the longest chain of the 424
  /// DNA: its other multi-frame exchanges are the authentications' two parts, and ReadData and
  /// WriteData are never chained with `91 AF` (NT4H2421Gx datasheet §10.2, Table 22; §10.8.1,
  /// Table 79: an answer of up to 256 bytes; §10.8.2: longer frames are ISO/IEC 14443-4 chaining,
  /// below the APDU). The bound leaves room for a tag that chains more, and stops one that never ends.
  public static let maximumFrames = 16

  private var data: [UInt8] = []
  private var frames = 0

  /// An empty answer, before the command's first reply.
  public init() {}

  /// Adds one reply.
  public mutating func add(_ reply: [UInt8]) -> Step {
    guard frames < Self.maximumFrames else { return .tooManyFrames }
    frames += 1
    guard reply.count >= 2 else { return .malformed(reply) }
    guard reply[reply.count - 2] == 0x91, reply[reply.count - 1] == NativeCommand.additionalFrame else {
      return .complete(data + reply)
    }
    guard frames < Self.maximumFrames else { return .tooManyFrames }
    data += reply.dropLast(2)
    return .more
  }
}
