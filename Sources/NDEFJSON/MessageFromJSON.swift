import NDEF

/// Why a JSON message description cannot be turned into NDEF.
public struct MessageJSONError: Error, Hashable, Sendable, CustomStringConvertible {
  public let reason: String
  public init(_ reason: String) { self.reason = reason }
  public var description: String { reason }
}

/// Builds a message from the JSON of docs/json-format.md.
///
/// A record with `payload` is taken as tnf/type(Hex)/id(Hex)/payload, and helper keys are then
/// ignored, so decode output fed back gives the same bytes. A record without `payload` is built
/// from one helper key (`text`, `uri`, `smartPoster`, `mime`, `wifi`, `aar`, `external`,
/// `absoluteUri`); `id`/`idHex` may stand beside it.
///
/// `{"records":[]}` is the empty message (no records), what ``messageJSON(_:)`` gives for a tag
/// whose NDEF message has length 0; it has no NDEF record encoding of its own: on a tag it is a
/// zero-length message (NFC Forum Type 2 Tag 1.0 §2.3.4, an NDEF Message TLV with length 0).
public func message(fromJSON value: JSONValue) throws(MessageJSONError) -> NDEFMessage {
  guard let records = value["records"]?.arrayValue else {
    throw MessageJSONError("expected an object with a \"records\" array")
  }
  var out: [NDEFRecord] = []
  for (index, item) in records.enumerated() {
    do {
      out.append(try record(fromJSON: item))
    } catch {
      throw MessageJSONError("record \(index): \(error.reason)")
    }
  }
  return NDEFMessage(records: out)
}

/// Parses JSON text and builds the message.
public func message(fromJSONText bytes: [UInt8]) throws(MessageJSONError) -> NDEFMessage {
  let value: JSONValue
  do { value = try JSONParser.parse(bytes) } catch { throw MessageJSONError(error.description) }
  return try message(fromJSON: value)
}

func bytes(fromHex text: String, _ what: String) throws(MessageJSONError) -> [UInt8] {
  guard let b = parseHex(text) else { throw MessageJSONError("\(what) is not hex") }
  return b
}

