import NTAG424Commands

/// A virtual DESFire's image file: the whole card, so a saved card reloads as the same card.
///
/// Layout (all numbers least significant byte first, as DESFire sends them):
/// ```
/// "DESF" 01                      magic and layout version
/// storage(1) UID(7) free(3)      GetVersion's storage byte, the UID, GetFreeMemory
/// level                          the PICC level
/// count(1) level × count         the applications, in the order they were created
/// [configuration(1)]             SetConfiguration's flags (bit 0 format disabled, bit 1 random
///                                ID), only when one is set: an image without it is a card without them
/// level = AID(3) KS1(1) flags(1) [ISO FID(2)] [name length(1) DF name] keys(1) key × keys files(1) file × files
///   flags: bit 0 ISO file IDs, bit 1 an ISO FID follows, bit 2 a DF name follows
///   key  = type(1: 00 DES/2K3DES, 40 3K3DES, 80 AES) version(1) value(16 or 24)
///   file = number(1) flags(1) [ISO FID(2)] option(1) access(2) size(3) data(size) [value | records] [sdm]
///   flags: bit 0 an ISO FID follows; bits 3-1 the file type (0 standard, 1 backup, 2 value,
///          3 linear record, 4 cyclic record: GetFileSettings' type byte); size 0 for value and record files;
///          bit 4 SDM (an EV3 standard data file created with FileOption bit 6), bit 5 its settings follow
///   sdm     = SDMReadCtr(3) [length(1) settings(length)]   (settings: ChangeFileSettings' SDM part, from
///             SDMOptions on, NT4H2421Gx §10.7.1; only with flags bit 5). Images before it have bits 5-4 clear.
///   value   = lower(4) upper(4) value(4) limited credit value(4) options(1)   (signed, committed)
///   records = record size(3) maximum records(3) count(3) record(record size) × count, oldest first
/// ```
/// An uncommitted transaction is not saved (a card that loses the field drops it too).
/// Keys are in clear: image files are test material, never a place for production keys.
public enum DESFireImage {
  /// The first five bytes of every image.
  public static let magic: [UInt8] = Array("DESF".utf8) + [0x01]

  /// The image of `tag`.
  public static func encode(_ tag: DESFireVirtualTag) -> [UInt8] {
    var out = magic
    out.append(tag.chip.hardwareVersion[5])
    out += tag.uid
    out += DESFireBytes.uint24(tag.freeMemory)
    encode(tag.picc, into: &out)
    out.append(UInt8(tag.applications.count))
    for application in tag.applications { encode(application, into: &out) }
    if !tag.configuration.isEmpty { out.append(tag.configuration.rawValue) }
    return out
  }

  private static func encode(_ level: DESFireApplication, into out: inout [UInt8]) {
    out += DESFireBytes.uint24(Int(level.aid))
    out.append(level.keySettings)
    let flags: UInt8 = (level.usesISOFileIDs ? 1 : 0) | (level.isoFileID != nil ? 2 : 0) | (level.dfName != nil ? 4 : 0)
    out.append(flags)
    if let fid = level.isoFileID { out += DESFireBytes.uint16(fid) }
    if let name = level.dfName { out.append(UInt8(name.count)); out += name }
    out.append(UInt8(level.keys.count))
    for key in level.keys { out += [key.type.rawValue, key.version] + key.value }
    out.append(UInt8(level.files.count))
    for number in level.files.keys.sorted() {
      guard let file = level.files[number] else { continue }
      let sdmFlags: UInt8 = file.sdm == nil ? 0 : (file.sdm?.settings == nil ? 0x10 : 0x30)
      out += [file.number, (file.isoFileID != nil ? 1 : 0) | file.fileType << 1 | sdmFlags]
      if let fid = file.isoFileID { out += DESFireBytes.uint16(fid) }
      out.append(file.communication.rawValue)
      out += file.access.bytes + DESFireBytes.uint24(file.data.count) + file.data
      switch file.kind {
      case .standard, .backup:
        break
      case .value(let value):
        out += DESFireBytes.int32(value.lowerLimit) + DESFireBytes.int32(value.upperLimit) + DESFireBytes.int32(value.value)
          + DESFireBytes.int32(value.limitedCreditValue) + [value.options]
      case .records(let records):
        out += DESFireBytes.uint24(records.recordSize) + DESFireBytes.uint24(records.maxRecords)
          + DESFireBytes.uint24(records.records.count) + records.records.flatMap { $0 }
      }
      if let sdm = file.sdm {
        out += DESFireBytes.uint24(Int(sdm.readCounter))
        if let part = sdm.settings.flatMap(sdmPart) { out.append(UInt8(part.count)); out += part }
      }
    }
  }

