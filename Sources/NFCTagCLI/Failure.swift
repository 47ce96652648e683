import NDEFJSON
import NFCSession
import NFCTags
import NFCTransport

/// The one table from Core NFC codes to exit statuses (docs/exit-codes.md): every tag, reader and
/// PC/SC failure reaches the tool as an ``NFCReaderError`` and leaves through here.
package func exitStatus(for code: NFCReaderError.Code) -> Int32 {
  switch code {
  case .readerSessionInvalidationErrorFirstNDEFTagRead: return ExitStatus.ok
  case .readerSessionInvalidationErrorUserCanceled: return ExitStatus.interrupted
  case .readerSessionInvalidationErrorSessionTimeout: return ExitStatus.tempFail
  case .readerSessionInvalidationErrorSessionTerminatedUnexpectedly, .readerSessionInvalidationErrorSystemIsBusy,
       .readerErrorRadioDisabled:
    return ExitStatus.unavailable
  case .readerTransceiveErrorTagConnectionLost, .readerTransceiveErrorRetryExceeded,
       .ndefReaderSessionErrorTagUpdateFailure:
    return ExitStatus.ioError
  case .readerErrorUnsupportedFeature, .readerTransceiveErrorTagResponseError, .ndefReaderSessionErrorZeroLengthMessage,
       .readerErrorInvalidParameter, .readerErrorInvalidParameterLength, .readerErrorParameterOutOfBound:
    return ExitStatus.dataError
  case .ndefReaderSessionErrorTagNotWritable, .readerErrorSecurityViolation: return ExitStatus.noPermission
  case .ndefReaderSessionErrorTagSizeTooSmall: return ExitStatus.cantCreate
  case .readerTransceiveErrorPacketTooLong, .tagCommandConfigurationErrorInvalidParameters: return ExitStatus.usage
  default: return ExitStatus.software  // 103, 104: a tag used outside its session is a bug here
  }
}

/// The one table from what went wrong to its exit status (docs/exit-codes.md): every failure a
/// command throws itself is a ``FailureReason`` and leaves through here.
package func exitStatus(for reason: FailureReason) -> Int32 {
  switch reason {
  case .invalidCommandLine, .invalidValue, .needsConfirmation, .secretOnCommandLine: return ExitStatus.usage
  case .malformedInput, .unsupported, .notAuthentic: return ExitStatus.dataError
  case .unreadableFile: return ExitStatus.noInput
  case .readerUnavailable, .serviceUnavailable, .missingProgram: return ExitStatus.unavailable
  case .internalError: return ExitStatus.software
  case .unwritableFile: return ExitStatus.cantCreate
  case .readBackMismatch: return ExitStatus.ioError
  case .tagRefused: return ExitStatus.noPermission
  case .interrupted: return ExitStatus.interrupted
  case .nfcFailure(let code, _): return exitStatus(for: code)
  }
}

extension FailureReason {
  /// The one line (without the `nfctag: ` prefix) that says what went wrong: the words its site gave.
  package var line: String {
    switch self {
    case .invalidCommandLine(let line), .invalidValue(let line), .needsConfirmation(let line),
         .secretOnCommandLine(let line), .malformedInput(let line), .unsupported(let line), .notAuthentic(let line),
         .unreadableFile(let line), .unwritableFile(let line), .readerUnavailable(let line),
         .serviceUnavailable(let line), .missingProgram(let line), .readBackMismatch(let line),
         .tagRefused(let line), .nfcFailure(_, let line), .internalError(let line):
      return line
    case .interrupted: return "cancelled"
    }
  }
}

