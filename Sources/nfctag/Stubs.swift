import ArgumentParser
// Stubs: each command moves to its own file as it is implemented.
struct NDEFCommand: ParsableCommand { static let configuration = CommandConfiguration(commandName: "ndef", abstract: "Decode and encode NDEF messages offline.") }
struct ListReaders: ParsableCommand { static let configuration = CommandConfiguration(commandName: "readers", abstract: "List the PC/SC readers.") }
struct Scan: ParsableCommand { static let configuration = CommandConfiguration(abstract: "Wait for a tag and describe it.") }
struct Read: ParsableCommand { static let configuration = CommandConfiguration(abstract: "Read the NDEF message on a tag.") }
struct Dump: ParsableCommand { static let configuration = CommandConfiguration(abstract: "Dump raw NDEF bytes or the whole memory.") }
struct Write: ParsableCommand { static let configuration = CommandConfiguration(abstract: "Write an NDEF message to a tag.") }
struct Format: ParsableCommand { static let configuration = CommandConfiguration(abstract: "Format a tag for NDEF.") }
struct Erase: ParsableCommand { static let configuration = CommandConfiguration(abstract: "Erase the NDEF message on a tag.") }
struct Lock: ParsableCommand { static let configuration = CommandConfiguration(abstract: "Make a tag read-only (permanent).") }
struct Info: ParsableCommand { static let configuration = CommandConfiguration(abstract: "Show chip, memory and lock state.") }
struct Doctor: ParsableCommand { static let configuration = CommandConfiguration(abstract: "Check pcscd, readers and drivers.") }
struct Emulate: ParsableCommand { static let configuration = CommandConfiguration(abstract: "Show a virtual tag to pcscd through vpcd.") }
