import ArgumentParser
import Locking
import NFCTagCLI

/// What runs `provision` and `ledger status|export|release` once ArgumentParser has parsed and
/// validated their command line: one handler for all of them, installed by the program's `main`.
///
/// The declarations live in this module so that nfctag's help, man page and completions show
/// them without linking the provisioning modules (Foundation, SwiftNIO, swift-crypto: most of a
/// cold start). nfctag's handler hands the command line over to nfctag-provision (`exec`, the
/// same process); nfctag-provision's performs the command. A new subcommand calls ``run(_:)``
/// from its `run()`, and nothing here changes.
package enum CommandHandler {
  /// Runs one parsed command.
  package typealias Handler = @Sendable (any ParsableCommand) throws -> Void

  private static let installed = Locked<Handler?>(nil)

  /// Makes `handler` the one that runs the commands from now on.
  package static func install(_ handler: @escaping Handler) {
    installed.withLock { $0 = handler }
  }

  /// Runs `command` with the installed handler.
  /// - Throws: 70 (one `nfctag: ` line) when the program installed none: a bug.
  package static func run(_ command: any ParsableCommand) throws {
    guard let handler = installed.withLock({ $0 }) else {
      throw fail(CLIFailure(ExitStatus.software, "provision and ledger are not available in this program"))
    }
    try handler(command)
  }
}
