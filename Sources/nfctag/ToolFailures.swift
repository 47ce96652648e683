import NFCEmulatorVPCD
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

extension VPCDBridgeError: MappedFailure {
  /// `emulate` cannot reach vpcd or its slot is taken: 69, with what to do.
  package var cliFailure: CLIFailure {
    let advice: String
    switch reason {
    case .unreachable: advice = ": is pcscd running with vsmartcard-vpcd? (`make pcscd` in the source tree starts it)"
    case .slotInUse: advice = " (a second `nfctag emulate`?): stop that one or pick another --vpcd port"
    }
    return CLIFailure(ExitStatus.unavailable, message + advice)
  }
}