func record(fromJSON item: JSONValue) throws(MessageJSONError) -> NDEFRecord {
  guard case .object = item else { throw MessageJSONError("a record must be an object") }
  func str(_ key: String) throws(MessageJSONError) -> String? {
    guard let v = item[key] else { return nil }
    guard let s = v.stringValue else { throw MessageJSONError("\"\(key)\" must be a string") }
    return s
  }
  var identifier: [UInt8] = []
  if let id = try str("id") { identifier = Array(id.utf8) }
  if let idHex = try str("idHex") { identifier = try bytes(fromHex: idHex, "idHex") }

  if let payloadHex = try str("payload") {
    guard let tnfText = try str("tnf") else { throw MessageJSONError("a record with \"payload\" needs \"tnf\"") }
    guard let tnf = typeNameFormat(named: tnfText) else { throw MessageJSONError("unknown tnf \"\(tnfText)\"") }
    guard tnf != .reserved, tnf != .unchanged else { throw MessageJSONError("tnf \"\(tnfText)\" cannot be encoded") }
    var type: [UInt8] = []
    if let t = try str("type") { type = Array(t.utf8) }
    if let th = try str("typeHex") { type = try bytes(fromHex: th, "typeHex") }
    var record = NDEFRecord(tnf: tnf, type: type, identifier: identifier, payload: try bytes(fromHex: payloadHex, "payload"))
    if tnf == .empty, !(record.type.isEmpty && record.identifier.isEmpty && record.payload.isEmpty) {
      throw MessageJSONError("an empty record has no type, id or payload")
    }
    if tnf == .unknown, !record.type.isEmpty { throw MessageJSONError("an unknown record has no type") }
    guard record.type.count <= 255, record.identifier.count <= 255 else { throw MessageJSONError("type or id longer than 255 bytes") }
    record.warnings = []
    return record
  }

  var record: NDEFRecord
  if let text = item["text"] {
    guard let body = text["text"]?.stringValue ?? text.stringValue else { throw MessageJSONError("\"text\" needs a \"text\" string") }
    let language = text["language"]?.stringValue ?? "en"
    let encodingName = text["encoding"]?.stringValue ?? "utf-8"
    guard let encoding = TextEncoding(rawValue: encodingName) else { throw MessageJSONError("encoding must be utf-8 or utf-16") }
    let t = TextRecord(text: body, language: language, encoding: encoding)
    do { try t.validate() } catch { throw MessageJSONError(error.reason) }
    record = t.record
  } else if let uri = try str("uri") {
    record = URIRecord(uri: uri).record
  } else if let sp = item["smartPoster"] {
    guard let uri = sp["uri"]?.stringValue else { throw MessageJSONError("\"smartPoster\" needs \"uri\"") }
    var poster = SmartPosterRecord(uri: uri)
    for t in sp["titles"]?.arrayValue ?? [] {
      guard let body = t["text"]?.stringValue else { throw MessageJSONError("a title needs \"text\"") }
      poster.titles.append(TextRecord(text: body, language: t["language"]?.stringValue ?? "en"))
    }
    if let title = sp["title"]?.stringValue { poster.titles.append(TextRecord(text: title)) }
    if let a = sp["action"]?.intValue {
      guard let action = UInt8(exactly: a) else { throw MessageJSONError("action must be 0-255") }
      poster.action = action
    }
    if let s = sp["size"]?.intValue {
      guard let size = UInt32(exactly: s) else { throw MessageJSONError("size out of range") }
      poster.size = size
    }
    poster.mimeType = sp["type"]?.stringValue
    record = poster.record
  } else if let mime = item["mime"] {
    guard let type = mime["type"]?.stringValue, !type.isEmpty else { throw MessageJSONError("\"mime\" needs \"type\"") }
    var data: [UInt8] = []
    if let text = mime["text"]?.stringValue { data = Array(text.utf8) }
    if let hex = mime["dataHex"]?.stringValue { data = try bytes(fromHex: hex, "dataHex") }
    record = MIMERecord(mediaType: type, data: data).record
  } else if let wifi = item["wifi"] {
    guard let ssid = wifi["ssid"]?.stringValue else { throw MessageJSONError("\"wifi\" needs \"ssid\"") }
    if wifi["networkKeyMasked"] != nil, wifi["networkKey"] == nil, wifi["password"] == nil {
      throw MessageJSONError("\"wifi\" has \"networkKeyMasked\": its network key was masked when the JSON was printed, so it is not there")
    }
    let key = wifi["networkKey"]?.stringValue ?? wifi["password"]?.stringValue ?? ""
    var credential = WiFiCredential(ssid: Array(ssid.utf8), networkKey: Array(key.utf8))
    if let names = wifi["authentication"] {
      credential.authentication = try bitmap(names, WiFiCredential.authenticationBit, "authentication")
    } else if key.isEmpty {
      credential.authentication = 0x0001
    }
    if let names = wifi["encryption"] {
      credential.encryption = try bitmap(names, WiFiCredential.encryptionBit, "encryption")
    } else if key.isEmpty {
      credential.encryption = 0x0001
    }
    record = credential.record
  } else if let aar = try str("aar") {
    record = AndroidApplicationRecord(packageName: aar).record
  } else if let ext = item["external"] {
    guard let domain = ext["domain"]?.stringValue, let type = ext["type"]?.stringValue else {
      throw MessageJSONError("\"external\" needs \"domain\" and \"type\"")
    }
    var payload: [UInt8] = []
    if let text = ext["text"]?.stringValue { payload = Array(text.utf8) }
    if let hex = ext["dataHex"]?.stringValue { payload = try bytes(fromHex: hex, "dataHex") }
    do { record = try ExternalTypeRecord(type: domain + ":" + type, payload: payload).record } catch {
      throw MessageJSONError(error.reason)
    }
  } else if let abs = try str("absoluteUri") {
    record = AbsoluteURIRecord(uri: abs).record
  } else {
    throw MessageJSONError("a record needs \"payload\" (with \"tnf\") or a helper key (text, uri, smartPoster, mime, wifi, aar, external, absoluteUri)")
  }
  record.identifier = identifier
  return record
}

private func bitmap(_ value: JSONValue, _ lookup: (String) -> UInt16?, _ what: String) throws(MessageJSONError) -> UInt16 {
  let names: [String]
  if let one = value.stringValue { names = [one] } else if let many = value.arrayValue {
    names = many.compactMap(\.stringValue)
  } else {
    throw MessageJSONError("\(what) must be a name or a list of names")
  }
  var bits: UInt16 = 0
  for name in names {
    guard let bit = lookup(name.lowercased()) else { throw MessageJSONError("unknown \(what) \"\(name)\"") }
    bits |= bit
  }
  return bits
}
