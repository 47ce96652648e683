import NFCTagCLI
import Provisioning
import ProvisioningLedger
import NFCSession
import NTAG424
import NTAG424Tag

// What went wrong, as a `FailureReason`, for the failure types only nfctag-provision sees, one
// `reason(line:)` per type; the status is NFCTagCLI's one table's (`exitStatus(for:)`, docs/exit-codes.md).
// NFCTagCLI's `cliFailure(for:)`, the tool's one entry point from a failure to its line and status,
// reaches them through `MappedFailure`; the per-tag status a run records in the ledger comes from the
// same functions (`TagFailure.exitStatus`).

extension LedgerError: MappedFailure {
  /// A ledger that cannot be opened is input that cannot be read (66); one that cannot be reached
  /// or failed mid-call is a service unavailable (69); one that is not a ledger, or rows, jobs
  /// and states that do not match, is bad data (65); a closed ledger still used is a bug (70).
  func reason(line: String) -> FailureReason {
    switch self {
    case .cannotOpen: return .unreadableFile(line)
    case .unavailable: return .serviceUnavailable(line)
    case .incompatible, .rowsDiffer, .unknownRow, .unknownJob, .notBound, .cannotRelease: return .malformedInput(line)
    case .closed: return .internalError(line)
    }
  }

  var exitStatus: Int32 { NFCTagCLI.exitStatus(for: reason(line: "")) }

  package var cliFailure: CLIFailure { CLIFailure(reason(line: sanitizeLine(description))) }
}

extension ProvisioningFailure.Kind {
  /// A password or PACK that does not match is a refused password (77); a read-back that
  /// differs, a failed update (74); what the tag cannot do, or a job too large for it, bad data
  /// (65: nothing of the refused job was written); a tag the job's options do not suit (`--sdm-url`
  /// onto a DESFire without SDM), the option's refusal (64, nothing written).
  func reason(line: String) -> FailureReason {
    switch self {
    case .security: return .tagRefused(line)
    case .verification: return .readBackMismatch(line)
    case .unsupported, .jobDoesNotFit: return .unsupported(line)
    case .notForThisCard: return .invalidValue(line)
    }
  }
}

extension TagFailure: MappedFailure {
  /// A tag's failure in a provisioning run: the ledger's, the tag's (Core NFC's table), a row
  /// that cannot be rendered (65), or the step's own.
  func reason(line: String) -> FailureReason {
    switch self {
    case .ledger(let error): return error.reason(line: line)
    case .tag(let error): return .nfcFailure(error.code, line)
    case .render: return .malformedInput(line)
    case .step(let failure): return failure.kind.reason(line: line)
    case .ntag424(let error): return error.reason(line: line)
    }
  }

  var exitStatus: Int32 { NFCTagCLI.exitStatus(for: reason(line: "")) }

  package var cliFailure: CLIFailure {
    switch self {
    case .ledger(let error): return error.cliFailure
    case .tag(let error): return NFCTagCLI.cliFailure(for: error)
    case .render, .step: return CLIFailure(reason(line: sanitizeLine(description)))
    case .ntag424(let error): return error.cliFailure
    }
  }
}

extension NTAG424DNAError: MappedFailure {
  /// An NTAG 424 DNA command's failure (NT4H2421Gx datasheet §10, Table 23 for the `91 xx` codes):
  ///
  /// | failure | status |
  /// |---|---|
  /// | a key refused (`91 AE`, an answer that does not prove the key, `91 AD` delay, still after the retries), a command not permitted (`91 9D`), or ChangeKey of a key other than the session's answered `91 1E` (the old value given is not the tag's, §10.6.1) | 77 |
  /// | a tag in LRP secure messaging mode, which this program does not speak | 65 |
  /// | a response MAC that does not verify, a command the tag found corrupted (`91 1E`), decrypted data without its padding | 74 |
  /// | the link failed below the tag (removed, no answer): Core NFC's table | 74 (100), 65 (102)… |
  /// | not a 424 DNA (SELECT of its application refused, a native command answered with an ISO status), an offset or length past a file (`91 BE`), any other refusal or malformed answer | 65 |
  /// | a command sent without the session it needs, a key number or parameter this program should have refused | 70 |
  func reason(line: String) -> FailureReason {
    switch self {
    case .transceive(let error, _): return .nfcFailure(NFCReaderError(error).code, line)
    case .applicationNotFound, .lrpSecureMessaging, .notNTAG424DNA: return .unsupported(line)
    case .tooManyFrames: return .malformedInput(line)
    case .authenticationDelay, .oldKeyMismatch: return .tagRefused(line)
    case .notAuthenticated: return .internalError(line)
    case .tag(let error, _): return Self.reason(for: error, line: line)
    }
  }

  private static func reason(for error: NTAG424Error, line: String) -> FailureReason {
    switch error {
    case .authenticationFailed: return .tagRefused(line)
    case .status(_, let sw1, let sw2) where sw1 == 0x91:
      switch sw2 {
      case 0xAE, 0xAD, 0x9D: return .tagRefused(line)
      case 0x1E: return .readBackMismatch(line)
      default: return .unsupported(line)
      }
    case .status: return .unsupported(line)
    case .responseMACMismatch, .invalidPadding: return .readBackMismatch(line)
    case .invalidLength, .malformedResponse, .invalidPICCData, .sdmMACMismatch: return .malformedInput(line)
    case .sessionEnded, .invalidKeyNumber, .cryptoFailure, .invalidParameter: return .internalError(line)
    }
  }

  var exitStatus: Int32 { NFCTagCLI.exitStatus(for: reason(line: "")) }

  package var cliFailure: CLIFailure {
    if case .lrpSecureMessaging(let command) = self {
      return CLIFailure(reason(line: sanitizeLine(command) + ": this tag uses LRP secure messaging, which nfctag does not support"
                               + " (a tag's switch to LRP is permanent; nfctag speaks AES secure messaging only)"))
    }
    return CLIFailure(reason(line: sanitizeLine(description) + advice))
  }

  /// What to do, after the fact: only this program names its options.
  private var advice: String {
    if case .oldKeyMismatch = self { return ": give its current value with --old-key-file or --old-key-env (--old-keys-file or --old-keys-env with --all)" }
    guard case .tag(let error, _) = self else {
      if case .transceive = self, exitStatus == ExitStatus.ioError { return "; tap again" }
      if case .authenticationDelay = self {
        // Table 23: "Currently not allowed to authenticate. Keep trying until full delay is spent."
        return " (after failed authentications the tag takes none until a delay that grows with each failure is spent;"
          + " try again later, with the right key)"
      }
      return ""
    }
    switch error {
    case .authenticationFailed, .status(_, 0x91, 0xAE):
      return " (wrong key: give the tag's key 0 with --auth-key-file or --auth-key-env; each failure counts towards the tag's limit)"
    case .status(_, 0x91, 0xAD):
      // Table 23: "Currently not allowed to authenticate. Keep trying until full delay is spent."
      return " (authentication delay: after failed authentications the tag takes none for now; try again, with the right key, until its delay is spent)"
    case .status(_, 0x91, 0x9D): return " (permission denied: the file's access rights do not allow it with this key)"
    case .status(_, let sw1, _) where sw1 != 0x91:
      return " (an ISO status to a native command: the tag does not take NTAG 424 DNA commands, so it is not an NTAG 424 DNA)"
    case .status(_, 0x91, 0x1E), .responseMACMismatch, .invalidPadding:
      return " (the exchange did not verify: tap again; if it persists, the answer is not the tag's own)"
    default: return ""
    }
  }
}
