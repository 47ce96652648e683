/// One BER-TLV data object of a PC/SC Part 3 Manage Session / Transparent Exchange APDU or answer
/// (the reader side builds and reads them, the emulated reader answers them): one- or two-byte tag
/// (`5F 46`, `FF 6D`), one-byte length or `81 xx` / `82 xx xx`.
public struct BERObject: Equatable, Sendable {
  /// The tag, one or two bytes as an integer (`5F 46` is 5F46h).
  public var tag: Int
  /// The value bytes.
  public var value: [UInt8]

  public init(tag: Int, value: [UInt8]) {
    self.tag = tag
    self.value = value
  }

  /// The objects of `bytes`, or nil when a tag or length runs past the end.
  public static func parse(_ bytes: [UInt8]) -> [BERObject]? {
    var out: [BERObject] = []
    var rest = bytes[...]
    while let first = rest.popFirst() {
      var tag = Int(first)
      if first & 0x1F == 0x1F {
        guard let second = rest.popFirst() else { return nil }
        tag = tag << 8 | Int(second)
      }
      guard let l0 = rest.popFirst() else { return nil }
      var length = Int(l0)
      if l0 == 0x81 {
        guard let l1 = rest.popFirst() else { return nil }
        length = Int(l1)
      } else if l0 == 0x82 {
        guard let l1 = rest.popFirst(), let l2 = rest.popFirst() else { return nil }
        length = Int(l1) << 8 | Int(l2)
      } else if l0 > 0x82 {
        return nil
      }
      guard length <= rest.count else { return nil }
      out.append(BERObject(tag: tag, value: Array(rest.prefix(length))))
      rest = rest.dropFirst(length)
    }
    return out
  }
}
