// One row per tag, and the problems a job can have before any tag is touched.
import Crypto
import NDEFJSON
import ProvisioningLedger

/// One row of a provisioning job: what one tag receives.
///
/// Rows come from a rows file (``RowsFile/load(path:maxBytes:)``) or from a count
/// (``RowsFile/counted(_:)``). The engine claims them in ``sequence`` order.
public struct ProvisioningRow: Hashable, Sendable {
  /// The row's name: its `id` column, else its 1-based data-row number (``sequence``).
  public var id: String
  /// 1-based position among the data rows, in file order: `{n}` in templates, the claim order.
  public var sequence: Int
  /// 1-based line of the file where the row starts (a quoted field may span lines); 0 when the
  /// row comes from a count rather than a file.
  public var line: Int
  /// Column name → value. Columns with an empty name are left out.
  public var fields: [String: String]
  /// Lowercase hex SHA-256 of ``canonicalEncoding(of:)`` of ``fields``, for the ledger.
  public var contentHash: String

  /// A row; ``contentHash`` is computed from `fields`.
  public init(id: String, sequence: Int, line: Int, fields: [String: String]) {
    self.id = id
    self.sequence = sequence
    self.line = line
    self.fields = fields
    self.contentHash = Self.contentHash(of: fields)
  }

  /// How problems name the row: `row 17 (line 18)`, or `row 17` without a file.
  public var label: String { line > 0 ? "row \(id) (line \(line))" : "row \(id)" }

  /// What the ledger stores about the row.
  public var ledgerInput: LedgerRowInput {
    LedgerRowInput(id: id, sequence: sequence, contentHash: contentHash)
  }

  /// The bytes hashed for ``contentHash``: for each field, in ascending order of the name's UTF-8
  /// bytes, the name and the value, each as a 4-byte big-endian UTF-8 length and the bytes.
  ///
  /// Independent of column order and of the file format, so a CSV file and its JSON-lines twin
  /// give the same hashes.
  public static func canonicalEncoding(of fields: [String: String]) -> [UInt8] {
    var out: [UInt8] = []
    func append(_ text: String) {
      let bytes = Array(text.utf8)
      let count = UInt32(truncatingIfNeeded: bytes.count)
      out += [UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
      out += bytes
    }
    let names = fields.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    for name in names {
      append(name)
      append(fields[name] ?? "")
    }
    return out
  }

  /// Lowercase hex SHA-256 of ``canonicalEncoding(of:)``.
  public static func contentHash(of fields: [String: String]) -> String {
    hexString(SHA256.hash(data: canonicalEncoding(of: fields)))
  }
}

/// One thing wrong with a job, found before any tag is touched: one line for people.
///
/// The tool prints each problem on its own line and exits 65 (docs/exit-codes.md).
public struct ProvisioningProblem: Hashable, Sendable, CustomStringConvertible {
  /// 1-based line in the rows file, 0 when the problem is not about a line (the template, the
  /// job's options, the file as a whole).
  public var line: Int
  /// The row's id (or its sequence number when it has no usable id), when the problem is about
  /// one data row.
  public var row: String?
  /// What is wrong, without the row and line prefix.
  public var message: String

  /// A problem; see ``description`` for how it reads.
  public init(line: Int = 0, row: String? = nil, message: String) {
    self.line = line
    self.row = row
    self.message = message
  }

  /// A problem about `row`.
  public init(_ row: ProvisioningRow, _ message: String) {
    self.init(line: row.line, row: row.id, message: message)
  }

  /// `row 17 (line 18): …`, `line 1: …`, or the bare message.
  public var description: String {
    switch (row, line) {
    case (let row?, let line) where line > 0: return "row \(row) (line \(line)): \(message)"
    case (let row?, _): return "row \(row): \(message)"
    case (nil, let line) where line > 0: return "line \(line): \(message)"
    default: return message
    }
  }

  /// `problems` in file order: problems without a line first, then by line; stable otherwise.
  public static func inFileOrder(_ problems: [ProvisioningProblem]) -> [ProvisioningProblem] {
    problems.enumerated().sorted { a, b in
      a.element.line != b.element.line ? a.element.line < b.element.line : a.offset < b.offset
    }.map(\.element)
  }
}
