import ArgumentParser
// Stubs: each command moves to its own file as it is implemented.
struct Emulate: ParsableCommand { static let configuration = CommandConfiguration(abstract: "Show a virtual tag to pcscd through vpcd.") }
