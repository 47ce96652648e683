// Generated from pcsclite.h (pcsc-lite 1.9.9); the names follow swift-system.

/// A status code returned by a PC/SC function.
///
/// A `RawRepresentable` struct, not an enum: an unknown code still round-trips, and new codes never
/// break a caller's `switch`. The C names stay findable through `unavailable` aliases.
public struct PCSCError: RawRepresentable, Error, Hashable, Sendable {
  /// The code as 32 bits: the same on Linux (`LONG` = Int) and macOS (`LONG` = Int32).
  public let rawValue: UInt32
  public init(rawValue: UInt32) { self.rawValue = rawValue }

  /// An internal consistency check failed. The corresponding C constant is `SCARD_F_INTERNAL_ERROR`.
  public static var internalError: PCSCError { PCSCError(rawValue: 0x80100001) }
  @available(*, unavailable, renamed: "internalError")
  public static var SCARD_F_INTERNAL_ERROR: PCSCError { internalError }
  /// The action was cancelled by an SCardCancel request. The corresponding C constant is `SCARD_E_CANCELLED`.
  public static var cancelled: PCSCError { PCSCError(rawValue: 0x80100002) }
  @available(*, unavailable, renamed: "cancelled")
  public static var SCARD_E_CANCELLED: PCSCError { cancelled }
  /// The supplied handle was invalid. The corresponding C constant is `SCARD_E_INVALID_HANDLE`.
  public static var invalidHandle: PCSCError { PCSCError(rawValue: 0x80100003) }
  @available(*, unavailable, renamed: "invalidHandle")
  public static var SCARD_E_INVALID_HANDLE: PCSCError { invalidHandle }
  /// One or more of the supplied parameters could not be properly interpreted. The corresponding C constant is `SCARD_E_INVALID_PARAMETER`.
  public static var invalidParameter: PCSCError { PCSCError(rawValue: 0x80100004) }
  @available(*, unavailable, renamed: "invalidParameter")
  public static var SCARD_E_INVALID_PARAMETER: PCSCError { invalidParameter }
  /// Registry startup information is missing or invalid. The corresponding C constant is `SCARD_E_INVALID_TARGET`.
  public static var invalidTarget: PCSCError { PCSCError(rawValue: 0x80100005) }
  @available(*, unavailable, renamed: "invalidTarget")
  public static var SCARD_E_INVALID_TARGET: PCSCError { invalidTarget }
  /// Not enough memory available to complete this command. The corresponding C constant is `SCARD_E_NO_MEMORY`.
  public static var noMemory: PCSCError { PCSCError(rawValue: 0x80100006) }
  @available(*, unavailable, renamed: "noMemory")
  public static var SCARD_E_NO_MEMORY: PCSCError { noMemory }
  /// An internal consistency timer has expired. The corresponding C constant is `SCARD_F_WAITED_TOO_LONG`.
  public static var waitedTooLong: PCSCError { PCSCError(rawValue: 0x80100007) }
  @available(*, unavailable, renamed: "waitedTooLong")
  public static var SCARD_F_WAITED_TOO_LONG: PCSCError { waitedTooLong }
  /// The data buffer to receive returned data is too small for the returned data. The corresponding C constant is `SCARD_E_INSUFFICIENT_BUFFER`.
  public static var insufficientBuffer: PCSCError { PCSCError(rawValue: 0x80100008) }
  @available(*, unavailable, renamed: "insufficientBuffer")
  public static var SCARD_E_INSUFFICIENT_BUFFER: PCSCError { insufficientBuffer }
  /// The specified reader name is not recognized. The corresponding C constant is `SCARD_E_UNKNOWN_READER`.
  public static var unknownReader: PCSCError { PCSCError(rawValue: 0x80100009) }
  @available(*, unavailable, renamed: "unknownReader")
  public static var SCARD_E_UNKNOWN_READER: PCSCError { unknownReader }
  /// The user-specified timeout value has expired. The corresponding C constant is `SCARD_E_TIMEOUT`.
  public static var timeout: PCSCError { PCSCError(rawValue: 0x8010000A) }
  @available(*, unavailable, renamed: "timeout")
  public static var SCARD_E_TIMEOUT: PCSCError { timeout }
  /// The smart card cannot be accessed because of other connections outstanding. The corresponding C constant is `SCARD_E_SHARING_VIOLATION`.
  public static var sharingViolation: PCSCError { PCSCError(rawValue: 0x8010000B) }
  @available(*, unavailable, renamed: "sharingViolation")
  public static var SCARD_E_SHARING_VIOLATION: PCSCError { sharingViolation }
  /// The operation requires a Smart Card, but no Smart Card is currently in the device. The corresponding C constant is `SCARD_E_NO_SMARTCARD`.
  public static var noSmartcard: PCSCError { PCSCError(rawValue: 0x8010000C) }
  @available(*, unavailable, renamed: "noSmartcard")
  public static var SCARD_E_NO_SMARTCARD: PCSCError { noSmartcard }
  /// The specified smart card name is not recognized. The corresponding C constant is `SCARD_E_UNKNOWN_CARD`.
  public static var unknownCard: PCSCError { PCSCError(rawValue: 0x8010000D) }
  @available(*, unavailable, renamed: "unknownCard")
  public static var SCARD_E_UNKNOWN_CARD: PCSCError { unknownCard }
  /// The system could not dispose of the media in the requested manner. The corresponding C constant is `SCARD_E_CANT_DISPOSE`.
  public static var cantDispose: PCSCError { PCSCError(rawValue: 0x8010000E) }
  @available(*, unavailable, renamed: "cantDispose")
  public static var SCARD_E_CANT_DISPOSE: PCSCError { cantDispose }
  /// The requested protocols are incompatible with the protocol currently in use with the smart card. The corresponding C constant is `SCARD_E_PROTO_MISMATCH`.
  public static var protoMismatch: PCSCError { PCSCError(rawValue: 0x8010000F) }
  @available(*, unavailable, renamed: "protoMismatch")
  public static var SCARD_E_PROTO_MISMATCH: PCSCError { protoMismatch }
  /// The reader or smart card is not ready to accept commands. The corresponding C constant is `SCARD_E_NOT_READY`.
  public static var notReady: PCSCError { PCSCError(rawValue: 0x80100010) }
  @available(*, unavailable, renamed: "notReady")
  public static var SCARD_E_NOT_READY: PCSCError { notReady }
  /// One or more of the supplied parameters values could not be properly interpreted. The corresponding C constant is `SCARD_E_INVALID_VALUE`.
  public static var invalidValue: PCSCError { PCSCError(rawValue: 0x80100011) }
  @available(*, unavailable, renamed: "invalidValue")
  public static var SCARD_E_INVALID_VALUE: PCSCError { invalidValue }
  /// The action was cancelled by the system, presumably to log off or shut down. The corresponding C constant is `SCARD_E_SYSTEM_CANCELLED`.
  public static var systemCancelled: PCSCError { PCSCError(rawValue: 0x80100012) }
  @available(*, unavailable, renamed: "systemCancelled")
  public static var SCARD_E_SYSTEM_CANCELLED: PCSCError { systemCancelled }
  /// An internal communications error has been detected. The corresponding C constant is `SCARD_F_COMM_ERROR`.
  public static var commError: PCSCError { PCSCError(rawValue: 0x80100013) }
  @available(*, unavailable, renamed: "commError")
  public static var SCARD_F_COMM_ERROR: PCSCError { commError }
  /// An internal error has been detected, but the source is unknown. The corresponding C constant is `SCARD_F_UNKNOWN_ERROR`.
  public static var unknownError: PCSCError { PCSCError(rawValue: 0x80100014) }
  @available(*, unavailable, renamed: "unknownError")
  public static var SCARD_F_UNKNOWN_ERROR: PCSCError { unknownError }
  /// An ATR obtained from the registry is not a valid ATR string. The corresponding C constant is `SCARD_E_INVALID_ATR`.
  public static var invalidAtr: PCSCError { PCSCError(rawValue: 0x80100015) }
  @available(*, unavailable, renamed: "invalidAtr")
  public static var SCARD_E_INVALID_ATR: PCSCError { invalidAtr }
  /// An attempt was made to end a non-existent transaction. The corresponding C constant is `SCARD_E_NOT_TRANSACTED`.
  public static var notTransacted: PCSCError { PCSCError(rawValue: 0x80100016) }
  @available(*, unavailable, renamed: "notTransacted")
  public static var SCARD_E_NOT_TRANSACTED: PCSCError { notTransacted }
  /// The specified reader is not currently available for use. The corresponding C constant is `SCARD_E_READER_UNAVAILABLE`.
  public static var readerUnavailable: PCSCError { PCSCError(rawValue: 0x80100017) }
  @available(*, unavailable, renamed: "readerUnavailable")
  public static var SCARD_E_READER_UNAVAILABLE: PCSCError { readerUnavailable }
  /// The operation has been aborted to allow the server application to exit. The corresponding C constant is `SCARD_P_SHUTDOWN`.
  public static var shutdown: PCSCError { PCSCError(rawValue: 0x80100018) }
  @available(*, unavailable, renamed: "shutdown")
  public static var SCARD_P_SHUTDOWN: PCSCError { shutdown }
  /// The PCI Receive buffer was too small. The corresponding C constant is `SCARD_E_PCI_TOO_SMALL`.
  public static var pciTooSmall: PCSCError { PCSCError(rawValue: 0x80100019) }
  @available(*, unavailable, renamed: "pciTooSmall")
  public static var SCARD_E_PCI_TOO_SMALL: PCSCError { pciTooSmall }
  /// The reader driver does not meet minimal requirements for support. The corresponding C constant is `SCARD_E_READER_UNSUPPORTED`.
  public static var readerUnsupported: PCSCError { PCSCError(rawValue: 0x8010001A) }
  @available(*, unavailable, renamed: "readerUnsupported")
  public static var SCARD_E_READER_UNSUPPORTED: PCSCError { readerUnsupported }
  /// The reader driver did not produce a unique reader name. The corresponding C constant is `SCARD_E_DUPLICATE_READER`.
  public static var duplicateReader: PCSCError { PCSCError(rawValue: 0x8010001B) }
  @available(*, unavailable, renamed: "duplicateReader")
  public static var SCARD_E_DUPLICATE_READER: PCSCError { duplicateReader }
  /// The smart card does not meet minimal requirements for support. The corresponding C constant is `SCARD_E_CARD_UNSUPPORTED`.
  public static var cardUnsupported: PCSCError { PCSCError(rawValue: 0x8010001C) }
  @available(*, unavailable, renamed: "cardUnsupported")
  public static var SCARD_E_CARD_UNSUPPORTED: PCSCError { cardUnsupported }
  /// The Smart card resource manager is not running. The corresponding C constant is `SCARD_E_NO_SERVICE`.
  public static var noService: PCSCError { PCSCError(rawValue: 0x8010001D) }
  @available(*, unavailable, renamed: "noService")
  public static var SCARD_E_NO_SERVICE: PCSCError { noService }
  /// The Smart card resource manager has shut down. The corresponding C constant is `SCARD_E_SERVICE_STOPPED`.
  public static var serviceStopped: PCSCError { PCSCError(rawValue: 0x8010001E) }
  @available(*, unavailable, renamed: "serviceStopped")
  public static var SCARD_E_SERVICE_STOPPED: PCSCError { serviceStopped }
  /// An unexpected card error has occurred. The corresponding C constant is `SCARD_E_UNEXPECTED`.
  public static var unexpected: PCSCError { PCSCError(rawValue: 0x8010001F) }
  @available(*, unavailable, renamed: "unexpected")
  public static var SCARD_E_UNEXPECTED: PCSCError { unexpected }
  /// This smart card does not support the requested feature. The corresponding C constant is `SCARD_E_UNSUPPORTED_FEATURE`.
  public static var unsupportedFeature: PCSCError { PCSCError(rawValue: 0x8010001F) }
  @available(*, unavailable, renamed: "unsupportedFeature")
  public static var SCARD_E_UNSUPPORTED_FEATURE: PCSCError { unsupportedFeature }
  /// No primary provider can be found for the smart card. The corresponding C constant is `SCARD_E_ICC_INSTALLATION`.
  public static var iccInstallation: PCSCError { PCSCError(rawValue: 0x80100020) }
  @available(*, unavailable, renamed: "iccInstallation")
  public static var SCARD_E_ICC_INSTALLATION: PCSCError { iccInstallation }
  /// The requested order of object creation is not supported. The corresponding C constant is `SCARD_E_ICC_CREATEORDER`.
  public static var iccCreateorder: PCSCError { PCSCError(rawValue: 0x80100021) }
  @available(*, unavailable, renamed: "iccCreateorder")
  public static var SCARD_E_ICC_CREATEORDER: PCSCError { iccCreateorder }
  /// The identified directory does not exist in the smart card. The corresponding C constant is `SCARD_E_DIR_NOT_FOUND`.
  public static var dirNotFound: PCSCError { PCSCError(rawValue: 0x80100023) }
  @available(*, unavailable, renamed: "dirNotFound")
  public static var SCARD_E_DIR_NOT_FOUND: PCSCError { dirNotFound }
  /// The identified file does not exist in the smart card. The corresponding C constant is `SCARD_E_FILE_NOT_FOUND`.
  public static var fileNotFound: PCSCError { PCSCError(rawValue: 0x80100024) }
  @available(*, unavailable, renamed: "fileNotFound")
  public static var SCARD_E_FILE_NOT_FOUND: PCSCError { fileNotFound }
  /// The supplied path does not represent a smart card directory. The corresponding C constant is `SCARD_E_NO_DIR`.
  public static var noDir: PCSCError { PCSCError(rawValue: 0x80100025) }
  @available(*, unavailable, renamed: "noDir")
  public static var SCARD_E_NO_DIR: PCSCError { noDir }
  /// The supplied path does not represent a smart card file. The corresponding C constant is `SCARD_E_NO_FILE`.
  public static var noFile: PCSCError { PCSCError(rawValue: 0x80100026) }
  @available(*, unavailable, renamed: "noFile")
  public static var SCARD_E_NO_FILE: PCSCError { noFile }
  /// Access is denied to this file. The corresponding C constant is `SCARD_E_NO_ACCESS`.
  public static var noAccess: PCSCError { PCSCError(rawValue: 0x80100027) }
  @available(*, unavailable, renamed: "noAccess")
  public static var SCARD_E_NO_ACCESS: PCSCError { noAccess }
  /// The smart card does not have enough memory to store the information. The corresponding C constant is `SCARD_E_WRITE_TOO_MANY`.
  public static var writeTooMany: PCSCError { PCSCError(rawValue: 0x80100028) }
  @available(*, unavailable, renamed: "writeTooMany")
  public static var SCARD_E_WRITE_TOO_MANY: PCSCError { writeTooMany }
  /// There was an error trying to set the smart card file object pointer. The corresponding C constant is `SCARD_E_BAD_SEEK`.
  public static var badSeek: PCSCError { PCSCError(rawValue: 0x80100029) }
  @available(*, unavailable, renamed: "badSeek")
  public static var SCARD_E_BAD_SEEK: PCSCError { badSeek }
  /// The supplied PIN is incorrect. The corresponding C constant is `SCARD_E_INVALID_CHV`.
  public static var invalidChv: PCSCError { PCSCError(rawValue: 0x8010002A) }
  @available(*, unavailable, renamed: "invalidChv")
  public static var SCARD_E_INVALID_CHV: PCSCError { invalidChv }
  /// An unrecognized error code was returned from a layered component. The corresponding C constant is `SCARD_E_UNKNOWN_RES_MNG`.
  public static var unknownResMng: PCSCError { PCSCError(rawValue: 0x8010002B) }
  @available(*, unavailable, renamed: "unknownResMng")
  public static var SCARD_E_UNKNOWN_RES_MNG: PCSCError { unknownResMng }
  /// The requested certificate does not exist. The corresponding C constant is `SCARD_E_NO_SUCH_CERTIFICATE`.
  public static var noSuchCertificate: PCSCError { PCSCError(rawValue: 0x8010002C) }
  @available(*, unavailable, renamed: "noSuchCertificate")
  public static var SCARD_E_NO_SUCH_CERTIFICATE: PCSCError { noSuchCertificate }
  /// The requested certificate could not be obtained. The corresponding C constant is `SCARD_E_CERTIFICATE_UNAVAILABLE`.
  public static var certificateUnavailable: PCSCError { PCSCError(rawValue: 0x8010002D) }
  @available(*, unavailable, renamed: "certificateUnavailable")
  public static var SCARD_E_CERTIFICATE_UNAVAILABLE: PCSCError { certificateUnavailable }
  /// Cannot find a smart card reader. The corresponding C constant is `SCARD_E_NO_READERS_AVAILABLE`.
  public static var noReadersAvailable: PCSCError { PCSCError(rawValue: 0x8010002E) }
  @available(*, unavailable, renamed: "noReadersAvailable")
  public static var SCARD_E_NO_READERS_AVAILABLE: PCSCError { noReadersAvailable }
  /// A communications error with the smart card has been detected. Retry the operation. The corresponding C constant is `SCARD_E_COMM_DATA_LOST`.
  public static var commDataLost: PCSCError { PCSCError(rawValue: 0x8010002F) }
  @available(*, unavailable, renamed: "commDataLost")
  public static var SCARD_E_COMM_DATA_LOST: PCSCError { commDataLost }
  /// The requested key container does not exist on the smart card. The corresponding C constant is `SCARD_E_NO_KEY_CONTAINER`.
  public static var noKeyContainer: PCSCError { PCSCError(rawValue: 0x80100030) }
  @available(*, unavailable, renamed: "noKeyContainer")
  public static var SCARD_E_NO_KEY_CONTAINER: PCSCError { noKeyContainer }
  /// The Smart Card Resource Manager is too busy to complete this operation. The corresponding C constant is `SCARD_E_SERVER_TOO_BUSY`.
  public static var serverTooBusy: PCSCError { PCSCError(rawValue: 0x80100031) }
  @available(*, unavailable, renamed: "serverTooBusy")
  public static var SCARD_E_SERVER_TOO_BUSY: PCSCError { serverTooBusy }
  /// The reader cannot communicate with the card, due to ATR string configuration conflicts. The corresponding C constant is `SCARD_W_UNSUPPORTED_CARD`.
  public static var unsupportedCard: PCSCError { PCSCError(rawValue: 0x80100065) }
  @available(*, unavailable, renamed: "unsupportedCard")
  public static var SCARD_W_UNSUPPORTED_CARD: PCSCError { unsupportedCard }
  /// The smart card is not responding to a reset. The corresponding C constant is `SCARD_W_UNRESPONSIVE_CARD`.
  public static var unresponsiveCard: PCSCError { PCSCError(rawValue: 0x80100066) }
  @available(*, unavailable, renamed: "unresponsiveCard")
  public static var SCARD_W_UNRESPONSIVE_CARD: PCSCError { unresponsiveCard }
  /// Power has been removed from the smart card, so that further communication is not possible. The corresponding C constant is `SCARD_W_UNPOWERED_CARD`.
  public static var unpoweredCard: PCSCError { PCSCError(rawValue: 0x80100067) }
  @available(*, unavailable, renamed: "unpoweredCard")
  public static var SCARD_W_UNPOWERED_CARD: PCSCError { unpoweredCard }
  /// The smart card has been reset, so any shared state information is invalid. The corresponding C constant is `SCARD_W_RESET_CARD`.
  public static var resetCard: PCSCError { PCSCError(rawValue: 0x80100068) }
  @available(*, unavailable, renamed: "resetCard")
  public static var SCARD_W_RESET_CARD: PCSCError { resetCard }
  /// The smart card has been removed, so further communication is not possible. The corresponding C constant is `SCARD_W_REMOVED_CARD`.
  public static var removedCard: PCSCError { PCSCError(rawValue: 0x80100069) }
  @available(*, unavailable, renamed: "removedCard")
  public static var SCARD_W_REMOVED_CARD: PCSCError { removedCard }
  /// Access was denied because of a security violation. The corresponding C constant is `SCARD_W_SECURITY_VIOLATION`.
  public static var securityViolation: PCSCError { PCSCError(rawValue: 0x8010006A) }
  @available(*, unavailable, renamed: "securityViolation")
  public static var SCARD_W_SECURITY_VIOLATION: PCSCError { securityViolation }
  /// The card cannot be accessed because the wrong PIN was presented. The corresponding C constant is `SCARD_W_WRONG_CHV`.
  public static var wrongChv: PCSCError { PCSCError(rawValue: 0x8010006B) }
  @available(*, unavailable, renamed: "wrongChv")
  public static var SCARD_W_WRONG_CHV: PCSCError { wrongChv }
  /// The card cannot be accessed because the maximum number of PIN entry attempts has been reached. The corresponding C constant is `SCARD_W_CHV_BLOCKED`.
  public static var chvBlocked: PCSCError { PCSCError(rawValue: 0x8010006C) }
  @available(*, unavailable, renamed: "chvBlocked")
  public static var SCARD_W_CHV_BLOCKED: PCSCError { chvBlocked }
  /// The end of the smart card file has been reached. The corresponding C constant is `SCARD_W_EOF`.
  public static var eof: PCSCError { PCSCError(rawValue: 0x8010006D) }
  @available(*, unavailable, renamed: "eof")
  public static var SCARD_W_EOF: PCSCError { eof }
  /// The user pressed "Cancel" on a Smart Card Selection Dialog. The corresponding C constant is `SCARD_W_CANCELLED_BY_USER`.
  public static var cancelledByUser: PCSCError { PCSCError(rawValue: 0x8010006E) }
  @available(*, unavailable, renamed: "cancelledByUser")
  public static var SCARD_W_CANCELLED_BY_USER: PCSCError { cancelledByUser }
  /// No PIN was presented to the smart card. The corresponding C constant is `SCARD_W_CARD_NOT_AUTHENTICATED`.
  public static var cardNotAuthenticated: PCSCError { PCSCError(rawValue: 0x8010006F) }
  @available(*, unavailable, renamed: "cardNotAuthenticated")
  public static var SCARD_W_CARD_NOT_AUTHENTICATED: PCSCError { cardNotAuthenticated }
}

