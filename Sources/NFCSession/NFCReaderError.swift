/// A Core NFC error: the same names and numbers as `NFCReaderError.Code` (NFCErrorDomain).
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

  public let code: Code
  /// What happened, for people.
  public let message: String

  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  public static func == (a: Self, b: Self) -> Bool { a.code == b.code }
  public func hash(into hasher: inout Hasher) { hasher.combine(code) }
  public var description: String { "\(message) (NFCReaderError \(code.rawValue))" }
}
