/// The text encodings of a Text record.
public enum TextEncoding: String, Sendable, Hashable {
  case utf8 = "utf-8"
  case utf16 = "utf-16"
}

/// A Text record (well-known type `T`). NFC Forum Text RTD 1.0.
///
/// Payload: status byte (bit 7 UTF-16, bits 5–0 language code length), the IANA language code,
/// then the text. UTF-16 without a byte-order mark is big-endian; nfctag writes big-endian with one.
public struct TextRecord: Hashable, Sendable {
  public var language: String
  public var text: String
  public var encoding: TextEncoding

  public init(text: String, language: String = "en", encoding: TextEncoding = .utf8) {
    self.text = text
    self.language = language
    self.encoding = encoding
  }

  /// Parses `record` strictly: nil when it is not a Text record or its bytes are not valid.
  public init?(_ record: NDEFRecord) {
    guard record.hasType(.wellKnown, "T") || (record.tnf == .wellKnown && record.type.isEmpty) else { return nil }
    guard let status = record.payload.first else { return nil }
    let languageLength = Int(status & 0x3F)
    guard status & 0x40 == 0, record.payload.count >= 1 + languageLength else { return nil }
    let languageBytes = record.payload[1..<(1 + languageLength)]
    guard languageBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }), let language = strictUTF8(languageBytes) else { return nil }
    let body = record.payload[(1 + languageLength)...]
    if status & 0x80 != 0 {
      guard let text = strictUTF16(body) else { return nil }
      self.init(text: text, language: language, encoding: .utf16)
    } else {
      guard let text = strictUTF8(body) else { return nil }
      self.init(text: text, language: language, encoding: .utf8)
    }
  }

  /// The record, encoded canonically.
  public var record: NDEFRecord {
    let lang = ascii(language)
    var payload: [UInt8] = [UInt8(min(lang.count, 0x3F)) | (encoding == .utf16 ? 0x80 : 0)]
    payload += lang.prefix(0x3F)
    payload += encoding == .utf16 ? utf16BigEndianWithBOM(text) : Array(text.utf8)
    return NDEFRecord(tnf: .wellKnown, type: [0x54], payload: payload)
  }

  /// Checks the language code: 1–63 printable ASCII characters.
  public func validate() throws(NDEFError) {
    let lang = ascii(language)
    guard (1...63).contains(lang.count), lang.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
      throw NDEFError(code: .invalidField, offset: 0, reason: "language code must be 1 to 63 ASCII letters, digits or '-'")
    }
  }
}

/// A URI record (well-known type `U`). NFC Forum URI RTD 1.0: an abbreviation code, then the rest.
public struct URIRecord: Hashable, Sendable {
  /// The whole URI, prefix expanded.
  public var uri: String

  public init(uri: String) { self.uri = uri }

  /// The abbreviation table, codes 0x00–0x23 (URI RTD 1.0 §3.2.2).
  public static let prefixes: [String] = [
    "", "http://www.", "https://www.", "http://", "https://", "tel:", "mailto:",
    "ftp://anonymous:anonymous@", "ftp://ftp.", "ftps://", "sftp://", "smb://", "nfs://", "ftp://",
    "dav://", "news:", "telnet://", "imap:", "rtsp://", "urn:", "pop:", "sip:", "sips:", "tftp:",
    "btspp://", "btl2cap://", "btgoep://", "tcpobex://", "irdaobex://", "file://", "urn:epc:id:",
    "urn:epc:tag:", "urn:epc:pat:", "urn:epc:raw:", "urn:epc:", "urn:nfc:",
  ]

  /// Parses strictly: nil for codes 0x24 and above or a rest that is not UTF-8.
  public init?(_ record: NDEFRecord) {
    guard record.hasType(.wellKnown, "U") else { return nil }
    guard let code = record.payload.first, Int(code) < Self.prefixes.count,
          let rest = strictUTF8(record.payload.dropFirst()) else { return nil }
    self.uri = Self.prefixes[Int(code)] + rest
  }

