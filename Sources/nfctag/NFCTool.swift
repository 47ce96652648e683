import ArgumentParser
import NFCTagCLI
import ProvisionCommands

/// The `nfctag` command: read, write and emulate NFC Forum tags through PC/SC readers.
@main
struct NFCTool: ParsableCommand {
  /// `provision` and `ledger` run in nfctag-provision (``ProvisioningHelper``); the command line
  /// is parsed here, so help and usage errors come from this program.
  static func main() {
    ProvisioningCommands.install(ProvisioningHelper())
    mainWithOneLineErrors()
  }

  static let configuration = CommandConfiguration(
    commandName: "nfctag",
    abstract: "Read, write and emulate NFC Forum tags through PC/SC readers.",
    version: "0.1.0",
    subcommands: [
      NDEFCommand.self,
      ListReaders.self, Scan.self, Read.self, Dump.self, Write.self,
      Format.self, Erase.self, Lock.self, Info.self, Password.self, Send.self, Reader.self, Doctor.self, Emulate.self,
      ProvisionCommand.self, LedgerCommand.self,
    ])
}
