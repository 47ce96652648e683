import NFCTransport

/// A MIFARE DESFire native status as the host reads it: the second byte of a wrapped answer
/// (`91 xx`). A struct, so a code no table names still round-trips.
///
/// Names and meanings as in NXP's status and error code table of the MIFARE DESFire EV1 data sheet
/// (MF3ICDx21_41_81; the same codes in the EV2 and EV3 data sheets, MF3DX2 and MF3D(H)x3).
public struct DESFireAnswerStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  /// The status byte.
  public let rawValue: UInt8
  /// A status from its byte.
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Success (OPERATION_OK).
  public static let operationOK = Self(rawValue: 0x00)
  /// Nothing to commit or abort (NO_CHANGES).
  public static let noChanges = Self(rawValue: 0x0C)
  /// Not enough non-volatile memory (OUT_OF_EEPROM_ERROR).
  public static let outOfMemory = Self(rawValue: 0x0E)
  /// The card does not take the command (ILLEGAL_COMMAND_CODE).
  public static let illegalCommand = Self(rawValue: 0x1C)
  /// CRC or MAC does not match, or invalid padding (INTEGRITY_ERROR).
  public static let integrityError = Self(rawValue: 0x1E)
  /// No key of that number (NO_SUCH_KEY).
  public static let noSuchKey = Self(rawValue: 0x40)
  /// The command's length is wrong (LENGTH_ERROR).
  public static let lengthError = Self(rawValue: 0x7E)
  /// The settings or the authentication state forbid the command (PERMISSION_DENIED).
  public static let permissionDenied = Self(rawValue: 0x9D)
  /// A parameter is invalid (PARAMETER_ERROR).
  public static let parameterError = Self(rawValue: 0x9E)
  /// No application of that AID (APPLICATION_NOT_FOUND).
  public static let applicationNotFound = Self(rawValue: 0xA0)
  /// Authentication needed, or refused (AUTHENTICATION_ERROR).
  public static let authenticationError = Self(rawValue: 0xAE)
  /// More frames follow, or the card waits for more (ADDITIONAL_FRAME).
  public static let additionalFrame = Self(rawValue: 0xAF)
  /// Past the file's end (BOUNDARY_ERROR).
  public static let boundaryError = Self(rawValue: 0xBE)
  /// The previous command was left unfinished (COMMAND_ABORTED).
  public static let commandAborted = Self(rawValue: 0xCA)
  /// No more applications (COUNT_ERROR: 28 on an EV1).
  public static let countError = Self(rawValue: 0xCE)
  /// The application or file exists already (DUPLICATE_ERROR).
  public static let duplicateError = Self(rawValue: 0xDE)
  /// No file of that number (FILE_NOT_FOUND).
  public static let fileNotFound = Self(rawValue: 0xF0)

  private static let table: [UInt8: (name: String, meaning: String)] = [
    0x00: ("OPERATION_OK", "success"),
    0x0C: ("NO_CHANGES", "nothing to commit or abort"),
    0x0E: ("OUT_OF_EEPROM_ERROR", "not enough free memory on the card"),
    0x1C: ("ILLEGAL_COMMAND_CODE", "the card does not take this command"),
    0x1E: ("INTEGRITY_ERROR", "CRC or MAC does not match"),
    0x40: ("NO_SUCH_KEY", "no key of that number"),
    0x7E: ("LENGTH_ERROR", "the command's length is wrong"),
    0x9D: ("PERMISSION_DENIED", "the key settings or access rights do not allow it"),
    0x9E: ("PARAMETER_ERROR", "a parameter is invalid"),
    0xA0: ("APPLICATION_NOT_FOUND", "no application of that AID"),
    0xA1: ("APPL_INTEGRITY_ERROR", "the application's data is damaged"),
    0xAE: ("AUTHENTICATION_ERROR", "authentication with the right key is needed, or it was refused"),
    0xAF: ("ADDITIONAL_FRAME", "more frames"),
    0xBE: ("BOUNDARY_ERROR", "past the end of the file"),
    0xC1: ("PICC_INTEGRITY_ERROR", "the card's data is damaged"),
    0xCA: ("COMMAND_ABORTED", "the previous command was not finished"),
    0xCD: ("PICC_DISABLED_ERROR", "the card is disabled"),
    0xCE: ("COUNT_ERROR", "no more applications fit"),
    0xDE: ("DUPLICATE_ERROR", "an application or file of that number or name exists already"),
    0xEE: ("EEPROM_ERROR", "the card's memory failed"),
    0xF0: ("FILE_NOT_FOUND", "no file of that number"),
    0xF1: ("FILE_INTEGRITY_ERROR", "the file's data is damaged"),
  ]

  /// NXP's name ("AUTHENTICATION_ERROR"), nil for a code the table does not have.
  public var name: String? { Self.table[rawValue]?.name }
  /// What it means, in a few words ("no application of that AID").
  public var meaning: String { Self.table[rawValue]?.meaning ?? "unknown status" }
  /// "91 AE (authentication with the right key is needed, or it was refused)".
  public var description: String { "91 \(hexString([rawValue])) (\(meaning))" }
}

/// Why a DESFire command failed.
public enum DESFireCommandError: Error, Sendable, CustomStringConvertible {
  /// The card answered a native status other than success: `command` names the command.
  case status(DESFireAnswerStatus, command: String)
  /// The card answered an ISO status word, not `91 xx` (`6A 86`, `67 00`, `6E 00`: it does not
  /// take wrapped native commands, or not this one).
  case isoStatus(StatusWord, command: String)
  /// The answer does not have the command's shape: `why` says how.
  case malformed(String, command: String)
  /// The link failed (the card left, the reader failed).
  case link(TransceiveError, command: String)
  /// The host refused to send it (a parameter out of range): nothing was sent.
  case invalidArgument(String)
  /// An answer in an authenticated session failed its check (a CMAC that does not match, an
  /// enciphered answer whose CRC32 or padding is wrong): its data is never given back, and the
  /// session is over. `why` says which check.
  case integrity(String, command: String)

  /// The card's native status, when that is the reason.
  public var status: DESFireAnswerStatus? {
    if case .status(let status, _) = self { return status }
    return nil
  }

  public var description: String {
    switch self {
    case .status(let status, let command): return "\(command) answered \(status)"
    case .isoStatus(let sw, let command):
      return "\(command) answered \(hexString(sw.bytes, separator: " "))" + (sw.isKnown ? " (\(sw.meaning))" : "")
    case .malformed(let why, let command): return "\(command): malformed answer: \(why)"
    case .link(let error, let command): return "\(command) failed: \(error)"
    case .invalidArgument(let why): return why
    case .integrity(let why, let command):
      return "\(command): integrity failure: \(why) (nothing taken from the answer; authenticate again)"
    }
  }

  /// The same failure in the NDEF platforms' vocabulary: the link's failures as they are (so a
  /// removal stays a removal), `91 AE` as a refused authentication, `91 9D` as a refused write,
  /// any other refusal as what the card cannot do (its line says which status).
  public var tagError: TagError {
    switch self {
    case .link(let error, let command): return .transceive(error, command: command, address: nil)
    case .status(.authenticationError, _): return .authenticationFailed(description)
    case .status(.permissionDenied, let command):
      return .writeRefused(.status(StatusWord(0x91, DESFireAnswerStatus.permissionDenied.rawValue)), command: command, address: nil)
    case .status, .isoStatus: return .unsupported(description)
    case .malformed(let why, let command): return .malformed("\(command): \(why)", offset: nil)
    case .invalidArgument(let why): return .unsupported(why)
    case .integrity: return .unsupported(description)
    }
  }
}
