import ArgumentParser

/// The exit codes nfctag documents (docs/exit-codes.md), after BSD sysexits.
package enum ExitStatus {
  package static let ok: Int32 = 0
  /// EX_USAGE: the command line is wrong.
  package static let usage: Int32 = 64
  /// EX_DATAERR: input data (hex, JSON, NDEF, a tag's content) is malformed or unsupported.
  package static let dataError: Int32 = 65
  /// EX_NOINPUT: an input file does not exist or cannot be read.
  package static let noInput: Int32 = 66
  /// EX_UNAVAILABLE: pcscd is not running, or no reader.
  package static let unavailable: Int32 = 69
  /// EX_SOFTWARE: an internal error.
  package static let software: Int32 = 70
  /// EX_CANTCREAT: the message does not fit on the tag; nothing was written.
  package static let cantCreate: Int32 = 73
  /// EX_IOERR: the tag was removed or a transmission failed.
  package static let ioError: Int32 = 74
  /// EX_TEMPFAIL: no tag before the timeout.
  package static let tempFail: Int32 = 75
  /// EX_NOPERM: the tag is read-only.
  package static let noPermission: Int32 = 77
  /// 128 + SIGINT: Ctrl-C ended the wait for a tag (Core NFC's user cancel, 200).
  package static let interrupted: Int32 = 130
}

/// An error that ends the command with one line on stderr and a documented exit code.
///
/// A throw site builds one from what went wrong (``init(_:)``); the status is
/// ``exitStatus(for:)-(FailureReason)``'s, never the site's. Every other failure becomes one in
/// ``cliFailure(for:platform:)``.
package struct CLIFailure: Error, CustomStringConvertible {
  package let code: Int32
  package let message: String

  /// The failure `reason` describes: its status from the one table, its line as the reason words it.
  package init(_ reason: FailureReason) {
    self.init(status: exitStatus(for: reason), line: reason.line)
  }

  /// A status and line chosen by the mapping functions of this module (Failure.swift) only.
  init(status: Int32, line: String) {
    self.code = status
    self.message = line
  }

  package var description: String { message }
}

/// A failure type whose line the tool decides in one function per type, for a type of a module
/// NFCTagCLI does not import: it conforms in the program that uses it, and
/// ``cliFailure(for:platform:)``, the one entry point, reaches it through this protocol. The
/// conformance says what went wrong (`CLIFailure(.serviceUnavailable(line))`) or hands a Core NFC
/// failure to ``cliFailure(for:platform:)``; the status comes from one of the two tables.
package protocol MappedFailure: Error {
  /// The one line, advice included, and its exit status (docs/exit-codes.md).
  var cliFailure: CLIFailure { get }
}
