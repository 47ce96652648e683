/// An AES-128 key: one of a 424 DNA's five application keys, a session key or a master key.
///
/// The bytes never leave the value through its public face: ``description`` and
/// ``debugDescription`` say only that a key is there, so a key in an error, a log line or a
/// string interpolation shows nothing of itself. The NTAG 424 DNA uses AES-128 keys only
/// (NT4H2421Gx datasheet §9.1, "Key management"); the factory keys are all zero (§8.1).
///
/// ```swift
/// let key = try AESKey(bytes: keyFileBytes)   // exactly 16 bytes, or NTAG424Error.invalidLength
/// ```
public struct AESKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
  /// The 16 key bytes, for the cryptography in this module only.
  let bytes: [UInt8]

  /// The length of an AES-128 key in bytes.
  public static let length = 16

  /// The factory key of every 424 DNA key slot: sixteen zero bytes (NT4H2421Gx datasheet §8.1).
  public static let factory = AESKey(unchecked: [UInt8](repeating: 0, count: length))

  /// A key from its 16 bytes.
  ///
  /// - Parameter bytes: the key, most significant byte first, as a key file holds it.
  /// - Throws: ``NTAG424Error/invalidLength(field:expected:actual:)`` when `bytes` is not 16 bytes long.
  public init(bytes: some Collection<UInt8>) throws(NTAG424Error) {
    guard bytes.count == AESKey.length else {
      throw .invalidLength(field: "AES-128 key", expected: AESKey.length, actual: bytes.count)
    }
    self.bytes = Array(bytes)
  }

  /// A key from bytes already known to be 16 long (a CMAC output, a constant).
  init(unchecked bytes: [UInt8]) {
    precondition(bytes.count == AESKey.length, "an AES-128 key is 16 bytes")
    self.bytes = bytes
  }

  /// "AES-128 key (hidden)": never the key bytes.
  public var description: String { "AES-128 key (hidden)" }

  /// The same as ``description``: never the key bytes.
  public var debugDescription: String { description }

  /// A mirror without children, so `dump(_:)` and reflection show no key bytes either.
  public var customMirror: Mirror { Mirror(self, children: [:]) }
}
