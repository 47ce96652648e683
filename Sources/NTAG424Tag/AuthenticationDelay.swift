/// How long ``NTAG424DNA/authenticate(keyNumber:key:rndA:)`` keeps trying while the tag answers
/// AuthenticateEV2First with `91 AD`.
///
/// NT4H2421Gx datasheet §10.3, Table 23: AUTHENTICATION_DELAY, "Currently not allowed to
/// authenticate. Keep trying until full delay is spent." §9 says when: after a number of
/// *consecutive* failed authentications the tag answers every authentication with `91 AD` until a
/// total delay, which grows with each failure up to a maximum, has passed; each such answer takes
/// about 65% of the frame waiting time (FWI 7: some 25 ms). The datasheet gives neither the count
/// nor the maximum, so the host tries again every ``retryInterval`` seconds, for at most
/// ``maximumWait`` seconds of waiting, then gives up with the tag's status.
public struct AuthenticationDelayPolicy: Sendable {
  /// Seconds between two tries.
  public var retryInterval: Double
  /// Seconds of waiting, in all, before giving up.
  public var maximumWait: Double
  /// Waits the given seconds (tests pass one that does not sleep, or sleeps less).
  public var wait: @Sendable (Double) -> Void

  /// Tries again every `retryInterval` seconds for `maximumWait` seconds, waiting with `wait`.
  public init(retryInterval: Double, maximumWait: Double, wait: @escaping @Sendable (Double) -> Void = Self.sleep) {
    self.retryInterval = retryInterval
    self.maximumWait = maximumWait
    self.wait = wait
  }

  /// Every 100 ms for up to 5 s: 50 tries after the first.
  public static let standard = AuthenticationDelayPolicy(retryInterval: 0.1, maximumWait: 5)

  /// No second try: `91 AD` is answered at once.
  public static let none = AuthenticationDelayPolicy(retryInterval: 1, maximumWait: 0)

  /// How many times the command is sent again, at most.
  public var maximumRetries: Int {
    guard retryInterval > 0, maximumWait > 0 else { return 0 }
    return Int((maximumWait / retryInterval + 1e-9).rounded(.down))   // 5 / 0.1 is 50, not 49.99…
  }

  /// Sleeps the calling thread.
  public static let sleep: @Sendable (Double) -> Void = { seconds in
    if seconds > 0 { LibC.sleep(microseconds: Int(seconds * 1_000_000)) }
  }
}
