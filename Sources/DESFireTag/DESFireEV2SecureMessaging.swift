import DESFire
import EV2SecureMessaging
import Hex
import NFCTags
import NFCTransport

/// EV2 secure messaging on a MIFARE DESFire EV2/EV3 after AuthenticateEV2First (71h) or
/// AuthenticateEV2NonFirst (77h) with an AES key: the shared scheme of the EV2SecureMessaging
/// module (`EV2HostSession` over DESFire's OpenSSL backend, ``DESFireEV2Cipher``), whose frames
/// DESFire EV2/EV3 share with the NTAG 424 DNA (NT4H2421Gx datasheet §9.1; NXP AN12343 §7 for the
/// DESFire family): TI and CmdCtr, an 8-byte MACt after the command data and after the answer data
/// in CommMode.MAC, the data AES-CBC enciphered (padding `80 00…`) then MACed in CommMode.Full,
/// and in CommMode.Plain no MAC at all while CmdCtr still advances.
///
/// The commands with a mode of their own (file data, values, records, keys, file settings, the
/// card UID) go through ``DESFireCard`` `ev2Exchange` in that mode. Every other command
/// ``DESFireCard/send(_:_:name:)`` sends in a session (GetVersion, GetKeySettings, GetFileIDs,
/// GetFileSettings, GetKeyVersion, the Create commands, CommitTransaction, AbortTransaction…) goes
/// in CommMode.MAC, as the 424 DNA's GetFileSettings and GetKeyVersion do (NT4H2421Gx §10) and as
/// EV1 MACs them after an authentication: its MACt after the data, the answer's chained `91 AF`
/// frames joined and their MACt checked once, before any byte is used.
public final class DESFireEV2SecureMessaging: DESFireSecureMessaging {
  /// The session: TI, CmdCtr and the session keys (never shown).
  public private(set) var session: EV2HostSession<DESFireEV2Cipher>
  /// The key number the session authenticated (ChangeKey tells the same key from another by it).
  public var keyNumber: UInt8 { session.keyNumber }
  private var pendingCode: UInt8?

  /// A session from an authentication, or from keys known from elsewhere (a transcript).
  public init(session: EV2HostSession<DESFireEV2Cipher>) { self.session = session }

  /// True: in an EV2 session the card refuses a command without its MAC.
  public var refusesPlainCommands: Bool { true }

  /// Nothing: ``protect(_:_:command:)`` MACs the command.
  public func willSend(_ command: [UInt8], command name: String) throws(DESFireCommandError) {}

  /// `data ‖ MACt` for CommMode.MAC (the data as CmdHeader).
  public func protect(_ code: UInt8, _ data: [UInt8], command name: String) throws(DESFireCommandError) -> [UInt8] {
    pendingCode = code
    return data + (try protectedData(code, header: data, mode: .mac, name: name))
  }

  /// Checks the MACt of the answer to the command ``protect(_:_:command:)`` wrapped.
  public func received(_ answer: [UInt8], command name: String) throws(DESFireCommandError) -> [UInt8] {
    guard let code = pendingCode else { throw .malformed("an answer to no command", command: name) }
    pendingCode = nil
    return try answerData(code, answer, mode: .mac, name: name)
  }

  /// CmdData as it travels in `mode`, MACt included (the header is the caller's to send before it).
  func protectedData(_ code: UInt8, header: [UInt8], data: [UInt8] = [], mode: CommunicationMode,
                     name: String) throws(DESFireCommandError) -> [UInt8] {
    do { return try session.protectedData(code, header: header, data: data, mode: mode) } catch {
      throw Self.failure(error, name: name)
    }
  }

  /// An answer's data (status removed, frames joined) checked in `mode`; CmdCtr advances.
  func answerData(_ code: UInt8, _ body: [UInt8], mode: CommunicationMode, name: String) throws(DESFireCommandError) -> [UInt8] {
    do { return try session.answerData(to: code, body: body, mode: mode) } catch {
      throw Self.failure(error, name: name)
    }
  }

  /// ChangeKey's answer (`body` after `91 00`): no MAC when the session's own key changed (the
  /// session ends), else a MAC-mode answer.
  func changeKeyAnswer(keyNumber: UInt8, _ body: [UInt8], name: String) throws(DESFireCommandError) {
    do { try session.changeKeyResponse(keyNumber: keyNumber, body + [0x91, 0x00]) } catch {
      throw Self.failure(error, name: name)
    }
  }

  /// An EV2 failure as the DESFire commands report it: a refusal as the card's status, an answer
  /// that does not verify as an integrity failure (its data never used).
  static func failure(_ error: EV2Error, name: String) -> DESFireCommandError {
    switch error {
    case .status(_, let sw1, let sw2):
      return sw1 == 0x91 ? .status(DESFireAnswerStatus(rawValue: sw2), command: name) : .isoStatus(StatusWord(sw1, sw2), command: name)
    case .authenticationFailed: return .status(.authenticationError, command: name)
    case .responseMACMismatch: return .integrity("the answer's MAC does not match", command: name)
    case .invalidPadding: return .integrity("the enciphered answer does not end in 80 00… padding", command: name)
    case .invalidLength(let field, _, _) where field.contains("response") || field.contains("answer"):
      return .integrity(error.description, command: name)
    case .invalidLength: return .invalidArgument("\(name): \(error)")
    case .sessionEnded: return .invalidArgument("\(name): \(error)")
    case .invalidKeyNumber: return .invalidArgument("\(name): \(error)")
    case .cryptoFailure: return .malformed("the host's cipher failed: \(error)", command: name)
    }
  }
}

