import NFCTransport
import NTAG424

/// An NTAG 424 DNA on a Type 4 link: its native commands, wrapped in ISO/IEC 7816-4 APDUs, with
/// secure messaging once authenticated (NT4H2421Gx datasheet §9.1, §10).
///
/// The frames and the cryptography are NTAG424's (``SecureMessagingSession``, ``EV2Authentication``,
/// the parsers); this class sends them and joins chained answers (`91 AF`). With a session every
/// command goes in the communication mode its access rights call for, and every response MAC is
/// checked: a wrong one throws ``NTAG424DNAError/tag(_:command:)`` with
/// ``NTAG424Error/responseMACMismatch(command:)``. Any error status ends the session, as it ends
/// the tag's authentication.
///
/// ```swift
/// let tag = NTAG424DNA(link: link)
/// try tag.selectApplication()
/// try tag.authenticate(keyNumber: 0, key: .factory)
/// let settings = try tag.fileSettings(file: NativeCommand.ndefFile)
/// ```
/// - Warning: Not thread-safe: one command at a time.
public final class NTAG424DNA {
  /// The link to the tag; answers keep SW1 SW2.
  public let link: any Transceiver
  /// The secure-messaging session, nil before authentication.
  public private(set) var session: SecureMessagingSession?

  /// The application's DF name, the NDEF Tag Application's (NT4H2421Gx datasheet §8.2.1).
  public static let applicationName: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]

  /// A tag on `link`, with a session already established (a test transcript's), or none.
  public init(link: any Transceiver, session: SecureMessagingSession? = nil) {
    self.link = link
    self.session = session
  }

  /// How long ``authenticate(keyNumber:key:rndA:)`` keeps trying while the tag answers `91 AD`
  /// (``AuthenticationDelayPolicy/standard``: every 100 ms for up to 5 s).
  public var authenticationDelay = AuthenticationDelayPolicy.standard
  /// How many times the last authentication's part 1 was sent again after `91 AD`.
  public private(set) var authenticationDelayRetries = 0

  /// True when a session can take commands.
  public var isAuthenticated: Bool { session.map { !$0.hasEnded } ?? false }

  // MARK: Selection and authentication

  /// ISOSelectFile of the application by DF name: `00 A4 04 0C 07 D2760000850101 00`
  /// (NT4H2421Gx datasheet §10.9.1). Ends any session: the tag drops it on a SELECT.
  ///
  /// - Throws: ``NTAG424DNAError/applicationNotFound(_:)``, ``NTAG424DNAError/transceive(_:command:)``.
  public func selectApplication() throws(NTAG424DNAError) {
    session = nil
    let reply = try send([0x00, 0xA4, 0x04, 0x0C, 0x07] + Self.applicationName + [0x00], what: "SELECT (424 DNA application)")
    guard let sw = StatusWord(trailerOf: reply), reply.count == 2 else {
      throw .transceive(.malformedResponse(reply), command: "SELECT (424 DNA application)")
    }
    guard sw.isSuccess else { throw .applicationNotFound(sw) }
  }

  /// Authenticates with key `keyNumber`: AuthenticateEV2First without a session,
  /// AuthenticateEV2NonFirst inside one (TI and CmdCtr kept).
  ///
  /// Part 1 answered `91 AD` (AUTHENTICATION_DELAY: "keep trying until full delay is spent",
  /// NT4H2421Gx datasheet Table 23) is sent again as ``authenticationDelay`` says. AuthenticateEV2First
  /// answered `91 9D` is checked for LRP: a tag in LRP mode refuses AES authentication with
  /// PERMISSION_DENIED (§9, Table 19; Table 27), and answers AuthenticateLRPFirst's part 1
  /// (PCDCap2.1 = 02h) with AuthMode 01h and RndB (§10.4.3, Table 38), which the host sends to tell
  /// it from a refusal for another reason; part 2 is never sent, so no key is tried.
  ///
  /// - Parameters:
  ///   - keyNumber: 0–4.
  ///   - key: its value.
  ///   - rndA: the host's challenge, nil for a random one (tests pass a transcript's).
  /// - Throws: ``NTAG424DNAError/tag(_:command:)`` with ``NTAG424Error/status(command:sw1:sw2:)``
  ///   `91 AE` for a wrong key, ``NTAG424Error/authenticationFailed``;
  ///   ``NTAG424DNAError/authenticationDelay(command:retries:)`` when `91 AD` outlasted the policy;
  ///   ``NTAG424DNAError/lrpSecureMessaging(command:)``; transceive errors.
  public func authenticate(keyNumber: UInt8, key: AESKey, rndA: [UInt8]? = nil) throws(NTAG424DNAError) {
    if let session, !session.hasEnded {
      try authenticateNonFirst(keyNumber: keyNumber, key: key, rndA: rndA, continuing: session)
      return
    }
    let what = "AuthenticateEV2First (key \(keyNumber))"
    session = nil
    let command = try tagStep(what) { () throws(NTAG424Error) in try EV2Authentication.firstCommand(keyNumber: keyNumber) }
    let encryptedRndB = try firstPart(command, what: what, code: NativeCommand.authenticateEV2First, keyNumber: keyNumber)
    let auth = try tagStep(what) { () throws(NTAG424Error) in
      try EV2Authentication(key: key, keyNumber: keyNumber, encryptedRndB: encryptedRndB, rndA: rndA)
    }
    let second = try send(try tagStep(what) { () throws(NTAG424Error) in try auth.secondCommand }, what: what)
    session = try tagStep(what) { () throws(NTAG424Error) in try auth.finish(response: second) }
  }

  private func authenticateNonFirst(keyNumber: UInt8, key: AESKey, rndA: [UInt8]?,
                                    continuing current: SecureMessagingSession) throws(NTAG424DNAError) {
    let what = "AuthenticateEV2NonFirst (key \(keyNumber))"
    session = nil
    let command = try tagStep(what) { () throws(NTAG424Error) in
      try EV2NonFirstAuthentication.firstCommand(keyNumber: keyNumber)
    }
    let encryptedRndB = try firstPart(command, what: what, code: NativeCommand.authenticateEV2NonFirst, keyNumber: nil)
    let auth = try tagStep(what) { () throws(NTAG424Error) in
      try EV2NonFirstAuthentication(key: key, keyNumber: keyNumber, encryptedRndB: encryptedRndB, rndA: rndA)
    }
    let second = try send(try tagStep(what) { () throws(NTAG424Error) in try auth.secondCommand }, what: what)
    session = try tagStep(what) { () throws(NTAG424Error) in try auth.finish(response: second, continuing: current) }
  }

  /// Sends part 1, again while the tag answers `91 AD` and the policy allows; after `91 9D` to
  /// AuthenticateEV2First (`keyNumber` given), asks whether the tag is in LRP mode. Returns E(Kx, RndB).
  ///
  /// AuthenticateEV2NonFirst (`keyNumber` nil) is not sent again: its `91 AD`, an error status,
  /// ended the authentication it would continue.
  private func firstPart(_ command: [UInt8], what: String, code: UInt8, keyNumber: UInt8?) throws(NTAG424DNAError) -> [UInt8] {
    authenticationDelayRetries = 0
    let maximumRetries = keyNumber == nil ? 0 : authenticationDelay.maximumRetries
    while true {
      let reply = try send(command, what: what)
      if reply == [0x91, 0xAD] {
        guard authenticationDelayRetries < maximumRetries else {
          throw .authenticationDelay(command: what, retries: authenticationDelayRetries)
        }
        authenticationDelay.wait(authenticationDelay.retryInterval)
        authenticationDelayRetries += 1
        continue
      }
      if reply == [0x91, 0x9D], let keyNumber, try usesLRP(keyNumber: keyNumber, what: what) {
        throw .lrpSecureMessaging(command: what)
      }
      return try challenge(reply, what: what, code: code)
    }
  }

  /// AuthenticateLRPFirst's part 1 for key `keyNumber` (`90 71 00 00 03 KeyNo 01 02 00`,
  /// PCDCap2.1 = 02h): a tag in LRP mode answers AuthMode 01h and the 16-byte RndB with `91 AF`,
  /// one in AES mode its 16-byte AES challenge (NT4H2421Gx datasheet §9, Table 19).
  private func usesLRP(keyNumber: UInt8, what: String) throws(NTAG424DNAError) -> Bool {
    let reply = try send([0x90, NativeCommand.authenticateEV2First, 0x00, 0x00, 0x03, keyNumber, 0x01, 0x02, 0x00], what: what)
    return reply.count == 19 && reply.first == 0x01 && reply.suffix(2) == [0x91, NativeCommand.additionalFrame]
  }

  /// E(Kx, RndB) from the answer to part 1, which must end in `91 AF`.
  private func challenge(_ reply: [UInt8], what: String, code: UInt8) throws(NTAG424DNAError) -> [UInt8] {
    guard reply.count >= 2 else { throw .transceive(.malformedResponse(reply), command: what) }
    let sw1 = reply[reply.count - 2], sw2 = reply[reply.count - 1]
    guard sw1 == 0x91, sw2 == 0xAF else { throw .tag(.status(command: code, sw1: sw1, sw2: sw2), command: what) }
    return Array(reply.dropLast(2))
  }

  // MARK: Commands

  /// Identifies the chip: GetVersion in CommMode.Plain, outside any session (which it ends), its
  /// answer read by ``NTAG424Identification``, the one identification `info` uses too (NT4H2421Gx
  /// datasheet §10.5.2: the hardware vendor, type and subtype name the chip).
  ///
  /// - Returns: what GetVersion tells of a 424 DNA.
  /// - Throws: ``NTAG424DNAError/notNTAG424DNA(reason:)`` when the answer names no 424 DNA (a
  ///   refusal, an ISO status word, another chip); transceive errors.
  @discardableResult
  public func identify() throws(NTAG424DNAError) -> ChipVersion {
    session = nil
    let reply = try exchangeFrames([0x90, NativeCommand.getVersion, 0x00, 0x00, 0x00], what: "GetVersion")
    guard reply.count >= 2 else { throw .transceive(.malformedResponse(reply), command: "GetVersion") }
    let identification = NTAG424Identification(getVersionData: Array(reply.dropLast(2)), sw1: reply[reply.count - 2],
                                               sw2: reply[reply.count - 1])
    switch identification {
    case .ntag424(let version): return version
    case .other(let reason): throw .notNTAG424DNA(reason: reason)
    }
  }

  /// GetVersion: the three frames joined and parsed; in MAC mode inside a session.
  public func version() throws(NTAG424DNAError) -> ChipVersion {
    let data = try run(NativeCommand.getVersion, what: "GetVersion", mode: isAuthenticated ? .mac : .plain)
    return try tagStep("GetVersion") { () throws(NTAG424Error) in try ChipVersion(parsing: data) }
  }

  /// GetFileSettings of `file`: in MAC mode inside a session, Plain outside (NT4H2421Gx datasheet §10.7.2).
  public func fileSettings(file: UInt8) throws(NTAG424DNAError) -> FileProperties {
    let data = try run(NativeCommand.getFileSettings, header: [file], what: "GetFileSettings (file \(file))",
                       mode: isAuthenticated ? .mac : .plain)
    return try tagStep("GetFileSettings") { () throws(NTAG424Error) in try FileProperties(parsing: data) }
  }

  /// ChangeFileSettings of `file` in CommMode.Full; needs a session with the file's Change key
  /// (NT4H2421Gx datasheet §10.7.1).
  public func changeFileSettings(file: UInt8, to settings: FileSettings) throws(NTAG424DNAError) {
    let what = "ChangeFileSettings (file \(file))"
    let data = try tagStep(what) { () throws(NTAG424Error) in try settings.changeData() }
    _ = try run(NativeCommand.changeFileSettings, header: [file], data: data, what: what, mode: .full, needsSession: true)
  }

  /// ReadData of `length` bytes at `offset` (0: to the end of the file) in `mode`, the file's
  /// communication mode for the key in use (Plain for free access) (NT4H2421Gx datasheet §10.8.1).
  ///
  /// An answer holds at most 256 bytes, secure messaging included (Table 78, the Length note, and
  /// Table 79), and the tag does not chain ReadData's answer with `91 AF`: a longer read goes in
  /// several commands, each at its offset, as many bytes as fit with the MAC (MAC mode: 248) or
  /// with the padding and the MAC (Full: 239), and no more than the link carries. The whole NDEF
  /// file (256 bytes) is one command in Plain, two in MAC or Full; the proprietary file (128) one.
  /// A length of 0 is one command, whose answer the tag refuses (`91 7E`) when it would not fit.
  /// `Type4Tag` (NFCTags)'s convention holds for the link: its `maxResponseLength` counts the data.
  public func readData(file: UInt8, offset: Int = 0, length: Int, mode: CommunicationMode) throws(NTAG424DNAError) -> [UInt8] {
    let what = "ReadData (file \(file))"
    let most = Self.largestRead(mode: mode, maxResponseLength: link.capabilities.maxResponseLength)
    var data: [UInt8] = []
    repeat {
      let part = length == 0 ? 0 : min(most, length - data.count)
      let header = try tagStep(what) { () throws(NTAG424Error) in
        try NativeCommand.dataHeader(file: file, offset: offset + data.count, length: part)
      }
      let answer = try run(NativeCommand.readData, header: header, what: what, mode: mode, needsSession: mode != .plain)
      data += try tagStep(what) { () throws(NTAG424Error) in try NativeCommand.checkReadData(answer, length: part) }
    } while length != 0 && data.count < length
    return data
  }

  /// The most bytes one ReadData returns in `mode`: its answer, secure messaging included, holds
  /// 256 bytes (NT4H2421Gx datasheet §10.8.1, Table 79), less when the link carries less (its
  /// response data, the status word apart, as `Type4Tag` (NFCTags) reads it); MAC mode adds 8 bytes, Full
  /// pads to whole 16-byte blocks (one more when the data fills them, §9.1.4) and adds 8.
  static func largestRead(mode: CommunicationMode, maxResponseLength: Int) -> Int {
    let room = min(256, maxResponseLength)
    switch mode {
    case .plain: return max(1, room)
    case .mac: return max(1, room - 8)
    case .full: return max(1, (room - 8) / 16 * 16 - 1)
    }
  }

  /// WriteData of `data` at `offset` in `mode`, in as many commands as the frame size needs
  /// (NT4H2421Gx datasheet §10.8.2).
  public func writeData(file: UInt8, offset: Int = 0, data: [UInt8], mode: CommunicationMode) throws(NTAG424DNAError) {
    let what = "WriteData (file \(file))"
    guard !data.isEmpty else { return }
    // A short APDU's data field (255 bytes, less when the link carries less) holds CmdHeader (7),
    // the data, the MAC (8) outside Plain, and in Full the padding to whole 16-byte blocks.
    var room = min(255, link.capabilities.maxCommandLength - 6) - 7 - (mode == .plain ? 0 : 8)
    if mode == .full { room = room / 16 * 16 - 1 }
    let chunk = max(1, room)
    var done = 0
    repeat {
      let part = Array(data[done..<min(data.count, done + chunk)])
      let header = try tagStep(what) { () throws(NTAG424Error) in
        try NativeCommand.dataHeader(file: file, offset: offset + done, length: part.count)
      }
      _ = try run(NativeCommand.writeData, header: header, data: part, what: what, mode: mode, needsSession: mode != .plain)
      done += part.count
    } while done < data.count
  }

  /// ChangeKey of key `keyNumber` in CommMode.Full; needs a session with key 0. Changing key 0
  /// itself ends the session (NT4H2421Gx datasheet §10.6.1).
  ///
  /// - Parameter oldKey: the key's current value, for keys 1–4 (sent XORed with the new one).
  /// - Throws: ``NTAG424DNAError/oldKeyMismatch(keyNumber:)`` when the tag answers `91 1E` to the
  ///   change of a key other than the session's: the key data carries the new key XOR `oldKey`
  ///   and the new key's CRC32, which the tag checks against the key it holds (§10.6.1), so
  ///   `oldKey` is not its value (sending it again fails the same way); the other errors as
  ///   ``fileSettings(file:)``'s.
  public func changeKey(keyNumber: UInt8, to newKey: AESKey, version: UInt8, oldKey: AESKey = .factory) throws(NTAG424DNAError) {
    let what = "ChangeKey (key \(keyNumber))"
    guard var current = session, !current.hasEnded else { throw .notAuthenticated(command: what) }
    let command = try tagStep(what) { () throws(NTAG424Error) in
      try current.changeKeyCommand(keyNumber: keyNumber, newKey: newKey, newVersion: version, oldKey: oldKey)
    }
    let reply = try exchangeFrames(command, what: what)
    defer { session = current }
    do {
      try current.changeKeyResponse(keyNumber: keyNumber, reply)
    } catch {
      if keyNumber != current.keyNumber, case .status(_, 0x91, 0x1E) = error { throw .oldKeyMismatch(keyNumber: keyNumber) }
      throw .tag(error, command: what)
    }
  }

  /// GetKeyVersion of key `keyNumber`: MAC mode inside a session, Plain outside (NT4H2421Gx datasheet §10.6.2).
  public func keyVersion(keyNumber: UInt8) throws(NTAG424DNAError) -> UInt8 {
    let data = try run(NativeCommand.getKeyVersion, header: [keyNumber], what: "GetKeyVersion (key \(keyNumber))",
                       mode: isAuthenticated ? .mac : .plain)
    return try tagStep("GetKeyVersion") { () throws(NTAG424Error) in try NativeCommand.parseKeyVersion(data) }
  }

  /// GetCardUID, CommMode.Full; needs a session (NT4H2421Gx datasheet §10.5.3): the real UID even
  /// when the tag shows a random ID.
  public func cardUID() throws(NTAG424DNAError) -> [UInt8] {
    let data = try run(NativeCommand.getCardUID, what: "GetCardUID", mode: .full, needsSession: true)
    return try tagStep("GetCardUID") { () throws(NTAG424Error) in try NativeCommand.parseCardUID(data) }
  }

  /// GetFileCounters of `file`: SDMReadCtr; Full mode inside a session, Plain outside (SDMCtrRet
  /// free) (NT4H2421Gx datasheet §10.7.3).
  public func fileCounter(file: UInt8) throws(NTAG424DNAError) -> UInt32 {
    let data = try run(NativeCommand.getFileCounters, header: [file], what: "GetFileCounters (file \(file))",
                       mode: isAuthenticated ? .full : .plain)
    return try tagStep("GetFileCounters") { () throws(NTAG424Error) in try NativeCommand.parseFileCounter(data) }
  }

  /// Read_Sig: the 56-byte originality signature, Full mode inside a session, Plain outside.
  /// Not verified here (swift-crypto has no secp224r1): see ``NativeCommand/parseSignature(_:)``.
  public func readSignature() throws(NTAG424DNAError) -> [UInt8] {
    let data = try run(NativeCommand.readSignature, header: [0x00], what: "Read_Sig", mode: isAuthenticated ? .full : .plain)
    return try tagStep("Read_Sig") { () throws(NTAG424Error) in try NativeCommand.parseSignature(data) }
  }

  // MARK: Exchanges

  /// Builds a command (in the session when there is one), sends it, joins the frames, checks the
  /// answer (status, MAC, decryption) and returns its plain data.
  private func run(_ code: UInt8, header: [UInt8] = [], data: [UInt8] = [], what: String,
                   mode: CommunicationMode, needsSession: Bool = false) throws(NTAG424DNAError) -> [UInt8] {
    if var current = session, !current.hasEnded {
      let command = try tagStep(what) { () throws(NTAG424Error) in
        try current.command(code, header: header, data: data, mode: mode)
      }
      let reply: [UInt8]
      do { reply = try exchangeFrames(command, what: what) } catch {
        session = nil  // the tag's state is unknown: authenticate again
        throw error
      }
      defer { session = current }
      return try tagStep(what) { () throws(NTAG424Error) in try current.response(to: code, reply, mode: mode) }
    }
    guard !needsSession, mode == .plain else { throw .notAuthenticated(command: what) }
    let command = try tagStep(what) { () throws(NTAG424Error) in try NativeCommand.plainCommand(code, header: header, data: data) }
    let reply = try exchangeFrames(command, what: what)
    guard reply.count >= 2 else { throw .transceive(.malformedResponse(reply), command: what) }
    let sw1 = reply[reply.count - 2], sw2 = reply[reply.count - 1]
    guard sw1 == 0x91, sw2 == 0x00 else { throw .tag(.status(command: code, sw1: sw1, sw2: sw2), command: what) }
    return Array(reply.dropLast(2))
  }

  /// Sends `command`; while the tag answers `91 AF`, asks for the next frame (`90 AF 00 00 00`).
  /// Returns every frame's data joined, then the last status.
  private func exchangeFrames(_ command: [UInt8], what: String) throws(NTAG424DNAError) -> [UInt8] {
    var answer = ChainedAnswer()
    var next = command
    while true {
      switch answer.add(try send(next, what: what)) {
      case .more: next = [0x90, NativeCommand.additionalFrame, 0x00, 0x00, 0x00]
      case .complete(let reply): return reply
      case .malformed(let reply): throw .transceive(.malformedResponse(reply), command: what)
      case .tooManyFrames: throw .tooManyFrames(command: what)
      }
    }
  }

  private func send(_ apdu: [UInt8], what: String) throws(NTAG424DNAError) -> [UInt8] {
    do { return try link.transceive(apdu) } catch { throw .transceive(error, command: what) }
  }

  private func tagStep<T>(_ what: String, _ body: () throws(NTAG424Error) -> T) throws(NTAG424DNAError) -> T {
    do { return try body() } catch { throw .tag(error, command: what) }
  }
}
