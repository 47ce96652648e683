// libFuzzer entry point over the PC/SC Part 3 contactless ATR parser (NFCReaders'
// PartThreeATR.swift, compiled alone with NFCTransport by scripts/fuzz.sh).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  let atr = PartThreeATR(bytes)
  _ = atr.platform
  _ = atr.cardName
  _ = atr.checksumValid
  switch atr.kind {
  case .isoDEP(let historical):
    // The historical bytes are the T0 low nibble's count, right after TD1 TD2.
    guard bytes.count >= 4 + historical.count, historical.count == Int(bytes[1] & 0x0F),
          Array(bytes[4..<(4 + historical.count)]) == historical, atr.platform == .type4 else {
      fatalError("historical bytes do not match the ATR")
    }
  case .storage(_, let name):
    guard bytes.count == 20, name.count == 2 else { fatalError("a storage ATR of \(bytes.count) bytes") }
  case .scm(let mode, let type):  // SCM's own ATR of a FeliCa or Topaz card: the bytes it came from
    guard bytes.count >= 6, bytes[4] == mode, bytes[5] == type, atr.platform == (type == 0x44 ? .type1 : .type3) else {
      fatalError("an SCM ATR's card mode and type are not its bytes 4 and 5")
    }
  case .other:
    guard atr.platform == nil, atr.historicalBytes.isEmpty else { fatalError("an unknown ATR has a platform") }
  }
  return 0
}
