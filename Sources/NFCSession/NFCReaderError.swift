/// A Core NFC error: the same names and numbers as `NFCReaderError.Code` (NFCErrorDomain).
///
/// Every failure below a session (tag, reader, PC/SC) reaches its user as one of these, with the
/// original failure in ``underlyingError``.
public struct NFCReaderError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Core NFC's error codes, with their numeric values.
  public struct Code: RawRepresentable, Hashable, Sendable {
    /// The number Core NFC gives the code (NFCErrorDomain).
    public let rawValue: Int
    /// A code by its number; a number without a name below is kept as it is.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// 1: the tag or reader cannot do what was asked (a tag not NDEF formatted, a feature its chip
    /// lacks, a command the reader cannot carry).
    public static let readerErrorUnsupportedFeature = Code(rawValue: 1)
    /// 2: a password or key was refused, or the pages are read-protected.
    public static let readerErrorSecurityViolation = Code(rawValue: 2)
    /// 3: an argument is not valid (a message that cannot be encoded, a custom command code out of
    /// range).
    public static let readerErrorInvalidParameter = Code(rawValue: 3)
    /// 4: an argument has the wrong length (an empty raw command).
    public static let readerErrorInvalidParameterLength = Code(rawValue: 4)
    /// 5: an argument is out of range (Core NFC's code; nfctag's sessions do not use it).
    public static let readerErrorParameterOutOfBound = Code(rawValue: 5)
    /// 6: the NFC radio is off (Core NFC's code; a PC/SC reader has no such state).
    public static let readerErrorRadioDisabled = Code(rawValue: 6)
    /// 100: the tag stopped answering: it left the field, a command timed out, or the reader's link
    /// failed.
    public static let readerTransceiveErrorTagConnectionLost = Code(rawValue: 100)
    /// 101: a tag command failed in transfer (the reader reported an error under it).
    public static let readerTransceiveErrorRetryExceeded = Code(rawValue: 101)
    /// 102: the tag answered, but not as expected: a NAK, an error status, malformed data or an
    /// invalid NDEF message.
    public static let readerTransceiveErrorTagResponseError = Code(rawValue: 102)
    /// 103: the command was sent to a tag of a session that has been invalidated, or found before
    /// polling restarted.
    public static let readerTransceiveErrorSessionInvalidated = Code(rawValue: 103)
    /// 104: the command was sent to a tag that is not the session's connected one (connect first).
    public static let readerTransceiveErrorTagNotConnected = Code(rawValue: 104)
    /// 105: the command is longer than the reader carries in one exchange.
    public static let readerTransceiveErrorPacketTooLong = Code(rawValue: 105)
    /// 200: the poll was cancelled (the program invalidated the session while it waited).
    public static let readerSessionInvalidationErrorUserCanceled = Code(rawValue: 200)
    /// 201: no tag arrived within the session's time limit.
    public static let readerSessionInvalidationErrorSessionTimeout = Code(rawValue: 201)
    /// 202: the session could not go on: pcscd does not answer, the reader is missing or was
    /// unplugged, or an unexpected failure.
    public static let readerSessionInvalidationErrorSessionTerminatedUnexpectedly = Code(rawValue: 202)
    /// 203: another program holds the reader exclusively.
    public static let readerSessionInvalidationErrorSystemIsBusy = Code(rawValue: 203)
    /// 204: a single-read session ended after its first message, as asked (not a failure).
    public static let readerSessionInvalidationErrorFirstNDEFTagRead = Code(rawValue: 204)
    /// 300: a tag command's parameters are not valid (Core NFC's code; nfctag's sessions do not use
    /// it).
    public static let tagCommandConfigurationErrorInvalidParameters = Code(rawValue: 300)
    /// 400: the tag is read-only or refused the write.
    public static let ndefReaderSessionErrorTagNotWritable = Code(rawValue: 400)
    /// 401: the write did not take: the tag read back something other than what was written.
    public static let ndefReaderSessionErrorTagUpdateFailure = Code(rawValue: 401)
    /// 402: the message does not fit the tag's NDEF capacity.
    public static let ndefReaderSessionErrorTagSizeTooSmall = Code(rawValue: 402)
    /// 403: the tag holds no NDEF message (length 0), or the message to write is empty.
    public static let ndefReaderSessionErrorZeroLengthMessage = Code(rawValue: 403)
  }

  /// Core NFC's code: what kind of failure this is. Programs decide on it.
  public let code: Code
  /// What happened, for people: a fact, with no advice.
  public let message: String
  /// The failure of the layer below that caused this one (a `TagError`, `PollError`,
  /// `TransceiveError`, `NDEFError`…), when there was one. Core NFC's `NSUnderlyingErrorKey`.
  public let underlyingError: (any Error & Sendable)?

  /// An error with `code`, a message for people and, optionally, the failure below it.
  public init(_ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil) {
    self.code = code
    self.message = message
    self.underlyingError = underlying
  }

  /// The chain of causes, this error first: each element's `underlyingError` is the next.
  public var causes: [any Error] {
    var chain: [any Error] = [self]
    var next = underlyingError
    while let error = next {
      chain.append(error)
      next = (error as? NFCReaderError)?.underlyingError
    }
    return chain
  }

  /// Two errors are equal when their codes are: the code is what programs compare.
  public static func == (a: Self, b: Self) -> Bool { a.code == b.code }
  public func hash(into hasher: inout Hasher) { hasher.combine(code) }
  public var description: String { "\(message) (NFCReaderError \(code.rawValue))" }
}
