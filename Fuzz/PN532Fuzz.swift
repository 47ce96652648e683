// libFuzzer entry point over PN532 frames, both ways.
// - Emulator side (first byte < 80h): the emulated readers (ACR122U face: pseudo-APDUs carrying
//   PN532 commands; the Part 3 face: GET DATA, READ/UPDATE BINARY, Manage Session) answer fuzzed
//   APDUs with a virtual tag in the field. Every answer must be non-empty and fit a short APDU answer.
// - Reader side (first byte ≥ 80h): the reader drivers' links (ACR122U Type 1/2/exchange, Part 3
//   Type 2/5 with transparent exchange, APDU passthrough) under the tag platforms, over a reader
//   whose every answer comes from the fuzz input, so `pn532Answer`, the CIU register dance and
//   the BER answers of transparent exchange all parse hostile bytes.
// Built by scripts/fuzz.sh with NFCTransport, NFCTags, NFCEmulator, NFCReaders' link files and
// Fuzz/Support/HostileReader.swift.

func emulatorSide(_ bytes: [UInt8]) {
  let kinds = VirtualTagKind.allCases
  let kind = kinds[Int(bytes[0] & 0x3F) % kinds.count]
  guard let tag = try? kind.makeTag(uid: nil) else { return }
  let card: any VirtualCard
  if bytes[0] & 0x40 != 0 {
    guard let face = try? PartThreeFace(tag: tag, transparentExchange: bytes.count % 2 == 0) else { return }
    card = face
  } else {
    card = ACR122UFace(tag: bytes.count % 7 == 0 ? nil : tag)
  }
  _ = card.atr
  var rest = bytes.dropFirst()
  while let length = rest.popFirst() {
    let apdu = Array(rest.prefix(Int(length)))
    rest = rest.dropFirst(apdu.count)
    let reply = card.transmit(apdu)
    guard !reply.isEmpty, reply.count <= 258 + 2 else { fatalError("a \(reply.count)-byte answer to \(apdu)") }
  }
}

func readerSide(_ bytes: [UInt8]) {
  let reader = HostileReader(bytes.dropFirst())
  let link: any Transceiver
  let platform: TagPlatform
  switch bytes[0] & 0x07 {
  case 0:
    let type1 = ACR122UType1Link(transport: reader)
    type1.writeWaitMicroseconds = (0, 0)
    (link, platform) = (type1, .type1)
  case 1: (link, platform) = (ACR122UType2Link(transport: reader), .type2)
  case 2: (link, platform) = (PartThreeType2Link(transport: reader), .type2)
  case 3: (link, platform) = (ACR122UExchangeLink(transport: reader), .type3)
  case 4: (link, platform) = (APDUPassthroughLink(transport: reader, capabilities: APDUPassthroughLink.acr122u), .type4)
  case 5: (link, platform) = (PartThreeType5Link(transport: reader), .type5)
  case 6: (link, platform) = (ACR122UExchangeLink(transport: reader), .type1)
  default: (link, platform) = (APDUPassthroughLink(transport: reader), .type4)
  }
  let identifier: [UInt8] = platform == .type3 || platform == .type5 ? [1, 2, 3, 4, 5, 6, 7, 8] : [4, 1, 2, 3, 4, 5, 6]
  let target = DetectedTarget(readerName: reader.readerName, identifier: identifier, atr: [], platform: platform,
                              cardName: "hostile", link: link)
  guard let tag = try? makePlatform(for: target) else { return }
  _ = link.capabilities
  _ = try? tag.queryNDEFStatus()
  _ = try? tag.readNDEF()
  _ = try? tag.info()
  _ = try? tag.readMemory()
  _ = try? tag.writeNDEF([0xD1, 0x01, 0x05, 0x54, 0x02, 0x65, 0x6E, 0x68, 0x69], verify: true)
  // The PN532 answer check on its own, as every ACR122U link uses it.
  if let data = try? pn532Answer(bytes, command: bytes.count > 4 ? bytes[4] &- 1 : 0x42),
     data.count + 5 != bytes.count { fatalError("pn532Answer returned \(data.count) of \(bytes.count) bytes") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  guard let first = bytes.first else { return 0 }
  if first & 0x80 == 0 { emulatorSide(bytes) } else { readerSide(bytes) }
  return 0
}