  /// The card an image holds.
  /// - Parameters:
  ///   - image: the image file's bytes.
  ///   - chip: the kind's chip; the image's storage byte must name the same size.
  ///   - uid: a UID that wins over the image's; nil for the image's.
  /// - Throws: ``EmulatorError`` naming what is wrong with the image.
  public static func decode(_ image: [UInt8], chip: DESFireChip, uid: [UInt8]? = nil) throws(EmulatorError) -> DESFireVirtualTag {
    var reader = Reader(bytes: image)
    guard reader.take(magic.count) == magic else {
      throw EmulatorError("not a MIFARE DESFire image (it does not start with \"DESF\" and layout 1)")
    }
    guard let storage = reader.byte(), storage == chip.hardwareVersion[5] else {
      throw EmulatorError("the image is of another DESFire size than \(chip.productName)")
    }
    guard let imageUID = reader.take(7), let free = reader.uint24(), free <= chip.memorySize,
          let picc = level(&reader), picc.aid == 0, let count = reader.byte(), Int(count) <= DESFireVirtualTag.maxApplications
    else { throw truncated }
    var applications: [DESFireApplication] = []
    for _ in 0..<count {
      guard let application = level(&reader), application.aid != 0,
            !applications.contains(where: { $0.aid == application.aid }) else { throw truncated }
      applications.append(application)
    }
    var configuration = DESFireConfiguration()
    if !reader.atEnd, let byte = reader.byte() {
      configuration = DESFireConfiguration(rawValue: byte)
      guard !configuration.isEmpty, DESFireConfiguration.known.isSuperset(of: configuration) else {
        throw EmulatorError("the MIFARE DESFire image's configuration byte \(hexString([byte])) has bits no card sets")
      }
    }
    guard reader.atEnd else { throw EmulatorError("the MIFARE DESFire image has bytes after its configuration") }
    let uid = uid ?? imageUID
    guard uid.count == 7 else { throw EmulatorError("a MIFARE DESFire UID has 7 bytes (got \(uid.count))") }
    return DESFireVirtualTag(chip: chip, uid: uid, picc: picc, applications: applications, freeMemory: free,
                             configuration: configuration)
  }

  private static var truncated: EmulatorError {
    EmulatorError("the MIFARE DESFire image is truncated or holds a value out of range")
  }

  private static func level(_ reader: inout Reader) -> DESFireApplication? {
    guard let aid = reader.uint24(), let ks1 = reader.byte(), let flags = reader.byte() else { return nil }
    var fid: UInt16?
    if flags & 2 != 0 { guard let value = reader.uint16() else { return nil }; fid = value }
    var name: [UInt8]?
    if flags & 4 != 0 {
      guard let length = reader.byte(), (1...16).contains(length), let value = reader.take(Int(length)) else { return nil }
      name = value
    }
    guard let keyCount = reader.byte(), (1...14).contains(keyCount) else { return nil }
    var keys: [DESFireKey] = []
    for _ in 0..<keyCount {
      guard let raw = reader.byte(), let type = DESFireKeyType(rawValue: raw), let version = reader.byte(),
            let value = reader.take(type.keyLength) else { return nil }
      keys.append(DESFireKey(type: type, value: value, version: version))
    }
    guard let fileCount = reader.byte(), fileCount <= 32 else { return nil }
    var files: [UInt8: DESFireFile] = [:]
    for _ in 0..<fileCount {
      guard let number = reader.byte(), number <= 0x1F, files[number] == nil, let fileFlags = reader.byte(),
            fileFlags & 0xC0 == 0, fileFlags & 0x30 != 0x20 else { return nil }
      var fileID: UInt16?
      if fileFlags & 1 != 0 { guard let value = reader.uint16() else { return nil }; fileID = value }
      guard let option = reader.byte(), let mode = DESFireCommunicationMode(optionByte: option),
            let low = reader.byte(), let high = reader.byte(), let size = reader.uint24(),
            let data = reader.take(size), let kind = fileKind(fileFlags >> 1 & 0x07, size: size, &reader) else { return nil }
      var sdm: DESFireFileSDM?
      if fileFlags & 0x10 != 0 {
        guard kind == .standard, let counter = reader.uint24(), counter <= Int(SDMFrames.maximumReadCounter) else { return nil }
        sdm = DESFireFileSDM(readCounter: UInt32(counter))
        if fileFlags & 0x20 != 0 {
          guard let length = reader.byte(), let part = reader.take(Int(length)), let settings = sdmSettings(part, size: size)
          else { return nil }
          sdm?.settings = settings
        }
      }
      files[number] = DESFireFile(number: number, isoFileID: fileID, communication: mode,
                                  access: DESFireAccessRights(bytes: low, high), data: data, kind: kind, sdm: sdm)
    }
    return DESFireApplication(aid: UInt32(aid), keySettings: ks1, keys: keys, isoFileID: fid,
                              usesISOFileIDs: flags & 1 != 0, dfName: name, files: files)
  }

