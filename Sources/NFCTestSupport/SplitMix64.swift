/// A small seeded generator (SplitMix64) for randomised tests, so a failure names a seed that
/// replays it.
public struct SplitMix64: RandomNumberGenerator {
  /// The generator's whole state: print it to replay a failure.
  public var state: UInt64

  /// A generator that starts at `state` (the seed).
  public init(state: UInt64) { self.state = state }

  /// The next 64 random bits: SplitMix64 (Steele, Lea and Flood, "Fast Splittable Pseudorandom
  /// Number Generators", OOPSLA 2014): a golden-ratio increment, then Stafford's Mix13 finaliser.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
