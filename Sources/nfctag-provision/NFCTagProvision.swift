import ArgumentParser
import NFCTagCLI
import NFCTagEmulate
import DESFireEmulator
import NTAG424Emulator
import ProvisionCommands

/// nfctag-provision: performs nfctag's `provision`, `ledger`, `sdm` and `keys`, with the
/// provisioning modules (Foundation, SwiftNIO, swift-crypto) that nfctag itself does not link.
/// nfctag hands their command lines over unparsed (`exec`, nfctag's `HandOver.commands`); this
/// program parses them with the same declarations (ProvisionCommands) and performs them. Run
/// directly, it takes the same command lines (`nfctag-provision ledger status …`).
///
/// It links the virtual NTAG 424 DNA (NTAG424Emulator, swift-crypto) and registers it at start,
/// so its `sim:ntag424dna` readers, feeds and image files have the tag, and it performs `emulate`
/// when the tag kinds include `ntag424dna` (nfctag hands that command over once parsed:
/// `EmulateCommand.run(in:)`).
///
/// Names: a declaration's `run(in:)` dispatches the command (``CommandContext/dispatch(_:)``);
/// in this program the dispatch is ``perform(_:in:)``, which calls the command's
/// ``PerformedCommand/perform(in:)``: the work, in the `+Perform` files.
@main
struct NFCTagProvision: ParsableCommand {
  static func main() {
    NTAG424Emulator.register()
    DESFireEmulator.register()
    mainInContext(dispatch: { command, context in try perform(command, in: context) })
  }

  /// Performs a command handed over to this program, or dispatched by a declaration here (its
  /// context's ``CommandContext/Dispatch``; the in-process test runner's too).
  static func perform(_ command: any ParsableCommand, in context: CommandContext) throws {
    guard let command = command as? any PerformedCommand else {
      throw CLIFailure(.internalError("nfctag-provision cannot run \(type(of: command).configuration.commandName ?? "this command")"))
    }
    try command.perform(in: context)
  }

  static let configuration = CommandConfiguration(
    commandName: "nfctag",
    abstract: "nfctag's provision, ledger, sdm and keys commands, and emulate for the NTAG 424 DNA (nfctag runs this program for them).",
    // nfctag's own version: the subcommands' help lists `--version` as nfctag's does, and
    // `nfctag provision --version` answers as before the hand-over (HandOverTests).
    version: "0.1.0",
    subcommands: [ProvisionCommand.self, LedgerCommand.self, SDMCommand.self, KeysCommand.self, EmulateCommand.self,
                  VirtualCardCommand.self])
}

/// `emulate` handed over by a program that does not link a kind it names (nfctag and the
/// NTAG 424 DNA): the command's own `perform(in:)` runs here, where the kind is registered. Never
/// handed on: a kind still missing here ends with one line and 69.
extension EmulateCommand: PerformedCommand {}

/// A command whose work this program does, once its context hands it over: each command's
/// conformance sits beside its `perform(in:)` (`ProvisionCommand+Perform.swift`,
/// `LedgerCommand+Perform.swift`, …).
protocol PerformedCommand: ParsableCommand {
  /// Runs the command in `context`; a failure is thrown (the entry prints its one line).
  func perform(in context: CommandContext) throws
}
