import NFCTagCLI
import Provisioning
import ProvisioningLedger

// The exit statuses (docs/exit-codes.md) of the failure types only nfctag-provision sees, one
// function per type. NFCTagCLI's `cliFailure(for:)`, the tool's one entry point from a failure to
// its line and status, reaches them through `MappedFailure`; the per-tag status a run records in
// the ledger comes from the same functions (`TagFailure.exitStatus`).

extension LedgerError: MappedFailure {
  /// A ledger that cannot be opened is input that cannot be read (66); one that cannot be reached
  /// or failed mid-call is a service unavailable (69); one that is not a ledger, or rows, jobs
  /// and states that do not match, is bad data (65); a closed ledger still used is a bug (70).
  var exitStatus: Int32 {
    switch self {
    case .cannotOpen: return ExitStatus.noInput
    case .unavailable: return ExitStatus.unavailable
    case .incompatible, .rowsDiffer, .unknownRow, .unknownJob, .notBound, .cannotRelease: return ExitStatus.dataError
    case .closed: return ExitStatus.software
    }
  }

  package var cliFailure: CLIFailure { CLIFailure(exitStatus, sanitizeLine(description)) }
}

extension ProvisioningFailure.Kind {
  /// A password or PACK that does not match is a refused password (77); a read-back that
  /// differs, a failed update (74); what the tag cannot do, or a job too large for it, bad data
  /// (65: nothing of the refused job was written).
  var exitStatus: Int32 {
    switch self {
    case .security: return ExitStatus.noPermission
    case .verification: return ExitStatus.ioError
    case .unsupported, .jobDoesNotFit: return ExitStatus.dataError
    }
  }
}

extension TagFailure: MappedFailure {
  /// A tag's failure in a provisioning run: the ledger's, the tag's (Core NFC's table), a row
  /// that cannot be rendered (65), or the step's own.
  var exitStatus: Int32 {
    switch self {
    case .ledger(let error): return error.exitStatus
    case .tag(let error): return NFCTagCLI.exitStatus(for: error.code)
    case .render: return ExitStatus.dataError
    case .step(let failure): return failure.kind.exitStatus
    }
  }

  package var cliFailure: CLIFailure {
    switch self {
    case .ledger(let error): return error.cliFailure
    case .tag(let error): return NFCTagCLI.cliFailure(for: error)
    case .render, .step: return CLIFailure(exitStatus, sanitizeLine(description))
    }
  }
}
