import Locking

/// The cryptography a virtual DESFire authenticates and protects its messages with, installed by a
/// module that has it: NFCEmulator itself has no cipher (its programs and library users build it
/// without libcrypto's headers), as the NTAG 424 DNA's AES is in NTAG424Emulator. The
/// DESFireEmulator module installs one over the DESFire module (libcrypto through COpenSSL):
///
/// ```swift
/// import DESFireEmulator
///
/// DESFireEmulator.register()   // idempotent
/// ```
///
/// Without it a virtual DESFire answers the authentication commands with `91 1C` (not
/// supported), and everything that needs a key with `91 AE`, as before.
public protocol DESFireSecurity: Sendable {
  /// Starts AuthenticateLegacy (0Ah), AuthenticateISO (1Ah) or AuthenticateAES (AAh) with `key`;
  /// nil when the command does not take the key's type (the card answers AEh).
  func authenticate(command: UInt8, key: DESFireKey) -> (any DESFireAuthenticating)?
  /// Starts AuthenticateEV2First (71h) or AuthenticateEV2NonFirst (77h) with `key`, numbered
  /// `keyNumber`; nil when the key is not AES or the security has no EV2 (the card answers AEh).
  /// The default is nil (DESFireEV2Security.swift).
  func authenticateEV2(key: DESFireKey, keyNumber: UInt8) -> (any DESFireEV2Authenticating)?
}

/// An authentication between the card's challenge and the host's token.
public protocol DESFireAuthenticating: AnyObject {
  /// `E(K, RndB)`, the card's first answer.
  var challenge: [UInt8] { get }
  /// The card's last answer and the secure channel; nil when the token is wrong (AEh).
  func finish(_ token: [UInt8]) -> (answer: [UInt8], channel: any DESFireSecureChannel)?
}

/// The secure messaging after an authentication (EV1: CMAC chaining from one IV, CRC32, full mode).
/// Every method moves the channel's IV as the scheme says; nil or false means the message failed
/// its check (the card answers 1Eh).
public protocol DESFireSecureChannel: AnyObject {
  /// Whether it is the legacy (0Ah) scheme: the card answers its plain commands as before an
  /// authentication, and ReadData and WriteData in MAC and full mode through the channel's
  /// ``DESFireLegacySecureChannel`` conformance (DESFireVirtualTag+Legacy.swift).
  var isLegacy: Bool { get }
  /// The session cipher's block length (8 or 16): full-mode data is padded to it.
  var blockLength: Int { get }
  /// A command in plain mode was received (`cmd ‖ data`): its CMAC moves the IV.
  func received(_ command: [UInt8])
  /// The answer to a successful command in plain or MAC mode: `data ‖ MAC(data ‖ 00)`.
  func macAnswer(_ data: [UInt8]) -> [UInt8]
  /// The answer in full mode: `data ‖ CRC32(data ‖ 00) ‖ 00…` enciphered.
  func encipherAnswer(_ data: [UInt8]) -> [UInt8]
  /// Checks a command's 8-byte MAC over `message` (`cmd ‖ header ‖ data`).
  func checkMAC(_ message: [UInt8], mac: [UInt8]) -> Bool
  /// Deciphers a full-mode command's `length` data bytes sent after `prefix` (`cmd ‖ header`).
  func decipher(prefix: [UInt8], _ ciphertext: [UInt8], length: Int) -> [UInt8]?
  /// Deciphers a ChangeKey cryptogram: the new key bytes and (AES) its version.
  func decipherChangeKey(keyNumber: UInt8, _ ciphertext: [UInt8], keyLength: Int, withVersion: Bool,
                         oldKey: [UInt8]?) -> (key: [UInt8], version: UInt8?)?
}

/// Where the installed ``DESFireSecurity`` is kept: one for the process.
public enum DESFireSecurityRegistry {
  private static let installed = Locked<(any DESFireSecurity)?>(nil)

  /// Installs `security` for every virtual DESFire, replacing any earlier one.
  public static func install(_ security: any DESFireSecurity) {
    installed.withLock { $0 = security }
  }

  /// The installed security; nil when no module installed one.
  public static var current: (any DESFireSecurity)? { installed.withLock { $0 } }
}
