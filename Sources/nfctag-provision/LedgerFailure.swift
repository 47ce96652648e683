import NFCTagCLI
import ProvisioningLedger

/// The exit status of a ledger failure (docs/exit-codes.md), the one table for `provision` (the
/// run's end and every tag's) and `ledger`: a ledger that cannot be opened is input that cannot
/// be read (66), a ledger that cannot be reached or failed mid-call is a service unavailable
/// (69), one that is not a ledger (or rows, jobs and states that do not match) is bad data (65).
func exitStatus(for error: LedgerError) -> Int32 {
  switch error {
  case .cannotOpen: return ExitStatus.noInput
  case .unavailable: return ExitStatus.unavailable
  case .incompatible, .rowsDiffer, .unknownRow, .unknownJob, .notBound, .cannotRelease: return ExitStatus.dataError
  case .closed: return ExitStatus.software
  }
}

/// Maps any failure of `provision` or `ledger` to one line and its exit status: the ledger's
/// own here, every other through the tool's table (NFCTagCLI's `cliFailure(for:)`).
func provisioningFailure(for error: any Error) -> CLIFailure {
  if let ledger = error as? LedgerError { return CLIFailure(exitStatus(for: ledger), sanitizeLine(ledger.description)) }
  return cliFailure(for: error)
}
