// libFuzzer entry point over the parsers of untrusted input: NDEF messages (and the typed
// records inside them) and the message JSON. Built by scripts/fuzz.sh into one module with the
// NDEF and NDEFJSON sources.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  if let message = try? NDEFMessage(decoding: bytes) {
    // Whatever decodes must re-encode (unless it holds a reserved record) and decode the same.
    if let encoded = try? message.encoded() {
      guard let again = try? NDEFMessage(decoding: encoded), again == message else { fatalError("round trip changed the message") }
    }
    var writer = JSONWriter()
    writer.message(message)
    _ = messageText(message, showSecrets: true)
  }
  if let value = try? JSONParser.parse(bytes) {
    _ = try? message(fromJSON: value)
  }
  return 0
}
