/// A Wi-Fi Simple Config credential (MIME `application/vnd.wfa.wsc`), as Android and iOS read it.
/// Wi-Fi Simple Configuration Technical Specification v2, credential attribute 0x100E.
public struct WiFiCredential: Hashable, Sendable {
  /// The media type of Wi-Fi Simple Config records.
  public static let mediaType = "application/vnd.wfa.wsc"

  /// The network name (attribute 0x1045), as bytes: SSIDs need not be UTF-8.
  public var ssid: [UInt8]
  /// Authentication type bitmap: 0x01 open, 0x02 WPA-Personal, 0x04 shared, 0x08 WPA-Enterprise,
  /// 0x10 WPA2-Enterprise, 0x20 WPA2-Personal.
  public var authentication: UInt16
  /// Encryption type bitmap: 0x01 none, 0x02 WEP, 0x04 TKIP, 0x08 AES.
  public var encryption: UInt16
  /// The passphrase or key (attribute 0x1027).
  public var networkKey: [UInt8]
  /// The MAC address (attribute 0x1020); all FF means any.
  public var macAddress: [UInt8]
  /// Network Index (attribute 0x1026), 1 by default.
  public var networkIndex: UInt8

  /// A credential; by default WPA2-Personal with AES, for any MAC address.
  public init(ssid: [UInt8], networkKey: [UInt8] = [], authentication: UInt16 = 0x0020, encryption: UInt16 = 0x0008,
              macAddress: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) {
    self.ssid = ssid
    self.networkKey = networkKey
    self.authentication = authentication
    self.encryption = encryption
    self.macAddress = macAddress
    self.networkIndex = 1
  }

  static let authenticationTable: [(UInt16, String)] = [
    (0x0001, "open"), (0x0002, "wpa-personal"), (0x0004, "shared"), (0x0008, "wpa-enterprise"),
    (0x0010, "wpa2-enterprise"), (0x0020, "wpa2-personal"),
  ]
  static let encryptionTable: [(UInt16, String)] = [(0x0001, "none"), (0x0002, "wep"), (0x0004, "tkip"), (0x0008, "aes")]

  /// Names of the bits set in an authentication bitmap.
  public static func authenticationNames(_ value: UInt16) -> [String] { authenticationTable.filter { value & $0.0 != 0 }.map(\.1) }
  /// Names of the bits set in an encryption bitmap.
  public static func encryptionNames(_ value: UInt16) -> [String] { encryptionTable.filter { value & $0.0 != 0 }.map(\.1) }
  /// The bit for an authentication name ("wpa2-personal"), nil when unknown.
  public static func authenticationBit(_ name: String) -> UInt16? { authenticationTable.first { $0.1 == name }?.0 }
  /// The bit for an encryption name ("aes"), nil when unknown.
  public static func encryptionBit(_ name: String) -> UInt16? { encryptionTable.first { $0.1 == name }?.0 }

  /// Parses the first credential in a WSC record; nil when there is none or attributes are cut.
  public init?(_ record: NDEFRecord) {
    guard record.hasMediaType(Self.mediaType) else { return nil }
    guard let top = Self.attributes(record.payload[...]),
          let credential = top.first(where: { $0.type == 0x100E }),
          let fields = Self.attributes(credential.value) else { return nil }
    self.init(ssid: [])
    var sawSSID = false
    for field in fields {
      switch field.type {
      case 0x1045: ssid = Array(field.value); sawSSID = true
      case 0x1003 where field.value.count == 2: authentication = field.value.reduce(0) { $0 << 8 | UInt16($1) }
      case 0x100F where field.value.count == 2: encryption = field.value.reduce(0) { $0 << 8 | UInt16($1) }
      case 0x1027: networkKey = Array(field.value)
      case 0x1020: macAddress = Array(field.value)
      case 0x1026 where field.value.count == 1: networkIndex = field.value.first ?? 1
      default: break
      }
    }
    guard sawSSID else { return nil }
  }

