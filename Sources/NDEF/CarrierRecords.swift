/// A Wi-Fi Simple Config credential (MIME `application/vnd.wfa.wsc`), as Android and iOS read it.
/// Wi-Fi Simple Configuration Technical Specification v2, credential attribute 0x100E.
public struct WiFiCredential: Hashable, Sendable {
  public static let mediaType = "application/vnd.wfa.wsc"

  public var ssid: [UInt8]
  /// Authentication type bitmap: 0x01 open, 0x02 WPA-Personal, 0x04 shared, 0x08 WPA-Enterprise,
  /// 0x10 WPA2-Enterprise, 0x20 WPA2-Personal.
  public var authentication: UInt16
  /// Encryption type bitmap: 0x01 none, 0x02 WEP, 0x04 TKIP, 0x08 AES.
  public var encryption: UInt16
  public var networkKey: [UInt8]
  public var macAddress: [UInt8]
  public var networkIndex: UInt8

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
    guard record.tnf == .media, let type = strictUTF8(record.type), type.lowercased() == Self.mediaType else { return nil }
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
    var out: [(UInt16, ArraySlice<UInt8>)] = []
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
/// (`application/vnd.bluetooth.le.oob`). Bluetooth Secure Simple Pairing Using NFC 1.2.
public struct BluetoothOOBRecord: Hashable, Sendable {
  public enum Kind: String, Sendable, Hashable { case classic, lowEnergy }
  public var kind: Kind
  /// The device address as people write it, most significant byte first.
  public var address: [UInt8]
  public var name: String?
  public var classOfDevice: UInt32?
  public var role: UInt8?
  public var appearance: UInt16?
  public var leAddressType: UInt8?

  public init(kind: Kind, address: [UInt8], name: String? = nil) {
    self.kind = kind
    self.address = address
    self.name = name
  }

  public init?(_ record: NDEFRecord) {
    guard record.tnf == .media, let type = strictUTF8(record.type)?.lowercased() else { return nil }
    let p = record.payload
    var eir: ArraySlice<UInt8>
    if type == "application/vnd.bluetooth.ep.oob" {
      guard p.count >= 8 else { return nil }
      let total = Int(p[0]) | Int(p[1]) << 8
      guard total <= p.count, total >= 8 else { return nil }
      self.init(kind: .classic, address: Array(p[2..<8].reversed()))
      eir = p[8..<total]
    } else if type == "application/vnd.bluetooth.le.oob" {
      self.init(kind: .lowEnergy, address: [])
      eir = p[...]
    } else {
      return nil
    }
    while let length = eir.first {
      let l = Int(length)
      if l == 0 { break }
      guard eir.count >= 1 + l else { return nil }
      let adType = eir[eir.startIndex + 1]
      let data = eir[(eir.startIndex + 2)..<(eir.startIndex + 1 + l)]
      switch adType {
      case 0x08, 0x09: if let n = strictUTF8(data) { name = n }
      case 0x0D where data.count == 3: classOfDevice = data.reversed().reduce(0) { $0 << 8 | UInt32($1) }
      case 0x1B where data.count == 7:
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

  public var record: NDEFRecord {
    var eir: [UInt8] = []
    if let name { let n = Array(name.utf8); eir += [UInt8(n.count + 1), 0x09] + n }
    if let classOfDevice {
      eir += [4, 0x0D, UInt8(classOfDevice & 0xFF), UInt8(classOfDevice >> 8 & 0xFF), UInt8(classOfDevice >> 16 & 0xFF)]
    }
    switch kind {
    case .classic:
      let total = 8 + eir.count
      let payload = [UInt8(total & 0xFF), UInt8(total >> 8 & 0xFF)] + address.reversed() + eir
      return NDEFRecord(tnf: .media, type: ascii("application/vnd.bluetooth.ep.oob"), payload: payload)
    case .lowEnergy:
      var payload: [UInt8] = [8, 0x1B] + address.reversed() + [leAddressType ?? 0]
      payload += [2, 0x1C, role ?? 0]
      return NDEFRecord(tnf: .media, type: ascii("application/vnd.bluetooth.le.oob"), payload: payload + eir)
    }
  }
}

/// A connection handover record: `Hr` request, `Hs` select, `Hm` mediation, `Hi` initiate.
/// NFC Forum Connection Handover 1.3: a version byte, then a nested message of alternative
/// carriers (`ac`), and for requests a collision resolution record (`cr`).
public struct HandoverRecord: Hashable, Sendable {
  public enum Kind: String, Sendable, Hashable, CaseIterable {
    case request = "Hr", select = "Hs", mediation = "Hm", initiate = "Hi"
  }
  /// An alternative carrier: power state (0 inactive, 1 active, 2 activating, 3 unknown) and references.
  public struct Carrier: Hashable, Sendable {
    public var powerState: UInt8
    public var dataReference: [UInt8]
    public var auxiliaryReferences: [[UInt8]]
    public init(powerState: UInt8, dataReference: [UInt8], auxiliaryReferences: [[UInt8]] = []) {
      self.powerState = powerState
      self.dataReference = dataReference
      self.auxiliaryReferences = auxiliaryReferences
    }
  }
  public var kind: Kind
  public var majorVersion: UInt8
  public var minorVersion: UInt8
  public var carriers: [Carrier]
  public var collisionResolution: UInt16?
  /// The nested message's records, as they are.
  public var records: [NDEFRecord]

  public init?(_ record: NDEFRecord) {
    guard record.tnf == .wellKnown, let typeName = strictUTF8(record.type), let kind = Kind(rawValue: typeName),
          let version = record.payload.first else { return nil }
    self.kind = kind
    majorVersion = version >> 4
    minorVersion = version & 0x0F
    carriers = []
    records = []
    let rest = record.payload.dropFirst()
    if rest.isEmpty { return }
    guard let nested = try? NDEFMessage(decoding: rest, depth: 1) else { return nil }
    records = nested.records
    for r in nested.records {
      if r.hasType(.wellKnown, "ac") {
        let p = r.payload
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
          guard p.count >= i + 1 + l else { return nil }
          carrier.auxiliaryReferences.append(Array(p[(i + 1)..<(i + 1 + l)]))
          i += 1 + l
        }
        carriers.append(carrier)
      } else if r.hasType(.wellKnown, "cr"), r.payload.count == 2 {
        collisionResolution = UInt16(r.payload[0]) << 8 | UInt16(r.payload[1])
      }
    }
  }
}
