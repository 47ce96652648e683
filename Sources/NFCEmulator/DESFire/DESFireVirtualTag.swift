import NFCTransport

/// A virtual NXP MIFARE DESFire EV1 (2K, 4K or 8K): applications with keys and standard data,
/// backup data, value and record files (with their transactions), the native command set in its
/// three framings, and the ISO/IEC 7816-4 commands that reach files with ISO file identifiers
/// (NDEF as NXP AN11004 maps it).
///
/// Identification (NXP MF3ICDx21_41_81 data sheet §9.1-9.2, ISO/IEC 14443-3 and -4; the bytes as
/// EV1 cards answer them, e.g. ACS's ACM1281U reference manual's `FF CA 01 00` example): 7-byte UID
/// starting 04h (NXP), ATQA 0344h (PN532 order `03 44`), SAK 20h (ISO/IEC 14443-4), ATS
/// `06 75 77 81 02 80` (FSCI 5 = 64-byte frames, TA1 77h, TB1 81h: SFGI 1 and FWI 8, TC1 02h: CID,
/// one historical byte 80h).
///
/// Framing (data sheet §2.2, "ISO/IEC 7816 compatibility"): a native command (`cmd data…`, answered `status data…`); the same
/// command wrapped in ISO/IEC 7816-4 (`90 cmd 00 00 [Lc data] 00`, answered `data… 91 status`);
/// and ISO/IEC 7816-4 commands with CLA 00 (SELECT, READ BINARY, UPDATE BINARY), answered with
/// ISO status words. An answer longer than one frame (59 bytes of data) ends each part with
/// status AFh and the host asks for the next with `AF`; a command longer than one frame
/// (WriteData) is sent in parts, the card answering AFh until it has all of it. Another native
/// command while a chain is open ends the chain with `91 CA` (COMMAND_ABORTED), as a real EV3 does
/// in NXP TagInfo's trace; `AF` when no chain is open is `91 1C`.
///
/// Authentication (0Ah, 1Ah, AAh), EV1 secure messaging and ChangeKey need the cryptography a
/// module installs (``DESFireSecurityRegistry``, DESFireEmulator's `register()`); without it the
/// authentication commands answer `91 1C`. A command that needs a key the host has not
/// authenticated answers `91 AE` (the current authentication status does not allow it). A factory
/// card (PICC key settings 0Fh) lets anyone list and create applications, which is what
/// AN11004's NDEF formatting needs. After an EV1 authentication every command moves the IV and
/// every successful answer carries its CMAC (in the last frame of a chain); an error answer ends
/// the authentication and carries none.
///
/// Memory: GetFreeMemory starts at the chip's size; a file takes its size rounded up to 32 bytes
/// (the EV1 allocates non-volatile memory in 32-byte blocks); deleting does not give memory back,
/// FormatPICC does. The overhead of applications and keys is not modelled.
public final class DESFireVirtualTag: VirtualTag {
  /// The ATS with TL.
  public static let ats: [UInt8] = [0x06, 0x75, 0x77, 0x81, 0x02, 0x80]
  /// The UID used when none is given.
  public static let defaultUID: [UInt8] = [0x04, 0x3A, 0x61, 0x2C, 0x5E, 0x73, 0x80]
  /// GetVersion's third frame after the UID: batch number (5 bytes), production week and year.
  static let production: [UInt8] = [0xBA, 0x00, 0x00, 0x00, 0x00, 0x20, 0x13]
  /// The most data bytes one answer frame carries (a 64-byte frame less PCB, CID, status word
  /// and CRC).
  static let frameData = 59
  /// The most applications an EV1 holds.
  static let maxApplications = 28
  /// The DF name that selects the PICC level (AN11004: the NDEF application of mapping 1.0;
  /// a real EV3 answers `90 00` to it in TagInfo's trace).
  public static let piccDFName: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x00]

  /// The chip.
  public let chip: DESFireChip
  /// NFC Forum Type 4 (the platform of ISO-DEP tags).
  public var platform: TagPlatform { .type4 }
  /// The 7-byte UID, the real one (GetCardUID's, the image's); ``identifier`` is the one shown
  /// at anticollision (DESFireVirtualTag+Configuration.swift).
  public let uid: [UInt8]
  /// SetConfiguration's flags (format disabled, random ID).
  public internal(set) var configuration: DESFireConfiguration = []
  /// The random ID of this activation while ``configuration`` has it; nil shows ``uid``.
  var activationUID: [UInt8]?
  /// Whether the host sent a command since the last activation (a new random ID at the next).
  var exchangedSinceActivation = false
  /// ISO 14443A with SENS_RES `03 44`, SEL_RES `20` and the ATS ``ats``.
  public var technology: RFTechnology { .typeA(sensRes: [0x03, 0x44], selRes: 0x20, ats: Self.ats) }
  /// "MIFARE DESFire EV1 4K".
  public var productName: String { chip.productName }
  /// Increases whenever a command changed the card, so an image file can be written back.
  public internal(set) var memoryGeneration = 0

  /// The PICC level: its master key and key settings.
  public internal(set) var picc: DESFireApplication
  /// The applications in the order they were created.
  public internal(set) var applications: [DESFireApplication]
  /// GetFreeMemory's answer.
  public internal(set) var freeMemory: Int

  /// The selected application's AID (0: the PICC level).
  var selectedAID: UInt32 = 0
  /// The cryptography this card authenticates with: the installed one when the card was made
  /// (``DESFireSecurityRegistry``); nil for none (authentication answers `91 1C`).
  public var security: (any DESFireSecurity)? = DESFireSecurityRegistry.current
  /// The key authenticated in the selected application; nil when none.
  var authenticatedKey: UInt8?
  /// The secure messaging of that authentication; nil when none (or set without one by tests).
  var channel: (any DESFireSecureChannel)?
  /// The EV2 secure-messaging session after 71h/77h; nil when none (DESFireVirtualTag+EV2.swift).
  var ev2Session: (any DESFireEV2Session)?
  /// An EV2 authentication waiting for its part 2.
  var ev2Authentication: DESFireEV2PendingAuthentication?
  /// Set while a command's answer is already protected (enciphered, MACed, or an authentication
  /// answer), so that it gets no CMAC on top.
  var answerProtected = false
  /// The ISO-selected file (by ISO file identifier) in the selected application.
  var selectedFile: UInt8?
  /// An open chain of frames.
  var pending: Pending?
  /// The working copies of the backup, value and record files changed since the last commit
  /// (``DESFireTransaction``).
  var transaction = DESFireTransaction()
  /// Set by the EV2's random-FCI answer: SelectApplication answers `91 1B` until the PICC level
  /// is ISO-selected again or the field is reset (``DESFireChip/answersRandomFCIForMissingNDEFApplication``).
  var selectionFault = false

  /// A chain that waits for the host's next `AF`.
  enum Pending {
    /// The answer's frames still to send.
    case answer([[UInt8]])
    /// A WriteData or WriteRecord whose data is still arriving: its command, header, how the data
    /// comes, how many bytes are expected on the wire, and the bytes so far.
    case write(command: UInt8, header: [UInt8], mode: DESFireCommunicationMode, expected: Int, received: [UInt8])
    /// An authentication waiting for the host's token.
    case authentication(keyNumber: UInt8, any DESFireAuthenticating)
  }

  /// A factory card: the PICC master key DES 00…00, key settings 0Fh, no applications.
  /// - Parameters:
  ///   - chip: the EV1 size.
  ///   - uid: 7 bytes; nil for ``defaultUID``.
  public init(chip: DESFireChip, uid: [UInt8]? = nil) throws(EmulatorError) {
    let uid = uid ?? Self.defaultUID
    guard uid.count == 7 else { throw EmulatorError("a MIFARE DESFire UID has 7 bytes (got \(uid.count))") }
    self.chip = chip
    self.uid = uid
    picc = .factoryPICC()
    applications = []
    freeMemory = chip.memorySize
  }

  /// A card with the given contents (an image file's).
  init(chip: DESFireChip, uid: [UInt8], picc: DESFireApplication, applications: [DESFireApplication], freeMemory: Int,
       configuration: DESFireConfiguration = []) {
    self.chip = chip
    self.uid = uid
    self.configuration = configuration
    self.picc = picc
    self.applications = applications
    self.freeMemory = freeMemory
    activate()
  }

  /// The field went off and on: the PICC level is selected, no authentication, no chain.
  public func reset() {
    activate()
    selectedAID = 0
    endAuthentication()
    selectedFile = nil
    pending = nil
    transaction = DESFireTransaction()
    selectionFault = false
  }

  /// No key authenticated any more.
  func endAuthentication() {
    authenticatedKey = nil
    channel = nil
    ev2Session = nil
    ev2Authentication = nil
  }

  /// The EV1 channel, when one is open (the legacy scheme's is not: its commands stay plain).
  var ev1Channel: (any DESFireSecureChannel)? {
    guard let channel, !channel.isLegacy else { return nil }
    return channel
  }

  /// The card's image file (``DESFireImage``).
  public var memoryImage: [UInt8] { DESFireImage.encode(self) }

  // MARK: - Framing

  /// Answers one frame: a wrapped native command (CLA 90), an ISO/IEC 7816-4 command (CLA 00), or
  /// a native command (any other first byte).
  public func respond(to frame: [UInt8]) -> TagResponse {
    guard let first = frame.first else { return .mute }
    exchangedSinceActivation = true
    if chip.isLight, let refused = lightRefusal(frame) { return refused }  // DESFireVirtualTag+Light.swift
    switch first {
    case 0x90:
      guard let apdu = ShortAPDU(frame) else { return .data(StatusWord.wrongLength.bytes) }
      guard apdu.p1 == 0, apdu.p2 == 0 else { return .data(StatusWord.incorrectP1P2.bytes) }
      let (status, data) = native(apdu.ins, ArraySlice(apdu.data))
      return .data(data + [0x91, status.rawValue])
    case 0x00:
      pending = nil
      return .data(iso(frame))
    default:
      let (status, data) = native(first, frame[1...])
      return .data([status.rawValue] + data)
    }
  }

  /// One native command, with the chains: `AF` continues an open chain, any other command ends it.
  func native(_ command: UInt8, _ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    answerProtected = false
    if let answer = ev2Native(command, data) { return answer }  // DESFireVirtualTag+EV2.swift
    if command == 0xAF {
      guard let chain = pending else { return secured((.illegalCommand, [])) }
      pending = nil
      switch chain {
      case .answer(let frames):
        answerProtected = true  // the chain's MAC is in its last frame already
        return chained(frames: frames)
      case .write(let command, let header, let mode, let expected, let received):
        return secured(continueWrite(command: command, header: header, mode: mode, expected: expected,
                                     received: received + data))
      case .authentication(let keyNumber, let authentication):
        return finishAuthentication(keyNumber: keyNumber, authentication, token: Array(data))
      }
    }
    if pending != nil {
      pending = nil
      return secured((.commandAborted, []))
    }
    // Commands that protect their own data; every other one moves the EV1 IV by its CMAC.
    if ![0x0A, 0x1A, 0xAA, 0xC4, 0x54, 0x3D, 0x3B, 0x0C, 0xDC, 0x1C, 0x5F, 0x5C].contains(command) {
      ev1Channel?.received([command] + data)
    }
    return secured(perform(command, data))
  }

  /// The answer as the session sends it: an error ends the authentication and goes plain; after
  /// an EV1 authentication a final answer carries the CMAC of its data and status.
  func secured(_ answer: (DESFireStatus, [UInt8])) -> (DESFireStatus, [UInt8]) {
    let (status, data) = answer
    guard status == .operationOK || status == .additionalFrame else {
      endAuthentication()
      return answer
    }
    guard status == .operationOK, !answerProtected, let channel = ev1Channel else { return answer }
    return (status, channel.macAnswer(data))
  }

  /// `answer` in frames of at most ``frameData`` bytes, the first now (AFh when more follow).
  func chained(_ answer: [UInt8]) -> (DESFireStatus, [UInt8]) {
    var answer = answer
    if !answerProtected, let channel = ev1Channel {
      answer = channel.macAnswer(answer)
      answerProtected = true
    }
    var frames: [[UInt8]] = []
    var start = 0
    repeat {
      let end = min(answer.count, start + Self.frameData)
      frames.append(Array(answer[start..<end]))
      start = end
    } while start < answer.count
    return chained(frames: frames)
  }

  /// The first of `frames` now, with AFh when more follow (kept for the host's `AF`).
  func chained(frames: [[UInt8]]) -> (DESFireStatus, [UInt8]) {
    var frames = frames
    if !answerProtected, let channel = ev1Channel, let last = frames.indices.last {
      let mac = Array(channel.macAnswer(frames.flatMap { $0 }).suffix(8))
      frames[last] += mac
      answerProtected = true
    }
    guard let first = frames.first else { return (.operationOK, []) }
    guard frames.count > 1 else { return (.operationOK, first) }
    pending = .answer(Array(frames.dropFirst()))
    return (.additionalFrame, first)
  }

  /// The selected application; nil at the PICC level.
  var currentApplication: DESFireApplication? {
    selectedAID == 0 ? nil : applications.first { $0.aid == selectedAID }
  }

  /// Changes the selected application with `change` and counts the change.
  func updateCurrent(_ change: (inout DESFireApplication) -> Void) {
    guard let index = applications.firstIndex(where: { $0.aid == selectedAID }) else { return }
    change(&applications[index])
    memoryGeneration += 1
  }

  /// Whether the master key of the selected level (PICC or application) is authenticated.
  var masterKeyAuthenticated: Bool { authenticatedKey == 0 }

  /// What the card answers when a command needs the master key: AEh unauthenticated (the
  /// authentication status does not allow it), 9Dh with another key authenticated.
  var needsMasterKey: DESFireStatus { authenticatedKey == nil ? .authenticationError : .permissionDenied }

  /// The key number a command's access nibbles allow: nil when one of them is free (E) or the
  /// authenticated key; else the refusal (AEh, or 9Dh when every nibble is F or another key is
  /// authenticated).
  func refusal(granting nibbles: [UInt8]) -> DESFireStatus? {
    if nibbles.contains(DESFireAccessRights.free) { return nil }
    if let key = authenticatedKey, nibbles.contains(key) { return nil }
    if nibbles.allSatisfy({ $0 == DESFireAccessRights.never }) { return .permissionDenied }
    return authenticatedKey == nil ? .authenticationError : .permissionDenied
  }
}
