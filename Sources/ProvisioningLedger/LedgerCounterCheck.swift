/// What ``Ledger/acceptCounter(uid:counter:)`` found.
public enum LedgerCounterCheck: Sendable, Equatable {
  /// The counter is above the last one accepted for the UID (or the first one seen): recorded.
  case accepted
  /// The counter is not above `last`, the one recorded: a replayed or older URL. Nothing changed.
  case notAbove(last: UInt32)
}

/// A SUN read counter offered for a UID (``Ledger/acceptCounters(_:)``).
public struct LedgerCounter: Sendable, Equatable {
  /// Lowercase hex.
  public var uid: String
  public var counter: UInt32
  public init(uid: String, counter: UInt32) { self.uid = uid; self.counter = counter }
}
