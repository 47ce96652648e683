/// Why an EV2 secure-messaging step failed: one line, never key, challenge or data bytes.
///
/// The NTAG 424 DNA and MIFARE DESFire EV2/EV3 share the scheme (NT4H2421Gx datasheet §9.1; NXP
/// AN12343 for the DESFire Light), so they share these failures; each tag's module maps them to
/// its own error type.
public enum EV2Error: Error, Hashable, Sendable, CustomStringConvertible {
  /// A field of the wrong length (a cryptogram, an answer, a TI).
  case invalidLength(field: String, expected: Int, actual: Int)
  /// The card's answer does not prove it holds the key (RndA' is not RndA rotated), or the host's
  /// does not (RndB').
  case authenticationFailed
  /// The card answered another status than `91 00` (or `91 AF` where one more frame is due).
  case status(command: UInt8, sw1: UInt8, sw2: UInt8)
  /// The MAC of an answer does not verify: its data is not used.
  case responseMACMismatch(command: UInt8)
  /// Decrypted data does not end in ISO/IEC 9797-1 padding method 2.
  case invalidPadding
  /// The session took an error status, a changed key or CmdCtr FFFFh, and takes no more commands.
  case sessionEnded
  /// A key number the card does not have.
  case invalidKeyNumber(UInt8)
  /// The cryptographic library refused an operation (a broken invariant: lengths are checked first).
  case cryptoFailure(operation: String)

  /// One line.
  public var description: String {
    switch self {
    case .invalidLength(let field, let expected, let actual): return "\(field): \(actual) byte(s), expected \(expected)"
    case .authenticationFailed: return "authentication failed: the answer does not prove the key is held"
    case .status(let command, let sw1, let sw2): return "command \(Self.hex(command)) answered \(Self.hex(sw1))\(Self.hex(sw2))"
    case .responseMACMismatch(let command): return "the response MAC to command \(Self.hex(command)) does not verify"
    case .invalidPadding: return "the decrypted data does not end in 80 00… padding"
    case .sessionEnded: return "the secure-messaging session has ended: authenticate again"
    case .invalidKeyNumber(let number): return "key number \(number) does not exist"
    case .cryptoFailure(let operation): return "the cryptographic library failed at \(operation)"
    }
  }

  private static func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
  }
}
