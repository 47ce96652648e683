import NDEF
import NFCTags
import NFCTransport

/// How failures of the layers below reach a session user: one Core NFC code each, the original
/// failure kept as ``NFCReaderError/underlyingError``. The messages state what happened; what to do
/// about it is the program's to say.
extension NFCReaderError {
  /// A tag platform's failure.
  ///
  /// | TagError | code |
  /// |---|---|
  /// | tag left, did not answer, link failed | 100 connection lost |
  /// | a write the tag refused (NAK) | 400 not writable |
  /// | any other refused or garbled exchange | 101 retry exceeded |
  /// | read-only | 400 not writable |
  /// | message too large | 402 size too small |
  /// | read-back differs | 401 update failure |
  /// | not NDEF formatted, unsupported (by the tag, or a command the reader cannot carry) | 1 unsupported feature |
  /// | malformed tag data | 102 tag response error |
  /// | password or key refused, read-protected pages | 2 security violation |
  public init(_ error: TagError) {
    let code: Code
    switch error {
    case _ where error.isTagLost: code = .readerTransceiveErrorTagConnectionLost
    case .writeRefused: code = .ndefReaderSessionErrorTagNotWritable
    // A command the reader cannot carry (a FeliCa tag on a reader without a FeliCa path, a Topaz
    // off the ACR122U): no retry helps.
    case .transceive(.unsupported, _, _): code = .readerErrorUnsupportedFeature
    case .transceive: code = .readerTransceiveErrorRetryExceeded
    case .readOnly: code = .ndefReaderSessionErrorTagNotWritable
    case .insufficientCapacity: code = .ndefReaderSessionErrorTagSizeTooSmall
    case .verifyFailed: code = .ndefReaderSessionErrorTagUpdateFailure
    case .notFormatted, .unsupported: code = .readerErrorUnsupportedFeature
    case .malformed: code = .readerTransceiveErrorTagResponseError
    case .authenticationFailed, .readRefused: code = .readerErrorSecurityViolation
    }
    self.init(code, error.description, underlying: error)
  }

  /// A reader's failure to poll.
  ///
  /// | PollError | code |
  /// |---|---|
  /// | timeout | 201 session timeout |
  /// | cancelled | 200 user canceled |
  /// | busy | 203 system is busy |
  /// | PC/SC service or reader unavailable | 202 terminated unexpectedly |
  /// | the tag could not be identified (it left, it did not answer) | 100 connection lost |
  public init(_ error: PollError) {
    let code: Code
    switch error {
    case .timeout: code = .readerSessionInvalidationErrorSessionTimeout
    case .cancelled: code = .readerSessionInvalidationErrorUserCanceled
    case .busy: code = .readerSessionInvalidationErrorSystemIsBusy
    case .serviceUnavailable, .readerUnavailable, .noReader: code = .readerSessionInvalidationErrorSessionTerminatedUnexpectedly
    case .failed: code = .readerTransceiveErrorTagConnectionLost
    }
    self.init(code, error.description, underlying: error)
  }

  /// A raw command's failure (``NFCTagReaderSession`` tags): no answer is 100, an answer of the
  /// wrong shape 102, a command this reader cannot carry 1.
  public init(_ error: TransceiveError) {
    let code: Code
    switch error {
    case .tagRemoved, .timeout, .transport: code = .readerTransceiveErrorTagConnectionLost
    case .unsupported: code = .readerErrorUnsupportedFeature
    case .nak, .status, .chipError, .malformedResponse, .unexpectedCommand: code = .readerTransceiveErrorTagResponseError
    }
    self.init(code, error.description, underlying: error)
  }

  /// A message on the tag that is not valid NDEF: Core NFC's tag response error (102).
  public init(_ error: NDEFError) {
    self.init(.readerTransceiveErrorTagResponseError, "invalid NDEF message: \(error)", underlying: error)
  }

  /// Any failure: an ``NFCReaderError`` as it is, the known lower-layer errors as above, anything
  /// else as an unexpected termination (202).
  public init(_ error: any Error) {
    switch error {
    case let same as NFCReaderError: self = same
    case let tag as TagError: self.init(tag)
    case let poll as PollError: self.init(poll)
    case let transceive as TransceiveError: self.init(transceive)
    case let ndef as NDEFError: self.init(ndef)
    default: self.init(.readerSessionInvalidationErrorSessionTerminatedUnexpectedly, String(describing: error))
    }
  }
}