/// The CommMode a DESFire file's communication setting names.
extension DESFireFileCommunication {
  var ev2Mode: CommunicationMode {
    switch self {
    case .plain: return .plain
    case .mac: return .mac
    case .full: return .full
    }
  }
}

extension DESFireCard {
  /// AuthenticateEV2First (71h) with AES key `keyNumber` of the selected level: a new EV2 session
  /// (TI from the card, CmdCtr 0) in ``secureMessaging`` (NXP AN12343 §7.1; the frames of
  /// `EV2HostAuthentication`).
  /// - Parameter rndA: the host's random (tests); nil for a fresh one from libcrypto.
  /// - Throws: ``DESFireCommandError/invalidArgument(_:)`` for a key that is not AES (nothing
  ///   sent); ``DESFireCommandError/status(_:command:)`` with `91 AE` when the card refuses the key
  ///   or its answer does not prove it holds it; the link's failures. The key never appears.
  public func authenticateEV2First(keyNumber: UInt8, key: DESFireKeyMaterial, rndA: [UInt8]? = nil) throws(DESFireCommandError) {
    try authenticateEV2(keyNumber: keyNumber, key: key, continuing: nil, rndA: rndA)
  }

  /// AuthenticateEV2NonFirst (77h): new session keys for AES key `keyNumber`, TI and CmdCtr kept
  /// from the EV2 session in ``secureMessaging``.
  /// - Throws: as ``authenticateEV2First(keyNumber:key:rndA:)``, and
  ///   ``DESFireCommandError/invalidArgument(_:)`` without an EV2 session (nothing sent).
  public func authenticateEV2NonFirst(keyNumber: UInt8, key: DESFireKeyMaterial, rndA: [UInt8]? = nil) throws(DESFireCommandError) {
    guard let current = secureMessaging as? DESFireEV2SecureMessaging else {
      throw .invalidArgument("AuthenticateEV2NonFirst (77h) key \(keyNumber) needs an EV2 session first (AuthenticateEV2First)")
    }
    try authenticateEV2(keyNumber: keyNumber, key: key, continuing: current.session, rndA: rndA)
  }

  private func authenticateEV2(keyNumber: UInt8, key: DESFireKeyMaterial, continuing: EV2HostSession<DESFireEV2Cipher>?,
                               rndA: [UInt8]?) throws(DESFireCommandError) {
    let code: UInt8 = continuing == nil ? 0x71 : 0x77
    let name = "AuthenticateEV2\(continuing == nil ? "First" : "NonFirst") (\(hexString([code]))h) key \(keyNumber)"
    guard let keyBytes = key.aesKeyBytes else {
      throw .invalidArgument("\(name): EV2 authentication takes an AES key, not a \(key.type) key")
    }
    secureMessaging = nil
    let (challenge, first) = try exchangeFrame(code, continuing == nil ? [keyNumber, 0x00] : [keyNumber], name: name)
    guard first == .additionalFrame else { throw .status(first, command: name) }
    guard challenge.count == 16 else { throw .malformed("a challenge of \(challenge.count) bytes, not 16", command: name) }
    do {
      let random = try rndA ?? DESFireCipher.random(count: 16)
      let authentication = try EV2HostAuthentication<DESFireEV2Cipher>(
        key: keyBytes, keyNumber: keyNumber, nonFirst: continuing != nil, encryptedRndB: challenge, rndA: random)
      let second = try authentication.secondCommand()
      let (answer, status) = try exchangeFrame(0xAF, Array(second.dropFirst(5).dropLast()), name: name)
      let response = answer + [0x91, status.rawValue]
      let session: EV2HostSession<DESFireEV2Cipher>
      if let continuing {
        session = try authentication.finish(response: response, continuing: continuing)
      } else {
        session = try authentication.finish(response: response)
      }
      secureMessaging = DESFireEV2SecureMessaging(session: session)
    } catch let error as DESFireCommandError {
      throw error
    } catch let error as EV2Error {
      throw DESFireEV2SecureMessaging.failure(error, name: name)
    } catch {
      throw .malformed("the host's cipher failed: \(error)", command: name)
    }
  }

  /// One command of an EV2 session in `mode`: `header ‖` the protected data sent (in frames as
  /// needed, the MAC over the whole), the answer's frames joined, its status and then its MAC
  /// checked once; the plain answer data. The session stays only when all of it passed: a refusal
  /// ends it on the card, and an answer that fails its check leaves the host nothing to trust.
  func ev2Exchange(_ code: UInt8, header: [UInt8], data: [UInt8] = [], mode: CommunicationMode, name: String,
                   session: DESFireEV2SecureMessaging) throws(DESFireCommandError) -> [UInt8] {
    let protected = try session.protectedData(code, header: header, data: data, mode: mode, name: name)
    secureMessaging = nil
    let answer = try send(code, header + protected, name: name)
    let plain = try session.answerData(code, answer, mode: mode, name: name)
    secureMessaging = session
    return plain
  }

  /// ``ev2Exchange(_:header:data:mode:name:session:)`` of a command whose answer carries no data.
  func ev2ExchangeExpectingNothing(_ code: UInt8, header: [UInt8], data: [UInt8] = [], mode: CommunicationMode, name: String,
                                   session: DESFireEV2SecureMessaging) throws(DESFireCommandError) {
    let answer = try ev2Exchange(code, header: header, data: data, mode: mode, name: name, session: session)
    guard answer.isEmpty else { throw .malformed("\(answer.count) unexpected bytes", command: name) }
  }
}
