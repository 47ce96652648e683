/// RFC 3986 §2.1 percent-decoding of a URL component: each `%` followed by two hex digits is the
/// byte they spell; with `plusIsSpace`, a `+` is a space, as HTML forms send a query
/// (application/x-www-form-urlencoded). Nil for a `%` not followed by two hex digits.
///
/// The one percent-decoder of the package: the SUN URL parser, the SUN service's query and the
/// provisioning templates read through it, with the hex digits of ``parseHex(_:)``'s table.
/// Inlinable, so that each caller gets it specialized for its collection: unspecialized, the
/// iterator's witness calls were nearly a third of the SUN verifier's time (docs/performance.md).
@inlinable
public func percentDecoded(_ text: some Collection<UInt8>, plusIsSpace: Bool = false) -> [UInt8]? {
  var bytes: [UInt8] = []
  bytes.reserveCapacity(text.count)
  var iterator = text.makeIterator()
  while let byte = iterator.next() {
    switch byte {
    case UInt8(ascii: "%"):
      guard let high = iterator.next().flatMap(hexDigitValue), let low = iterator.next().flatMap(hexDigitValue) else { return nil }
      bytes.append(high << 4 | low)
    case UInt8(ascii: "+") where plusIsSpace:
      bytes.append(0x20)
    default:
      bytes.append(byte)
    }
  }
  return bytes
}

/// 0–15 for an ASCII hex digit, nil for anything else.
@usableFromInline func hexDigitValue(_ byte: UInt8) -> UInt8? {
  let value = hexValues[Int(byte)]
  return value < 16 ? value : nil
}
