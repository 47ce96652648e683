// What each tag receives: a URL, a text or a whole message, rendered per row.
import Crypto
import NDEF
import NDEFJSON

/// The message template of a job: `--url T`, `--text T` or `--message TEMPLATE.json`.
public enum MessageTemplate: Sendable {
  /// One URI record (NFC Forum URI RTD) whose URI is the rendered template.
  case url(Template)
  /// One Text record (UTF-8) in `language`.
  case text(Template, language: String = "en")
  /// The message JSON of docs/json-format.md with placeholders in its string values.
  case message(MessageJSONTemplate)

  /// The column names the template uses.
  public var placeholders: Set<String> {
    switch self {
    case .url(let t), .text(let t, _): return t.placeholders
    case .message(let m): return m.placeholders
    }
  }

  /// How many times `{mirror}` appears in the whole template.
  public var mirrorCount: Int {
    switch self {
    case .url(let t), .text(let t, _): return t.mirrorCount
    case .message(let m): return m.strings.reduce(0) { $0 + $1.template.mirrorCount }
    }
  }

  /// Where `{mirror}` stands outside a URL (a text template, or a JSON string that is not a
  /// `uri` value), for people: `the text`, `records[0].text`. Empty when every `{mirror}` is
  /// in a URL.
  public var mirrorsOutsideURL: [String] {
    switch self {
    case .url: return []
    case .text(let t, _): return t.mirrorCount > 0 ? ["the text template"] : []
    case .message(let m): return m.strings.filter { !$0.isURI && $0.template.mirrorCount > 0 }.map(\.path)
    }
  }

  /// The message for one tag, its encoding, and where the mirror room landed.
  ///
  /// With a mirror mode, `{mirror}` is rendered as ``MirrorMode/roomLength`` `0`s; the template
  /// is rendered a second time with `1`s and the two encodings compared, so the room's byte
  /// offset is known whatever the record layout (URI prefix abbreviation, Smart Poster nesting).
  /// - Parameters:
  ///   - row: the row (fields and `{n}`).
  ///   - uid: the tag's UID; `{uid}` is its lowercase hex.
  ///   - mirror: the job's mirror mode, or nil.
  /// - Throws: ``MessageRenderError``: a missing field, a malformed message (an empty URL, a bad
  ///   language code, bad hex in the JSON…), or a room that is not stored as ASCII bytes in one
  ///   piece.
  public func render(row: ProvisioningRow, uid: [UInt8], mirror: MirrorMode?) throws(MessageRenderError) -> RenderedMessage {
    let uidHex = hexString(uid)
    let message = try build(row: row, uid: uidHex, room: mirror.map { String(repeating: "0", count: $0.roomLength) })
    let bytes = try Self.encode(message)
    guard let mirror, mirrorCount > 0 else { return RenderedMessage(message: message, bytes: bytes, mirrorRoom: nil) }
    let probe = try Self.encode(try build(row: row, uid: uidHex, room: String(repeating: "1", count: mirror.roomLength)))
    guard let room = Self.locateRoom(bytes, probe, length: mirror.roomLength) else {
      throw .malformed("the {mirror} room is not \(mirror.roomLength) ASCII bytes in one piece in the encoded message")
    }
    return RenderedMessage(message: message, bytes: bytes, mirrorRoom: room)
  }

  private func build(row: ProvisioningRow, uid: String, room: String?) throws(MessageRenderError) -> NDEFMessage {
    func text(_ t: Template, inURL: Bool = false) throws(MessageRenderError) -> String {
      do { return try t.render(fields: row.fields, uid: uid, sequence: row.sequence, mirror: room, inURL: inURL) } catch {
        throw .template(error)
      }
    }
    switch self {
    case .url(let t):
      let uri = try text(t, inURL: true)
      guard !uri.isEmpty else { throw .malformed("the URL is empty") }
      return NDEFMessage(records: [URIRecord(uri: uri).record])
    case .text(let t, let language):
      let record = TextRecord(text: try text(t), language: language)
      do { try record.validate() } catch { throw .malformed(error.reason) }
      return NDEFMessage(records: [record.record])
    case .message(let m):
      let json: JSONValue
      do { json = try m.render(fields: row.fields, uid: uid, sequence: row.sequence, mirror: room) } catch {
        throw .template(error)
      }
      do { return try NDEFJSON.message(fromJSON: json) } catch { throw .malformed(error.reason) }
    }
  }

  private static func encode(_ message: NDEFMessage) throws(MessageRenderError) -> [UInt8] {
    do { return try message.encoded() } catch { throw .malformed(error.reason) }
  }

  /// The one run of `length` bytes where `zeros` holds ASCII `0`s and `ones` differs, or nil.
  static func locateRoom(_ zeros: [UInt8], _ ones: [UInt8], length: Int) -> Range<Int>? {
    guard zeros.count == ones.count, length > 0 else { return nil }
    let differing = zeros.indices.filter { zeros[$0] != ones[$0] }
    guard let first = differing.first, let last = differing.last, differing.count == length,
          last - first + 1 == length else { return nil }
    let room = first ..< last + 1
    guard zeros[room].allSatisfy({ $0 == 0x30 }), ones[room].allSatisfy({ $0 == 0x31 }) else { return nil }
    return room
  }
}

/// A rendered message: what is written to one tag.
public struct RenderedMessage: Hashable, Sendable {
  /// The message.
  public var message: NDEFMessage
  /// Its canonical encoding (NDEF 1.0): the bytes inside the NDEF TLV.
  public var bytes: [UInt8]
  /// Byte offsets in ``bytes`` of the mirror room (all `0`s); nil without a mirror.
  public var mirrorRoom: Range<Int>?

  /// A rendered message as given.
  public init(message: NDEFMessage, bytes: [UInt8], mirrorRoom: Range<Int>?) {
    self.message = message
    self.bytes = bytes
    self.mirrorRoom = mirrorRoom
  }

  /// ``bytes`` as lowercase hex, for the ledger.
  public var hex: String { hexString(bytes) }

  /// Lowercase hex SHA-256 of ``bytes``, for the ledger.
  public var sha256: String { hexString(SHA256.hash(data: bytes)) }
}

/// Why a message could not be rendered for one row.
public enum MessageRenderError: Error, Hashable, Sendable, CustomStringConvertible {
  /// A placeholder could not be filled.
  case template(TemplateRenderError)
  /// The rendered message is not a valid NDEF message.
  case malformed(String)

  public var description: String {
    switch self {
    case .template(let error): return error.description
    case .malformed(let reason): return reason
    }
  }
}
