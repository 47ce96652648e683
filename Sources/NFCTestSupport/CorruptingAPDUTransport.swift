import NFCTransport

/// A reader whose answers are damaged, for tests that tag data is hostile: of every six answers
/// about one has a byte changed, one is cut short and one is lengthened with random bytes, chosen
/// by a ``SplitMix64`` from `seed`, so a failing seed replays.
public final class CorruptingAPDUTransport: WrappingAPDUTransport {
  /// The transport whose answers are damaged.
  public let base: any APDUTransport
  /// The generator that chooses the damage: its state names the case to replay.
  public var random: SplitMix64

  /// Damages the answers of `base`, from `seed`.
  public init(_ base: any APDUTransport, seed: UInt64) {
    self.base = base
    random = SplitMix64(state: seed)
  }

  /// The base's answer to `apdu`, perhaps damaged.
  public func transmit(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    var reply = try base.transmit(apdu)
    switch Int.random(in: 0..<6, using: &random) {
    case 0 where !reply.isEmpty:
      let i = Int.random(in: 0..<reply.count, using: &random)
      reply[i] = UInt8.random(in: 0...255, using: &random)
    case 1 where !reply.isEmpty: reply.removeLast(Int.random(in: 1...reply.count, using: &random))
    case 2: reply += (0..<Int.random(in: 1...40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
    default: break
    }
    return reply
  }
}
