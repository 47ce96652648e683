// Every type NFCReaders' public API takes or returns comes with `import NFCReaders`: readers are
// tag links and pollers, so their API is NFCTransport's vocabulary (`Transceiver`, `APDUTransport`,
// `TagPoller`, `DetectedTarget`, `PollError`…), which is no product of its own; PC/SC's context,
// cards and errors (`PCSCContext` to `selectReader` and the pollers); and swift-log's `Logger`, which
// the pollers and the trace take. docs/architecture.md, "Products and examples".
@_exported import NFCTransport
@_exported import PCSC
@_exported import struct Logging.Logger