  /// WSC attributes `type(2) length(2) value`; nil when one runs past the end.
  static func attributes(_ bytes: ArraySlice<UInt8>) -> [(type: UInt16, value: ArraySlice<UInt8>)]? {
    var out: [(type: UInt16, value: ArraySlice<UInt8>)] = []  // the labels of the result: no array cast
    var i = bytes.startIndex
    while i < bytes.endIndex {
      guard bytes.endIndex - i >= 4 else { return nil }
      let type = UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1])
      let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
      i += 4
      guard bytes.endIndex - i >= length else { return nil }
      out.append((type, bytes[i..<(i + length)]))
      i += length
    }
    return out
  }

  private static func attribute(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
    [UInt8(type >> 8), UInt8(type & 0xFF), UInt8(value.count >> 8 & 0xFF), UInt8(value.count & 0xFF)] + value
  }

  /// The record: Version1 0x10, the credential, and the WFA vendor extension with Version2 2.0.
  public var record: NDEFRecord {
    var credential: [UInt8] = []
    credential += Self.attribute(0x1026, [networkIndex])
    credential += Self.attribute(0x1045, ssid)
    credential += Self.attribute(0x1003, [UInt8(authentication >> 8), UInt8(authentication & 0xFF)])
    credential += Self.attribute(0x100F, [UInt8(encryption >> 8), UInt8(encryption & 0xFF)])
    credential += Self.attribute(0x1027, networkKey)
    credential += Self.attribute(0x1020, macAddress)
    var payload = Self.attribute(0x104A, [0x10])
    payload += Self.attribute(0x100E, credential)
    payload += Self.attribute(0x1049, [0x00, 0x37, 0x2A, 0x00, 0x01, 0x20])
    return NDEFRecord(tnf: .media, type: ascii(Self.mediaType), payload: payload)
  }
}

/// Bluetooth out-of-band pairing data: BR/EDR (`application/vnd.bluetooth.ep.oob`) or LE
/// (`application/vnd.bluetooth.le.oob`).
///
/// BR/EDR payload: OOB data length (2 bytes, little-endian, the whole payload), BD_ADDR (6 bytes,
/// little-endian), then EIR structures `length type data`. LE payload: AD structures only, among
/// them the LE device address (`1B`: 6 bytes little-endian plus the address type) and the LE role
/// (`1C`). Bluetooth Secure Simple Pairing Using NFC 1.2 §3; Bluetooth Core Supplement Part A.
public struct BluetoothOOBRecord: Hashable, Sendable {
  /// BR/EDR (`classic`, ep.oob) or Low Energy (le.oob).
  public enum Kind: String, Sendable, Hashable { case classic, lowEnergy }

  /// The media type of BR/EDR (classic) OOB records.
  public static let classicMediaType = "application/vnd.bluetooth.ep.oob"
  /// The media type of LE OOB records.
  public static let lowEnergyMediaType = "application/vnd.bluetooth.le.oob"

  /// Which of the two media types.
  public var kind: Kind
  /// The device address as people write it, most significant byte first (6 bytes).
  public var address: [UInt8]
  /// The local name (EIR/AD `08` shortened or `09` complete).
  public var name: String?
  /// Class of device (EIR `0D`, 3 bytes).
  public var classOfDevice: UInt32?
  /// LE role (AD `1C`): 0 peripheral only, 1 central only, 2 both (peripheral preferred),
  /// 3 both (central preferred).
  public var role: UInt8?
  /// Appearance (AD `19`).
  public var appearance: UInt16?
  /// LE address type: 0 public, 1 random (the 7th byte of AD `1B`).
  public var leAddressType: UInt8?

  /// OOB data; `address` most significant byte first.
  public init(kind: Kind, address: [UInt8], name: String? = nil, classOfDevice: UInt32? = nil,
              role: UInt8? = nil, appearance: UInt16? = nil, leAddressType: UInt8? = nil) {
    self.kind = kind
    self.address = address
    self.name = name
    self.classOfDevice = classOfDevice
    self.role = role
    self.appearance = appearance
    self.leAddressType = leAddressType
  }

