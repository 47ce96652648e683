import NFCTags
import NFCTransport

extension NFCNDEFTag {
  /// Shows `signal` on the reader (ACR122U: LEDs and buzzer), between tag commands.
  /// - Returns: false when the reader has no such commands.
  @discardableResult
  public func signalReader(_ signal: ReaderSignal) throws(NFCReaderError) -> Bool {
    try connection.withLink { link throws(TransceiveError) in
      guard let signalling = link as? any ReaderSignalling else { return false }
      try signalling.signal(signal)
      return true
    }
  }
}
