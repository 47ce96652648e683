import NFCTags
import NFCTransport

extension NFCNDEFTag {
  /// Shows `signal` on the reader (ACR122U: LEDs and buzzer), between tag commands.
  ///
  /// The signal is the tag's last command: the person at the reader (or a tag feeder) takes the
  /// tag away on it. So a card the session would reset at its release (an authentication, raw
  /// commands) is reset first, while it is surely in the field (`ReaderSignalling.reactivateCard()`),
  /// and released as it is afterwards: a reset after the signal raced the tag's departure (through
  /// pcscd and vpcd, the next tag was never seen). When the reader cannot reactivate the card,
  /// the reset stays for the release.
  /// - Returns: false when the reader has no such commands.
  @discardableResult
  public func signalReader(_ signal: ReaderSignal) throws(NFCReaderError) -> Bool {
    let engine = connection.engine
    return try connection.withLink { link throws(TransceiveError) in
      guard let signalling = link as? any ReaderSignalling else { return false }
      if engine.resetsOnRelease, (try? signalling.reactivateCard()) != nil { engine.cardWasReset() }
      try signalling.signal(signal)
      return true
    }
  }
}
