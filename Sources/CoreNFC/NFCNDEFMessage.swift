#if os(Linux)
import Foundation
import Locking
internal import NDEF

/// How to read a record's type field. Core NFC's `NFCTypeNameFormat` (NFC Forum NDEF 1.0 §3.2.6).
public enum NFCTypeNameFormat: UInt8, Hashable, Sendable {
  /// No type, identifier or payload.
  case empty = 0
  /// An NFC Forum well-known type (`T`, `U`, `Sp`…).
  case nfcWellKnown = 1
  /// A MIME media type (`text/plain`).
  case media = 2
  /// An absolute URI naming the type.
  case absoluteURI = 3
  /// An NFC Forum external type (`domain:type`).
  case nfcExternal = 4
  /// An unknown payload type.
  case unknown = 5
  /// A later chunk of a chunked record.
  case unchanged = 6
}

/// One NDEF record. Core NFC's `NFCNDEFPayload`, with its well-known Text and URI helpers.
///
/// Its properties may be changed, as in Core NFC; they sit behind a lock, so a payload may
/// cross threads.
public final class NFCNDEFPayload: Sendable {
  private struct Fields {
    var typeNameFormat: NFCTypeNameFormat
    var type: Data
    var identifier: Data
    var payload: Data
  }
  private let fields: Locked<Fields>

  /// The type name format.
  public var typeNameFormat: NFCTypeNameFormat {
    get { fields.withLock { $0.typeNameFormat } }
    set { fields.withLock { $0.typeNameFormat = newValue } }
  }
  /// The type (`T`, `U`, `text/plain`…), as bytes.
  public var type: Data {
    get { fields.withLock { $0.type } }
    set { fields.withLock { $0.type = newValue } }
  }
  /// The record's identifier (empty when it has none).
  public var identifier: Data {
    get { fields.withLock { $0.identifier } }
    set { fields.withLock { $0.identifier = newValue } }
  }
  /// The payload.
  public var payload: Data {
    get { fields.withLock { $0.payload } }
    set { fields.withLock { $0.payload = newValue } }
  }

  /// A record of these parts.
  public init(format: NFCTypeNameFormat, type: Data, identifier: Data, payload: Data) {
    fields = Locked(Fields(typeNameFormat: format, type: type, identifier: identifier, payload: payload))
  }

  /// A record of these parts; `chunkSize` is accepted for Core NFC's signature (the encoder
  /// writes every record whole, which every reader accepts).
  public convenience init(format: NFCTypeNameFormat, type: Data, identifier: Data, payload: Data, chunkSize: Int) {
    self.init(format: format, type: type, identifier: identifier, payload: payload)
  }

  /// A well-known URI record (`U`) for `url`; nil when it has no text.
  public static func wellKnownTypeURIPayload(url: URL) -> NFCNDEFPayload? {
    wellKnownTypeURIPayload(string: url.absoluteString)
  }

  /// A well-known URI record (`U`) for `string`, its prefix abbreviated (`https://` → 4); nil
  /// when the string is empty.
  public static func wellKnownTypeURIPayload(string: String) -> NFCNDEFPayload? {
    guard !string.isEmpty else { return nil }
    return NFCNDEFPayload(URIRecord(uri: string).record)
  }

  /// A well-known Text record (`T`, UTF-8) of `string` in `locale`'s language (BCP 47:
  /// `en`, `fr-CA`; `en` for the root locale); nil when the language code is 64 bytes or more.
  public static func wellKnownTypeTextPayload(string: String, locale: Locale) -> NFCNDEFPayload? {
    let identifier = locale.identifier.replacingOccurrences(of: "_", with: "-")
    let language = identifier.isEmpty ? "en" : identifier  // the root locale: no language of its own
    guard language.utf8.count < 64 else { return nil }
    return NFCNDEFPayload(TextRecord(text: string, language: language).record)
  }

  /// The URL of a well-known URI record (its prefix expanded); nil for other records.
  public func wellKnownTypeURIPayload() -> URL? {
    URIRecord(record).flatMap { URL(string: $0.uri) }
  }

  /// The text and language of a well-known Text record; (nil, nil) for other records.
  public func wellKnownTypeTextPayload() -> (String?, Locale?) {
    guard let text = TextRecord(record) else { return (nil, nil) }
    return (text.text, Locale(identifier: text.language))
  }

  // MARK: - NDEF's record

  convenience init(_ record: NDEFRecord) {
    self.init(format: NFCTypeNameFormat(rawValue: record.tnf.rawValue) ?? .unknown, type: Data(record.type),
              identifier: Data(record.identifier), payload: Data(record.payload))
  }

  var record: NDEFRecord {
    fields.withLock { fields in
      NDEFRecord(tnf: TypeNameFormat(rawValue: fields.typeNameFormat.rawValue) ?? .unknown, type: Array(fields.type),
                 identifier: Array(fields.identifier), payload: Array(fields.payload))
    }
  }
}

/// An NDEF message: its records in order. Core NFC's `NFCNDEFMessage`.
public final class NFCNDEFMessage: Sendable {
  private let storedRecords: Locked<[NFCNDEFPayload]>

  /// The records.
  public var records: [NFCNDEFPayload] {
    get { storedRecords.withLock { $0 } }
    set { storedRecords.withLock { $0 = newValue } }
  }

  /// A message of these records.
  public init(records: [NFCNDEFPayload]) { storedRecords = Locked(records) }

  /// The message `data` encodes (NDEF 1.0); nil when it is not a valid NDEF message.
  public convenience init?(data: Data) {
    guard let message = try? NDEFMessage(decoding: Array(data)), !message.records.isEmpty else { return nil }
    self.init(message)
  }

  /// The length of the encoded message in bytes (0 when it cannot be encoded).
  public var length: Int { (try? ndefMessage.encoded().count) ?? 0 }

  // MARK: - NDEF's message

  convenience init(_ message: NDEFMessage) { self.init(records: message.records.map(NFCNDEFPayload.init)) }

  var ndefMessage: NDEFMessage { NDEFMessage(records: records.map(\.record)) }
}
#endif
