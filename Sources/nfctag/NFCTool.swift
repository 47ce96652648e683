import ArgumentParser
import NFCTagCLI
import NFCTagEmulate
import ProvisionCommands

/// The `nfctag` command: read, write and emulate NFC Forum tags through PC/SC readers.
@main
struct NFCTool: ParsableCommand {
  /// `provision`, `ledger`, `sdm` and `keys` run in nfctag-provision (``HandOver``); the command line is parsed
  /// here, so help and usage errors come from this program.
  static func main() {
    RemoteVirtualCard.register()  // `sim:ntag424dna` readers: the tag runs in nfctag-provision
    mainInContext { _, _ in try HandOver.toProvisioningProgram() }
  }

  static let configuration = CommandConfiguration(
    commandName: "nfctag",
    abstract: "Read, write and emulate NFC Forum tags through PC/SC readers.",
    // The folder that exists where this program runs (DocumentationFolder): a build tree's
    // checkout docs, an installed PREFIX/share/doc/nfctag.
    discussion: DocumentationFolder.sentenceForThisProgram() + " Exit statuses: the man page, section EXIT STATUS.",
    version: "0.1.0",
    subcommands: [
      NDEFCommand.self,
      ListReaders.self, Scan.self, Read.self, Dump.self, Write.self,
      Format.self, Erase.self, Lock.self, Info.self, Password.self, ClassicValue.self, Send.self, Reader.self, Doctor.self, EmulateCommand.self,
      ProvisionCommand.self, LedgerCommand.self, SDMCommand.self, KeysCommand.self,
    ])
}
