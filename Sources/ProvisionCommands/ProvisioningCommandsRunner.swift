import ArgumentParser
import Locking
import NFCTagCLI
import NFCTransport

/// What runs `provision` and `ledger status|export|release` once ArgumentParser has parsed and
/// validated their command lines.
///
/// The declarations live in this module so that nfctag's help, man page and completions show
/// them without linking the provisioning modules (Foundation, SwiftNIO, swift-crypto: most of a
/// cold start). The executable that links them supplies the work: nfctag-provision runs it,
/// nfctag hands the command line over to nfctag-provision (`exec`, the same process).
package protocol ProvisioningCommandsRunner: Sendable {
  /// Runs `provision`.
  func run(_ command: ProvisionCommand) throws
  /// Runs `ledger status`.
  func run(_ command: LedgerCommand.Status) throws
  /// Runs `ledger export`.
  func run(_ command: LedgerCommand.Export) throws
  /// Runs `ledger release`.
  func run(_ command: LedgerCommand.Release) throws
}

/// The runner of this process: installed once by `main` before the command line is parsed.
package enum ProvisioningCommands {
  private static let installed = Locked<(any ProvisioningCommandsRunner)?>(nil)

  /// Makes `runner` the one that runs the commands from now on.
  package static func install(_ runner: any ProvisioningCommandsRunner) {
    installed.withLock { $0 = runner }
  }

  /// The installed runner.
  /// - Throws: 70 (one `nfctag: ` line) when the program installed none: a bug.
  static func runner() throws -> any ProvisioningCommandsRunner {
    guard let runner = installed.withLock({ $0 }) else {
      throw fail(CLIFailure(ExitStatus.software, "provision and ledger are not available in this program"))
    }
    return runner
  }
}
