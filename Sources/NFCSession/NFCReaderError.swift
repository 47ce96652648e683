/// A Core NFC error: the same names and numbers as `NFCReaderError.Code` (NFCErrorDomain).
///
/// Every failure below a session (tag, reader, PC/SC) reaches its user as one of these, with the
/// original failure in ``underlyingError``.
public struct NFCReaderError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Core NFC's error codes, with their numeric values.
  public struct Code: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let readerErrorUnsupportedFeature = Code(rawValue: 1)
    public static let readerErrorSecurityViolation = Code(rawValue: 2)
    public static let readerErrorInvalidParameter = Code(rawValue: 3)
    public static let readerErrorInvalidParameterLength = Code(rawValue: 4)
    public static let readerErrorParameterOutOfBound = Code(rawValue: 5)
    public static let readerErrorRadioDisabled = Code(rawValue: 6)
    public static let readerTransceiveErrorTagConnectionLost = Code(rawValue: 100)
    public static let readerTransceiveErrorRetryExceeded = Code(rawValue: 101)
    public static let readerTransceiveErrorTagResponseError = Code(rawValue: 102)
    public static let readerTransceiveErrorSessionInvalidated = Code(rawValue: 103)
    public static let readerTransceiveErrorTagNotConnected = Code(rawValue: 104)
    public static let readerTransceiveErrorPacketTooLong = Code(rawValue: 105)
    public static let readerSessionInvalidationErrorUserCanceled = Code(rawValue: 200)
    public static let readerSessionInvalidationErrorSessionTimeout = Code(rawValue: 201)
    public static let readerSessionInvalidationErrorSessionTerminatedUnexpectedly = Code(rawValue: 202)
    public static let readerSessionInvalidationErrorSystemIsBusy = Code(rawValue: 203)
    public static let readerSessionInvalidationErrorFirstNDEFTagRead = Code(rawValue: 204)
    public static let tagCommandConfigurationErrorInvalidParameters = Code(rawValue: 300)
    public static let ndefReaderSessionErrorTagNotWritable = Code(rawValue: 400)
    public static let ndefReaderSessionErrorTagUpdateFailure = Code(rawValue: 401)
    public static let ndefReaderSessionErrorTagSizeTooSmall = Code(rawValue: 402)
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
