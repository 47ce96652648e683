import NFCTransport

/// A MIFARE DESFire application identifier: 3 bytes, sent least significant first.
public struct DESFireApplicationID: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The AID as a number (000000h is the PICC level).
  public let value: UInt32
  /// An AID from its number; nil past FFFFFFh.
  public init?(_ value: UInt32) {
    guard value <= 0xFF_FFFF else { return nil }
    self.value = value
  }
  /// An AID from the 3 bytes on the wire (least significant first); nil for another count.
  public init?(wire bytes: some Collection<UInt8>) {
    guard bytes.count == 3 else { return nil }
    value = bytes.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
  }
  /// The PICC level (000000h).
  public static let picc = DESFireApplicationID(uncheckedValue: 0)
  /// The NDEF application NXP AN11004 proposes for mapping 2.0 (000001h; libfreefare's choice).
  public static let ndefApplication = DESFireApplicationID(uncheckedValue: 1)
  private init(uncheckedValue: UInt32) { value = uncheckedValue }
  /// The 3 bytes as sent, least significant first.
  public var wireBytes: [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)] }
  /// Six hex digits, most significant first ("000001").
  public var description: String { hexString([UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]) }
  public static func < (a: Self, b: Self) -> Bool { a.value < b.value }
}

/// A data file's access rights: read, write, read&write, change, each a key number (0-13), free
/// (Eh) or never (Fh); sent as one 16-bit word, least significant byte first (MF3ICDx21_41_81 §9,
/// CreateStdDataFile).
public struct DESFireFileAccess: Hashable, Sendable {
  /// The four nibbles: read, write, read&write, change.
  public var read: UInt8, write: UInt8, readWrite: UInt8, change: UInt8
  /// Rights from the four nibbles (values above Fh are cut to their low nibble).
  public init(read: UInt8, write: UInt8, readWrite: UInt8, change: UInt8) {
    self.read = read & 0x0F; self.write = write & 0x0F; self.readWrite = readWrite & 0x0F; self.change = change & 0x0F
  }
  /// Free: every right Eh.
  public static let free = DESFireFileAccess(read: 0x0E, write: 0x0E, readWrite: 0x0E, change: 0x0E)
  /// The two bytes as sent.
  public var wireBytes: [UInt8] { [readWrite << 4 | change, read << 4 | write] }
}

/// The communication modes of a file (MF3ICDx21_41_81 §9): plain, MACed, fully enciphered.
public enum DESFireFileCommunication: UInt8, Hashable, Sendable {
  case plain = 0x00, mac = 0x01, full = 0x03
}

/// The host's MIFARE DESFire commands over a ``Transceiver`` that carries ISO 7816-4 APDUs: each
/// native command wrapped as `90 Cmd 00 00 [Lc data] 00`, the answer `data 91 status`
/// (MF3ICDx21_41_81 §9 and §2 on ISO/IEC 7816-4 wrapping). A long answer comes in frames ending
/// `91 AF`, each fetched with `90 AF 00 00 00`; a long command goes in frames of at most
/// ``frameData`` bytes, the card answering `91 AF` until it has all. Plain communication only:
/// no secure messaging (a file in MAC or full mode needs it).
///
/// - Warning: Not thread-safe: one command at a time.
public final class DESFireCard {
  /// The link to the card.
  public let link: any Transceiver
  /// The most data bytes one wrapped command carries: a 64-byte frame (FSCI 5, the EV1's ATS) less
  /// PCB, CID, the CRC and the APDU's header and Le.
  public static let frameData = 54
  /// The most answer frames one command may take before the host gives up (an 8 KB file read at
  /// 59 bytes a frame takes 139).
  static let maxFrames = 512

  /// A command layer over `link`.
  public init(link: any Transceiver) { self.link = link }

  /// Set by ``getVersion()`` when the card is a MIFARE DESFire Light, whose application
  /// ``selectApplication(_:)`` selects by ISO SELECT (DESFireCard+Light.swift).
  public var isLight = false

  /// The secure messaging of the current authentication, set by whoever authenticated (the
  /// `DESFireTag` module, which has the ciphers): every command ``send(_:_:name:)`` sends goes
  /// through it, and every answer is checked by it before its data is returned. nil (plain, and
  /// after a legacy authentication, whose plain answers carry no MAC): nothing is checked. Cleared
  /// by ``selectApplication(_:)`` and by any refusal, both of which end an authentication on the card
  /// (MF3ICDx21_41_81 §9.3).
  public var secureMessaging: (any DESFireSecureMessaging)?

  // MARK: Framing

