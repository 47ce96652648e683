import Hex
@testable import NTAG424

/// Bytes from a transcript's hex, spaces allowed; a typo in a test's own constant traps.
func bytes(_ text: String) -> [UInt8] {
  guard let decoded = parseLenientHex(Array(text.utf8)) else { fatalError("bad hex in a test: \(text)") }
  return decoded
}

/// A key from a transcript's 32 hex digits.
func key(_ text: String) -> AESKey {
  do { return try AESKey(bytes: bytes(text)) } catch { fatalError("bad key in a test: \(error)") }
}
