import NFCTransport
import NTAG424

/// Why a command to a 424 DNA failed. The cases keep their cause; none holds key material.
///
/// A response MAC that does not verify is ``tag(_:)`` with ``NTAG424Error/responseMACMismatch(command:)``:
/// an error of its own, never data.
public enum NTAG424DNAError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The exchange failed below the tag (removed, no answer, reader error).
  case transceive(TransceiveError, command: String)
  /// SELECT of the application by its DF name did not answer `90 00`: not a 424 DNA (or a tag
  /// without the NDEF application).
  case applicationNotFound(StatusWord)
  /// The tag refused the command (`91 AE` wrong key, `91 9D` permission…), or its answer did not
  /// verify or parse (``NTAG424Error``).
  case tag(NTAG424Error, command: String)
  /// The command needs an authenticated session and there is none (or it ended): authenticate first.
  case notAuthenticated(command: String)
  /// The tag kept answering `91 AF` past the frames the command can have.
  case tooManyFrames(command: String)
  /// The tag answered `91 AD` (AUTHENTICATION_DELAY) to the first try and to `retries` more, for
  /// as long as ``NTAG424DNA/authenticationDelay`` allows: it takes no authentication for now.
  case authenticationDelay(command: String, retries: Int)
  /// The tag uses LRP secure messaging (PDCap2.1 bit 1, set for good by SetConfiguration option
  /// 05h): it refuses AES authentication, and this library implements no LRP.
  case lrpSecureMessaging(command: String)
  /// ChangeKey of key `keyNumber`, not the session's own, answered `91 1E` (INTEGRITY_ERROR): the
  /// command carries the new key XOR the old one and the CRC32 of the new key, and the tag, XORing
  /// with the key it holds, finds the CRC wrong (NT4H2421Gx datasheet §10.6.1): the old value
  /// given is not the tag's, and would fail the same way every time. (A command MAC damaged on
  /// the way gets the same status, Table 23; ISO/IEC 14443's frame CRC makes that the rare case.)
  case oldKeyMismatch(keyNumber: UInt8)
  /// GetVersion does not name a 424 DNA (``NTAG424Identification``, the identification `info`
  /// uses too): the reason, one line ("GetVersion answered 6e00").
  case notNTAG424DNA(reason: String)

  /// One line for people.
  public var description: String {
    switch self {
    case .transceive(let error, let command): return "\(command) failed: \(error)"
    case .applicationNotFound(let sw):
      return "not an NTAG 424 DNA: SELECT of application D2760000850101 answered \(hexString(sw.bytes))"
    case .tag(let error, let command): return "\(command): \(error)"
    case .notAuthenticated(let command): return "\(command) needs an authenticated session; authenticate first"
    case .tooManyFrames(let command): return "\(command): the tag sent more answer frames than the command has"
    case .authenticationDelay(let command, let retries):
      return "\(command): authentication delay (91 AD): the tag still refused to authenticate after \(retries) retries"
    case .lrpSecureMessaging(let command):
      return "\(command): the tag uses LRP secure messaging (PDCap2.1 bit 1 set) and refuses AES authentication (91 9D)"
    case .notNTAG424DNA(let reason): return NTAG424Identification.refusal(reason)
    case .oldKeyMismatch(let number):
      return "ChangeKey (key \(number)): the old value given for key \(number) is not the tag's"
        + " (91 1E: the new key's CRC did not check against the key the tag holds)"
    }
  }
}
