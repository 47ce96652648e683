/// Why a row could not be rendered (one line naming the row).
public struct RenderFailure: Error, Sendable, Equatable, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// What a run writes: a message per row and tag. ``JobContent`` makes it from the rows file and
/// the template; tests may give their own.
public protocol ProvisioningContent: Sendable {
  /// What the NTAG21x mirror shows in each message's `{mirror}` room, if the job has one.
  var mirror: MirrorMode? { get }
  /// The message of row `rowID` (`sequence` is its `{n}`) for the tag `uid`.
  func render(rowID: String, sequence: Int, uid: [UInt8]) throws(RenderFailure) -> RenderedMessage
  /// One line per row whose message would not fit in `capacity` bytes, in row order.
  func rowsExceeding(capacity: Int) -> [String]
}

/// A job's content: its rows, by id, and its template.
public struct JobContent: ProvisioningContent {
  private let rows: [String: ProvisioningRow]
  private let template: MessageTemplate
  private let validation: JobValidation
  public let mirror: MirrorMode?

  /// - Parameter validation: the job's validation (its capacity check is reused per tag).
  public init(rows: RowsFile, template: MessageTemplate, mirror: MirrorMode?, validation: JobValidation) {
    self.rows = Dictionary(rows.rows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    self.template = template
    self.mirror = mirror
    self.validation = validation
  }

  public func render(rowID: String, sequence: Int, uid: [UInt8]) throws(RenderFailure) -> RenderedMessage {
    guard let row = rows[rowID] else {
      throw RenderFailure("row \(rowID) is in the ledger but not in the rows file")
    }
    do { return try template.render(row: row, uid: uid, mirror: mirror) } catch {
      throw RenderFailure("\(row.label): \(error)")
    }
  }

  public func rowsExceeding(capacity: Int) -> [String] {
    validation.problems(forCapacity: capacity).map(\.description)
  }
}
