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
}