  /// Sends native command `code` with `data` (in frames when longer than ``frameData``) and
  /// returns the answer's data, every `91 AF` frame fetched and joined.
  /// - Throws: ``DESFireCommandError`` for any status other than `91 00`, a broken link, or an
  ///   answer without a status word.
  public func send(_ code: UInt8, _ data: [UInt8] = [], name: String) throws(DESFireCommandError) -> [UInt8] {
    try sendKeepingFrames(code, data, name: name).flatMap { $0 }
  }

  /// ``send(_:_:name:)``, the answer's data kept frame by frame (GetDFNames sends one entry a
  /// frame, of no fixed length): in a session the checked data is the frames' bytes without the
  /// MAC the last one carried.
  public func sendKeepingFrames(_ code: UInt8, _ data: [UInt8] = [], name: String) throws(DESFireCommandError) -> [[UInt8]] {
    do {
      let sent = try secureMessaging?.protect(code, data, command: name) ?? data
      let frames = try sendFrames(code, sent, name: name)
      guard let messaging = secureMessaging else { return frames }
      let answer = frames.flatMap { $0 }
      let checked = try messaging.received(answer, command: name)
      guard checked.count <= answer.count, answer.starts(with: checked) else { return [checked] }
      var kept: [[UInt8]] = [], left = checked.count
      for frame in frames where left > 0 {
        kept.append(Array(frame.prefix(left)))
        left -= min(left, frame.count)
      }
      return kept
    } catch {
      switch error {
      case .status, .integrity: secureMessaging = nil  // the card ended the session, or the host cannot trust it
      default: break
      }
      throw error
    }
  }

  private func sendFrames(_ code: UInt8, _ data: [UInt8], name: String) throws(DESFireCommandError) -> [[UInt8]] {
    var rest = data[...]
    var frameCode = code
    var (answer, status) = try exchange(frameCode, Array(rest.prefix(Self.frameData)), name: name)
    rest = rest.dropFirst(Self.frameData)
    while !rest.isEmpty {
      guard status == .additionalFrame, answer.isEmpty else {
        if status == .operationOK { throw .malformed("the card took the command before all its data", command: name) }
        throw .status(status, command: name)
      }
      frameCode = 0xAF
      (answer, status) = try exchange(frameCode, Array(rest.prefix(Self.frameData)), name: name)
      rest = rest.dropFirst(Self.frameData)
    }
    var frames = [answer]
    while status == .additionalFrame {
      guard frames.count < Self.maxFrames else { throw .malformed("more than \(Self.maxFrames) frames", command: name) }
      (answer, status) = try exchange(0xAF, [], name: name)
      frames.append(answer)
    }
    guard status == .operationOK else { throw .status(status, command: name) }
    return frames
  }

  /// One wrapped frame of native command `code` and its answer's data and native status, whatever
  /// the status (an authentication's `91 AF` steps): no secure messaging, no joining.
  public func exchangeFrame(_ code: UInt8, _ data: [UInt8], name: String) throws(DESFireCommandError) -> ([UInt8], DESFireAnswerStatus) {
    try exchange(code, data, name: name)
  }

  /// One wrapped frame: its data and native status.
  private func exchange(_ code: UInt8, _ data: [UInt8], name: String) throws(DESFireCommandError) -> ([UInt8], DESFireAnswerStatus) {
    let apdu: [UInt8] = data.isEmpty ? [0x90, code, 0x00, 0x00, 0x00]
                                     : [0x90, code, 0x00, 0x00, UInt8(data.count)] + data + [0x00]
    let reply: [UInt8]
    do { reply = try link.transceive(apdu) } catch { throw .link(error, command: name) }
    guard let response = ResponseAPDU(reply) else {
      throw .malformed("\(reply.count) bytes, no status word", command: name)
    }
    guard response.statusWord.sw1 == 0x91 else { throw .isoStatus(response.statusWord, command: name) }
    return (response.data, DESFireAnswerStatus(rawValue: response.statusWord.sw2))
  }

  // MARK: The PICC level

  /// GetVersion (60h).
  public func getVersion() throws(DESFireCommandError) -> DESFireVersionInfo {
    let version = try DESFireVersionInfo(parsing: try send(0x60, name: "GetVersion"))
    isLight = version.isLight
    return version
  }

  /// GetVersion at the start of a connection, asked once more when the card refuses it with a
  /// status: a card left in an EV2 session (a program cut short, a reader that keeps the card
  /// powered between connections) refuses a command without a MAC, and the refusal ends the
  /// session (MF3ICDx21_41_81 §9.3). A lost link is not asked again.
  public func identify() throws(DESFireCommandError) -> DESFireVersionInfo {
    do {
      return try getVersion()
    } catch {
      guard case .status = error else { throw error }
      return try getVersion()
    }
  }