  /// ChangeFileSettings' SDM part of `settings` (SDMOptions, SDMAccessRights, the offsets), as
  /// NTAG424Commands' ``FileSettings/changeData()`` writes it after FileOption and the access rights.
  static func sdmPart(_ settings: SDMSettings) -> [UInt8]? {
    let whole = try? FileSettings(communicationMode: .plain, accessRights: AccessRights(bytes: 0xEE, 0xEE), sdm: settings).changeData()
    return whole.map { Array($0.dropFirst(3)) }
  }

  /// The SDM settings an image's SDM part holds, read by NTAG424Commands' one parser (a
  /// GetFileSettings answer around it); nil when it does not parse or a mirror leaves the file.
  private static func sdmSettings(_ part: [UInt8], size: Int) -> SDMSettings? {
    let frame: [UInt8] = [0x00, 0x40, 0xEE, 0xEE] + DESFireBytes.uint24(size) + part
    guard let settings = (try? FileProperties(parsing: frame))?.settings.sdm, settings.options.contains(.asciiEncoding),
          DESFireVirtualTag.sdmFits(settings, size: size) else { return nil }
    return settings
  }

  /// A file's kind from its type (flags bits 3-1) and what follows its data; nil when out of
  /// range (limits out of order, a value outside them, a value or record file with data, a record
  /// count past what the file holds).
  private static func fileKind(_ type: UInt8, size: Int, _ reader: inout Reader) -> DESFireFileKind? {
    switch type {
    case 0: return .standard
    case 1: return size > 0 ? .backup : nil
    case 2:
      guard size == 0, let lower = reader.int32(), let upper = reader.int32(), let value = reader.int32(),
            let limited = reader.int32(), let options = reader.byte(), lower <= upper, (lower...upper).contains(value),
            limited >= 0, options & 0xFC == 0 else { return nil }
      return .value(DESFireValueFile(lowerLimit: lower, upperLimit: upper, value: value, options: options,
                                     limitedCreditValue: limited))
    case 3, 4:
      guard size == 0, let recordSize = reader.uint24(), let maxRecords = reader.uint24(), let count = reader.uint24(),
            recordSize > 0, maxRecords >= (type == 4 ? 2 : 1) else { return nil }
      var file = DESFireRecordFile(recordSize: recordSize, maxRecords: maxRecords, cyclic: type == 4, records: [])
      guard count <= file.capacity else { return nil }
      for _ in 0..<count {
        guard let record = reader.take(recordSize) else { return nil }
        file.records.append(record)
      }
      return .records(file)
    default: return nil
    }
  }

  /// Reads an image from the front; every read is nil past the end.
  private struct Reader {
    let bytes: [UInt8]
    var at = 0
    var atEnd: Bool { at == bytes.count }

    mutating func take(_ count: Int) -> [UInt8]? {
      guard count >= 0, count <= bytes.count - at else { return nil }
      defer { at += count }
      return Array(bytes[at..<(at + count)])
    }

    mutating func byte() -> UInt8? { take(1)?.first }

    mutating func uint16() -> UInt16? {
      guard let b = take(2) else { return nil }
      return UInt16(b[0]) | UInt16(b[1]) << 8
    }

    mutating func int32() -> Int32? {
      guard let b = take(4) else { return nil }
      return DESFireBytes.int32(b[...], at: 0)
    }

    mutating func uint24() -> Int? {
      guard let b = take(3) else { return nil }
      return Int(b[0]) | Int(b[1]) << 8 | Int(b[2]) << 16
    }
  }
}
