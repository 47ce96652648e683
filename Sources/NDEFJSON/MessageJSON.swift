import NDEF

/// The JSON names of the type name formats (docs/json-format.md).
public func tnfName(_ tnf: TypeNameFormat) -> String {
  switch tnf {
  case .empty: return "empty"
  case .wellKnown: return "well-known"
  case .media: return "media"
  case .absoluteURI: return "absolute-uri"
  case .external: return "external"
  case .unknown: return "unknown"
  case .unchanged: return "unchanged"
  case .reserved: return "reserved"
  }
}

/// The type name format for a JSON name, nil when unknown.
public func typeNameFormat(named name: String) -> TypeNameFormat? {
  TypeNameFormat.allCases.first { tnfName($0) == name }
}

extension JSONWriter {
  /// Writes `message` as `{"records":[…]}`.
  public mutating func message(_ message: NDEFMessage) {
    raw("{\"records\":[")
    for (index, record) in message.records.enumerated() {
      if index > 0 { bytes.append(0x2C) }
      self.record(record)
    }
    raw("]}")
  }

  /// Writes one record object with its helper key when the payload parses.
  public mutating func record(_ record: NDEFRecord) {
    raw("{\"tnf\":\"")
    switch record.tnf {
    case .empty: raw("empty")
    case .wellKnown: raw("well-known")
    case .media: raw("media")
    case .absoluteURI: raw("absolute-uri")
    case .external: raw("external")
    case .unknown: raw("unknown")
    case .unchanged: raw("unchanged")
    case .reserved: raw("reserved")
    }
    bytes.append(0x22)
    if record.type.allSatisfy({ $0 < 0x80 }) {
      key("type"); string(utf8: record.type)
    } else {
      key("typeHex"); hexString(record.type)
    }
    if record.identifier.isEmpty || strictUTF8(record.identifier) != nil {
      key("id"); string(utf8: record.identifier)
    } else {
      key("idHex"); hexString(record.identifier)
    }
    key("payload"); hexString(record.payload)
    helper(record)
    if !record.warnings.isEmpty {
      key("warnings")
      bytes.append(0x5B)
      for (i, w) in record.warnings.enumerated() {
        if i > 0 { bytes.append(0x2C) }
        string(w)
      }
      bytes.append(0x5D)
    }
    bytes.append(0x7D)
  }

  private mutating func helper(_ record: NDEFRecord) {
    switch record.tnf {
    case .wellKnown:
      if let text = TextRecord(record) {
        key("text")
        raw("{\"language\":"); string(text.language)
        key("encoding"); string(text.encoding.rawValue)
        key("text"); string(text.text)
        bytes.append(0x7D)
      } else if let uri = URIRecord(record) {
        key("uri"); string(uri.uri)
      } else if let sp = SmartPosterRecord(record) {
        key("smartPoster")
        raw("{\"uri\":"); string(sp.uri)
        key("titles")
        bytes.append(0x5B)
        for (i, t) in sp.titles.enumerated() {
          if i > 0 { bytes.append(0x2C) }
          raw("{\"language\":"); string(t.language)
          key("text"); string(t.text)
          bytes.append(0x7D)
        }
        bytes.append(0x5D)
        if let a = sp.action { key("action"); number(Int(a)) }
        if let s = sp.size { key("size"); number(Int(s)) }
        if let t = sp.mimeType { key("type"); string(t) }
        bytes.append(0x7D)
      } else if let h = HandoverRecord(record) {
        key("handover")
        raw("{\"kind\":"); string(h.kind.rawValue)
        key("version"); string("\(h.majorVersion).\(h.minorVersion)")
        key("carriers")
        bytes.append(0x5B)
        for (i, c) in h.carriers.enumerated() {
          if i > 0 { bytes.append(0x2C) }
          raw("{\"powerState\":"); number(Int(c.powerState))
          key("reference"); string(utf8: c.dataReference.map { $0 < 0x80 ? $0 : 0x3F })
          bytes.append(0x7D)
        }
        bytes.append(0x5D)
        if let cr = h.collisionResolution { key("collisionResolution"); number(Int(cr)) }
        bytes.append(0x7D)
      }
    case .media:
      if let wifi = WiFiCredential(record) {
        key("wifi")
        if let ssid = strictUTF8(wifi.ssid) {
          raw("{\"ssid\":"); string(ssid)
        } else {
          raw("{\"ssidHex\":"); hexString(wifi.ssid)
        }
        key("authentication"); stringArray(WiFiCredential.authenticationNames(wifi.authentication))
        key("encryption"); stringArray(WiFiCredential.encryptionNames(wifi.encryption))
        if let k = strictUTF8(wifi.networkKey) {
          key("networkKey"); string(k)
        } else {
          key("networkKeyHex"); hexString(wifi.networkKey)
        }
        key("macAddress"); string(colonHex(wifi.macAddress))
        bytes.append(0x7D)
      } else if let bt = BluetoothOOBRecord(record) {
        key("bluetooth")
        raw("{\"kind\":"); string(bt.kind == .classic ? "br-edr" : "le")
        key("address"); string(colonHex(bt.address))
        if let n = bt.name { key("name"); string(n) }
        if let c = bt.classOfDevice { key("classOfDevice"); number(Int(c)) }
        if let r = bt.role { key("role"); number(Int(r)) }
        if let a = bt.appearance { key("appearance"); number(Int(a)) }
        bytes.append(0x7D)
      } else if let mime = MIMERecord(record) {
        key("mime")
        raw("{\"type\":"); string(mime.mediaType)
        if mime.isText || mime.mediaType.lowercased().contains("vcard"), let text = strictUTF8(mime.data) {
          key("text"); string(text)
        }
        bytes.append(0x7D)
      }
    case .external:
      if let aar = AndroidApplicationRecord(record) {
        key("aar"); string(aar.packageName)
      } else if let ext = ExternalTypeRecord(record) {
        key("external")
        raw("{\"domain\":"); string(ext.domain)
        key("type"); string(ext.name)
        bytes.append(0x7D)
      }
    case .absoluteURI:
      if let abs = AbsoluteURIRecord(record) { key("absoluteUri"); string(abs.uri) }
    default: break
    }
  }

  private mutating func stringArray(_ items: [String]) {
    bytes.append(0x5B)
    for (i, s) in items.enumerated() {
      if i > 0 { bytes.append(0x2C) }
      string(s)
    }
    bytes.append(0x5D)
  }
}

/// The message as one line of JSON (no newline).
public func messageJSON(_ message: NDEFMessage) -> String {
  var writer = JSONWriter(capacity: 128)
  writer.message(message)
  return String(decoding: writer.bytes, as: UTF8.self)
}

/// `aa:bb:cc…` (a MAC or Bluetooth address); outside `JSONWriter`, whose `hexString` is a method.
private func colonHex(_ bytes: [UInt8]) -> String { hexString(bytes, separator: ":") }
