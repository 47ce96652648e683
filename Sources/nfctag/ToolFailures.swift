import NFCReaders
import NFCTagCLI
import NFCTransport
import PCSC

// The exit statuses (docs/exit-codes.md) of the failure types only nfctag sees, one function per
// type, reached from NFCTagCLI's `cliFailure(for:)`, the tool's one entry point.

extension PCSCFailure: MappedFailure {
  /// A PC/SC call's failure outside a session (`readers`, `reader`) ends as the same failure
  /// inside one: through its poll error and Core NFC code (pcscd not running, no reader, the
  /// reader in use: 69).
  package var cliFailure: CLIFailure { NFCTagCLI.cliFailure(for: PollError(self)) }
}
