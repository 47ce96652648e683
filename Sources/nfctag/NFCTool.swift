import ArgumentParser
import DESFireEmulator
import NFCTagCLI
import NFCTagEmulate
import ProvisionCommands

/// The `nfctag` command: read, write and emulate NFC Forum tags through PC/SC readers.
@main
struct NFCTool: ParsableCommand {
  /// `provision`, `ledger`, `sdm` and `keys` go to nfctag-provision by name, unparsed
  /// (``HandOver/commands``); every other command line is parsed and run here.
  static func main() {
    let cannotHandOver = HandOver.handOverNamedCommand(CommandLine.arguments.dropFirst())
    RemoteVirtualCard.register()  // `sim:ntag424dna` readers: the tag runs in nfctag-provision
    DESFireEmulator.register()  // the virtual DESFire's cryptography (libcrypto, loaded at its first use)
    // The context's dispatch is the hand-over: `emulate` of a kind not linked here, or one of those
    // commands when nfctag-provision cannot be run (its line parsed here: help and usage errors need no helper).
    mainInContext(dispatch: { command, _ in
      if let cannotHandOver { throw cannotHandOver }
      try HandOver.exec(arguments: (command as? KeysCommand.LockNDEFFile)?.handOverArguments)
    })
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
      Format.self, Erase.self, Lock.self, Info.self, Password.self, ClassicValue.self, DESFireCommand.self, Send.self, Reader.self, Doctor.self, EmulateCommand.self,
      ProvisionCommand.self, LedgerCommand.self, SDMCommand.self, KeysCommand.self,
    ])
}
