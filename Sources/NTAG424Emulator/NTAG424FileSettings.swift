import NFCEmulator
import NTAG424

/// One StandardData file's settings on a virtual NTAG 424 DNA: communication mode, access rights,
/// size and Secure Dynamic Messaging.
///
/// NT4H2421Gx datasheet §10.7.1 (ChangeFileSettings, Tables 69 and 71) and §10.7.2
/// (GetFileSettings, Table 73). Access conditions are nibbles: 0h–4h an application key, Eh free,
/// Fh never (§8.2.3.3). AccessRights travel as two bytes, `RW<<4 | Change` then `R<<4 | W`;
/// SDMAccessRights as `F<<4 | SDMCtrRet` then `SDMMetaRead<<4 | SDMFileRead`; offsets 3 bytes,
/// LSB first.
struct NTAG424FileSettings: Equatable, Sendable {
  /// FileOption bits 1–0: 00b/10b plain, 01b MAC, 11b Full.
  var commModeBits: UInt8
  /// The access conditions (nibbles).
  var readWrite: UInt8, change: UInt8, read: UInt8, write: UInt8
  /// The file size in bytes (fixed on this chip).
  let size: Int
  /// SDM and mirroring, when FileOption bit 6 is set.
  var sdm: SDMSettings?

  /// The communication mode an authenticated access uses.
  var commMode: CommunicationMode {
    switch commModeBits & 0x03 {
    case 0x01: return .mac
    case 0x03: return .full
    default: return .plain
    }
  }

  /// FileOption as GetFileSettings reports it.
  var fileOption: UInt8 { (sdm == nil ? 0 : 0x40) | commModeBits & 0x03 }
  /// AccessRights as sent.
  var accessRightBytes: [UInt8] { [readWrite << 4 | change, read << 4 | write] }

  /// GetFileSettings' answer: FileType 00h, FileOption, AccessRights, FileSize, then the SDM fields
  /// present (Table 73).
  var encoded: [UInt8] {
    var out: [UInt8] = [0x00, fileOption] + accessRightBytes + le3(UInt32(size))
    if let sdm { out += sdm.encoded }
    return out
  }

  /// The files as shipped (NT4H2421Gx datasheet §8.2): the CC file 01 (32 bytes, read free,
  /// the rest key 0), the NDEF file 02 (256 bytes, read and write free, change key 0) and the
  /// proprietary file 03 (128 bytes, CommMode.Full, read key 2, write and read-write key 3).
  static let factory: [NTAG424FileSettings] = [
    NTAG424FileSettings(commModeBits: 0, readWrite: 0x0, change: 0x0, read: 0xE, write: 0x0, size: 32, sdm: nil),
    NTAG424FileSettings(commModeBits: 0, readWrite: 0xE, change: 0x0, read: 0xE, write: 0xE, size: 256, sdm: nil),
    NTAG424FileSettings(commModeBits: 3, readWrite: 0x3, change: 0x0, read: 0x2, write: 0x3, size: 128, sdm: nil),
  ]

  /// The settings ChangeFileSettings' plain data asks for, checked as Table 71 says.
  ///
  /// - Parameters:
  ///   - data: `FileOption || AccessRights || [SDMOptions || SDMAccessRights || offsets…]`.
  ///   - fileNumber: 1–3; SDM only on 2.
  ///   - currentCounter: the file's SDMReadCtr, for the limit check; nil skips it (an image).
  /// - Returns: the settings, or the status byte to answer (SW1 91h): 7Eh length, 9Eh parameter,
  ///   9Dh permission.
  static func parse(_ data: [UInt8], replacing old: NTAG424FileSettings, fileNumber: Int,
                    currentCounter: UInt32?) -> Result<NTAG424FileSettings, NTAG424Status> {
    guard data.count >= 3 else { return .failure(.lengthError) }
    let option = data[0]
    guard option & 0xBC == 0 else { return .failure(.parameterError) }
    var settings = old
    settings.commModeBits = option & 0x03
    settings.readWrite = data[1] >> 4
    settings.change = data[1] & 0x0F
    settings.read = data[2] >> 4
    settings.write = data[2] & 0x0F
    guard [settings.readWrite, settings.change, settings.read, settings.write].allSatisfy(isAccessCondition) else {
      return .failure(.parameterError)
    }
    guard option & 0x40 != 0 else {
      guard data.count == 3 else { return .failure(.lengthError) }
      settings.sdm = nil
      return .success(settings)
    }
    guard fileNumber == 2 else { return .failure(.permissionDenied) }
    switch SDMSettings.parse(Array(data[3...]), fileSize: old.size, currentCounter: currentCounter) {
    case .success(let sdm): settings.sdm = sdm
    case .failure(let status): return .failure(status)
    }
    return .success(settings)
  }

