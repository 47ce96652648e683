// libFuzzer entry point: a hostile tag. Each NFC Forum platform (makePlatform(for:), Types 1-5)
// runs status, read, info, dump, a verified write, format and erase against a link whose every
// answer comes from the fuzz input: its length, its bytes, or an error. Nothing may trap or hang;
// each operation gets at most 200 exchanges, after which the link fails (a looping platform ends
// in an error, and a platform that goes on after the link failed is caught by the hard limit).
// Built by scripts/fuzz.sh with NFCTransport and NFCTags.
//
// Input: platform, link shape (capabilities, ATR, GET_VERSION known), then the answers. Each
// answer starts with a control byte: 00-3F that many bytes follow; 40-7F 16 × (c & 3F) bytes
// follow (zeros once the input ends); 80-BF (c & 3F) bytes and 90 00; C0-FF an error (low 3 bits:
// timeout, removed, NAK, status word, chip error, malformed, transport, unsupported).

final class HostileLink: Transceiver, TargetReselecting {
  var input: ArraySlice<UInt8>
  let capabilities: LinkCapabilities
  /// Exchanges in the current operation.
  var exchanges = 0
  /// Exchanges after the budget ran out: the platform kept going after the link failed.
  var overBudget = 0
  init(input: ArraySlice<UInt8>, capabilities: LinkCapabilities) {
    self.input = input
    self.capabilities = capabilities
  }
  func take(_ n: Int) -> [UInt8] {
    let part = Array(input.prefix(n))
    input = input.dropFirst(part.count)
    return part + [UInt8](repeating: 0, count: n - part.count)
  }
  func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    exchanges += 1
    guard exchanges <= 200 else {
      overBudget += 1
      guard overBudget <= 1000 else { fatalError("a platform goes on exchanging after the link failed 1000 times") }
      throw .transport("the hostile tag's exchange budget is spent")
    }
    guard let control = input.popFirst() else { throw .tagRemoved }
    switch control {
    case 0x00...0x3F: return take(Int(control))
    case 0x40...0x7F: return take(16 * Int(control & 0x3F))
    case 0x80...0xBF: return take(Int(control & 0x3F)) + [0x90, 0x00]
    default:
      switch control & 0x07 {
      case 0: throw .timeout
      case 1: throw .tagRemoved
      case 2: throw .nak(take(1)[0])
      case 3: let sw = take(2); throw .status(StatusWord(sw[0], sw[1]))
      case 4: throw .chipError(take(1)[0])
      case 5: throw .malformedResponse(take(Int(control >> 3 & 0x07)))
      case 6: throw .transport("hostile transport failure")
      default: throw .unsupported("hostile")
      }
    }
  }
  func reselect() throws(TransceiveError) {
    _ = try transceive([0x52])
  }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  guard bytes.count >= 2 else { return 0 }
  let platform = TagPlatform.allCases[Int(bytes[0]) % TagPlatform.allCases.count]
  let shape = bytes[1]
  let capabilities = [LinkCapabilities(maxResponseLength: 252, maxCommandLength: 252, rawCommands: true),
                      LinkCapabilities(maxResponseLength: 16, maxCommandLength: 64, rawCommands: false),
                      LinkCapabilities(maxResponseLength: 65536, maxCommandLength: 65544, rawCommands: true),
                      LinkCapabilities(maxResponseLength: 1, maxCommandLength: 1, rawCommands: false)][Int(shape & 0x03)]
  let link = HostileLink(input: bytes[2...], capabilities: capabilities)
  var details = TargetDetails()
  if shape & 0x04 != 0 { details.type2Version = link.take(8) }
  if shape & 0x08 != 0 { details.felicaPMm = link.take(8); details.felicaSystemCode = link.take(2) }
  let identifier: [UInt8]
  switch platform {
  case .type1: identifier = [0x01, 0x02, 0x03, 0x04]
  case .type2, .type4: identifier = [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06]
  case .type3, .type5: identifier = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08]
  case .mifareClassic: identifier = [0xA1, 0xB2, 0xC3, 0xD4]
  }
  let atr: [UInt8] = shape & 0x10 != 0 ? link.take(Int(shape >> 5) * 4) : []
  // A MIFARE Classic is named by its card name: the shape's top bits pick Mini, 1K or 4K.
  let cardName = platform == .mifareClassic
    ? ["MIFARE Mini", "MIFARE Classic 1K", "MIFARE Classic 4K"][Int(shape >> 6) % 3] : "hostile tag"
  let target = DetectedTarget(readerName: "hostile", identifier: identifier, atr: atr, platform: platform,
                              cardName: cardName, details: details, link: link)
  guard let tag = try? makePlatform(for: target) else { return 0 }
  func step<T>(_ body: () throws(TagError) -> T) -> T? {
    link.exchanges = 0
    link.overBudget = 0
    return try? body()
  }
  if let report = step({ () throws(TagError) in try tag.queryNDEFStatus() }), report.capacity < 0 {
    fatalError("negative capacity \(report.capacity)")
  }
  _ = step { () throws(TagError) in try tag.readNDEF() }
  if let info = step({ () throws(TagError) in try tag.info() }) { _ = info.lockState; _ = info.chip }
  _ = step { () throws(TagError) in try tag.readMemory() }
  let message: [UInt8] = [0xD1, 0x01, 0x05, 0x54, 0x02, 0x65, 0x6E, 0x68, 0x69]  // Text "hi"
  _ = step { () throws(TagError) in try tag.writeNDEF(message, verify: true) }
  _ = step { () throws(TagError) in try tag.format() }
  _ = step { () throws(TagError) in try tag.erase() }
  _ = step { () throws(TagError) in try tag.queryNDEFStatus() }
  return 0
}