  /// Parses strictly: nil when a length runs past the data, or an LE record has no address.
  ///
  /// The BR/EDR OOB length may be shorter than the payload (padding is ignored), not longer.
  /// Unknown EIR/AD structures are skipped; a name that is not UTF-8 is left out.
  public init?(_ record: NDEFRecord) {
    guard record.tnf == .media else { return nil }
    let p = record.payload
    var eir: ArraySlice<UInt8>
    if record.hasMediaType(Self.classicMediaType) {
      guard p.count >= 8 else { return nil }
      let total = Int(p[0]) | Int(p[1]) << 8
      guard total <= p.count, total >= 8 else { return nil }
      self.init(kind: .classic, address: Array(p[2..<8].reversed()))
      eir = p[8..<total]
    } else if record.hasMediaType(Self.lowEnergyMediaType) {
      self.init(kind: .lowEnergy, address: [])
      eir = p[...]
    } else {
      return nil
    }
    while let length = eir.first {
      let l = Int(length)
      if l == 0 { break }  // significant part ends (Core Supplement Part A §1)
      guard eir.count >= 1 + l else { return nil }
      let adType = eir[eir.startIndex + 1]
      let data = eir[(eir.startIndex + 2)..<(eir.startIndex + 1 + l)]
      switch adType {
      case 0x08, 0x09: if let n = strictUTF8(data) { name = n }
      case 0x0D where data.count == 3: classOfDevice = data.reversed().reduce(0) { $0 << 8 | UInt32($1) }
      case 0x1B where data.count == 7 && kind == .lowEnergy:
        address = Array(data.prefix(6).reversed())
        leAddressType = data.last
      case 0x1C where data.count == 1: role = data.first
      case 0x19 where data.count == 2: appearance = data.reversed().reduce(0) { $0 << 8 | UInt16($1) }
      default: break
      }
      eir = eir.dropFirst(1 + l)
    }
    if kind == .lowEnergy, address.isEmpty { return nil }
  }

  /// The record. An address that is not 6 bytes is cut or zero-padded at the front; a name is
  /// cut to fit one structure. LE records always carry the mandatory LE role (0 when `role` is nil)
  /// and address type (0, public, when `leAddressType` is nil).
  public var record: NDEFRecord {
    var eir: [UInt8] = []
    let littleEndianAddress = Array(Self.sixBytes(address).reversed())
    if kind == .lowEnergy {
      eir += [8, 0x1B] + littleEndianAddress + [leAddressType ?? 0]
      eir += [2, 0x1C, role ?? 0]
    }
    if let name {
      var n = Array(name.utf8.prefix(248))
      while strictUTF8(n) == nil, !n.isEmpty { n.removeLast() }
      eir += [UInt8(n.count + 1), 0x09] + n
    }
    if let classOfDevice {
      eir += [4, 0x0D, UInt8(classOfDevice & 0xFF), UInt8(classOfDevice >> 8 & 0xFF), UInt8(classOfDevice >> 16 & 0xFF)]
    }
    if let appearance { eir += [3, 0x19, UInt8(appearance & 0xFF), UInt8(appearance >> 8)] }
    switch kind {
    case .classic:
      let total = 8 + eir.count
      let payload = [UInt8(total & 0xFF), UInt8(total >> 8 & 0xFF)] + littleEndianAddress + eir
      return NDEFRecord(tnf: .media, type: ascii(Self.classicMediaType), payload: payload)
    case .lowEnergy:
      return NDEFRecord(tnf: .media, type: ascii(Self.lowEnergyMediaType), payload: eir)
    }
  }

  static func sixBytes(_ bytes: [UInt8]) -> [UInt8] {
    bytes.count >= 6 ? Array(bytes.suffix(6)) : [UInt8](repeating: 0, count: 6 - bytes.count) + bytes
  }
}

/// A connection handover record: `Hr` request, `Hs` select, `Hm` mediation, `Hi` initiate.
///
/// Payload: a version byte (major << 4 | minor), then a nested message of alternative carrier
/// records (`ac`), for requests a collision resolution record (`cr`, a 2-byte random number), and
/// others such as `err` or `Hc`. The carrier configuration records that `ac` points to (by ID)
/// follow the handover record in the outer message. NFC Forum Connection Handover 1.3 §6.
public struct HandoverRecord: Hashable, Sendable {
  /// The four handover record types; the raw value is the well-known type.
  public enum Kind: String, Sendable, Hashable, CaseIterable {
    case request = "Hr", select = "Hs", mediation = "Hm", initiate = "Hi"
  }

  /// An alternative carrier (`ac`): power state and references to records by ID.
  public struct Carrier: Hashable, Sendable {
    /// Carrier power state: 0 inactive, 1 active, 2 activating, 3 unknown.
    public var powerState: UInt8
    /// The ID of the carrier configuration record.
    public var dataReference: [UInt8]
    /// IDs of auxiliary data records.
    public var auxiliaryReferences: [[UInt8]]
    /// An alternative carrier pointing at the record whose ID is `dataReference`.
    public init(powerState: UInt8, dataReference: [UInt8], auxiliaryReferences: [[UInt8]] = []) {
      self.powerState = powerState
      self.dataReference = dataReference
      self.auxiliaryReferences = auxiliaryReferences
    }
  }

