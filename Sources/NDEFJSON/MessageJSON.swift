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
  ///
  /// - Parameter showSecrets: false to mask a Wi-Fi record's network key (``record(_:showSecrets:)``).
  public mutating func message(_ message: NDEFMessage, showSecrets: Bool = true) {
    raw("{\"records\":[")
    for (index, record) in message.records.enumerated() {
      if index > 0 { bytes.append(0x2C) }
      self.record(record, showSecrets: showSecrets)
    }
    raw("]}")
  }

  /// Writes one record object with its helper key when the payload parses.
  ///
  /// Keys and punctuation go out in as few appends as the common shapes allow (an empty ID and
  /// the payload key together): each append to the buffer costs about as much as a short copy.
  ///
  /// - Parameter showSecrets: false to mask the network key of a Wi-Fi record that has one: no
  ///   `payload` (which holds it) and `"networkKeyMasked":true` instead of `networkKey`, which
  ///   ``message(fromJSON:)`` refuses rather than build a network without its key.
  public mutating func record(_ record: NDEFRecord, showSecrets: Bool = true) {
    let masked = !showSecrets && record.tnf == .media && WiFiCredential(record).map { !$0.networkKey.isEmpty } == true
    switch record.tnf {
    case .empty: raw("{\"tnf\":\"empty\"")
    case .wellKnown: raw("{\"tnf\":\"well-known\"")
    case .media: raw("{\"tnf\":\"media\"")
    case .absoluteURI: raw("{\"tnf\":\"absolute-uri\"")
    case .external: raw("{\"tnf\":\"external\"")
    case .unknown: raw("{\"tnf\":\"unknown\"")
    case .unchanged: raw("{\"tnf\":\"unchanged\"")
    case .reserved: raw("{\"tnf\":\"reserved\"")
    }
    let asciiType = record.type.allSatisfy({ $0 < 0x80 })
    if asciiType {
      raw(",\"type\":"); string(utf8: record.type)
    } else {
      raw(",\"typeHex\":"); hexString(record.type)
    }
    if record.identifier.isEmpty {
      if masked { raw(",\"id\":\"\"") } else { raw(",\"id\":\"\",\"payload\":") }
    } else {
      if isValidUTF8(record.identifier) {
        raw(",\"id\":"); string(utf8: record.identifier)
      } else {
        raw(",\"idHex\":"); hexString(record.identifier)
      }
      if !masked { raw(",\"payload\":") }
    }
    if !masked { hexString(record.payload) }
    helper(record, asciiType: asciiType, masked: masked)
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

  /// The helper key of `record`. The common kinds (text, URI, MIME, external, AAR, absolute URI)
  /// are written from the record's bytes once checked, as the typed record would hold them, with
  /// no String built on the way; the others go through their typed records.
  private mutating func helper(_ record: NDEFRecord, asciiType: Bool, masked: Bool) {
    switch record.tnf {
    case .wellKnown:
      if text(record) {
      } else if let code = URIRecord.prefixCode(record) {  // as URIRecord(record)?.uri
        raw(",\"uri\":\"")
        bytes.append(contentsOf: URIRecord.prefixes[code].utf8)  // plain ASCII: nothing to escape
        record.payload.withUnsafeBytes { escape(UnsafeRawBufferPointer(rebasing: $0.dropFirst())) }
        bytes.append(0x22)
      } else if smartPoster(record) {
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
        if masked {
          key("networkKeyMasked"); raw("true")
        } else if let k = strictUTF8(wifi.networkKey) {
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
      } else if isValidUTF8(record.type) {  // MIMERecord(record) != nil: its mediaType is the type
        raw(",\"mime\":{\"type\":"); string(utf8: record.type)
        if showsMIMEText(record, asciiType: asciiType), isValidUTF8(record.payload) {
          raw(",\"text\":"); string(utf8: record.payload)
        }
        bytes.append(0x7D)
      }
    case .external:
      if record.hasType(.external, "android.com:pkg"), isValidUTF8(record.payload) {  // AndroidApplicationRecord
        raw(",\"aar\":"); string(utf8: record.payload)
      } else if asciiType {  // ExternalTypeRecord(record), split at the first colon
        guard let colon = record.type.firstIndex(of: 0x3A), colon > 0, colon < record.type.count - 1 else { return }
        raw(",\"external\":{\"domain\":"); string(utf8: record.type[..<colon])
        raw(",\"type\":"); string(utf8: record.type[(colon + 1)...])
        bytes.append(0x7D)
      } else if let ext = ExternalTypeRecord(record) {
        key("external")
        raw("{\"domain\":"); string(ext.domain)
        key("type"); string(ext.name)
        bytes.append(0x7D)
      }
    case .absoluteURI:
      if isValidUTF8(record.type) { raw(",\"absoluteUri\":"); string(utf8: record.type) }  // AbsoluteURIRecord(record)?.uri
    default: break
    }
  }

  /// Writes the `text` key of a valid Text record, as ``TextRecord`` would read it, and returns
  /// true; returns false and writes nothing for any other record.
  private mutating func text(_ record: NDEFRecord) -> Bool {
    guard let layout = TextRecord.Layout(record) else { return false }
    return record.payload.withUnsafeBytes { payload in
      let language = UnsafeRawBufferPointer(rebasing: payload[layout.language])
      let body = UnsafeRawBufferPointer(rebasing: payload[layout.text])
      if layout.isUTF16 {
        var utf8: [UInt8] = []
        guard appendUTF8(fromStrictUTF16: body, to: &utf8) else { return false }
        raw(",\"text\":{\"language\":"); string(utf8: language)
        raw(",\"encoding\":\"utf-16\",\"text\":"); string(utf8: utf8)
      } else {
        guard isValidUTF8(body) else { return false }
        raw(",\"text\":{\"language\":"); string(utf8: language)
        raw(",\"encoding\":\"utf-8\",\"text\":"); string(utf8: body)
      }
      bytes.append(0x7D)
      return true
    }
  }

  /// Writes the `smartPoster` key of a valid Smart Poster, as ``SmartPosterRecord`` would read it
  /// (the same rules, record by record, all checked before anything is written), and returns
  /// true; returns false and writes nothing for any other record. Icons and other records are
  /// not part of the JSON and are only skipped.
  private mutating func smartPoster(_ record: NDEFRecord) -> Bool {
    guard record.hasType(.wellKnown, "Sp"), let nested = (try? record.nestedMessage()) ?? nil else { return false }
    var uri: NDEFRecord? = nil
    var uriCode = 0
    var titles: [(record: NDEFRecord, layout: TextRecord.Layout, utf16: [UInt8])] = []
    var action: UInt8? = nil
    var size: UInt32? = nil
    var mimeType: [UInt8]? = nil
    for r in nested.records {
      if r.hasType(.wellKnown, "U") {
        guard uri == nil, let code = URIRecord.prefixCode(r) else { return false }  // exactly one valid URI
        uri = r
        uriCode = code
      } else if r.hasType(.wellKnown, "T") {
        guard let layout = TextRecord.Layout(r) else { return false }
        var utf8: [UInt8] = []
        let valid = r.payload.withUnsafeBytes { payload in
          let body = UnsafeRawBufferPointer(rebasing: payload[layout.text])
          return layout.isUTF16 ? appendUTF8(fromStrictUTF16: body, to: &utf8) : isValidUTF8(body)
        }
        guard valid else { return false }
        titles.append((r, layout, utf8))
      } else if r.hasType(.wellKnown, "act") {
        guard r.payload.count == 1, let a = r.payload.first else { return false }
        action = a
      } else if r.hasType(.wellKnown, "s") {
        guard r.payload.count == 4 else { return false }
        size = r.payload.reduce(0) { $0 << 8 | UInt32($1) }
      } else if r.hasType(.wellKnown, "t") {
        guard isValidUTF8(r.payload) else { return false }
        mimeType = r.payload
      }
    }
    guard let uri else { return false }
    raw(",\"smartPoster\":{\"uri\":\"")
    bytes.append(contentsOf: URIRecord.prefixes[uriCode].utf8)  // plain ASCII: nothing to escape
    uri.payload.withUnsafeBytes { escape(UnsafeRawBufferPointer(rebasing: $0.dropFirst())) }
    raw("\",\"titles\":[")
    for (i, title) in titles.enumerated() {
      if i > 0 { bytes.append(0x2C) }
      title.record.payload.withUnsafeBytes { payload in
        raw("{\"language\":"); string(utf8: UnsafeRawBufferPointer(rebasing: payload[title.layout.language]))
        raw(",\"text\":")
        if title.layout.isUTF16 {
          string(utf8: title.utf16)
        } else {
          string(utf8: UnsafeRawBufferPointer(rebasing: payload[title.layout.text]))
        }
      }
      bytes.append(0x7D)
    }
    bytes.append(0x5D)
    if let action { raw(",\"action\":"); number(Int(action)) }
    if let size { raw(",\"size\":"); number(Int(size)) }
    if let mimeType { raw(",\"type\":"); string(utf8: mimeType) }
    bytes.append(0x7D)
    return true
  }

  /// Whether a MIME record's data is shown as text: ``MIMERecord/isText``, or a type that names
  /// a vCard. An ASCII type is compared byte by byte, ignoring ASCII case; any other goes
  /// through the Strings (whose lowercasing and comparison are Unicode's).
  private func showsMIMEText(_ record: NDEFRecord, asciiType: Bool) -> Bool {
    guard asciiType else {
      guard let mime = MIMERecord(record) else { return false }
      return mime.isText || mime.mediaType.lowercased().contains("vcard")
    }
    let type = record.type
    return type.hasASCIIPrefix("text/") || type.equalsASCII("application/json") || type.hasASCIISuffix("+json")
      || type.hasASCIISuffix("+xml") || type.containsASCII("vcard")
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
///
/// - Parameter showSecrets: false to mask Wi-Fi network keys, as the tool does unless
///   `--show-secrets` (``JSONWriter/record(_:showSecrets:)``).
public func messageJSON(_ message: NDEFMessage, showSecrets: Bool = true) -> String {
  var writer = JSONWriter(capacity: 128)
  writer.message(message, showSecrets: showSecrets)
  return String(decoding: writer.bytes, as: UTF8.self)
}

/// `aa:bb:cc…` (a MAC or Bluetooth address); outside `JSONWriter`, whose `hexString` is a method.
private func colonHex(_ bytes: [UInt8]) -> String { hexString(bytes, separator: ":") }

extension Array where Element == UInt8 {
  /// ASCII letters folded to lowercase; other bytes as they are.
  @inline(__always) private func folded(_ i: Int) -> UInt8 {
    let b = self[i]
    return b >= 0x41 && b <= 0x5A ? b | 0x20 : b
  }

  /// True when the bytes from `offset` are `lowercase` (lowercase ASCII), ignoring ASCII case.
  private func matchesASCII(_ lowercase: StaticString, at offset: Int) -> Bool {
    let n = lowercase.utf8CodeUnitCount
    guard offset >= 0, count - offset >= n else { return false }
    return lowercase.withUTF8Buffer { pattern in
      for k in 0..<n where folded(offset + k) != pattern[k] { return false }
      return true
    }
  }

  fileprivate func hasASCIIPrefix(_ lowercase: StaticString) -> Bool { matchesASCII(lowercase, at: 0) }
  fileprivate func hasASCIISuffix(_ lowercase: StaticString) -> Bool {
    matchesASCII(lowercase, at: count - lowercase.utf8CodeUnitCount)
  }
  fileprivate func equalsASCII(_ lowercase: StaticString) -> Bool {
    count == lowercase.utf8CodeUnitCount && matchesASCII(lowercase, at: 0)
  }
  fileprivate func containsASCII(_ lowercase: StaticString) -> Bool {
    let n = lowercase.utf8CodeUnitCount
    guard count >= n else { return false }
    for offset in 0...(count - n) where matchesASCII(lowercase, at: offset) { return true }
    return false
  }
}
