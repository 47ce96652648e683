/// The SDMOptions byte of a file's settings (NT4H2421Gx datasheet §10.7.1).
public struct SDMOptions: OptionSet, Hashable, Sendable {
  /// The byte as sent.
  public let rawValue: UInt8
  /// A set from the byte as sent.
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Bit 7: the UID is mirrored (plain or inside PICCData).
  public static let uid = SDMOptions(rawValue: 0x80)
  /// Bit 6: SDMReadCtr is mirrored (plain or inside PICCData).
  public static let readCounter = SDMOptions(rawValue: 0x40)
  /// Bit 5: SDMReadCtrLimit applies.
  public static let readCounterLimit = SDMOptions(rawValue: 0x20)
  /// Bit 4: part of the file is mirrored encrypted (SDMENCFileData).
  public static let encryptedFileData = SDMOptions(rawValue: 0x10)
  /// Bit 0: the mirrors are ASCII hex, the only encoding the chip has; always set.
  public static let asciiEncoding = SDMOptions(rawValue: 0x01)
}

/// Secure Dynamic Messaging settings of a file: what is mirrored where (NT4H2421Gx datasheet §9.3,
/// §10.7.1).
///
/// Offsets count bytes from the start of the file (for the NDEF file, NLEN included) and are sent
/// as 3 bytes, least significant first. Which ones are present follows from the options and the
/// SDM access rights, as the datasheet's table says: UIDOffset and SDMReadCtrOffset with plain
/// mirrors (SDMMetaRead Eh), PICCDataOffset with an SDMMetaRead key, SDMMACInputOffset and
/// SDMMACOffset with an SDMFileRead key, SDMENCOffset and SDMENCLength with an SDMFileRead key and
/// ``SDMOptions/encryptedFileData``, SDMReadCtrLimit with ``SDMOptions/readCounterLimit``.
public struct SDMSettings: Hashable, Sendable {
  /// SDMOptions.
  public var options: SDMOptions
  /// SDMMetaRead, SDMFileRead and SDMCtrRet.
  public var accessRights: SDMAccessRights
  /// UIDOffset: where the 14 hex digits of the plain UID go.
  public var uidOffset: Int?
  /// SDMReadCtrOffset: where the 6 hex digits of the plain counter go (most significant first).
  public var readCounterOffset: Int?
  /// PICCDataOffset: where the 32 hex digits of encrypted PICCData go.
  public var piccDataOffset: Int?
  /// SDMMACInputOffset: where the bytes the SDMMAC covers start.
  public var macInputOffset: Int?
  /// SDMENCOffset: where SDMENCFileData goes.
  public var encryptedFileDataOffset: Int?
  /// SDMENCLength: how many hex digits of SDMENCFileData, a multiple of 32.
  public var encryptedFileDataLength: Int?
  /// SDMMACOffset: where the 16 hex digits of the SDMMAC go.
  public var macOffset: Int?
  /// SDMReadCtrLimit: the counter value after which the file is no longer read with SDM.
  public var readCounterLimit: Int?

  /// SDM settings from every field; the ones the options and access rights do not call for stay nil.
  public init(options: SDMOptions, accessRights: SDMAccessRights, uidOffset: Int? = nil,
              readCounterOffset: Int? = nil, piccDataOffset: Int? = nil, macInputOffset: Int? = nil,
              encryptedFileDataOffset: Int? = nil, encryptedFileDataLength: Int? = nil,
              macOffset: Int? = nil, readCounterLimit: Int? = nil) {
    self.options = options
    self.accessRights = accessRights
    self.uidOffset = uidOffset
    self.readCounterOffset = readCounterOffset
    self.piccDataOffset = piccDataOffset
    self.macInputOffset = macInputOffset
    self.encryptedFileDataOffset = encryptedFileDataOffset
    self.encryptedFileDataLength = encryptedFileDataLength
    self.macOffset = macOffset
    self.readCounterLimit = readCounterLimit
  }

  /// The fields in the order they are sent, each with whether the options and access rights call for it.
  private var layout: [(name: String, present: Bool, value: Int?)] {
    let meta = accessRights.metaRead, file = accessRights.fileRead
    let plainMirror = meta == .free, piccData: Bool
    if case .key(let number) = meta { piccData = number <= 4 } else { piccData = false }
    let mac = file != .never
    return [
      ("UIDOffset", options.contains(.uid) && plainMirror, uidOffset),
      ("SDMReadCtrOffset", options.contains(.readCounter) && plainMirror, readCounterOffset),
      ("PICCDataOffset", piccData, piccDataOffset),
      ("SDMMACInputOffset", mac, macInputOffset),
      ("SDMENCOffset", mac && options.contains(.encryptedFileData), encryptedFileDataOffset),
      ("SDMENCLength", mac && options.contains(.encryptedFileData), encryptedFileDataLength),
      ("SDMMACOffset", mac, macOffset),
      ("SDMReadCtrLimit", options.contains(.readCounterLimit), readCounterLimit),
    ]
  }

