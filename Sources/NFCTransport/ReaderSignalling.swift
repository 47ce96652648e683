/// What a reader shows the person at it once a tag is dealt with.
public enum ReaderSignal: Sendable, Equatable {
  /// ACR122U: green LED and one short beep.
  case success
  /// ACR122U: red LED and two beeps.
  case failure
}

/// A tag link whose reader can signal the person at it (LEDs, buzzer). Links of readers without
/// such commands do not conform.
public protocol ReaderSignalling: AnyObject {
  /// Shows `signal`; returns when the reader answered (an ACR122U answers once it has blinked).
  func signal(_ signal: ReaderSignal) throws(TransceiveError)
  /// Has the card activated again (``APDUTransport/reactivateCard()``: PC/SC's warm reset), which
  /// ends what a command set up on it (an authentication). A session does it before the signal
  /// when it would reset the card at its release: the signal is the last command, and a person
  /// (or a tag feeder) takes the tag away on it, so a reset after it may meet a card that is gone.
  func reactivateCard() throws(TransceiveError)
}

extension ReaderSignalling {
  /// Refuses: a link that cannot have its card activated again leaves the reset to the release.
  public func reactivateCard() throws(TransceiveError) { throw .unsupported("activating the card again before the signal") }
}
