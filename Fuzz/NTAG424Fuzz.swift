// libFuzzer entry point over the NTAG 424 DNA's answer parsers and the SUN URL parser: the first
// byte picks the parser, the rest is the tag's answer (or the URL).
// Built by scripts/fuzz.sh with Hex and NTAG424's files that need no cryptography (the secure-
// messaging response check needs swift-crypto, which the fuzz build does not compile).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let input = Array(UnsafeBufferPointer(start: data, count: size))
  guard let selector = input.first else { return 0 }
  let bytes = Array(input.dropFirst())
  switch selector % 5 {
  case 0:  // GetFileSettings: what parses re-encodes (ChangeFileSettings' data) and parses the same
    guard let file = try? FileProperties(parsing: bytes), let change = try? file.settings.changeData() else { return 0 }
    let size = [UInt8(file.fileSize & 0xFF), UInt8(file.fileSize >> 8 & 0xFF), UInt8(file.fileSize >> 16 & 0xFF)]
    let again = try? FileProperties(parsing: [file.fileType] + change.prefix(3) + size + change.dropFirst(3))
    guard again == file else { fatalError("GetFileSettings does not round-trip: \(file) vs \(String(describing: again))") }
  case 1:  // GetVersion: only 28 or 29 bytes parse, and the UID is the third frame's start
    guard let version = try? ChipVersion(parsing: bytes) else { return 0 }
    guard bytes.count == 28 || bytes.count == 29, version.uid == Array(bytes[14..<21]) else {
      fatalError("GetVersion parsed \(bytes.count) bytes")
    }
    _ = version.chip.description
  case 2:  // the small answers: exact lengths only
    if let counter = try? NativeCommand.parseFileCounter(bytes), bytes.count != 5 || counter > 0xFF_FFFF { fatalError("counter") }
    if (try? NativeCommand.parseCardUID(bytes)) != nil, bytes.count != 7 { fatalError("UID") }
    if (try? NativeCommand.parseKeyVersion(bytes)) != nil, bytes.count != 1 { fatalError("key version") }
    if (try? NativeCommand.parseSignature(bytes)) != nil, bytes.count != 56 { fatalError("signature") }
  case 3:  // a SUN URL with named parameters
    let url = String(decoding: bytes, as: UTF8.self)
    guard let sun = try? SUNURL(parsing: url) else { return 0 }
    guard sun.encryptedPICCData.count == 16, sun.sdmMAC.count == 8, sun.macInput.count <= url.utf8.count,
          (sun.encryptedFileData?.count ?? 16) % 16 == 0 else { fatalError("SUN URL fields out of shape") }
  default:  // a SUN URL read at offsets: four offsets first, then the URL
    guard bytes.count >= 4 else { return 0 }
    let layout = SUNURLLayout(piccDataOffset: Int(bytes[0]), macInputOffset: Int(bytes[1]), macOffset: Int(bytes[2]),
                              fileData: bytes[3] == 0 ? nil : (offset: Int(bytes[3]), digits: 32))
    let url = String(decoding: bytes.dropFirst(4), as: UTF8.self)
    guard let sun = try? SUNURL(parsing: url, layout: layout) else { return 0 }
    guard sun.encryptedPICCData.count == 16, sun.sdmMAC.count == 8,
          sun.macInput.count == layout.macOffset - layout.macInputOffset else { fatalError("SUN URL layout fields out of shape") }
  }
  return 0
}
