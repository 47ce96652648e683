import NFCReaders
import NFCTags
import NFCTransport

extension NFCNDEFTag {
  /// Shows `signal` on the reader's LEDs and buzzer, between tag commands: the ACR122U's
  /// `FF 00 40`; the ACR1252U's and ACR1552U's escapes (NFCReaders' `ACSEscape`, through
  /// `SCardControl`; the ACR1252U without them takes `FF 00 40` too).
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
      // A Part 3 link signals only on the ACS readers that have LED and buzzer escapes.
      if let optional = signalling as? any OptionalReaderSignalling, !optional.canSignal { return false }
      if engine.resetsOnRelease, (try? signalling.reactivateCard()) != nil { engine.cardWasReset() }
      try signalling.signal(signal)
      return true
    }
  }
}
