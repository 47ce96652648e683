import CSV
import Foundation
import NDEFJSON

/// The audit report of a job: which row went onto which tag, with what, where and when.
///
/// Built from ``Ledger/records()`` and ``Ledger/tagFailures()`` alone, so that every backend
/// gives the same bytes. One line per row, by sequence number, then one line per tag failure
/// (oldest first) with `status` `failed` and `row` the row that was tried, or empty.
///
/// Columns, in this order: `row,uid,status,message_hex,message_sha256,station,reader,written_at,
/// error,exit_status`; `written_at` is when the row was last claimed, finished or failed (for a
/// tag failure: when it failed).
public enum LedgerReport {
  /// The column names, in order.
  public static let columns = [
    "row", "uid", "status", "message_hex", "message_sha256", "station", "reader", "written_at", "error", "exit_status",
  ]

  /// CSV (RFC 4180 quoting, through CSV.swift's `CSVWriter`): a header line, then the lines; an
  /// absent value is an empty field. Every line ends in `\n`.
  /// - Throws: ``LedgerError/unavailable(_:)`` if the writer fails (it writes to memory).
  public static func csv(records: [LedgerRecord], tagFailures: [LedgerTagFailure]) throws(LedgerError) -> String {
    try csv(header: columns, rows: lines(records: records, tagFailures: tagFailures).map { $0.fields.map { $0 ?? "" } })
  }

  /// `header`, then `rows`, as CSV through CSV.swift's `CSVWriter`; every line ends in `\n`.
  static func csv(header: [String], rows: [[String]]) throws(LedgerError) -> String {
    let stream = OutputStream.toMemory()
    do {
      let writer = try CSVWriter(stream: stream, newline: .lf)
      try writer.write(row: header)
      for row in rows { try writer.write(row: row) }
      stream.close()
    } catch {
      throw .unavailable("cannot write the CSV report: \(error)")
    }
    guard let data = stream.property(forKey: .dataWrittenToMemoryStreamKey) as? Data else {
      throw .unavailable("cannot write the CSV report: the memory stream kept nothing")
    }
    return String(decoding: data, as: UTF8.self) + "\n"
  }

  /// JSON lines: one object per line with the columns as keys, in order; an absent value is
  /// `null`, `exit_status` a number. Strings are escaped by NDEFJSON's `JSONWriter` (no raw
  /// control character ever reaches the output).
  public static func jsonLines(records: [LedgerRecord], tagFailures: [LedgerTagFailure]) -> String {
    var writer = JSONWriter(capacity: 256 * (records.count + tagFailures.count) + 16)
    for line in lines(records: records, tagFailures: tagFailures) {
      writer.raw("{")
      for (index, (name, value)) in zip(columns, line.fields).enumerated() {
        writer.key(named: name, first: index == 0)
        if name == "exit_status", let value, let number = Int(value) {
          writer.number(number)
        } else if let value {
          writer.string(value)
        } else {
          writer.raw("null")
        }
      }
      writer.raw("}\n")
    }
    return writer.text
  }

  /// One line of the report: the values of ``columns``, in order, nil when absent.
  struct Line {
    var fields: [String?]
  }

  /// The rows by sequence number, then the tag failures oldest first.
  static func lines(records: [LedgerRecord], tagFailures: [LedgerTagFailure]) -> [Line] {
    let rows = records.sorted { ($0.sequence, $0.id) < ($1.sequence, $1.id) }.map { r in
      Line(fields: [r.id, r.uid, r.status.rawValue, r.messageHex, r.messageSHA256, r.station, r.reader, r.updatedAt,
                    r.error, r.exitStatus.map { String($0) }])
    }
    let failures = tagFailures.map { f in
      Line(fields: [f.rowID, f.uid, LedgerRowStatus.failed.rawValue, nil, nil, f.failure.place.station,
                    f.failure.place.reader, f.failure.place.time, f.failure.reason, String(f.failure.exitStatus)])
    }
    return rows + failures
  }
}
