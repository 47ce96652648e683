import ArgumentParser
import NFCTagCLI
import ProvisionCommands

/// nfctag-provision: nfctag's `provision` and `ledger` commands, with the provisioning modules
/// (Foundation, SwiftNIO, swift-crypto) that nfctag itself does not link. nfctag parses the
/// command line, then hands it over unchanged (`exec`); run directly, this program takes the same
/// command lines (`nfctag-provision provision …`, `nfctag-provision ledger status …`).
@main
struct ProvisionTool: ParsableCommand {
  static func main() {
    ProvisioningCommands.install(ProvisioningWork())
    mainWithOneLineErrors()
  }

  static let configuration = CommandConfiguration(
    commandName: "nfctag",
    abstract: "nfctag's provision and ledger commands (nfctag runs this program for them).",
    subcommands: [ProvisionCommand.self, LedgerCommand.self])
}

/// The work behind `provision` and `ledger` (``ProvisioningCommandsRunner``).
struct ProvisioningWork: ProvisioningCommandsRunner {
  func run(_ command: ProvisionCommand) throws { try command.perform() }
  func run(_ command: LedgerCommand.Status) throws { try command.perform() }
  func run(_ command: LedgerCommand.Export) throws { try command.perform() }
  func run(_ command: LedgerCommand.Release) throws { try command.perform() }
}
