import ArgumentParser
// Stubs: each command moves to its own file as it is implemented.
struct Write: ParsableCommand { static let configuration = CommandConfiguration(abstract: "Write an NDEF message to a tag.") }
struct Emulate: ParsableCommand { static let configuration = CommandConfiguration(abstract: "Show a virtual tag to pcscd through vpcd.") }
struct ListReaders: ParsableCommand { static let configuration = CommandConfiguration(commandName: "readers", abstract: "List the PC/SC readers.") }
struct Scan: ParsableCommand { static let configuration = CommandConfiguration(abstract: "Wait for a tag and describe it.") }
struct Doctor: ParsableCommand { static let configuration = CommandConfiguration(abstract: "Check pcscd, readers and drivers.") }
struct Read: ParsableCommand { static let configuration = CommandConfiguration(abstract: "Read.") }
struct Dump: ParsableCommand { static let configuration = CommandConfiguration(abstract: "Dump.") }
struct Format: ParsableCommand { static let configuration = CommandConfiguration(abstract: "Format.") }
struct Erase: ParsableCommand { static let configuration = CommandConfiguration(abstract: "Erase.") }
struct Lock: ParsableCommand { static let configuration = CommandConfiguration(abstract: "Lock.") }
struct Info: ParsableCommand { static let configuration = CommandConfiguration(abstract: "Info.") }
