import ArgumentParser

/// The `nfctag` command: read, write and emulate NFC Forum tags through PC/SC readers.
@main
struct NFCTool: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "nfctag",
    abstract: "Read, write and emulate NFC Forum tags through PC/SC readers.",
    version: "0.1.0",
    subcommands: [
      NDEFCommand.self,
      ListReaders.self, Scan.self, Read.self, Dump.self, Write.self,
      Format.self, Erase.self, Lock.self, Info.self, Password.self, Send.self, Reader.self, Doctor.self, Emulate.self,
    ])
}