  /// Reads the SDM part of a GetFileSettings answer.
  init(reading reader: inout ByteReader) throws(NTAG424Error) {
    options = SDMOptions(rawValue: try reader.byte("SDMOptions"))
    let ar = try reader.bytes(2, "SDMAccessRights")
    accessRights = SDMAccessRights(bytes: ar[0], ar[1])
    var values: [Int?] = []
    for field in layout { values.append(field.present ? try reader.uint24(field.name) : nil) }
    uidOffset = values[0]; readCounterOffset = values[1]; piccDataOffset = values[2]; macInputOffset = values[3]
    encryptedFileDataOffset = values[4]; encryptedFileDataLength = values[5]; macOffset = values[6]
    readCounterLimit = values[7]
  }

  /// Appends the SDM part of ChangeFileSettings' data.
  ///
  /// - Throws: ``NTAG424Error/invalidParameter(_:)`` when a field the options call for is missing,
  ///   one they do not call for is set, an offset does not fit 3 bytes, a key number is above 4,
  ///   or ASCII encoding is not set.
  func encode(into out: inout [UInt8]) throws(NTAG424Error) {
    guard options.contains(.asciiEncoding) else {
      throw .invalidParameter("SDMOptions: ASCII encoding (bit 0) must be set, the chip has no other")
    }
    _ = try accessRights.metaRead.checked("SDMMetaRead")
    _ = try accessRights.fileRead.checked("SDMFileRead")
    _ = try accessRights.counterRetrieval.checked("SDMCtrRet")
    out.append(options.rawValue)
    out += accessRights.bytes
    for field in layout {
      switch (field.present, field.value) {
      case (true, let value?): out += try littleEndian24(value, field.name)
      case (true, nil): throw .invalidParameter("\(field.name) is needed by these SDM options and access rights")
      case (false, _?): throw .invalidParameter("\(field.name) is set, but these SDM options and access rights have none")
      case (false, nil): break
      }
    }
  }
}

/// The settings ChangeFileSettings sets: communication mode, access rights and SDM
/// (NT4H2421Gx datasheet §10.7.1). ``FileProperties`` adds what GetFileSettings also tells.
public struct FileSettings: Hashable, Sendable {
  /// The communication mode of ReadData and WriteData granted by a key (free access is Plain).
  public var communicationMode: CommunicationMode
  /// Read, Write, Read&Write, Change.
  public var accessRights: AccessRights
  /// SDM and mirroring, nil when off.
  public var sdm: SDMSettings?

  /// Settings from their parts.
  public init(communicationMode: CommunicationMode, accessRights: AccessRights, sdm: SDMSettings? = nil) {
    self.communicationMode = communicationMode
    self.accessRights = accessRights
    self.sdm = sdm
  }

  /// FileOption: bit 6 SDM enabled, bits 1–0 the communication mode (00b Plain, 01b MAC, 11b Full).
  var fileOption: UInt8 {
    let mode: UInt8 = switch communicationMode { case .plain: 0x00; case .mac: 0x01; case .full: 0x03 }
    return (sdm == nil ? 0 : 0x40) | mode
  }

  /// ChangeFileSettings' CmdData, in plain: `FileOption || AccessRights || [SDM part]`.
  ///
  /// - Throws: ``NTAG424Error/invalidParameter(_:)`` for settings the chip would refuse.
  public func changeData() throws(NTAG424Error) -> [UInt8] {
    for (name, condition) in [("Read", accessRights.read), ("Write", accessRights.write),
                              ("Read&Write", accessRights.readWrite), ("Change", accessRights.change)] {
      _ = try condition.checked("access right \(name)")
    }
    var out = [fileOption] + accessRights.bytes
    try sdm?.encode(into: &out)
    return out
  }

  static func mode(fileOption: UInt8) -> CommunicationMode {
    switch fileOption & 0x03 { case 0x01: .mac; case 0x03: .full; default: .plain }
  }
}

/// A file as GetFileSettings describes it: its type and size, and its ``FileSettings``
/// (NT4H2421Gx datasheet §10.7.2).
public struct FileProperties: Hashable, Sendable {
  /// FileType: 00h, StandardData, for every file of the 424 DNA.
  public var fileType: UInt8
  /// FileSize in bytes.
  public var fileSize: Int
  /// Communication mode, access rights, SDM.
  public var settings: FileSettings

  /// Properties from their parts.
  public init(fileType: UInt8 = 0, fileSize: Int, settings: FileSettings) {
    self.fileType = fileType
    self.fileSize = fileSize
    self.settings = settings
  }

  /// Parses a GetFileSettings answer (data only, without MAC or status).
  ///
  /// - Throws: ``NTAG424Error/malformedResponse(command:reason:)`` for a short answer, an offset
  ///   missing, or bytes left over.
  public init(parsing bytes: [UInt8]) throws(NTAG424Error) {
    var reader = ByteReader(bytes, command: 0xF5)
    fileType = try reader.byte("FileType")
    let option = try reader.byte("FileOption")
    let ar = try reader.bytes(2, "AccessRights")
    fileSize = try reader.uint24("FileSize")
    let sdm = option & 0x40 != 0 ? try SDMSettings(reading: &reader) : nil
    try reader.finish()
    settings = FileSettings(communicationMode: FileSettings.mode(fileOption: option),
                            accessRights: AccessRights(bytes: ar[0], ar[1]), sdm: sdm)
  }
}