  /// Ends a session in which the card takes no command without a MAC (EV2 secure messaging,
  /// ``DESFireSecureMessaging/refusesPlainCommands``) by selecting the PICC level, which ends any
  /// authentication (MF3ICDx21_41_81 §9.3), so that the next program's plain commands (GetVersion,
  /// `scan`, `read`) are taken. One exchange, only then; a failure is ignored (the card is being
  /// left, and a card that did not take it ends the session at its next refusal anyway).
  public func endSessionBeforeRelease() {
    guard secureMessaging?.refusesPlainCommands == true else { return }
    try? selectApplication(.picc)
  }

  /// GetApplicationIDs (6Ah): the AIDs on the card, in the card's order.
  public func applicationIDs() throws(DESFireCommandError) -> [DESFireApplicationID] {
    let data = try send(0x6A, name: "GetApplicationIDs")
    guard data.count % 3 == 0 else { throw .malformed("\(data.count) bytes is not a list of 3-byte AIDs", command: "GetApplicationIDs") }
    return stride(from: 0, to: data.count, by: 3).compactMap { DESFireApplicationID(wire: data[$0..<($0 + 3)]) }
  }

  /// SelectApplication (5Ah); ``DESFireApplicationID/picc`` for the PICC level. Ends any
  /// authentication. On a MIFARE DESFire Light (``isLight``), an ISO SELECT instead.
  public func selectApplication(_ aid: DESFireApplicationID) throws(DESFireCommandError) {
    secureMessaging = nil
    if isLight { return try selectLightLevel(aid) }  // no SelectApplication on a Light
    _ = try expectEmpty(try send(0x5A, aid.wireBytes, name: "SelectApplication \(aid)"), "SelectApplication \(aid)")
  }

  /// GetKeySettings (45h) of the selected level.
  public func keySettings() throws(DESFireCommandError) -> DESFireKeySettingsInfo {
    try DESFireKeySettingsInfo(parsing: try send(0x45, name: "GetKeySettings"))
  }

  /// GetFreeMemory (6Eh): the free bytes, from 3 bytes least significant first.
  public func freeMemory() throws(DESFireCommandError) -> Int {
    let data = try send(0x6E, name: "GetFreeMemory")
    guard data.count == 3 else { throw .malformed("\(data.count) bytes, not 3", command: "GetFreeMemory") }
    return Self.littleEndian(data)
  }

  /// CreateApplication (CAh): `keyCount` keys (1-14) of `keyType`, key settings `settings`, and,
  /// when given, an ISO file ID and a DF name (1-16 bytes; the application then has ISO file IDs).
  public func createApplication(_ aid: DESFireApplicationID, settings: UInt8, keyCount: Int, keyType: DESFireKeyAlgorithm,
                                isoFileID: UInt16? = nil, dfName: [UInt8]? = nil) throws(DESFireCommandError) {
    guard aid != .picc else { throw .invalidArgument("AID 000000 is the PICC level, not an application") }
    guard (1...14).contains(keyCount) else { throw .invalidArgument("an application has 1 to 14 keys, not \(keyCount)") }
    if let dfName, !(1...16).contains(dfName.count) {
      throw .invalidArgument("a DF name has 1 to 16 bytes, not \(dfName.count)")
    }
    let iso: UInt8 = isoFileID != nil || dfName != nil ? 0x20 : 0x00
    var data = aid.wireBytes + [settings, UInt8(keyCount) | keyType.rawValue | iso]
    if iso != 0 { data += Self.fileID(isoFileID ?? 0) }
    data += dfName ?? []
    let name = "CreateApplication \(aid)"
    _ = try expectEmpty(try send(0xCA, data, name: name), name)
  }

  // MARK: In an application

  /// CreateStdDataFile (CDh): file `number` (0-31) of `size` bytes, with an ISO file ID when the
  /// application has them.
  public func createStandardDataFile(_ number: UInt8, isoFileID: UInt16? = nil, communication: DESFireFileCommunication = .plain,
                                     access: DESFireFileAccess, size: Int) throws(DESFireCommandError) {
    guard number <= 0x1F else { throw .invalidArgument("a file number is 0 to 31, not \(number)") }
    guard (1...0xFF_FFFF).contains(size) else { throw .invalidArgument("a file size is 1 to 16777215 bytes, not \(size)") }
    var data = [number]
    if let isoFileID { data += Self.fileID(isoFileID) }
    data += [communication.rawValue] + access.wireBytes + Self.threeBytes(size)
    let name = "CreateStdDataFile \(hexString([number]))"
    _ = try expectEmpty(try send(0xCD, data, name: name), name)
  }

