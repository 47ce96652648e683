// Every type NFCTestSupport's public API takes or returns comes with `import NFCTestSupport`: its
// transceivers and transports are NFCTransport's, and the tag code they test is NFCTags' platforms
// (`tagError(_:)` returns a `TagError`); neither module is a product of its own.
// docs/architecture.md, "Products and examples".
@_exported import NFCTransport
@_exported import NFCTags
