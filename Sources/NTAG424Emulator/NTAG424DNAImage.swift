/// The image-file layout of a virtual NTAG 424 DNA (``NTAG424DNAVirtualTag``): fixed offsets, so a
/// hex dump of the file can be read by eye, and any bytes of the right size load (settings a
/// ChangeFileSettings would refuse are dropped, access conditions outside 0–4, E, F read as F).
///
/// | offset | bytes | what |
/// |---|---|---|
/// | 0 | 32 | file 01, the CC file (E103h) |
/// | 32 | 256 | file 02, the NDEF file (E104h) |
/// | 288 | 128 | file 03, the proprietary file (E105h) |
/// | 416 | 5 × 17 | keys 0–4: 16 key bytes, then the key version |
/// | 501 | 3 × 33 | files 01–03: the 30-byte settings record, then SDMReadCtr (3, LSB first) |
/// | 600 | 5 × 2 | keys 0–4: TotFailCtr (LSB first) |
/// | 610 | 5 | FailedCtrOption, TotFailCtrLimit, TotFailCtrDecr (SetConfiguration 0Ah's data) |
/// | 615 | 5 | SMConfig (2), PDCap2.5, PDCap2.6, HW option |
/// | 620 | 7 | the UID |
///
/// An image of the first layout, without the UID (620 bytes, written before the UID was kept),
/// still loads: its tag has the UID given when loading (`--uid`) or the default one, and is
/// written back in the whole layout. The keys are stored in clear: an image file is test material.
enum NTAG424DNAImage {
  static let fileSizes = [32, 256, 128]
  static let keysOffset = 416
  static let settingsOffset = keysOffset + 5 * 17
  static let failedOffset = settingsOffset + 3 * 33
  static let failedConfigOffset = failedOffset + 5 * 2
  static let configOffset = failedConfigOffset + 5
  /// Where the UID is.
  static let uidOffset = configOffset + 5
  /// The whole image.
  static let size = uidOffset + 7
  /// The image without the UID: the first layout.
  static let sizeWithoutUID = uidOffset

  /// The UID an image holds; nil for an image of the first layout (or of another size).
  static func uid(in image: [UInt8]) -> [UInt8]? {
    image.count == size ? Array(image[uidOffset..<size]) : nil
  }

  static func encode(_ tag: NTAG424DNAVirtualTag) -> [UInt8] {
    var out = tag.files.flatMap { $0 }
    for key in 0..<5 { out += tag.keys[key] + [tag.keyVersions[key]] }
    for file in 0..<3 { out += tag.settings[file].record + le3(tag.readCounters[file]) }
    for key in 0..<5 { out += le2(tag.failedAuthentications[key]) }
    out += [tag.failedCounterEnabled ? 0x01 : 0x00] + le2(tag.failedCounterLimit) + le2(tag.failedCounterDecrement)
    out += tag.smConfig + tag.pdCap2Tail + [tag.hardwareOption]
    out += tag.identifier
    return out
  }

  /// Loads `image` (``size`` or ``sizeWithoutUID`` bytes, checked by the caller) into a
  /// factory-fresh `tag`; the UID is the caller's (``uid(in:)``).
  static func decode(_ image: [UInt8], into tag: NTAG424DNAVirtualTag) {
    guard image.count == size || image.count == sizeWithoutUID else { return }
    var offset = 0
    for (file, length) in fileSizes.enumerated() {
      tag.files[file] = Array(image[offset..<(offset + length)])
      offset += length
    }
    for key in 0..<5 {
      let start = keysOffset + 17 * key
      tag.keys[key] = Array(image[start..<(start + 16)])
      tag.keyVersions[key] = image[start + 16]
    }
    for file in 0..<3 {
      let start = settingsOffset + 33 * file
      tag.settings[file] = NTAG424FileSettings.fromRecord(image[start..<(start + 30)], factory: NTAG424FileSettings.factory[file],
                                                          fileNumber: file + 1)
      tag.readCounters[file] = UInt32(image[start + 30]) | UInt32(image[start + 31]) << 8 | UInt32(image[start + 32]) << 16
    }
    for key in 0..<5 { tag.failedAuthentications[key] = u16(image, failedOffset + 2 * key) }
    tag.failedCounterEnabled = image[failedConfigOffset] & 0x01 != 0
    tag.failedCounterLimit = max(1, u16(image, failedConfigOffset + 1))
    tag.failedCounterDecrement = u16(image, failedConfigOffset + 3)
    tag.smConfig = Array(image[configOffset..<(configOffset + 2)])
    tag.pdCap2Tail = Array(image[(configOffset + 2)..<(configOffset + 4)])
    tag.hardwareOption = image[configOffset + 4] & 0x01
  }

  private static func le2(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
  private static func u16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
}
