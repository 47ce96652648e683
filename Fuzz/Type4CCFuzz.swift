// libFuzzer entry point over the Type 4 CC file parser (Type4CapabilityContainer(parsing:)).
// Built by scripts/fuzz.sh with NFCTransport and NFCTags.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  guard let cc = try? Type4CapabilityContainer(parsing: bytes) else { return 0 }
  // What parses is within what the CC file can say.
  guard cc.lengthFieldSize == 2 || cc.lengthFieldSize == 4, cc.capacity >= 1,
        cc.capacity == cc.ndefFileSize - cc.lengthFieldSize, cc.ndefFileID.count == 2,
        cc.length >= 15, cc.maxResponseData >= 1, cc.maxCommandData >= 1, cc.bytes == bytes else {
    fatalError("a parsed CC breaks its own bounds: \(cc)")
  }
  _ = cc.versionText
  return 0
}