/// The one entry point from any failure to one line and its exit status. The libraries' messages
/// say what happened; the advice that names this tool's options and commands is added here. A
/// ``MappedFailure`` (a type of a module this one does not import: the ledger's, provisioning's,
/// PC/SC's, the vpcd bridge's) maps itself in the program that uses it; every other failure goes
/// through its Core NFC code.
/// `platform`, when the tag's is known, picks the advice where tag types differ (a MIFARE
/// Classic has keys where an NTAG21x has a password).
package func cliFailure(for error: any Error, platform: TagPlatform? = nil) -> CLIFailure {
  if let failure = error as? CLIFailure { return failure }
  if let mapped = error as? any MappedFailure { return mapped.cliFailure }
  if let emulator = error as? EmulatorError, case .kindNotLinked = emulator.reason {
    return CLIFailure(.missingProgram(emulator.message))
  }
  let nfc = NFCReaderError(error)
  return CLIFailure(status: exitStatus(for: nfc.code), line: sanitizeLine(nfc.message) + advice(for: nfc, platform: platform))
}

/// A virtual tag's set-up failure (`emulate`, `--reader sim:`): a kind whose model this program
/// does not link (``EmulatorError/Reason/kindNotLinked(_:)``: the NTAG 424 DNA in nfctag) is a
/// missing program (69) with the library's line as it is, a fact with no advice; any other
/// failure is `reason`, as the caller words it (a bad `sim:` spec, an image the model refuses, a
/// feed's image folder).
package func cliFailure(for error: EmulatorError, otherwise reason: FailureReason) -> CLIFailure {
  switch error.reason {
  case .kindNotLinked: return CLIFailure(.missingProgram(error.message))
  case .failed: return CLIFailure(reason)
  }
}

/// What to do about `error`, from its code and, where one code covers several cases, its cause
/// and the tag's `platform`.
package func advice(for error: NFCReaderError, platform: TagPlatform? = nil) -> String {
  let cause = error.underlyingError
  if platform == .mifareClassic, let advice = classicAdvice(for: cause as? TagError) { return advice }
  switch error.code {
  case .readerTransceiveErrorTagConnectionLost, .readerTransceiveErrorRetryExceeded:
    return ": keep the tag on the reader and try again (tap again)"
  case .ndefReaderSessionErrorTagUpdateFailure:
    return ": tap the tag again and retry"
  case .ndefReaderSessionErrorTagNotWritable:
    if case .writeRefused? = cause as? TagError {
      return ": the page is locked or password-protected (give the password with --tag-password-file or --tag-password-env)"
    }
    return "; nothing was written"
  case .ndefReaderSessionErrorTagSizeTooSmall:
    return "; nothing was written"
  case .readerErrorSecurityViolation:
    if case .readRefused? = cause as? TagError { return ": give its password with --tag-password-file or --tag-password-env" }
    return ""
  case .readerErrorUnsupportedFeature:
    if case .notFormatted? = cause as? TagError { return "; run `nfctag format` first" }
    return ""
  case .readerSessionInvalidationErrorSessionTerminatedUnexpectedly:
    switch cause as? PollError {
    case .serviceUnavailable?:
      return ": is pcscd running? Start it (sudo systemctl start pcscd.socket, or `make pcscd` in the source tree); `nfctag doctor` checks"
    case .noReader?:
      return ": plug in a reader, or start a virtual one with `nfctag emulate`"
    default: return ""
    }
  case .readerSessionInvalidationErrorSystemIsBusy:
    return ": another program or session is using the reader"
  default:
    return ""
  }
}

/// A MIFARE Classic refuses what its access bits forbid the key that opened the sector, and opens
/// a sector only with a key the tool was given: the keys file is the remedy, never a password.
private func classicAdvice(for cause: TagError?) -> String? {
  switch cause {
  case .writeRefused?:
    return ": no key tried may write that block (its access bits want another key, key B on most cards): "
      + "give it in a keys file with --keys FILE"
  case .readRefused?:
    return ": no key tried may read that block: give the sector's keys in a keys file with --keys FILE"
  case .authenticationFailed?:
    return ": give the sector's keys in a keys file with --keys FILE"
  default:
    return nil
  }
}

/// Strips control, bidirectional-control and invisible characters from a line that may carry
/// tag data (one rule for all text output: NDEFJSON's `isDeceptiveScalar`).
package func sanitizeLine(_ text: String) -> String {
  String(String.UnicodeScalarView(text.unicodeScalars.filter { !isDeceptiveScalar($0) }))
}
