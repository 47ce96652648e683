import NFCSession

/// What went wrong, in the words of the code that found it: a throw site names the reason
/// (`throw CLIFailure(.malformedInput("input is not hex"))`) and never an exit status.
/// ``exitStatus(for:)-(FailureReason)`` in Failure.swift is the one table from a reason to its
/// status (docs/exit-codes.md), beside the one from Core NFC codes, and ``line`` the one place a
/// reason becomes its line. A case carries the line as its site words it (one line, no `nfctag: `
/// prefix, no key or password: docs/exit-codes.md, "Keys and passwords in errors").
package enum FailureReason: Sendable, Equatable {
  // The command line.

  /// An option or argument is missing, or two are given that do not go together.
  case invalidCommandLine(String)
  /// A value given on the command line is not one the command takes: its form, its range, an
  /// empty value.
  case invalidValue(String)
  /// A change that cannot be undone, or that overwrites what another application keeps, was not
  /// confirmed with `--yes`; nothing was written.
  case needsConfirmation(String)
  /// A secret (a key, a password) given on the command line, where every user of the machine
  /// can read it: the line names the option, never the value.
  case secretOnCommandLine(String)

  // The data.

  /// Input data is malformed: an argument's content, a file, standard input, or the message
  /// read from a tag (not hex, not JSON, not an NDEF message…).
  case malformedInput(String)
  /// The tag or reader cannot do what was asked (a tag that takes no APDUs, a reader that is
  /// not an ACR122U, a tag of an unknown platform).
  case unsupported(String)
  /// Data that carries its own proof (a SUN URL's CMAC, a mirrored UID) does not verify.
  case notAuthentic(String)

  // Files.

  /// An input file does not exist or cannot be read (the line names it and says why).
  case unreadableFile(String)
  /// An output (a file, an image, a folder) cannot be created or written.
  case unwritableFile(String)

  // What the command needs.

  /// No reader, or the one named cannot be used.
  case readerUnavailable(String)
  /// A service the command needs cannot be reached (vpcd, a ledger's server, an address to listen on).
  case serviceUnavailable(String)
  /// A program, or a part of one, the command needs is not here (nfctag-provision not installed,
  /// a virtual tag kind this program does not link).
  case missingProgram(String)

  // The tag.

  /// What the tag reads back is not what was written or set, or an answer that does not verify
  /// (a response MAC, a command the tag found corrupted): the transmission is suspect.
  case readBackMismatch(String)
  /// The tag refused: read-protected, a password or key refused, a locked page.
  case tagRefused(String)
  /// The tag or the link under a command failed as a Core NFC code says (removed, no answer, a
  /// refusal the code names), in the words of a command layer that wraps it (an NTAG 424 DNA
  /// command, a provisioning step): its status is the Core NFC table's,
  /// ``exitStatus(for:)-(NFCReaderError.Code)``.
  case nfcFailure(NFCReaderError.Code, String)

  // The run.

  /// Ctrl-C ended the wait for a tag.
  case interrupted
  /// Something this program should never do happened: a bug.
  case internalError(String)
}
