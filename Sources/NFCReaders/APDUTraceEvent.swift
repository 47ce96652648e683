import Logging
import NFCTransport

/// One line of the APDU trace as data: a command sent to the reader, its answer, or why no answer
/// came. The tracing transport logs each event as a swift-log `trace` message whose text is
/// ``description`` and whose metadata holds the event under ``metadataKey``
/// (`Logger.MetadataValue.stringConvertible`), so a log handler reads the bytes instead of parsing
/// the text (``init(_:)`` gets it back from a message's metadata).
///
/// A masked secret is not in the event: only the bytes before the mask are kept (``bytes``), and
/// ``isMasked`` says that `********` follows them.
public struct APDUTraceEvent: Sendable, Hashable, CustomStringConvertible {
  /// What the line is.
  public enum Direction: Sendable, Hashable {
    /// A command APDU, to the reader (`> …`).
    case command
    /// The reader's answer, status word included (`< …`).
    case answer
    /// No answer: the exchange failed (`< error: …`).
    case failure
  }

  /// The metadata key the event is logged under.
  public static let metadataKey = "apdu"

  /// Command, answer or failure.
  public let direction: Direction
  /// The bytes shown: the whole APDU or answer, or for a masked one the bytes before the mask
  /// (none for a masked answer).
  public let bytes: [UInt8]
  /// True when a secret was masked after ``bytes`` (`********`).
  public let isMasked: Bool
  /// For a masked answer, the status word shown after the mask.
  public let statusWord: [UInt8]
  /// For a failure, what went wrong.
  public let failure: String?
  /// Microseconds from the command to its answer or failure; nil for a command.
  public let microseconds: Int?

  /// A command; `shown` leading bytes before the mask, or nil when nothing is masked.
  public init(command apdu: [UInt8], shown: Int?) {
    direction = .command
    bytes = shown.map { Array(apdu.prefix($0)) } ?? apdu
    isMasked = shown != nil
    statusWord = []
    failure = nil
    microseconds = nil
  }

  /// An answer shown whole.
  public init(answer: [UInt8], microseconds: Int) {
    direction = .answer
    bytes = answer
    isMasked = false
    statusWord = []
    failure = nil
    self.microseconds = microseconds
  }

  /// An answer whose data are masked; only its status word shows.
  public init(maskedAnswerWithStatus statusWord: [UInt8], microseconds: Int) {
    direction = .answer
    bytes = []
    isMasked = true
    self.statusWord = statusWord
    failure = nil
    self.microseconds = microseconds
  }

  /// An exchange that failed.
  public init(failure: String, microseconds: Int) {
    direction = .failure
    bytes = []
    isMasked = false
    statusWord = []
    self.failure = failure
    self.microseconds = microseconds
  }

  /// The event a trace message carries in its metadata, or nil for any other message.
  public init?(_ metadata: Logger.Metadata?) {
    guard case .stringConvertible(let value)? = metadata?[Self.metadataKey], let event = value as? APDUTraceEvent else {
      return nil
    }
    self = event
  }

  /// The trace line: `> ff ca 00 00 00`, `< 04 a1 b2 90 00 (1.2 ms)`, `> … ********`,
  /// `< ******** 90 00 (0.8 ms)`, `< error: … (5000.0 ms)`.
  public var description: String { line(hex: hexString(bytes, separator: " ")) }

  /// The line with `hex` in place of the bytes (a printer that masks some of them).
  public func line(hex: String) -> String {
    let time = microseconds.map { " (\($0 / 1000).\($0 % 1000 / 100) ms)" } ?? ""
    switch direction {
    case .command: return "> " + hex + (isMasked ? (bytes.isEmpty ? "********" : " ********") : "")
    case .answer:
      if isMasked { return "< ********" + (statusWord.isEmpty ? "" : " " + hexString(statusWord, separator: " ")) + time }
      return "< " + hex + time
    case .failure: return "< error: \(failure ?? "")" + time
    }
  }
}
