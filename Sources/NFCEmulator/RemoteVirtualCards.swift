import Locking

/// Virtual cards run by another program: how a program that does not link a kind's model still
/// has a `sim:` reader of it. `nfctag` does not link the NTAG 424 DNA's model (NTAG424Emulator,
/// with swift-crypto); it registers a maker here that starts nfctag-provision, which links it, and
/// talks to the tag's reader face there. A `sim:KIND[:IMAGE][@FACE]` reader of one tag uses the
/// maker when no factory of its kind is registered (``VirtualTagFactories/canMake(_:)``); a feed
/// of such a kind is still refused (``EmulatorError/Reason/kindNotLinked(_:)``).
///
/// Thread safety: the maker is behind `Locked`; the card it makes is used under the slot's lock.
public enum RemoteVirtualCards {
  /// Makes the reader face `face` with a tag of `kind` in it, from the image file `imagePath`
  /// (loaded if it exists, created if not; written back as the tag changes) or factory-fresh.
  /// - Throws: ``EmulatorError``: the tag cannot be made (the image, the kind), or the other
  ///   program cannot be run.
  public typealias Make = @Sendable (_ kind: VirtualTagKind, _ imagePath: String?, _ face: ReaderFaceKind) throws(EmulatorError)
    -> any VirtualCard

  private static let maker = Locked<Make?>(nil)

  /// Installs the maker for the kinds this program has no factory of, replacing any earlier one.
  public static func register(_ make: @escaping Make) { maker.withLock { $0 = make } }

  /// One message between the two programs: two bytes of big-endian length, then `payload` (vpcd's
  /// framing, vsmartcard `vpcd.c`); a payload longer than a frame says becomes `6F 00`.
  public static func frame(_ payload: [UInt8]) -> [UInt8] {
    guard payload.count <= 0xFFFF else { return [0x00, 0x02, 0x6F, 0x00] }
    return [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
  }

  /// Takes the complete messages off the front of `buffer`, leaving a partial one in place.
  public static func messages(in buffer: inout [UInt8]) -> [[UInt8]] {
    var found: [[UInt8]] = []
    var start = 0
    while buffer.count - start >= 2 {
      let length = Int(buffer[start]) << 8 | Int(buffer[start + 1])
      guard buffer.count - start >= 2 + length else { break }
      found.append(Array(buffer[(start + 2)..<(start + 2 + length)]))
      start += 2 + length
    }
    buffer.removeFirst(start)
    return found
  }

  /// The card of `spec`'s one tag, when its kind has no factory here and a maker is registered;
  /// nil otherwise (the tag is made in this process).
  static func card(for spec: SimulatorSpec) throws(EmulatorError) -> (any VirtualCard)? {
    guard spec.feed == nil, !VirtualTagFactories.shared.canMake(spec.kind), let make = maker.withLock({ $0 }) else { return nil }
    return try make(spec.kind, spec.imagePath, spec.face)
  }
}
