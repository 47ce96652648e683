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
  /// The IANA language code, such as `en` or `en-US` (1–63 ASCII characters when encoding).
  public var language: String
  /// The text itself.
  public var text: String
  /// UTF-8 or UTF-16 (status bit 7).
  public var encoding: TextEncoding

  /// A text record; English and UTF-8 unless given.
  public init(text: String, language: String = "en", encoding: TextEncoding = .utf8) {
    self.text = text
    self.language = language
    self.encoding = encoding
  }

  /// Parses `record` strictly: nil when it is not a Text record or its bytes are not valid.
  public init?(_ record: NDEFRecord) {
    guard let layout = Layout(record) else { return nil }
    let language = String(decoding: record.payload[layout.language], as: UTF8.self)  // printable ASCII
    let body = record.payload[layout.text]
    if layout.isUTF16 {
      guard let text = strictUTF16(body) else { return nil }
      self.init(text: text, language: language, encoding: .utf16)
    } else {
      guard let text = strictUTF8(body) else { return nil }
      self.init(text: text, language: language, encoding: .utf8)
    }
  }

  /// Where the parts of a Text record lie in its payload: the header checked, the text not yet
  /// decoded. ``TextRecord/init(_:)`` reads through it, and so can a writer that copies the
  /// bytes without building Strings.
  public struct Layout: Hashable, Sendable {
    /// The language code's bytes in the payload: 0 to 63 printable ASCII characters (21h–7Eh).
    public var language: Range<Int>
    /// The text's bytes in the payload, not yet checked.
    public var text: Range<Int>
    /// Status bit 7: the text is UTF-16 (a byte-order mark picks the order, none is big-endian).
    public var isUTF16: Bool

    /// The layout of a well-known `T` record (or a well-known record with an empty type); nil
    /// when it is another record, the payload is empty, the reserved status bit 6 is set, or the
    /// language code runs past the payload or is not printable ASCII.
    public init?(_ record: NDEFRecord) {
      guard record.hasType(.wellKnown, "T") || (record.tnf == .wellKnown && record.type.isEmpty) else { return nil }
      guard let status = record.payload.first else { return nil }
      let languageLength = Int(status & 0x3F)
      guard status & 0x40 == 0, record.payload.count >= 1 + languageLength else { return nil }
      let language = 1..<(1 + languageLength)
      guard record.payload[language].allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
      self.language = language
      text = (1 + languageLength)..<record.payload.count
      isUTF16 = status & 0x80 != 0
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

  /// A URI record; the prefix is abbreviated when encoding.
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
    guard let code = Self.prefixCode(record) else { return nil }
    self.uri = Self.prefixes[code] + String(decoding: record.payload.dropFirst(), as: UTF8.self)
  }

  /// The abbreviation code of a valid URI record, an index into ``prefixes``; the rest of the
  /// URI is the payload after its first byte. nil when ``init(_:)`` would return nil: not a
  /// well-known `U` record, an empty payload, a code of 0x24 or above, a rest that is not UTF-8.
  public static func prefixCode(_ record: NDEFRecord) -> Int? {
    guard record.hasType(.wellKnown, "U"), let code = record.payload.first, Int(code) < prefixes.count,
          isValidUTF8(record.payload.dropFirst()) else { return nil }
    return Int(code)
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

  /// The record (well-known `U`), with the longest prefix abbreviated.
  public var record: NDEFRecord {
    let (code, rest) = abbreviated
    return NDEFRecord(tnf: .wellKnown, type: [0x55], payload: [code] + Array(rest.utf8))
  }
}

/// A MIME media record (TNF 2): a media type and its data.
public struct MIMERecord: Hashable, Sendable {
  /// The media type, such as `image/png` (the record type).
  public var mediaType: String
  /// The payload.
  public var data: [UInt8]
  /// A MIME record.
  public init(mediaType: String, data: [UInt8]) {
    self.mediaType = mediaType
    self.data = data
  }
  /// Any TNF 2 record whose type is UTF-8.
  public init?(_ record: NDEFRecord) {
    guard record.tnf == .media, let type = strictUTF8(record.type) else { return nil }
    self.init(mediaType: type, data: record.payload)
  }
  /// The record (TNF 2).
  public var record: NDEFRecord { NDEFRecord(tnf: .media, type: ascii(mediaType), payload: data) }
  /// True for text media (text/*, vCard) whose data can be shown as text.
  public var isText: Bool {
    let lower = mediaType.lowercased()
    return lower.hasPrefix("text/") || lower == "application/json" || lower.hasSuffix("+json") || lower.hasSuffix("+xml")
  }
}

/// An absolute-URI record (TNF 3): the type field is a URI.
public struct AbsoluteURIRecord: Hashable, Sendable {
  /// The URI in the type field.
  public var uri: String
  /// The payload, whose meaning the URI names.
  public var payload: [UInt8]
  /// An absolute-URI record.
  public init(uri: String, payload: [UInt8] = []) {
    self.uri = uri
    self.payload = payload
  }
  /// Any TNF 3 record whose type is UTF-8.
  public init?(_ record: NDEFRecord) {
    guard record.tnf == .absoluteURI, let uri = strictUTF8(record.type) else { return nil }
    self.init(uri: uri, payload: record.payload)
  }
  /// The record (TNF 3).
  public var record: NDEFRecord { NDEFRecord(tnf: .absoluteURI, type: ascii(uri), payload: payload) }
}

/// An NFC Forum external type record (TNF 4), `domain:type`. NFC Forum RTD 1.0 §2.4.
public struct ExternalTypeRecord: Hashable, Sendable {
  /// The domain part, lower-cased when built from a type string.
  public var domain: String
  /// The type part, after the first `:`.
  public var name: String
  /// The payload.
  public var payload: [UInt8]

  /// Validates and splits `type`, as in `"example.com:mytype"`.
  ///
  /// The domain is non-empty and made of letters, digits, `.` and `-` (RFC 1035); it is
  /// lower-cased, since external type names compare case-insensitively (NFC Forum RTD 1.0 §2.4.2;
  /// Android's `createExternal` does the same). The type is non-empty and made of URN characters
  /// (RFC 2141: letters, digits and `()+,-.:=@;$_!*'%/?#`).
  /// - Throws: ``NDEFError/Code-swift.struct/invalidField`` naming the problem.
  public init(type: String, payload: [UInt8]) throws(NDEFError) {
    guard let colon = type.utf8.firstIndex(of: 0x3A) else {
      throw NDEFError(code: .invalidField, offset: 0, reason: "an external type is DOMAIN:TYPE (got '\(type)')")
    }
    let domain = type.utf8[..<colon]
    let name = type.utf8[type.utf8.index(after: colon)...]
    guard !domain.isEmpty, !name.isEmpty else {
      throw NDEFError(code: .invalidField, offset: 0, reason: "an external type needs a non-empty domain and type (got '\(type)')")
    }
    guard domain.allSatisfy(Self.isDomainByte) else {
      throw NDEFError(code: .invalidField, offset: 0,
                      reason: "the domain of '\(type)' may hold only letters, digits, '.' and '-'")
    }
    guard name.allSatisfy(Self.isURNByte) else {
      throw NDEFError(code: .invalidField, offset: 0, reason: "the type of '\(type)' may hold only URN characters")
    }
    guard type.utf8.count <= 255 else {
      throw NDEFError(code: .invalidField, offset: 0, reason: "an external type is at most 255 bytes")
    }
    self.domain = String(decoding: domain, as: UTF8.self).lowercased()
    self.name = String(decoding: name, as: UTF8.self)
    self.payload = payload
  }

  static func isDomainByte(_ b: UInt8) -> Bool {
    (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || b == 0x2E || b == 0x2D
  }

  static func isURNByte(_ b: UInt8) -> Bool {
    if (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) { return true }
    switch b {
    case 0x28, 0x29, 0x2B, 0x2C, 0x2D, 0x2E, 0x3A, 0x3D, 0x40, 0x3B, 0x24, 0x5F, 0x21, 0x2A, 0x27,  // ()+,-.:=@;$_!*'
         0x25, 0x2F, 0x3F, 0x23:                                                                    // %/?#
      return true
    default:
      return false
    }
  }

  /// Splits the type of an external record at its first `:`; nil when either side is empty or
  /// the type is not UTF-8. The characters are not checked, so odd tags still show.
  public init?(_ record: NDEFRecord) {
    guard record.tnf == .external, let text = strictUTF8(record.type),
          let colon = text.firstIndex(of: ":"), colon != text.startIndex,
          text.index(after: colon) != text.endIndex else { return nil }
    domain = String(text[..<colon])
    name = String(text[text.index(after: colon)...])
    payload = record.payload
  }

  /// The record (TNF 4), type `domain:name`.
  public var record: NDEFRecord { NDEFRecord(tnf: .external, type: ascii(domain + ":" + name), payload: payload) }
}

/// An Android Application Record: external type `android.com:pkg`, payload the package name.
public struct AndroidApplicationRecord: Hashable, Sendable {
  /// The Android package name, such as `com.example.app`.
  public var packageName: String
  /// An AAR for `packageName`.
  public init(packageName: String) { self.packageName = packageName }
  /// Parses an `android.com:pkg` record; nil when the payload is not UTF-8.
  public init?(_ record: NDEFRecord) {
    guard record.hasType(.external, "android.com:pkg"), let name = strictUTF8(record.payload) else { return nil }
    packageName = name
  }
  /// The record (TNF 4, `android.com:pkg`).
  public var record: NDEFRecord {
    NDEFRecord(tnf: .external, type: ascii("android.com:pkg"), payload: Array(packageName.utf8))
  }
}

/// A Smart Poster (well-known `Sp`): a nested message with one URI, titles, action, size, type,
/// icons. NFC Forum Smart Poster RTD 1.0.
public struct SmartPosterRecord: Hashable, Sendable {
  /// The URI of the single `U` record, prefix expanded.
  public var uri: String
  /// The `T` records, one per language.
  public var titles: [TextRecord]
  /// 0 do the action, 1 save for later, 2 open for editing.
  public var action: UInt8?
  /// The `s` record: size of the referenced object in bytes.
  public var size: UInt32?
  /// The `t` record: media type of the referenced object.
  public var mimeType: String?
  /// MIME records of type `image/*` or `video/*`.
  public var icons: [MIMERecord] = []
  /// Records of the nested message that are none of the above, kept as they are.
  public var otherRecords: [NDEFRecord] = []

  /// A smart poster; icons and other records can be set afterwards.
  public init(uri: String, titles: [TextRecord] = [], action: UInt8? = nil, size: UInt32? = nil, mimeType: String? = nil) {
    self.uri = uri
    self.titles = titles
    self.action = action
    self.size = size
    self.mimeType = mimeType
  }

  /// Parses strictly: nil unless the payload is a valid nested message with exactly one URI
  /// record, and nested containers stay within ``maximumNestingDepth``.
  ///
  /// Titles are the `T` records, `act` must be 1 byte, `s` 4 bytes, `t` UTF-8; MIME records
  /// of `image/*` or `video/*` are icons; anything else lands in ``otherRecords``.
  public init?(_ record: NDEFRecord) {
    guard record.hasType(.wellKnown, "Sp"),
          let nested = try? NDEFMessage(nestedIn: record, depth: 1) else { return nil }
    var uri: String? = nil
    self.init(uri: "")
    for r in nested.records {
      if r.hasType(.wellKnown, "U") {
        guard uri == nil, let u = URIRecord(r) else { return nil }  // exactly one valid URI
        uri = u.uri
      } else if r.hasType(.wellKnown, "T") {
        guard let t = TextRecord(r) else { return nil }
        titles.append(t)
      } else if r.hasType(.wellKnown, "act") {
        guard r.payload.count == 1, let a = r.payload.first else { return nil }
        action = a
      } else if r.hasType(.wellKnown, "s") {
        guard r.payload.count == 4 else { return nil }
        size = r.payload.reduce(0) { $0 << 8 | UInt32($1) }
      } else if r.hasType(.wellKnown, "t") {
        guard let t = strictUTF8(r.payload) else { return nil }
        mimeType = t
      } else if r.tnf == .media, let m = MIMERecord(r), Self.isIconType(m.mediaType) {
        icons.append(m)
      } else {
        otherRecords.append(r)
      }
    }
    guard let uri else { return nil }
    self.uri = uri
  }

  static func isIconType(_ mediaType: String) -> Bool {
    let lower = mediaType.lowercased()
    return lower.hasPrefix("image/") || lower.hasPrefix("video/")
  }

  /// The record: URI, titles, `act`, `s`, `t`, icons, then ``otherRecords``.
  ///
  /// When ``otherRecords`` cannot be encoded (a reserved TNF…), they are left out.
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
    let payload = (try? NDEFMessage(records: records + otherRecords).encoded())
      ?? (try? NDEFMessage(records: records).encoded()) ?? []
    return NDEFRecord(tnf: .wellKnown, type: ascii("Sp"), payload: payload)
  }
}
