/// Why a 424 DNA cryptographic step refused its input.
///
/// None of the cases carries key bytes, session keys or decrypted data: an error may be logged or
/// shown. A MAC that does not verify is always an error of its own (``responseMACMismatch(command:)``,
/// ``sdmMACMismatch``), never data handed on.
public enum NTAG424Error: Error, Hashable, Sendable, CustomStringConvertible {
  /// A field had the wrong number of bytes.
  case invalidLength(field: String, expected: Int, actual: Int)
  /// The tag's answer to AuthenticateEV2First part 2 did not hold RndA rotated left by one byte:
  /// the tag does not know the key (NT4H2421Gx datasheet §9.1.5).
  case authenticationFailed
  /// The tag answered a native command with a status other than `91 00` (`91 AE`, `91 1E`…).
  /// The tag drops the authentication after any error (NT4H2421Gx datasheet §9.1.9).
  case status(command: UInt8, sw1: UInt8, sw2: UInt8)
  /// The MAC appended to the tag's response does not match the one computed with the session key
  /// (NT4H2421Gx datasheet §9.1.9): the response is not the tag's, or not for this command.
  case responseMACMismatch(command: UInt8)
  /// Decrypted data did not end in ISO/IEC 9797-1 padding method 2 (`80 00…`).
  case invalidPadding
  /// The secure-messaging session can take no more commands: it ended (the authentication key
  /// was changed) or the command counter reached FFFFh (NT4H2421Gx datasheet §9.1.2).
  case sessionEnded
  /// The key number is not one of the application's five keys (00h–04h).
  case invalidKeyNumber(UInt8)
  /// Decrypted PICCData did not have the form the datasheet gives (tag byte, UID length, counter):
  /// the SDMMetaRead key is wrong, or the data was altered (NT4H2421Gx datasheet §9.3.4, Table 21).
  case invalidPICCData
  /// The SDMMAC in the message does not match the one computed with the SDMFileRead key:
  /// the message is forged or altered, or the key (or its role) is wrong (NT4H2421Gx datasheet §9.3.8).
  case sdmMACMismatch
  /// swift-crypto refused an operation whose inputs this module had already checked.
  case cryptoFailure(operation: String)
  /// A tag's answer to a native command does not have the form the datasheet gives it (a length,
  /// a reserved value, bytes left over): `reason` says which rule it broke.
  case malformedResponse(command: UInt8, reason: String)
  /// A value handed to a command builder or the SDM planner cannot be sent as it is (an offset
  /// past 2^24, a key number above 4, settings the tag would refuse): `reason` says which.
  case invalidParameter(String)

  /// One line for people; never any key or decrypted byte.
  public var description: String {
    switch self {
    case .invalidLength(let field, let expected, let actual):
      return "\(field): \(actual) byte(s), expected \(expected)"
    case .authenticationFailed:
      return "authentication failed: the tag's answer does not prove it holds the key"
    case .status(let command, let sw1, let sw2):
      return "command \(hex(command)) answered \(hex(sw1))\(hex(sw2))"
    case .responseMACMismatch(let command):
      return "the response MAC to command \(hex(command)) does not verify"
    case .invalidPadding:
      return "decrypted data has no valid 80 00… padding"
    case .sessionEnded:
      return "the secure-messaging session has ended; authenticate again"
    case .invalidKeyNumber(let number):
      return "key number \(number) is not 0–4"
    case .invalidPICCData:
      return "PICCData does not decrypt to a valid tag byte, UID and counter (wrong SDMMetaRead key?)"
    case .sdmMACMismatch:
      return "the SDMMAC does not verify (forged or altered message, or wrong SDMFileRead key)"
    case .cryptoFailure(let operation):
      return "\(operation) failed"
    case .malformedResponse(let command, let reason):
      return "malformed answer to command \(hex(command)): \(reason)"
    case .invalidParameter(let reason):
      return reason
    }
  }

  private func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
  }
}
