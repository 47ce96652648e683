/// The card's side of AuthenticateEV2First (71h) and AuthenticateEV2NonFirst (77h) and of the EV2
/// secure messaging they start, as a ``DESFireSecurity`` supplies it: NFCEmulator has no cipher,
/// DESFireEmulator implements these over the shared EV2SecureMessaging module with DESFire's
/// OpenSSL backend. The scheme is the NTAG 424 DNA's (NT4H2421Gx data sheet §9.1, §10.4), which
/// NXP AN12343 shows on the DESFire Light and EV2/EV3.
public protocol DESFireEV2Authenticating: AnyObject {
  /// Part 1's answer: `E(K, RndB)`, zero IV.
  var challenge: [UInt8] { get }
  /// Part 2 of AuthenticateEV2First: checks `E(K, RndA ‖ RndB')` and answers
  /// `E(K, TI ‖ RndA' ‖ PDcap2 ‖ PCDcap2)` with a fresh TI and CmdCtr 0; nil when RndB' is wrong
  /// (the card answers AEh).
  func finishFirst(_ token: [UInt8], pcdCap2: [UInt8]) -> (answer: [UInt8], session: any DESFireEV2Session)?
  /// Part 2 of AuthenticateEV2NonFirst: answers `E(K, RndA')`; TI and CmdCtr carry on from
  /// `session`; nil when RndB' is wrong.
  func finishNonFirst(_ token: [UInt8], continuing session: any DESFireEV2Session) -> (answer: [UInt8], session: any DESFireEV2Session)?
}

/// An EV2 secure-messaging session on the card (NT4H2421Gx §9.1.8–9.1.10): command MACs checked,
/// Full-mode data opened, answers protected; each successful answer advances CmdCtr.
public protocol DESFireEV2Session: AnyObject {
  /// TI, 4 bytes.
  var transactionIdentifier: [UInt8] { get }
  /// CmdCtr before the next command.
  var commandCounter: UInt16 { get }
  /// True when CmdCtr is FFFFh: no more commands.
  var isExhausted: Bool { get }
  /// Checks a command's MACt (MAC and Full mode) and deciphers Full-mode data: CmdData in plain,
  /// or the status to answer (1Eh a wrong MAC or padding, 7Eh a wrong length, EEh libcrypto).
  func unwrapCommand(_ code: UInt8, header: [UInt8], body: [UInt8], mode: DESFireCommunicationMode) -> Result<[UInt8], DESFireStatus>
  /// Advances CmdCtr and protects a `91 00` answer's data for `mode`; nil when libcrypto failed.
  func wrapResponse(_ data: [UInt8], mode: DESFireCommunicationMode) -> [UInt8]?
  /// Advances CmdCtr for an answer without a MAC (ChangeKey of the session's own key).
  func countUnMACedResponse()
  /// Opens a ChangeKey cryptogram's plain data (AES): `NewKey ‖ KeyVer` for the session's own key
  /// (`oldKey` nil), `(NewKey ⊕ OldKey) ‖ KeyVer ‖ CRC32(NewKey)` for another (DESFire's JAMCRC);
  /// the new key and version, or the status to answer.
  func openChangeKey(_ keyData: [UInt8], oldKey: [UInt8]?) -> Result<(key: [UInt8], version: UInt8), DESFireStatus>
}

extension DESFireSecurity {
  /// No EV2 authentication: the card answers AEh to 71h and 77h.
  public func authenticateEV2(key: DESFireKey, keyNumber: UInt8) -> (any DESFireEV2Authenticating)? { nil }
}
