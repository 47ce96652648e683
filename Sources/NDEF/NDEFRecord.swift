/// The type name format of a record: how to read its type field. NFC Forum NDEF 1.0 §3.2.6.
public enum TypeNameFormat: UInt8, Sendable, Hashable, CaseIterable {
  /// No type, ID or payload.
  case empty = 0
  /// An NFC Forum well-known type (`urn:nfc:wkt:`), such as `T` or `U`.
  case wellKnown = 1
  /// A MIME media type (RFC 2046), such as `text/plain`.
  case media = 2
  /// An absolute URI (RFC 3986) naming the type.
  case absoluteURI = 3
  /// An NFC Forum external type (`urn:nfc:ext:`), `domain:type`.
  case external = 4
  /// Unknown payload type; the type field is empty.
  case unknown = 5
  /// A later chunk of a chunked record.
  case unchanged = 6
  /// Reserved; decoded for display (treated as unknown), never encoded.
  case reserved = 7
}

/// One logical NDEF record: chunks are reassembled. NFC Forum NDEF 1.0 §3.2.
public struct NDEFRecord: Hashable, Sendable {
  /// How to read ``type`` (header bits 2–0).
  public var tnf: TypeNameFormat
  /// The record type, such as `T` or `text/plain` (at most 255 bytes).
  public var type: [UInt8]
  /// The record ID (at most 255 bytes); empty when IL is clear.
  public var identifier: [UInt8]
  /// The payload; chunks are already joined.
  public var payload: [UInt8]
  /// Leniencies applied when decoding (for example a well-known record with an empty type).
  /// Not part of equality.
  public var warnings: [String] = []

  /// A record with no warnings.
  public init(tnf: TypeNameFormat, type: [UInt8] = [], identifier: [UInt8] = [], payload: [UInt8] = []) {
    self.tnf = tnf
    self.type = type
    self.identifier = identifier
    self.payload = payload
  }

  public static func == (a: Self, b: Self) -> Bool {
    a.tnf == b.tnf && a.type == b.type && a.identifier == b.identifier && a.payload == b.payload
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(tnf)
    hasher.combine(type)
    hasher.combine(identifier)
    hasher.combine(payload)
  }

  /// True when the type is the given ASCII string (well-known `T`, MIME `text/plain`…).
  public func hasType(_ tnf: TypeNameFormat, _ name: StaticString) -> Bool {
    guard self.tnf == tnf, type.count == name.utf8CodeUnitCount else { return false }
    return name.withUTF8Buffer { buffer in
      var i = 0
      for byte in buffer {
        if type[i] != byte { return false }
        i += 1
      }
      return true
    }
  }
}

extension NDEFRecord {
  /// True for a media record whose type is `mediaType` (given in lowercase), compared without
  /// regard to ASCII case: media types are case-insensitive (RFC 2045 §5.1).
  public func hasMediaType(_ mediaType: String) -> Bool {
    guard tnf == .media, type.count == mediaType.utf8.count else { return false }
    var i = 0
    for byte in mediaType.utf8 {
      let t = type[i]
      if t != byte, !(t | 0x20 == byte && byte >= 0x61 && byte <= 0x7A) { return false }
      i += 1
    }
    return true
  }
}

/// An NDEF message: one or more records, MB on the first and ME on the last. NFC Forum NDEF 1.0 §3.3.
public struct NDEFMessage: Hashable, Sendable {
  /// The records, in order; an encodable message has at least one.
  public var records: [NDEFRecord]

  /// A message of `records`.
  public init(records: [NDEFRecord]) { self.records = records }

  /// Decodes a whole message; every byte of `bytes` must belong to it.
  /// - Throws: ``NDEFError`` naming the rule and byte offset.
  public init(decoding bytes: [UInt8]) throws(NDEFError) {
    try self.init(decoding: bytes[...])
  }

  /// Decodes a whole message from a slice; offsets in errors count from the slice's start.
  public init(decoding bytes: ArraySlice<UInt8>) throws(NDEFError) {
    records = try NDEFDecoder(bytes, depth: 0).decodeMessage()
  }


  /// The canonical encoding: SR whenever the payload fits in 255 bytes, IL only with an ID,
  /// no chunking.
  /// - Throws: ``NDEFError/Code-swift.struct/noRecords`` for an empty message,
  ///   ``NDEFError/Code-swift.struct/notEncodable`` for reserved or unchanged records.
  public func encoded() throws(NDEFError) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(encodedSizeEstimate)
    try encode(into: &out)
    return out
  }

  /// Appends the canonical encoding to `out`.
  public func encode(into out: inout [UInt8]) throws(NDEFError) {
    guard !records.isEmpty else {
      throw NDEFError(code: .noRecords, offset: 0, reason: "a message needs at least one record")
    }
    for (index, record) in records.enumerated() {
      try record.encode(into: &out, first: index == 0, last: index == records.count - 1)
    }
  }

  var encodedSizeEstimate: Int {
    records.reduce(0) { $0 + 7 + $1.type.count + $1.identifier.count + $1.payload.count }
  }
}

extension NDEFRecord {
  func encode(into out: inout [UInt8], first: Bool, last: Bool) throws(NDEFError) {
    switch tnf {
    case .reserved, .unchanged:
      throw NDEFError(code: .notEncodable, offset: 0, reason: "a record with TNF \(tnf) cannot be encoded")
    case .empty:
      guard type.isEmpty, identifier.isEmpty, payload.isEmpty else {
        throw NDEFError(code: .emptyRecordNotEmpty, offset: 0, reason: "an empty record has no type, ID or payload")
      }
    case .unknown:
      guard type.isEmpty else {
        throw NDEFError(code: .unexpectedType, offset: 0, reason: "an unknown-type record has no type")
      }
    default: break
    }
    guard type.count <= 255 else {
      throw NDEFError(code: .notEncodable, offset: 0, reason: "type longer than 255 bytes")
    }
    guard identifier.count <= 255 else {
      throw NDEFError(code: .notEncodable, offset: 0, reason: "ID longer than 255 bytes")
    }
    guard let payloadLength = UInt32(exactly: payload.count) else {
      throw NDEFError(code: .notEncodable, offset: 0, reason: "payload longer than 4 GiB")
    }
    let short = payloadLength <= 255
    var header = tnf.rawValue
    if first { header |= 0x80 }
    if last { header |= 0x40 }
    if short { header |= 0x10 }
    if !identifier.isEmpty { header |= 0x08 }
    out.append(header)
    out.append(UInt8(type.count))
    if short {
      out.append(UInt8(payloadLength))
    } else {
      out.append(UInt8(payloadLength >> 24))
      out.append(UInt8(truncatingIfNeeded: payloadLength >> 16))
      out.append(UInt8(truncatingIfNeeded: payloadLength >> 8))
      out.append(UInt8(truncatingIfNeeded: payloadLength))
    }
    if !identifier.isEmpty { out.append(UInt8(identifier.count)) }
    out.append(contentsOf: type)
    out.append(contentsOf: identifier)
    out.append(contentsOf: payload)
  }
}
