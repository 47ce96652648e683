import NDEF

/// Removes what a tag could use to deceive a terminal from text that came from tag data: control
/// characters (C0, DEL, C1: escape sequences), bidirectional controls (U+061C, U+200E–200F,
/// U+202A–202E, U+2066–2069: "Trojan Source" reordering), and invisible characters (U+200B–200D,
/// U+2060–2064, U+FEFF). Newlines and tabs become spaces.
public func sanitizedForTerminal(_ text: String) -> String {
  var out = String.UnicodeScalarView()
  for s in text.unicodeScalars {
    if s == "\n" || s == "\t" || s == "\r" { out.append(" "); continue }
    if isDeceptiveScalar(s) { continue }
    out.append(s)
  }
  return String(out)
}

/// True for control, bidirectional-control and invisible scalars (see ``sanitizedForTerminal(_:)``).
public func isDeceptiveScalar(_ s: Unicode.Scalar) -> Bool {
  switch s.value {
  case 0x00..<0x20, 0x7F...0x9F, 0x061C, 0x200B...0x200F, 0x202A...0x202E, 0x2060...0x2064, 0x2066...0x2069, 0xFEFF:
    return true
  default:
    return false
  }
}

/// Human-readable lines, one or more per record, each ending in a newline.
/// Wi-Fi network keys are masked unless `showSecrets`.
public func messageText(_ message: NDEFMessage, showSecrets: Bool = false) -> String {
  var out = ""
  for (index, record) in message.records.enumerated() {
    let clean = sanitizedForTerminal
    var line = "[\(index)] " + recordSummary(record, showSecrets: showSecrets)
    if !record.identifier.isEmpty {
      if let id = String(validating: record.identifier, as: UTF8.self) {
        line += "  id=\"\(clean(id))\""
      } else {
        line += "  id=0x\(hexString(record.identifier))"
      }
    }
    out += line + "\n"
    for warning in record.warnings { out += "    note: \(clean(warning))\n" }
  }
  return out
}

/// One short phrase per message, the records' joined by "; ", for one-line reports
/// (`scan --continuous`, `ndef decode --lines --format text`). Wi-Fi network keys are masked
/// unless `showSecrets`.
public func messageSummary(_ message: NDEFMessage, showSecrets: Bool = false) -> String {
  message.records.map { recordSummary($0, showSecrets: showSecrets) }.joined(separator: "; ")
}

func recordSummary(_ record: NDEFRecord, showSecrets: Bool) -> String {
  let clean = sanitizedForTerminal
  func typeText() -> String {
    if let t = String(validating: record.type, as: UTF8.self) { return clean(t) }
    return "0x" + hexString(record.type)
  }
  func bytesText(_ b: [UInt8]) -> String {
    b.count <= 32 ? "\(b.count) bytes: \(hexString(b, separator: " "))"
                  : "\(b.count) bytes: \(hexString(b.prefix(32), separator: " ")) …"
  }
  if let text = TextRecord(record) {
    return "Text (\(clean(text.language)), \(text.encoding.rawValue)): \(clean(text.text))"
  }
  if let uri = URIRecord(record) { return "URI: \(clean(uri.uri))" }
  if let sp = SmartPosterRecord(record) {
    var parts = ["Smart Poster: \(clean(sp.uri))"]
    for t in sp.titles { parts.append("title (\(clean(t.language))) \"\(clean(t.text))\"") }
    if let a = sp.action { parts.append("action \(a == 0 ? "open" : a == 1 ? "save" : a == 2 ? "edit" : String(a))") }
    if let s = sp.size { parts.append("size \(s)") }
    if let t = sp.mimeType { parts.append("type \(clean(t))") }
    return parts.joined(separator: ", ")
  }
  if let wifi = WiFiCredential(record) {
    let ssid = String(validating: wifi.ssid, as: UTF8.self).map { "\"\(clean($0))\"" } ?? "0x" + hexString(wifi.ssid)
    let key: String
    if wifi.networkKey.isEmpty { key = "no key" }
    else if showSecrets { key = "key " + (String(validating: wifi.networkKey, as: UTF8.self).map { "\"\(clean($0))\"" } ?? "0x" + hexString(wifi.networkKey)) }
    else { key = "key ******** (--show-secrets to show)" }
    let auth = WiFiCredential.authenticationNames(wifi.authentication).joined(separator: "+")
    let enc = WiFiCredential.encryptionNames(wifi.encryption).joined(separator: "+")
    return "Wi-Fi: SSID \(ssid), \(auth.isEmpty ? "?" : auth), \(enc.isEmpty ? "?" : enc), \(key)"
  }
  if let bt = BluetoothOOBRecord(record) {
    var s = "Bluetooth \(bt.kind == .classic ? "BR/EDR" : "LE"): \(hexString(bt.address, separator: ":"))"
    if let n = bt.name { s += " \"\(clean(n))\"" }
    return s
  }
  if let h = HandoverRecord(record) {
    return "Handover \(h.kind.rawValue) \(h.majorVersion).\(h.minorVersion): \(h.carriers.count) carrier(s)"
  }
  if let aar = AndroidApplicationRecord(record) { return "Android app: \(clean(aar.packageName))" }
  switch record.tnf {
  case .empty: return "Empty record"
  case .media:
    if let mime = MIMERecord(record), mime.isText || mime.mediaType.lowercased().contains("vcard"),
       let text = String(validating: mime.data, as: UTF8.self) {
      return "MIME \(clean(mime.mediaType)): \(clean(text))"
    }
    return "MIME \(typeText()): \(bytesText(record.payload))"
  case .external: return "External \(typeText()): \(bytesText(record.payload))"
  case .absoluteURI: return "Absolute URI \(typeText()): \(bytesText(record.payload))"
  case .wellKnown: return "Well-known \(typeText().isEmpty ? "(empty type)" : typeText()): \(bytesText(record.payload))"
  case .unknown: return "Unknown type: \(bytesText(record.payload))"
  case .unchanged, .reserved: return "TNF \(record.tnf.rawValue) \(typeText()): \(bytesText(record.payload))"
  }
}