  /// ReadData (BDh) in plain: `length` bytes of file `number` from `offset` (0: to the end).
  public func readData(file number: UInt8, offset: Int, length: Int) throws(DESFireCommandError) -> [UInt8] {
    guard (0...0xFF_FFFF).contains(offset), (0...0xFF_FFFF).contains(length) else {
      throw .invalidArgument("offset \(offset) or length \(length) is past 16777215")
    }
    let name = "ReadData \(hexString([number]))"
    let data = try send(0xBD, [number] + Self.threeBytes(offset) + Self.threeBytes(length), name: name)
    guard length == 0 || data.count == length else {
      throw .malformed("\(data.count) bytes for \(length) asked", command: name)
    }
    return data
  }

  /// WriteData (3Dh) in plain: `bytes` into file `number` at `offset`, in frames as needed.
  public func writeData(file number: UInt8, offset: Int, _ bytes: [UInt8]) throws(DESFireCommandError) {
    guard !bytes.isEmpty, (0...0xFF_FFFF).contains(offset), bytes.count <= 0xFF_FFFF else {
      throw .invalidArgument("WriteData needs 1 to 16777215 bytes at an offset up to 16777215")
    }
    let name = "WriteData \(hexString([number]))"
    _ = try expectEmpty(try send(0x3D, [number] + Self.threeBytes(offset) + Self.threeBytes(bytes.count) + bytes, name: name), name)
  }

  // MARK: Helpers

  private func expectEmpty(_ data: [UInt8], _ name: String) throws(DESFireCommandError) -> [UInt8] {
    // A plain answer to these commands carries nothing (in an EV1 session it carries a CMAC).
    guard data.isEmpty else { throw .malformed("\(data.count) unexpected bytes", command: name) }
    return data
  }

  static func threeBytes(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)] }
  static func fileID(_ fid: UInt16) -> [UInt8] { [UInt8(fid & 0xFF), UInt8(fid >> 8)] }
  static func littleEndian(_ bytes: [UInt8]) -> Int { bytes.reversed().reduce(0) { $0 << 8 | Int($1) } }
}

/// The secure messaging of an authenticated DESFire session as ``DESFireCard`` uses it, without its
/// ciphers (NFCTags has none): the `DESFireTag` module implements it with the DESFire module's.
public protocol DESFireSecureMessaging: AnyObject {
  /// Called with a command (`cmd ‖ data`, plain mode) before it is sent.
  func willSend(_ command: [UInt8], command name: String) throws(DESFireCommandError)
  /// The data of command `code` as it travels: EV1 and the legacy scheme send it as it is (the
  /// default: ``willSend(_:command:)``, then `data`); EV2 secure messaging appends the command's
  /// MAC (NT4H2421Gx datasheet §9.1.9, CommMode.MAC).
  func protect(_ code: UInt8, _ data: [UInt8], command name: String) throws(DESFireCommandError) -> [UInt8]
  /// The answer's joined data of a command the card took (`91 00`): returns the data without its
  /// MAC, or throws when the MAC is missing or wrong (a wrong MAC is an error, never data).
  func received(_ answer: [UInt8], command name: String) throws(DESFireCommandError) -> [UInt8]
  /// Whether the card takes no command without a MAC while the session lasts (EV2 secure
  /// messaging: NT4H2421Gx datasheet §9.1.4, every command counted and MACed), so that the session
  /// is ended before the card is left (``DESFireCard/endSessionBeforeRelease()``). False by
  /// default: after an EV1 or legacy authentication the card still takes plain commands.
  var refusesPlainCommands: Bool { get }
}

extension DESFireSecureMessaging {
  /// False: the EV1 and legacy schemes leave plain commands to the card.
  public var refusesPlainCommands: Bool { false }
}

extension DESFireCard {
  /// GetFileIDs (6Fh): the file numbers of the selected application.
  public func fileIDs() throws(DESFireCommandError) -> [UInt8] {
    try send(0x6F, name: "GetFileIDs")
  }

  /// The size of data file `number` from GetFileSettings (F5h): file type, communication mode,
  /// access rights (2 bytes), then the size (3 bytes, least significant first) for a standard or
  /// backup data file (MF3ICDx21_41_81 §9, GetFileSettings).
  public func dataFileSize(_ number: UInt8) throws(DESFireCommandError) -> Int {
    let name = "GetFileSettings \(hexString([number]))"
    let data = try send(0xF5, [number], name: name)
    guard data.count >= 7, let type = data.first, type <= 0x01 else {
      throw .malformed("\(data.count) bytes, not a data file's settings", command: name)
    }
    return Self.littleEndian(Array(data[4..<7]))
  }
}

extension DESFireSecureMessaging {
  /// ``willSend(_:command:)``, then `data` unchanged.
  public func protect(_ code: UInt8, _ data: [UInt8], command name: String) throws(DESFireCommandError) -> [UInt8] {
    try willSend([code] + data, command: name)
    return data
  }
}
