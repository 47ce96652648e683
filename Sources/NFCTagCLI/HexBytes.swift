import ArgumentParser
import NDEFJSON

/// Bytes given in hex on the command line (`--uid`, `--pack`): spaces, colons and `0x` prefixes
/// allowed, as ``parseLenientHex(_:)`` reads them. Text that is not hex is refused while the
/// command line is parsed, so a command's `validate()` and `run()` see the bytes, not the text.
package struct HexBytes: ExpressibleByArgument, Equatable, Sendable {
  /// The bytes.
  package let bytes: [UInt8]

  package init(_ bytes: [UInt8]) { self.bytes = bytes }

  /// nil when `argument` is not hex (ArgumentParser then refuses the command line, naming the option).
  package init?(argument: String) {
    guard let bytes = parseLenientHex(Array(argument.utf8)) else { return nil }
    self.bytes = bytes
  }

  /// A default shows in `--help` as hex.
  package var defaultValueDescription: String { hexString(bytes) }
}