  /// Request, select, mediation or initiate.
  public var kind: Kind
  /// Version, high nibble of the first payload byte.
  public var majorVersion: UInt8
  /// Version, low nibble of the first payload byte.
  public var minorVersion: UInt8
  /// The `ac` records of the nested message, in order.
  public var carriers: [Carrier]
  /// The `cr` record's random number.
  public var collisionResolution: UInt16?
  /// The nested message's other records (`err`, `Hc`…), kept as they are; `ac` and `cr` are in
  /// ``carriers`` and ``collisionResolution``.
  public var records: [NDEFRecord]

  /// A handover record, version 1.3 unless given.
  public init(kind: Kind, majorVersion: UInt8 = 1, minorVersion: UInt8 = 3, carriers: [Carrier] = [],
              collisionResolution: UInt16? = nil, records: [NDEFRecord] = []) {
    self.kind = kind
    self.majorVersion = majorVersion
    self.minorVersion = minorVersion
    self.carriers = carriers
    self.collisionResolution = collisionResolution
    self.records = records
  }

  /// Parses strictly: nil when the nested message does not decode, nests too deep, or an `ac`
  /// or `cr` record is malformed.
  public init?(_ record: NDEFRecord) {
    guard record.tnf == .wellKnown, record.type.count == 2, record.type[0] == 0x48,
          let kind = Kind(rawValue: String(decoding: record.type, as: UTF8.self)),
          let version = record.payload.first else { return nil }
    self.init(kind: kind, majorVersion: version >> 4, minorVersion: version & 0x0F)
    if record.payload.count == 1 { return }
    guard let nested = try? NDEFMessage(nestedIn: record, depth: 1) else { return nil }
    for r in nested.records {
      if r.hasType(.wellKnown, "ac") {
        guard let carrier = Self.carrier(r.payload) else { return nil }
        carriers.append(carrier)
      } else if r.hasType(.wellKnown, "cr") {
        guard r.payload.count == 2, collisionResolution == nil else { return nil }
        collisionResolution = UInt16(r.payload[0]) << 8 | UInt16(r.payload[1])
      } else {
        records.append(r)
      }
    }
  }

  /// `ac` payload: CPS (2 bits), reference length + reference, auxiliary count, each length + reference.
  static func carrier(_ p: [UInt8]) -> Carrier? {
    guard p.count >= 2 else { return nil }
    let refLength = Int(p[1])
    guard p.count >= 3 + refLength else { return nil }
    var carrier = Carrier(powerState: p[0] & 0x03, dataReference: Array(p[2..<(2 + refLength)]))
    var i = 2 + refLength
    let auxCount = Int(p[i])
    i += 1
    for _ in 0..<auxCount {
      guard i < p.count else { return nil }
      let l = Int(p[i])
      guard p.count - (i + 1) >= l else { return nil }
      carrier.auxiliaryReferences.append(Array(p[(i + 1)..<(i + 1 + l)]))
      i += 1 + l
    }
    guard i == p.count else { return nil }
    return carrier
  }

  /// The record: version byte, then `cr`, the `ac` records and ``records``. References longer
  /// than 255 bytes are cut; other records that cannot be encoded are left out.
  public var record: NDEFRecord {
    var nested: [NDEFRecord] = []
    if let collisionResolution {
      nested.append(NDEFRecord(tnf: .wellKnown, type: ascii("cr"),
                               payload: [UInt8(collisionResolution >> 8), UInt8(collisionResolution & 0xFF)]))
    }
    for carrier in carriers {
      let reference = carrier.dataReference.prefix(255)
      var payload: [UInt8] = [carrier.powerState & 0x03, UInt8(reference.count)] + reference
      let aux = carrier.auxiliaryReferences.prefix(255)
      payload.append(UInt8(aux.count))
      for a in aux { payload += [UInt8(min(a.count, 255))] + a.prefix(255) }
      nested.append(NDEFRecord(tnf: .wellKnown, type: ascii("ac"), payload: payload))
    }
    var payload: [UInt8] = [majorVersion << 4 | minorVersion & 0x0F]
    if !nested.isEmpty || !records.isEmpty {
      payload += (try? NDEFMessage(records: nested + records).encoded())
        ?? (try? NDEFMessage(records: nested).encoded()) ?? []
    }
    return NDEFRecord(tnf: .wellKnown, type: ascii(kind.rawValue), payload: payload)
  }
}
