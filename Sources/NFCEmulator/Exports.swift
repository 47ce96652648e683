// Every type NFCEmulator's public API takes or returns comes with `import NFCEmulator`: a virtual
// tag answers NFCTransport's commands (`Transceiver`, `APDUTransport`, `TagPoller`,
// `DetectedTarget`) and states its memory in NFCTags' terms (MIFARE Classic's chips, keys and
// access conditions); neither module is a product of its own. docs/architecture.md, "Products and
// examples".
@_exported import NFCTransport
@_exported import NFCTags