  /// A fixed 30-byte record for the image file: FileOption, AccessRights, SDMOptions,
  /// SDMAccessRights, then the eight 3-byte fields (UIDOffset, SDMReadCtrOffset, PICCDataOffset,
  /// SDMMACInputOffset, SDMENCOffset, SDMENCLength, SDMMACOffset, SDMReadCtrLimit), FFFFFFh where absent.
  var record: [UInt8] {
    var out = [fileOption] + accessRightBytes
    guard let sdm else { return out + [UInt8](repeating: 0xFF, count: 27) }
    out += [sdm.options, 0xF0 | sdm.counterRetrieval, sdm.metaRead << 4 | sdm.fileRead]
    for field in [sdm.uidOffset, sdm.readCounterOffset, sdm.piccDataOffset, sdm.macInputOffset,
                  sdm.encOffset, sdm.encLength, sdm.macOffset] {
      out += le3(field.map(UInt32.init) ?? 0xFF_FFFF)
    }
    return out + le3(sdm.readCounterLimit ?? 0xFF_FFFF)
  }

  /// The settings an image record holds. Any 30 bytes give settings: access conditions outside
  /// 0–4, E, F read as F (never), and SDM settings that ChangeFileSettings would refuse are dropped.
  static func fromRecord(_ record: ArraySlice<UInt8>, factory: NTAG424FileSettings, fileNumber: Int) -> NTAG424FileSettings {
    let bytes = Array(record)
    guard bytes.count == 30 else { return factory }
    func nibble(_ value: UInt8) -> UInt8 { isAccessCondition(value) ? value : 0xF }
    var settings = factory
    settings.commModeBits = bytes[0] & 0x03
    settings.readWrite = nibble(bytes[1] >> 4)
    settings.change = nibble(bytes[1] & 0x0F)
    settings.read = nibble(bytes[2] >> 4)
    settings.write = nibble(bytes[2] & 0x0F)
    settings.sdm = nil
    guard bytes[0] & 0x40 != 0, fileNumber == 2 else { return settings }
    let options = bytes[3]
    let metaRead = bytes[5] >> 4, fileRead = bytes[5] & 0x0F
    func field(_ index: Int) -> [UInt8] { Array(bytes[(6 + 3 * index)..<(9 + 3 * index)]) }
    // Rebuild ChangeFileSettings' SDM fields in their order and check them as the command would.
    var data: [UInt8] = [options, bytes[4], bytes[5]]
    if options & 0x80 != 0, metaRead == 0xE { data += field(0) }
    if options & 0x40 != 0, metaRead == 0xE { data += field(1) }
    if metaRead <= 4 { data += field(2) }
    if fileRead != 0xF {
      data += field(3)
      if options & 0x10 != 0 { data += field(4) + field(5) }
      data += field(6)
    }
    if options & 0x20 != 0 { data += field(7) }
    if case .success(let sdm) = SDMSettings.parse(data, fileSize: settings.size, currentCounter: nil) { settings.sdm = sdm }
    return settings
  }
}

/// The SDM part of a file's settings (NT4H2421Gx datasheet §10.7.1, Table 69).
struct SDMSettings: Equatable, Sendable {
  /// SDMOptions: bit 7 UID, 6 SDMReadCtr, 5 SDMReadCtrLimit, 4 SDMENCFileData, 0 ASCII.
  var options: UInt8
  /// SDMMetaRead (0–4 encrypted PICCData with that key, E plain mirrors, F none), SDMFileRead
  /// (0–4 the SDMMAC and SDMENCFileData key, F none), SDMCtrRet (GetFileCounters' access).
  var metaRead: UInt8, fileRead: UInt8, counterRetrieval: UInt8
  var uidOffset: Int?, readCounterOffset: Int?, piccDataOffset: Int?
  var macInputOffset: Int?, encOffset: Int?, encLength: Int?, macOffset: Int?
  var readCounterLimit: UInt32?

  var mirrorsUID: Bool { options & 0x80 != 0 }
  var mirrorsCounter: Bool { options & 0x40 != 0 }
  var hasLimit: Bool { options & 0x20 != 0 }
  var encryptsFileData: Bool { options & 0x10 != 0 }

  /// The mirrors' lengths in the file (ASCII: two hex digits a byte).
  static let uidLength = 14, counterLength = 6, piccDataLength = 32, macLength = 16

  /// SDMOptions, SDMAccessRights and the fields present, as GetFileSettings reports them.
  var encoded: [UInt8] {
    var out: [UInt8] = [options, 0xF0 | counterRetrieval, metaRead << 4 | fileRead]
    for field in [uidOffset, readCounterOffset, piccDataOffset, macInputOffset, encOffset, encLength, macOffset] {
      if let field { out += le3(UInt32(field)) }
    }
    if let readCounterLimit { out += le3(readCounterLimit) }
    return out
  }

