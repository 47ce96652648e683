import ArgumentParser
import NFCTagCLI
import ProvisionCommands
import Provisioning
import Testing
@testable import nfctag_provision

/// `provision`'s last step: how the run's end becomes the exit status (docs/exit-codes.md,
/// docs/provisioning.md): 0 only when every row is done; a failed tag's status wins over Ctrl-C's
/// and `--timeout`'s; a refused job is 65; a lost ledger 69.
@Suite struct ProvisionRunEnd {
  func status(_ end: ProvisioningEnd, worstExit: Int32) -> Int32? {
    switch ProvisionCommand.failure(ending: end, worstExit: worstExit) {
    case nil: return 0
    case let code as ExitCode: return code.rawValue
    case let failure as CLIFailure: return failure.code
    default: return nil
    }
  }

  @Test func everyEndHasItsStatus() {
    #expect(status(.complete, worstExit: 0) == 0)
    #expect(status(.refused, worstExit: 0) == ExitStatus.dataError)
    #expect(status(.ledgerFailed("the server went away"), worstExit: 74) == ExitStatus.unavailable)
    #expect(status(.stopped, worstExit: 0) == ExitStatus.interrupted)
    #expect(status(.stopped, worstExit: 74) == 74)
    #expect(status(.timedOut, worstExit: 0) == ExitStatus.tempFail)
    #expect(status(.timedOut, worstExit: 65) == 65)
    #expect(status(.readersEnded("the reader was unplugged"), worstExit: 0) == ExitStatus.unavailable)
    #expect(status(.readersEnded("the reader was unplugged"), worstExit: 77) == 77)
  }

  /// The line of a run that ended on the ledger or the readers is theirs, sanitised.
  @Test func aLostLedgerOrReaderSaysWhy() {
    let ledger = ProvisionCommand.failure(ending: .ledgerFailed("down\u{1B}[2J"), worstExit: 0) as? CLIFailure
    #expect(ledger?.message == sanitizeLine("down\u{1B}[2J"))
    let readers = ProvisionCommand.failure(ending: .readersEnded("unplugged"), worstExit: 0) as? CLIFailure
    #expect(readers?.message == "unplugged")
  }
}
