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
  /// The ISO 15693 error code the tag answered (`01 code`), given under
  /// ``NFCISO15693TagResponseErrorKey``; nil for other errors.
  var iso15693ResponseErrorCode: Int? = nil

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
  /// The message under `NSLocalizedDescriptionKey`, the cause under `NSUnderlyingErrorKey`, and
  /// for an ISO 15693 tag's refusal its error code under ``NFCISO15693TagResponseErrorKey``.
  public var errorUserInfo: [String: Any] {
    var info: [String: Any] = [NSLocalizedDescriptionKey: message]
    if let underlyingError { info[NSUnderlyingErrorKey] = underlyingError }
    if let iso15693ResponseErrorCode { info[NFCISO15693TagResponseErrorKey] = iso15693ResponseErrorCode }
    return info
  }
}

extension NFCReaderError {
  // Core NFC's bridged error gives each code as a static member, so that `catch
  // NFCReaderError.readerTransceiveErrorTagConnectionLost` and `error.code == NFCReaderError.x` read as in Core NFC.
  /// ``Code-swift.enum/readerErrorUnsupportedFeature`` (1).
  public static var readerErrorUnsupportedFeature: Code { .readerErrorUnsupportedFeature }
  /// ``Code-swift.enum/readerErrorSecurityViolation`` (2).
  public static var readerErrorSecurityViolation: Code { .readerErrorSecurityViolation }
  /// ``Code-swift.enum/readerErrorInvalidParameter`` (3).
  public static var readerErrorInvalidParameter: Code { .readerErrorInvalidParameter }
  /// ``Code-swift.enum/readerErrorInvalidParameterLength`` (4).
  public static var readerErrorInvalidParameterLength: Code { .readerErrorInvalidParameterLength }
  /// ``Code-swift.enum/readerErrorParameterOutOfBound`` (5).
  public static var readerErrorParameterOutOfBound: Code { .readerErrorParameterOutOfBound }
  /// ``Code-swift.enum/readerErrorRadioDisabled`` (6).
  public static var readerErrorRadioDisabled: Code { .readerErrorRadioDisabled }
  /// ``Code-swift.enum/readerTransceiveErrorTagConnectionLost`` (100).
  public static var readerTransceiveErrorTagConnectionLost: Code { .readerTransceiveErrorTagConnectionLost }
  /// ``Code-swift.enum/readerTransceiveErrorRetryExceeded`` (101).
  public static var readerTransceiveErrorRetryExceeded: Code { .readerTransceiveErrorRetryExceeded }
  /// ``Code-swift.enum/readerTransceiveErrorTagResponseError`` (102).
  public static var readerTransceiveErrorTagResponseError: Code { .readerTransceiveErrorTagResponseError }
  /// ``Code-swift.enum/readerTransceiveErrorSessionInvalidated`` (103).
  public static var readerTransceiveErrorSessionInvalidated: Code { .readerTransceiveErrorSessionInvalidated }
  /// ``Code-swift.enum/readerTransceiveErrorTagNotConnected`` (104).
  public static var readerTransceiveErrorTagNotConnected: Code { .readerTransceiveErrorTagNotConnected }
  /// ``Code-swift.enum/readerTransceiveErrorPacketTooLong`` (105).
  public static var readerTransceiveErrorPacketTooLong: Code { .readerTransceiveErrorPacketTooLong }
  /// ``Code-swift.enum/readerSessionInvalidationErrorUserCanceled`` (200).
  public static var readerSessionInvalidationErrorUserCanceled: Code { .readerSessionInvalidationErrorUserCanceled }
  /// ``Code-swift.enum/readerSessionInvalidationErrorSessionTimeout`` (201).
  public static var readerSessionInvalidationErrorSessionTimeout: Code { .readerSessionInvalidationErrorSessionTimeout }
  /// ``Code-swift.enum/readerSessionInvalidationErrorSessionTerminatedUnexpectedly`` (202).
  public static var readerSessionInvalidationErrorSessionTerminatedUnexpectedly: Code { .readerSessionInvalidationErrorSessionTerminatedUnexpectedly }
  /// ``Code-swift.enum/readerSessionInvalidationErrorSystemIsBusy`` (203).
  public static var readerSessionInvalidationErrorSystemIsBusy: Code { .readerSessionInvalidationErrorSystemIsBusy }
  /// ``Code-swift.enum/readerSessionInvalidationErrorFirstNDEFTagRead`` (204).
  public static var readerSessionInvalidationErrorFirstNDEFTagRead: Code { .readerSessionInvalidationErrorFirstNDEFTagRead }
  /// ``Code-swift.enum/tagCommandConfigurationErrorInvalidParameters`` (300).
  public static var tagCommandConfigurationErrorInvalidParameters: Code { .tagCommandConfigurationErrorInvalidParameters }
  /// ``Code-swift.enum/ndefReaderSessionErrorTagNotWritable`` (400).
  public static var ndefReaderSessionErrorTagNotWritable: Code { .ndefReaderSessionErrorTagNotWritable }
  /// ``Code-swift.enum/ndefReaderSessionErrorTagUpdateFailure`` (401).
  public static var ndefReaderSessionErrorTagUpdateFailure: Code { .ndefReaderSessionErrorTagUpdateFailure }
  /// ``Code-swift.enum/ndefReaderSessionErrorTagSizeTooSmall`` (402).
  public static var ndefReaderSessionErrorTagSizeTooSmall: Code { .ndefReaderSessionErrorTagSizeTooSmall }
  /// ``Code-swift.enum/ndefReaderSessionErrorZeroLengthMessage`` (403).
  public static var ndefReaderSessionErrorZeroLengthMessage: Code { .ndefReaderSessionErrorZeroLengthMessage }
}

extension NFCReaderError.Code {
  /// True when `error` is an ``NFCReaderError`` with `code`: what `catch NFCReaderError.x` matches.
  public static func ~= (code: Self, error: any Error) -> Bool { (error as? NFCReaderError)?.code == code }
}
#endif
