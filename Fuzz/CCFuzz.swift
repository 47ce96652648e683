// libFuzzer entry point over the capability containers (Type 1/2/5 CC, Type 3 attribute block,
// Type 4 CC file) and the TLVs behind them, as the platforms read them: each emulated chip is
// loaded with its factory image overlaid with fuzzed bytes, and its platform (makePlatform(for:))
// runs status, read, info, dump and a verified write through a link straight to the virtual tag.
// Built by scripts/fuzz.sh with NFCTransport, NFCTags and NFCEmulator.
//
// Input: chip index (low nibble) and operation (bits 4-5: status and read, info, dump, verified
// write; bit 6: all of them in that order, on one platform), then offset (×4) of the overlay and
// link capabilities, then the overlay. One operation per input keeps an execution cheap (a Type 1
// walk re-reads its memory for each); the combined form keeps what one operation leaves to the next.

/// A link straight to a virtual tag: its answers as a reader would pass them on.
final class VirtualTagLink: Transceiver, TargetReselecting {
  let tag: any VirtualTag
  let capabilities: LinkCapabilities
  /// A platform that loops is a finding: it is stopped here and reported.
  var exchanges = 0
  init(tag: any VirtualTag, capabilities: LinkCapabilities) {
    self.tag = tag
    self.capabilities = capabilities
  }
  func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    exchanges += 1
    guard exchanges <= 5000 else { fatalError("more than 5000 exchanges for one input: a platform loops") }
    guard command.count <= capabilities.maxCommandLength else { throw .unsupported("a \(command.count)-byte command") }
    switch tag.respond(to: command) {
    case .data(let answer):
      guard answer.count <= capabilities.maxResponseLength + 2 else { throw .malformedResponse(answer) }
      return answer
    case .ack: return [0x0A]
    case .nak(let code): throw .nak(code)
    case .mute: throw .timeout
    }
  }
  func reselect() throws(TransceiveError) { tag.reset() }
}

/// Each chip's factory image, made once (building a virtual tag is not what is fuzzed here).
let factoryImages: [VirtualTagKind: [UInt8]] = Dictionary(uniqueKeysWithValues: VirtualTagKind.allCases.compactMap { kind in
  (try? kind.makeTag(uid: nil)).map { (kind, $0.memoryImage) }
})

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  guard bytes.count >= 2 else { return 0 }
  let kinds = VirtualTagKind.allCases
  let kind = kinds[Int(bytes[0] & 0x0F) % kinds.count]
  let operation = Int(bytes[0] >> 4) & 0x03
  let all = bytes[0] & 0x40 != 0
  guard let factory = factoryImages[kind] else { return 0 }
  var image = factory
  let offset = Int(bytes[1] >> 2) * 4
  for (i, byte) in bytes.dropFirst(2).enumerated() where offset + i < image.count { image[offset + i] = byte }
  guard let tag = try? kind.makeTag(image: image) else { fatalError("\(kind) refused an image of the right size") }
  let capabilities = [LinkCapabilities(maxResponseLength: 252, maxCommandLength: 252, rawCommands: true),
                      LinkCapabilities(maxResponseLength: 16, maxCommandLength: 64, rawCommands: false),
                      LinkCapabilities(maxResponseLength: 4096, maxCommandLength: 4096, rawCommands: true),
                      LinkCapabilities(maxResponseLength: 60, maxCommandLength: 60, rawCommands: true)][Int(bytes[1] & 0x03)]
  let link = VirtualTagLink(tag: tag, capabilities: capabilities)
  var details = TargetDetails()
  if case .felica(let pmm, let systemCode) = tag.technology {
    details.felicaPMm = pmm
    details.felicaSystemCode = systemCode
  }
  let target = DetectedTarget(readerName: "fuzz", identifier: tag.identifier, atr: [], platform: tag.platform,
                              cardName: tag.productName, details: details, link: link)
  guard let platform = try? makePlatform(for: target) else { return 0 }
  if all || operation == 0 {
    if let report = try? platform.queryNDEFStatus() {
      if report.capacity < 0 { fatalError("negative capacity \(report.capacity)") }
      if let length = report.messageLength, let message = try? platform.readNDEF(), message.count != length {
        fatalError("status says \(length) bytes, read gives \(message.count)")
      }
    }
    _ = try? platform.readNDEF()
  }
  if all || operation == 1, let info = try? platform.info() { _ = info.lockState; _ = info.details.count }
  if all || operation == 2, let memory = try? platform.readMemory(), memory.isEmpty { fatalError("an empty memory dump") }
  if all || operation == 3 {
    let message: [UInt8] = [0xD1, 0x01, 0x05, 0x54, 0x02, 0x65, 0x6E, 0x68, 0x69]  // Text "hi"
    if (try? platform.writeNDEF(message, verify: true)) != nil {
      guard let back = try? platform.readNDEF(), back == message else { fatalError("a verified write does not read back") }
    }
  }
  return 0
}
