import DESFire
import EV2SecureMessaging
import NFCEmulator

/// The card's side of AuthenticateEV2First/NonFirst and EV2 secure messaging for the virtual
/// DESFire EV2/EV3, over the shared EV2SecureMessaging module (`EV2CardAuthentication`,
/// `EV2CardSession`) with DESFire's OpenSSL backend (``DESFireEV2Cipher``). A failure of
/// libcrypto reads as a failed check (1Eh), as in EV1 (Registration.swift).
extension OpenSSLDESFireSecurity {
  /// Part 1 with the AES key `key`: RndB and, for First, TI from the card's random source
  /// (`random`, or OpenSSL's); nil for another key type or when libcrypto fails.
  public func authenticateEV2(key: DESFireKey, keyNumber: UInt8) -> (any DESFireEV2Authenticating)? {
    guard key.type == .aes, let rndB = cardRandom(16), rndB.count == 16, let ti = cardRandom(4), ti.count >= 4,
          let card = try? EV2CardAuthentication<DESFireEV2Cipher>(key: key.value, keyNumber: keyNumber, rndB: rndB) else {
      return nil
    }
    return EV2Authenticating(card: card, transactionIdentifier: Array(ti.prefix(4)))
  }

  /// `count` bytes from the injected source (tests: its bytes, cut to `count` by the caller) or OpenSSL's.
  private func cardRandom(_ count: Int) -> [UInt8]? {
    if let random { return Array(random(count).prefix(count)) }
    return try? DESFireCipher.random(count: count)
  }
}

private final class EV2Authenticating: DESFireEV2Authenticating {
  let card: EV2CardAuthentication<DESFireEV2Cipher>
  let transactionIdentifier: [UInt8]
  init(card: EV2CardAuthentication<DESFireEV2Cipher>, transactionIdentifier: [UInt8]) {
    self.card = card
    self.transactionIdentifier = transactionIdentifier
  }

  var challenge: [UInt8] { card.encryptedRndB }

  func finishFirst(_ token: [UInt8], pcdCap2: [UInt8]) -> (answer: [UInt8], session: any DESFireEV2Session)? {
    guard let (answer, session) = try? card.answerFirst(token, transactionIdentifier: transactionIdentifier, pcdCap2: pcdCap2) else {
      return nil
    }
    return (answer, EV2Session(session))
  }

  func finishNonFirst(_ token: [UInt8], continuing session: any DESFireEV2Session) -> (answer: [UInt8], session: any DESFireEV2Session)? {
    guard let running = session as? EV2Session,
          let (answer, next) = try? card.answerNonFirst(token, continuing: running.session) else { return nil }
    return (answer, EV2Session(next))
  }
}

/// The card's side of an EV2 session as the virtual DESFire keeps it (internal: the published
/// transcript tests put a card in a session with given keys).
final class EV2Session: DESFireEV2Session {
  var session: EV2CardSession<DESFireEV2Cipher>
  init(_ session: EV2CardSession<DESFireEV2Cipher>) { self.session = session }

  var transactionIdentifier: [UInt8] { session.transactionIdentifier }
  var commandCounter: UInt16 { session.commandCounter }
  var isExhausted: Bool { session.isExhausted }

  func unwrapCommand(_ code: UInt8, header: [UInt8], body: [UInt8], mode: DESFireCommunicationMode) -> Result<[UInt8], DESFireStatus> {
    do { return .success(try session.unwrapCommand(code, header: header, body: body, mode: Self.mode(mode))) } catch {
      return .failure(error == .length ? .lengthError : .integrityError)
    }
  }

  func wrapResponse(_ data: [UInt8], mode: DESFireCommunicationMode) -> [UInt8]? {
    try? session.wrapResponse(data, mode: Self.mode(mode))
  }

  func countUnMACedResponse() { session.countUnMACedResponse() }

  func openChangeKey(_ keyData: [UInt8], oldKey: [UInt8]?) -> Result<(key: [UInt8], version: UInt8), DESFireStatus> {
    do {
      let opened = try EV2CardSession<DESFireEV2Cipher>.openChangeKey(keyData, keyLength: 16, oldKey: oldKey) { key in
        DESFireCRC.crc32(key).enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
      }
      return .success((opened.newKey, opened.version))
    } catch {
      return .failure(error == .length ? .lengthError : .integrityError)
    }
  }

  private static func mode(_ mode: DESFireCommunicationMode) -> CommunicationMode {
    switch mode {
    case .plain: return .plain
    case .mac: return .mac
    case .full: return .full
    }
  }
}
