// The rows of a job: a CSV or JSON-lines file, or a count.
import Foundation

/// The rows of a provisioning job and the problems found while reading them.
///
/// Reading never stops at the first problem: every problem found is in ``problems``, in file
/// order, and ``rows`` holds the rows that could be read. A job with problems is refused
/// before any tag is touched (``JobValidation``).
public struct RowsFile: Sendable {
  /// Where the rows came from.
  public enum Format: String, Sendable, Hashable {
    /// CSV with a header row (RFC 4180), parsed by CSV.swift.
    case csv
    /// One JSON object per line (`.jsonl`).
    case jsonLines
    /// No file: `--count N` rows with ids "1"…"N" and no fields.
    case counted
  }

  /// The largest rows file read by default: 16 MiB.
  public static let defaultMaxBytes = 16 << 20

  /// Where the rows came from.
  public var format: Format
  /// The column names: the CSV header in order, or the JSON keys in order of first appearance;
  /// empty for a count.
  public var columns: [String]
  /// The rows that could be read, in file order.
  public var rows: [ProvisioningRow]
  /// Everything wrong with the file, in file order.
  public var problems: [ProvisioningProblem]

  /// A rows file as given.
  public init(format: Format, columns: [String], rows: [ProvisioningRow], problems: [ProvisioningProblem]) {
    self.format = format
    self.columns = columns
    self.rows = rows
    self.problems = problems
  }

  /// `count` rows with ids "1"…"`count`" and no fields, for a job without a rows file.
  public static func counted(_ count: Int) -> RowsFile {
    guard count > 0 else {
      return RowsFile(format: .counted, columns: [], rows: [],
                      problems: [ProvisioningProblem(message: "the count must be at least 1, not \(count)")])
    }
    let rows = (1...count).map { ProvisioningRow(id: String($0), sequence: $0, line: 0, fields: [:]) }
    return RowsFile(format: .counted, columns: [], rows: rows, problems: [])
  }

  /// The format a file name implies: `.jsonl` (any case) is JSON lines, anything else CSV.
  public static func format(forPath path: String) -> Format {
    path.lowercased().hasSuffix(".jsonl") ? .jsonLines : .csv
  }

  /// Reads and parses the rows file at `path` (CSV, or JSON lines for `.jsonl`).
  ///
  /// At most `maxBytes + 1` bytes are read: a larger file is one problem, and nothing of it is
  /// parsed. I/O errors are problems too.
  public static func load(path: String, maxBytes: Int = defaultMaxBytes) -> RowsFile {
    let format = format(forPath: path)
    func failed(_ message: String) -> RowsFile {
      RowsFile(format: format, columns: [], rows: [], problems: [ProvisioningProblem(message: message)])
    }
    let data: Data
    do {
      let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
      defer { try? handle.close() }
      data = try handle.read(upToCount: max(0, maxBytes) + 1) ?? Data()
    } catch {
      return failed("cannot read the rows file: \(error.localizedDescription)")
    }
    guard data.count <= maxBytes else {
      return failed("the rows file is larger than \(maxBytes) bytes")
    }
    return parse([UInt8](data), format: format)
  }

  /// Parses the bytes of a rows file.
  ///
  /// A leading UTF-8 byte-order mark is skipped; the rest must be UTF-8. CSV lines may end in
  /// CRLF, LF or CR; JSON lines in LF or CRLF. Blank lines are skipped (they still count as lines).
  public static func parse(_ bytes: [UInt8], format: Format) -> RowsFile {
    var body = bytes[...]
    if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
    func failed(_ problem: ProvisioningProblem) -> RowsFile {
      RowsFile(format: format, columns: [], rows: [], problems: [problem])
    }
    if let bad = firstInvalidUTF8(body) {
      let line = 1 + body[..<bad].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
      return failed(ProvisioningProblem(line: line, message: "not valid UTF-8 (byte \(bad + 1) of the file)"))
    }
    guard body.contains(where: { !isSpace($0) }) else {
      return failed(ProvisioningProblem(message: "the rows file is empty"))
    }
    let text = String(decoding: body, as: UTF8.self)
    var file: RowsFile
    switch format {
    case .csv: file = parseCSV(text)
    case .jsonLines: file = parseJSONLines(body)
    case .counted: return failed(ProvisioningProblem(message: "a count has no file to parse"))
    }
    if file.rows.isEmpty && file.problems.isEmpty {
      file.problems.append(ProvisioningProblem(message: "the rows file has no data rows"))
    }
    file.problems += duplicateIDProblems(file.rows)
    file.problems = ProvisioningProblem.inFileOrder(file.problems)
    return file
  }

  /// One problem per row whose id an earlier row already has, naming both lines.
  static func duplicateIDProblems(_ rows: [ProvisioningRow]) -> [ProvisioningProblem] {
    var firstLine: [String: Int] = [:]
    var problems: [ProvisioningProblem] = []
    for row in rows {
      if let earlier = firstLine[row.id] {
        problems.append(ProvisioningProblem(row, "the id \"\(row.id)\" is also the id of the row on line \(earlier)"))
      } else {
        firstLine[row.id] = row.line
      }
    }
    return problems
  }

  /// The index of the first byte that does not start or continue a valid UTF-8 sequence.
  static func firstInvalidUTF8(_ bytes: ArraySlice<UInt8>) -> Int? {
    var parser = Unicode.UTF8.ForwardParser()
    var iterator = bytes.makeIterator()
    var offset = bytes.startIndex
    while true {
      switch parser.parseScalar(from: &iterator) {
      case .valid(let scalar): offset += scalar.count
      case .emptyInput: return nil
      case .error(let length): _ = length; return offset
      }
    }
  }

  static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

  /// The id of a row read from a file: its `id` field, else its sequence number.
  static func rowID(_ fields: [String: String], sequence: Int) -> String? {
    guard let id = fields["id"] else { return String(sequence) }
    return id.isEmpty ? nil : id
  }
}
