#if os(Linux)
import Foundation
internal import NFCSession

/// A Core NFC error (`NFCErrorDomain`): Core NFC's codes, and a message for people that
/// `localizedDescription` gives.
///
/// Made from NFCSession's `NFCReaderError`, whose codes are the same numbers; its message and
/// its cause come along (`errorUserInfo`: `NSLocalizedDescriptionKey`, `NSUnderlyingErrorKey`).
public struct NFCReaderError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Core NFC's error codes, with their numbers.
  public enum Code: Int, Hashable, Sendable {
    /// 1: the tag or reader cannot do what was asked.
    case readerErrorUnsupportedFeature = 1
    /// 2: a password or key was refused, or the pages are read-protected.
    case readerErrorSecurityViolation = 2
    /// 3: an argument is not valid.
    case readerErrorInvalidParameter = 3
    /// 4: an argument has the wrong length.
    case readerErrorInvalidParameterLength = 4
    /// 5: an argument is out of range.
    case readerErrorParameterOutOfBound = 5
    /// 6: the NFC radio is off.
    case readerErrorRadioDisabled = 6
    /// 100: the tag stopped answering.
    case readerTransceiveErrorTagConnectionLost = 100
    /// 101: a tag command failed in transfer.
    case readerTransceiveErrorRetryExceeded = 101
    /// 102: the tag answered, but not as expected.
    case readerTransceiveErrorTagResponseError = 102
    /// 103: the session was invalidated, or polling restarted, before the command.
    case readerTransceiveErrorSessionInvalidated = 103
    /// 104: the tag is not the session's connected one.
    case readerTransceiveErrorTagNotConnected = 104
    /// 105: the command is longer than the reader carries.
    case readerTransceiveErrorPacketTooLong = 105
    /// 200: the program invalidated the session.
    case readerSessionInvalidationErrorUserCanceled = 200
    /// 201: no tag arrived within the session's time limit.
    case readerSessionInvalidationErrorSessionTimeout = 201
    /// 202: the session could not go on (no reader, pcscd gone, an unexpected failure).
    case readerSessionInvalidationErrorSessionTerminatedUnexpectedly = 202
    /// 203: another session or program holds the reader.
    case readerSessionInvalidationErrorSystemIsBusy = 203
    /// 204: a single-read session ended after its first message, as asked.
    case readerSessionInvalidationErrorFirstNDEFTagRead = 204
    /// 300: a tag command's parameters are not valid.
    case tagCommandConfigurationErrorInvalidParameters = 300
    /// 400: the tag is read-only or refused the write.
    case ndefReaderSessionErrorTagNotWritable = 400
    /// 401: the tag read back something other than what was written.
    case ndefReaderSessionErrorTagUpdateFailure = 401
    /// 402: the message does not fit the tag.
    case ndefReaderSessionErrorTagSizeTooSmall = 402
    /// 403: the tag holds no NDEF message, or the message to write is empty.
    case ndefReaderSessionErrorZeroLengthMessage = 403
  }

  /// What kind of failure this is: programs decide on it.
  public let code: Code
  /// What happened, for people (also `localizedDescription`).
  public let message: String
  /// The failure below this one (NFCSession's error and its causes), when there was one.
  public let underlyingError: (any Error & Sendable)?

  /// An error with `code` and, optionally, a message (else one naming the code).
  public init(_ code: Code, message: String? = nil) {
    self.code = code
    self.message = message ?? "NFC reader error \(code.rawValue)"
    self.underlyingError = nil
  }

  /// Core NFC's error for NFCSession's: the same code, its message, NFCSession's error as the cause.
  init(_ error: NFCSession.NFCReaderError) {
    code = Code(rawValue: error.code.rawValue) ?? .readerSessionInvalidationErrorSessionTerminatedUnexpectedly
    message = error.message
    underlyingError = error
  }

  /// Two errors are equal when their codes are.
  public static func == (a: Self, b: Self) -> Bool { a.code == b.code }
  /// Hashes the code.
  public func hash(into hasher: inout Hasher) { hasher.combine(code) }
  /// The message and the code's number.
  public var description: String { "\(message) (NFCReaderError \(code.rawValue))" }
}

extension NFCReaderError: LocalizedError {
  /// The message: what `localizedDescription` shows.
  public var errorDescription: String? { message }
}

extension NFCReaderError: CustomNSError {
  /// `NFCErrorDomain`, as in Core NFC.
  public static var errorDomain: String { "NFCErrorDomain" }
  /// The code's number.
  public var errorCode: Int { code.rawValue }
  /// The message under `NSLocalizedDescriptionKey`, the cause under `NSUnderlyingErrorKey`.
  public var errorUserInfo: [String: Any] {
    var info: [String: Any] = [NSLocalizedDescriptionKey: message]
    if let underlyingError { info[NSUnderlyingErrorKey] = underlyingError }
    return info
  }
}

/// Core NFC's error for any failure a session or tag command reports.
func coreNFCError(_ error: any Error) -> NFCReaderError {
  if let error = error as? NFCReaderError { return error }
  if let error = error as? NFCSession.NFCReaderError { return NFCReaderError(error) }
  return NFCReaderError(.readerSessionInvalidationErrorSessionTerminatedUnexpectedly, message: "\(error)")
}
#endif