extension PCSCError: CustomStringConvertible {
  /// What went wrong and, where there is one, what to do about it.
  public var description: String {
    switch rawValue {
    case 0x80100001: return "An internal consistency check failed (SCARD_F_INTERNAL_ERROR)"
    case 0x80100002: return "cancelled (SCARD_E_CANCELLED)"
    case 0x80100003: return "The supplied handle was invalid (SCARD_E_INVALID_HANDLE)"
    case 0x80100004: return "One or more of the supplied parameters could not be properly interpreted (SCARD_E_INVALID_PARAMETER)"
    case 0x80100005: return "Registry startup information is missing or invalid (SCARD_E_INVALID_TARGET)"
    case 0x80100006: return "Not enough memory available to complete this command (SCARD_E_NO_MEMORY)"
    case 0x80100007: return "An internal consistency timer has expired (SCARD_F_WAITED_TOO_LONG)"
    case 0x80100008: return "The data buffer to receive returned data is too small for the returned data (SCARD_E_INSUFFICIENT_BUFFER)"
    case 0x80100009: return "no such reader (SCARD_E_UNKNOWN_READER)"
    case 0x8010000A: return "timed out (SCARD_E_TIMEOUT)"
    case 0x8010000B: return "another program holds the reader exclusively: close it and retry (SCARD_E_SHARING_VIOLATION)"
    case 0x8010000C: return "no tag on the reader: put a tag on it (SCARD_E_NO_SMARTCARD)"
    case 0x8010000D: return "The specified smart card name is not recognized (SCARD_E_UNKNOWN_CARD)"
    case 0x8010000E: return "The system could not dispose of the media in the requested manner (SCARD_E_CANT_DISPOSE)"
    case 0x8010000F: return "The requested protocols are incompatible with the protocol currently in use with the smart card (SCARD_E_PROTO_MISMATCH)"
    case 0x80100010: return "The reader or smart card is not ready to accept commands (SCARD_E_NOT_READY)"
    case 0x80100011: return "One or more of the supplied parameters values could not be properly interpreted (SCARD_E_INVALID_VALUE)"
    case 0x80100012: return "The action was cancelled by the system, presumably to log off or shut down (SCARD_E_SYSTEM_CANCELLED)"
    case 0x80100013: return "lost contact with pcscd: restart pcscd (SCARD_F_COMM_ERROR)"
    case 0x80100014: return "An internal error has been detected, but the source is unknown (SCARD_F_UNKNOWN_ERROR)"
    case 0x80100015: return "An ATR obtained from the registry is not a valid ATR string (SCARD_E_INVALID_ATR)"
    case 0x80100016: return "An attempt was made to end a non-existent transaction (SCARD_E_NOT_TRANSACTED)"
    case 0x80100017: return "the reader went away: plug it back in (SCARD_E_READER_UNAVAILABLE)"
    case 0x80100018: return "The operation has been aborted to allow the server application to exit (SCARD_P_SHUTDOWN)"
    case 0x80100019: return "The PCI Receive buffer was too small (SCARD_E_PCI_TOO_SMALL)"
    case 0x8010001A: return "The reader driver does not meet minimal requirements for support (SCARD_E_READER_UNSUPPORTED)"
    case 0x8010001B: return "The reader driver did not produce a unique reader name (SCARD_E_DUPLICATE_READER)"
    case 0x8010001C: return "The smart card does not meet minimal requirements for support (SCARD_E_CARD_UNSUPPORTED)"
    case 0x8010001D: return "the PC/SC service (pcscd) is not running (SCARD_E_NO_SERVICE)"
    case 0x8010001E: return "the PC/SC service stopped: start pcscd again (SCARD_E_SERVICE_STOPPED)"
    case 0x8010001F: return "An unexpected card error has occurred (SCARD_E_UNEXPECTED)"
    case 0x80100020: return "No primary provider can be found for the smart card (SCARD_E_ICC_INSTALLATION)"
    case 0x80100021: return "The requested order of object creation is not supported (SCARD_E_ICC_CREATEORDER)"
    case 0x80100023: return "The identified directory does not exist in the smart card (SCARD_E_DIR_NOT_FOUND)"
    case 0x80100024: return "The identified file does not exist in the smart card (SCARD_E_FILE_NOT_FOUND)"
    case 0x80100025: return "The supplied path does not represent a smart card directory (SCARD_E_NO_DIR)"
    case 0x80100026: return "The supplied path does not represent a smart card file (SCARD_E_NO_FILE)"
    case 0x80100027: return "Access is denied to this file (SCARD_E_NO_ACCESS)"
    case 0x80100028: return "The smart card does not have enough memory to store the information (SCARD_E_WRITE_TOO_MANY)"
    case 0x80100029: return "There was an error trying to set the smart card file object pointer (SCARD_E_BAD_SEEK)"
    case 0x8010002A: return "The supplied PIN is incorrect (SCARD_E_INVALID_CHV)"
    case 0x8010002B: return "An unrecognized error code was returned from a layered component (SCARD_E_UNKNOWN_RES_MNG)"
    case 0x8010002C: return "The requested certificate does not exist (SCARD_E_NO_SUCH_CERTIFICATE)"
    case 0x8010002D: return "The requested certificate could not be obtained (SCARD_E_CERTIFICATE_UNAVAILABLE)"
    case 0x8010002E: return "no reader found (SCARD_E_NO_READERS_AVAILABLE)"
    case 0x8010002F: return "A communications error with the smart card has been detected. Retry the operation (SCARD_E_COMM_DATA_LOST)"
    case 0x80100030: return "The requested key container does not exist on the smart card (SCARD_E_NO_KEY_CONTAINER)"
    case 0x80100031: return "The Smart Card Resource Manager is too busy to complete this operation (SCARD_E_SERVER_TOO_BUSY)"
    case 0x80100065: return "The reader cannot communicate with the card, due to ATR string configuration conflicts (SCARD_W_UNSUPPORTED_CARD)"
    case 0x80100066: return "the tag does not answer: hold it still on the reader (SCARD_W_UNRESPONSIVE_CARD)"
    case 0x80100067: return "Power has been removed from the smart card, so that further communication is not possible (SCARD_W_UNPOWERED_CARD)"
    case 0x80100068: return "the tag was reset by another program: retry (SCARD_W_RESET_CARD)"
    case 0x80100069: return "the tag was removed (SCARD_W_REMOVED_CARD)"
    case 0x8010006A: return "Access was denied because of a security violation (SCARD_W_SECURITY_VIOLATION)"
    case 0x8010006B: return "The card cannot be accessed because the wrong PIN was presented (SCARD_W_WRONG_CHV)"
    case 0x8010006C: return "The card cannot be accessed because the maximum number of PIN entry attempts has been reached (SCARD_W_CHV_BLOCKED)"
    case 0x8010006D: return "The end of the smart card file has been reached (SCARD_W_EOF)"
    case 0x8010006E: return "The user pressed \"Cancel\" on a Smart Card Selection Dialog (SCARD_W_CANCELLED_BY_USER)"
    case 0x8010006F: return "No PIN was presented to the smart card (SCARD_W_CARD_NOT_AUTHENTICATED)"
    default: return "PC/SC error 0x\(String(rawValue, radix: 16))"
    }
  }
}
