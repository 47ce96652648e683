import ArgumentParser
// Stubs: each command moves to its own file as it is implemented.
