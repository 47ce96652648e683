import Testing
import NFCSession
@testable import NFCTagCLI

/// Every case of ``FailureReason``, what a command throws when it finds a failure itself, goes
/// through `exitStatus(for:)`, the one table, to the status docs/exit-codes.md gives it: each case
/// names words of the doc's table row that describes it, and that row's status must be the one
/// the table chose.
extension ExitStatusMapping {
  /// The doc's words for `reason`'s row, and the sample of the next case: the switch has no
  /// `default`, so a new case does not compile until it has an arm here, which puts it in
  /// ``failureReasons``.
  static func walk(_ reason: FailureReason) -> (phrase: String, next: FailureReason?) {
    switch reason {
    case .invalidCommandLine: ("the command line is wrong", .invalidValue("the URL is empty"))
    case .invalidValue: ("a number out of its range", .needsConfirmation("block 1 is in the MAD: add --yes to overwrite it"))
    case .needsConfirmation: ("`lock` without `--yes`", .secretOnCommandLine("the value of --keys looks like a key (not shown)"))
    case .secretOnCommandLine:
      ("a key or password given where the name of its file or variable belongs", .malformedInput("input is not hex"))
    case .malformedInput: ("input that is not hex/base64/JSON", .unsupported("the tag in the field does not take ISO 7816 APDUs"))
    case .unsupported: ("an APDU for a tag that takes none", .notAuthentic("the URL the tag produced holds another UID"))
    case .notAuthentic: ("a URL read back that does not verify with the keys given", .unreadableFile("cannot read x: No such file"))
    case .unreadableFile: ("an input file does not exist or cannot be read", .unwritableFile("cannot write out.csv: Permission denied"))
    case .unwritableFile: ("`export --output FILE` cannot be written", .readerUnavailable("no reader is attached"))
    case .readerUnavailable: ("no reader is attached", .serviceUnavailable("cannot reach vpcd at 127.0.0.1:35963"))
    case .serviceUnavailable: ("`emulate` cannot reach vpcd", .missingProgram("cannot run nfctag-provision"))
    case .missingProgram: ("a virtual tag kind this program does not link", .readBackMismatch("the tag reports version 01, not 02"))
    case .readBackMismatch: ("what the tag reads back is not what was set", .tagRefused("the tag is read-protected from page 16"))
    case .tagRefused: ("the tag is read-protected", .nfcFailure(.readerTransceiveErrorTagConnectionLost, "AuthenticateEV2First: tag connection lost"))
    case .nfcFailure: ("the tag was removed or a transmission failed", .interrupted)
    case .interrupted: ("Ctrl-C while a command waited for a tag", .internalError("the session ended without a result"))
    case .internalError: ("an internal error", nil)
    }
  }

  /// One sample of every case, in the order ``walk(_:)`` links them.
  static let failureReasons: [FailureReason] = Array(sequence(first: .invalidCommandLine("give exactly one of --data or --file")) {
    walk($0).next
  })

  @Test func theWalkReachesEveryCaseOnce() {
    // No arm links back to an earlier case (which would loop or skip the cases after it).
    #expect(Set(Self.failureReasons.map { Self.walk($0).phrase }).count == Self.failureReasons.count)
    #expect(Self.failureReasons.count == 17)
  }

  @Test(arguments: failureReasons) func failureReason(_ reason: FailureReason) {
    let failure = CLIFailure(reason)
    expectDocumented(failure, Self.walk(reason).phrase)
    #expect(failure.code == exitStatus(for: reason))
    // The line is the site's words, unchanged.
    #expect(failure.message == (reason == .interrupted ? "cancelled" : reason.line))
    #expect(!failure.message.contains("\n"))
  }
}