  /// The abbreviation code and the rest: the longest matching prefix, case-sensitive.
  public var abbreviated: (code: UInt8, rest: Substring) {
    var best = 0
    var bestLength = 0
    for (code, prefix) in Self.prefixes.enumerated() where prefix.utf8.count > bestLength {
      if uri.utf8.starts(with: prefix.utf8) {
        best = code
        bestLength = prefix.utf8.count
      }
    }
    let restStart = uri.utf8.index(uri.utf8.startIndex, offsetBy: bestLength)
    return (UInt8(best), uri[restStart...])
  }

  public var record: NDEFRecord {
    let (code, rest) = abbreviated
    return NDEFRecord(tnf: .wellKnown, type: [0x55], payload: [code] + Array(rest.utf8))
  }
}

/// A MIME media record (TNF 2): a media type and its data.
public struct MIMERecord: Hashable, Sendable {
  public var mediaType: String
  public var data: [UInt8]
  public init(mediaType: String, data: [UInt8]) {
    self.mediaType = mediaType
    self.data = data
  }
  public init?(_ record: NDEFRecord) {
    guard record.tnf == .media, let type = strictUTF8(record.type) else { return nil }
    self.init(mediaType: type, data: record.payload)
  }
  public var record: NDEFRecord { NDEFRecord(tnf: .media, type: ascii(mediaType), payload: data) }
  /// True for text media (text/*, vCard) whose data can be shown as text.
  public var isText: Bool {
    let lower = mediaType.lowercased()
    return lower.hasPrefix("text/") || lower == "application/json" || lower.hasSuffix("+json") || lower.hasSuffix("+xml")
  }
}

/// An absolute-URI record (TNF 3): the type field is a URI.
public struct AbsoluteURIRecord: Hashable, Sendable {
  public var uri: String
  public var payload: [UInt8]
  public init(uri: String, payload: [UInt8] = []) {
    self.uri = uri
    self.payload = payload
  }
  public init?(_ record: NDEFRecord) {
    guard record.tnf == .absoluteURI, let uri = strictUTF8(record.type) else { return nil }
    self.init(uri: uri, payload: record.payload)
  }
  public var record: NDEFRecord { NDEFRecord(tnf: .absoluteURI, type: ascii(uri), payload: payload) }
}

/// An NFC Forum external type record (TNF 4), `domain:type`. NFC Forum RTD 1.0 §2.4.
public struct ExternalTypeRecord: Hashable, Sendable {
  public var domain: String
  public var name: String
  public var payload: [UInt8]

  /// Validates and splits `type` ("example.com:mytype"): a non-empty domain of letters, digits,
  /// '.', '-'; a non-empty type of URN characters. The domain is lower-cased as Android does.
  public init(type: String, payload: [UInt8]) throws(NDEFError) {
    let parts = type.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
    guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
      throw NDEFError(code: .invalidField, offset: 0, reason: "an external type is DOMAIN:TYPE, both non-empty (got '\(type)')")
    }
    let domainOK = parts[0].unicodeScalars.allSatisfy { s in
      (s >= "a" && s <= "z") || (s >= "A" && s <= "Z") || (s >= "0" && s <= "9") || s == "." || s == "-"
    }
    let typeOK = parts[1].unicodeScalars.allSatisfy { s in
      s.value > 0x20 && s.value < 0x7F && !"\"<>\\^`{|}".unicodeScalars.contains(s)
    }
    guard domainOK, typeOK else {
      throw NDEFError(code: .invalidField, offset: 0, reason: "invalid characters in external type '\(type)'")
    }
    self.domain = parts[0].lowercased()
    self.name = String(parts[1])
    self.payload = payload
  }

  public init?(_ record: NDEFRecord) {
    guard record.tnf == .external, let text = strictUTF8(record.type),
          let colon = text.firstIndex(of: ":") else { return nil }
    domain = String(text[..<colon])
    name = String(text[text.index(after: colon)...])
    payload = record.payload
  }

  public var record: NDEFRecord { NDEFRecord(tnf: .external, type: ascii(domain + ":" + name), payload: payload) }
}

