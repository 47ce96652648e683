import ArgumentParser
import NFCTagCLI
import NFCTagEmulate
import NTAG424Emulator
import ProvisionCommands

/// nfctag-provision: nfctag's `provision` and `ledger` commands, with the provisioning modules
/// (Foundation, SwiftNIO, swift-crypto) that nfctag itself does not link. nfctag parses the
/// command line, then hands it over unchanged (`exec`); run directly, this program takes the same
/// command lines (`nfctag-provision provision …`, `nfctag-provision ledger status …`).
///
/// It links the virtual NTAG 424 DNA (NTAG424Emulator, swift-crypto) and registers it at start,
/// so its `sim:ntag424dna` readers, feeds and image files have the tag, and it runs `emulate`
/// when the tag kinds include `ntag424dna` (nfctag hands that command over: `EmulateCommand`).
@main
struct NFCTagProvision: ParsableCommand {
  static func main() {
    NTAG424Emulator.register()
    mainInContext { command, context in try perform(command, in: context) }
  }

  /// Performs a command nfctag's declarations hand over (the handler of this program's context).
  static func perform(_ command: any ParsableCommand, in context: CommandContext) throws {
    guard let command = command as? any PerformedCommand else {
      throw CLIFailure(ExitStatus.software, "nfctag-provision cannot run \(type(of: command).configuration.commandName ?? "this command")")
    }
    try command.perform(in: context)
  }

  static let configuration = CommandConfiguration(
    commandName: "nfctag",
    abstract: "nfctag's provision, ledger, sdm and keys commands, and emulate for the NTAG 424 DNA (nfctag runs this program for them).",
    subcommands: [ProvisionCommand.self, LedgerCommand.self, SDMCommand.self, KeysCommand.self, EmulateCommand.self,
                  VirtualCardCommand.self])
}

extension EmulateCommand: PerformedCommand {
  /// `emulate` handed over by a program that does not link a kind it names (nfctag and the
  /// NTAG 424 DNA): the same code runs here, where the kind is registered. Never hands it on: a
  /// kind still missing here ends with one line and 69.
  func perform(in context: CommandContext) throws { try emulate(in: context) }
}

/// A command whose work this program does, once its context hands it over: each command's
/// conformance sits beside its `perform()` (`ProvisionCommand+Perform.swift`,
/// `LedgerCommand+Perform.swift`).
protocol PerformedCommand: ParsableCommand {
  /// Runs the command in `context`; a failure is thrown (the entry prints its one line).
  func perform(in context: CommandContext) throws
}