  /// Parses and checks the SDM fields of ChangeFileSettings (from SDMOptions on).
  static func parse(_ data: [UInt8], fileSize: Int, currentCounter: UInt32?) -> Result<SDMSettings, NTAG424Status> {
    guard data.count >= 3 else { return .failure(.lengthError) }
    var sdm = SDMSettings(options: data[0], metaRead: data[2] >> 4, fileRead: data[2] & 0x0F,
                          counterRetrieval: data[1] & 0x0F)
    guard sdm.options & 0x0F == 0x01 else { return .failure(.parameterError) }   // ASCII only, bits 3–1 RFU
    // SDMFileRead names a key or Fh (no SDM for reading); the others may also be Eh (Table 69).
    guard [sdm.metaRead, sdm.counterRetrieval].allSatisfy(isAccessCondition), sdm.fileRead <= 4 || sdm.fileRead == 0xF else {
      return .failure(.parameterError)
    }
    var rest = data[3...]
    func next() -> Int? {
      guard rest.count >= 3 else { return nil }
      defer { rest = rest.dropFirst(3) }
      return Int(rest[rest.startIndex]) | Int(rest[rest.startIndex + 1]) << 8 | Int(rest[rest.startIndex + 2]) << 16
    }
    var short = false
    func field(_ present: Bool) -> Int? {
      guard present else { return nil }
      guard let value = next() else { short = true; return nil }
      return value
    }
    sdm.uidOffset = field(sdm.mirrorsUID && sdm.metaRead == 0xE)
    sdm.readCounterOffset = field(sdm.mirrorsCounter && sdm.metaRead == 0xE)
    sdm.piccDataOffset = field(sdm.metaRead <= 4)
    sdm.macInputOffset = field(sdm.fileRead != 0xF)
    sdm.encOffset = field(sdm.fileRead != 0xF && sdm.encryptsFileData)
    sdm.encLength = field(sdm.fileRead != 0xF && sdm.encryptsFileData)
    sdm.macOffset = field(sdm.fileRead != 0xF)
    sdm.readCounterLimit = field(sdm.hasLimit).map { UInt32($0) }
    guard !short, rest.isEmpty else { return .failure(.lengthError) }
    if sdm.readCounterOffset == 0xFF_FFFF { sdm.readCounterOffset = nil }   // "no SDMReadCtr mirroring"
    return sdm.isValid(fileSize: fileSize, currentCounter: currentCounter) ? .success(sdm) : .failure(.parameterError)
  }

  /// Table 71's PARAMETER_ERROR conditions and Table 69's ranges.
  private func isValid(fileSize: Int, currentCounter: UInt32?) -> Bool {
    if metaRead != 0xF, !mirrorsUID, !mirrorsCounter { return false }
    if metaRead == 0xF, mirrorsUID { return false }
    if counterRetrieval != 0xF, !mirrorsCounter { return false }
    if encryptsFileData, fileRead == 0xF || !(mirrorsUID && mirrorsCounter) { return false }
    if hasLimit, !mirrorsCounter { return false }
    if let readCounterLimit, let currentCounter, readCounterLimit <= currentCounter { return false }
    var regions: [(start: Int, length: Int)] = []
    if let uidOffset {
      guard uidOffset <= fileSize - Self.uidLength else { return false }
      regions.append((uidOffset, Self.uidLength))
    }
    if let readCounterOffset {
      guard readCounterOffset <= fileSize - Self.counterLength else { return false }
      regions.append((readCounterOffset, Self.counterLength))
    }
    if let piccDataOffset {
      guard piccDataOffset <= fileSize - Self.piccDataLength else { return false }
      regions.append((piccDataOffset, Self.piccDataLength))
    }
    if let macOffset, let macInputOffset {
      guard macInputOffset <= macOffset, macOffset <= fileSize - Self.macLength else { return false }
      if let encOffset, let encLength {
        guard encOffset >= macInputOffset, encOffset <= macOffset - 32, encLength >= 32, encLength % 32 == 0,
              encLength <= macOffset - encOffset else { return false }
        for region in regions where overlaps(region, (encOffset, encLength)) { return false }
      }
      for region in regions where overlaps(region, (macOffset, Self.macLength)) { return false }
    }
    for (i, a) in regions.enumerated() {
      for b in regions[(i + 1)...] where overlaps(a, b) { return false }
    }
    return true
  }

  private func overlaps(_ a: (start: Int, length: Int), _ b: (start: Int, length: Int)) -> Bool {
    !(a.start >= b.start + b.length || b.start >= a.start + a.length)
  }
}

/// True for 0h–4h, Eh and Fh.
func isAccessCondition(_ nibble: UInt8) -> Bool { nibble <= 4 || nibble == 0xE || nibble == 0xF }

/// A value below 2^24 as 3 bytes, least significant first.
func le3(_ value: UInt32) -> [UInt8] {
  [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)]
}