/// An Android Application Record: external type `android.com:pkg`, payload the package name.
public struct AndroidApplicationRecord: Hashable, Sendable {
  public var packageName: String
  public init(packageName: String) { self.packageName = packageName }
  public init?(_ record: NDEFRecord) {
    guard record.hasType(.external, "android.com:pkg"), let name = strictUTF8(record.payload) else { return nil }
    packageName = name
  }
  public var record: NDEFRecord {
    NDEFRecord(tnf: .external, type: ascii("android.com:pkg"), payload: Array(packageName.utf8))
  }
}

/// A Smart Poster (well-known `Sp`): a nested message with one URI, titles, action, size, type,
/// icons. NFC Forum Smart Poster RTD 1.0.
public struct SmartPosterRecord: Hashable, Sendable {
  public var uri: String
  public var titles: [TextRecord]
  /// 0 do the action, 1 save for later, 2 open for editing.
  public var action: UInt8?
  public var size: UInt32?
  public var mimeType: String?
  public var icons: [MIMERecord] = []
  /// Records of the nested message that are none of the above, kept as they are.
  public var otherRecords: [NDEFRecord] = []

  public init(uri: String, titles: [TextRecord] = [], action: UInt8? = nil, size: UInt32? = nil, mimeType: String? = nil) {
    self.uri = uri
    self.titles = titles
    self.action = action
    self.size = size
    self.mimeType = mimeType
  }

  public init?(_ record: NDEFRecord) {
    guard record.hasType(.wellKnown, "Sp") else { return nil }
    try? self.init(record, depth: 1)
  }

  init?(_ record: NDEFRecord, depth: Int) throws(NDEFError) {
    guard let nested = try? NDEFMessage(decoding: record.payload[...], depth: depth) else { return nil }
    var uri: String? = nil
    self.init(uri: "")
    for r in nested.records {
      if let u = URIRecord(r) {
        guard uri == nil else { return nil }  // exactly one URI
        uri = u.uri
      } else if let t = TextRecord(r), r.hasType(.wellKnown, "T") {
        titles.append(t)
      } else if r.hasType(.wellKnown, "act"), r.payload.count == 1, let a = r.payload.first {
        action = a
      } else if r.hasType(.wellKnown, "s"), r.payload.count == 4 {
        size = r.payload.reduce(0) { $0 << 8 | UInt32($1) }
      } else if r.hasType(.wellKnown, "t"), let t = strictUTF8(r.payload) {
        mimeType = t
      } else if r.tnf == .media, let m = MIMERecord(r), m.mediaType.hasPrefix("image/") || m.mediaType.hasPrefix("video/") {
        icons.append(m)
      } else {
        otherRecords.append(r)
      }
    }
    guard let uri else { return nil }
    self.uri = uri
  }

  public var record: NDEFRecord {
    var records = [URIRecord(uri: uri).record]
    records += titles.map(\.record)
    if let action { records.append(NDEFRecord(tnf: .wellKnown, type: ascii("act"), payload: [action])) }
    if let size {
      records.append(NDEFRecord(tnf: .wellKnown, type: [0x73],
                                payload: [UInt8(size >> 24), UInt8(truncatingIfNeeded: size >> 16),
                                          UInt8(truncatingIfNeeded: size >> 8), UInt8(truncatingIfNeeded: size)]))
    }
    if let mimeType { records.append(NDEFRecord(tnf: .wellKnown, type: [0x74], payload: Array(mimeType.utf8))) }
    records += icons.map(\.record)
    records += otherRecords
    let payload = (try? NDEFMessage(records: records).encoded()) ?? []
    return NDEFRecord(tnf: .wellKnown, type: ascii("Sp"), payload: payload)
  }
}
