/// Why bytes are not a valid NDEF message, with the rule and the byte offset.
///
/// `==` compares only ``code``, so tests match on the rule while people read ``reason``.
public struct NDEFError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The rule that was broken.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    /// The rule's name, as in `truncated`; also used in JSON output.
    public let name: String
    init(_ name: String) { self.name = name }
    public var description: String { name }

    /// The input is empty.
    public static let empty = Code("empty")
    /// A field runs past the end of the input.
    public static let truncated = Code("truncated")
    /// The first record has no MB flag.
    public static let missingMessageBegin = Code("missingMessageBegin")
    /// A record after the first has the MB flag.
    public static let unexpectedMessageBegin = Code("unexpectedMessageBegin")
    /// The last record has no ME flag.
    public static let missingMessageEnd = Code("missingMessageEnd")
    /// Bytes follow the record with the ME flag.
    public static let trailingBytes = Code("trailingBytes")
    /// The input ends after a record with the CF flag (a chunk with no continuation).
    public static let chunkNotContinued = Code("chunkNotContinued")
    /// A record has both CF and ME: a chunked record cannot end the message mid-way.
    public static let chunkWithMessageEnd = Code("chunkWithMessageEnd")
    /// A chunk is followed by a record that is not an "unchanged" chunk.
    public static let chunkInterrupted = Code("chunkInterrupted")
    /// An "unchanged" (TNF 6) record outside a chunked record.
    public static let unexpectedUnchanged = Code("unexpectedUnchanged")
    /// A later chunk carries a type or an ID (IL set).
    public static let chunkHasTypeOrID = Code("chunkHasTypeOrID")
    /// An empty (TNF 0) record has a type, an ID or a payload.
    public static let emptyRecordNotEmpty = Code("emptyRecordNotEmpty")
    /// A TNF that must not have a type (unknown, TNF 5) has one.
    public static let unexpectedType = Code("unexpectedType")
    /// Nested messages (Smart Poster, Handover) are nested too deep.
    public static let nestingTooDeep = Code("nestingTooDeep")
    /// The message has no records (encoding).
    public static let noRecords = Code("noRecords")
    /// A record cannot be encoded as given (reserved TNF, unchanged TNF, field too long).
    public static let notEncodable = Code("notEncodable")
    /// A typed record's fields are invalid (external type name, language code…).
    public static let invalidField = Code("invalidField")
  }

  /// The rule that was broken; the only part that `==` compares.
  public let code: Code
  /// Byte offset in the input where the rule was broken (0 when encoding).
  public let offset: Int
  /// What went wrong, for people.
  public let reason: String

  /// An error for `code` at `offset`, with a reason for people.
  public init(code: Code, offset: Int, reason: String) {
    self.code = code
    self.offset = offset
    self.reason = reason
  }

  public static func == (a: Self, b: Self) -> Bool { a.code == b.code }
  public func hash(into hasher: inout Hasher) { hasher.combine(code) }
  /// For people: the reason and where (``code`` is for programs and stays out of it).
  public var description: String { "\(reason) at byte \(offset)" }
}
