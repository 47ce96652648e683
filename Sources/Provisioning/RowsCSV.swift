// CSV rows files: fields split by CSV.swift, quoting checked against RFC 4180 first.
import CSV

extension RowsFile {
  /// Parses CSV text (BOM and UTF-8 already handled) with a header row.
  ///
  /// CSV.swift splits the fields. It accepts two quoting mistakes silently — text after a
  /// closing quote (which it drops) and a quote that is never closed (which swallows the rest of
  /// the file) — so ``quotingProblems(_:)`` looks for those first and the file is refused with
  /// their lines. Line numbers of records come from the line breaks inside their fields.
  static func parseCSV(_ text: String) -> RowsFile {
    let quoting = quotingProblems(text)
    guard quoting.isEmpty else { return RowsFile(format: .csv, columns: [], rows: [], problems: quoting) }
    let reader: CSVReader
    do {
      reader = try CSVReader(string: text, hasHeaderRow: false)
    } catch {
      return RowsFile(format: .csv, columns: [], rows: [],
                      problems: [ProvisioningProblem(message: "the CSV cannot be read: \(error)")])
    }
    var problems: [ProvisioningProblem] = []
    var header: [String]?
    var rows: [ProvisioningRow] = []
    var sequence = 0
    var line = 1
    while let record = reader.next() {
      let start = line
      line += 1 + record.reduce(0) { $0 + lineBreaks(in: $1) }
      if record == [""] { continue }  // a blank line
      guard let columns = header else {
        header = record
        var seen = Set<String>()
        for name in record where !name.isEmpty && !seen.insert(name).inserted {
          problems.append(ProvisioningProblem(line: start, message: "the column \"\(name)\" appears more than once in the header"))
        }
        continue
      }
      sequence += 1
      var fields: [String: String] = [:]
      for (name, value) in zip(columns, record) where !name.isEmpty { fields[name] = value }
      guard record.count == columns.count else {
        let name = rowID(fields, sequence: sequence) ?? String(sequence)
        problems.append(ProvisioningProblem(line: start, row: name,
          message: "\(record.count) \(record.count == 1 ? "field" : "fields"), the header has \(columns.count)"))
        continue
      }
      guard let id = rowID(fields, sequence: sequence) else {
        problems.append(ProvisioningProblem(line: start, row: String(sequence), message: "the id is empty"))
        continue
      }
      rows.append(ProvisioningRow(id: id, sequence: sequence, line: start, fields: fields))
    }
    if header != nil, sequence == 0, problems.isEmpty {
      problems.append(ProvisioningProblem(message: "the rows file has a header but no data rows"))
    }
    return RowsFile(format: .csv, columns: header ?? [], rows: rows, problems: problems)
  }

  /// Line breaks in a field's text: CRLF, CR and LF each count once.
  static func lineBreaks(in field: String) -> Int {
    var count = 0
    var afterCR = false
    for scalar in field.unicodeScalars {
      if scalar == "\r" { count += 1; afterCR = true; continue }
      if scalar == "\n" && !afterCR { count += 1 }
      afterCR = false
    }
    return count
  }

  /// RFC 4180 §2 rules 5–7 as they concern quotes, with the line of each mistake: a quote inside
  /// an unquoted field, text between a closing quote and the next comma or line end, a quoted
  /// field never closed. Not a parser: fields are split by CSV.swift once this finds nothing.
  static func quotingProblems(_ text: String) -> [ProvisioningProblem] {
    enum State { case fieldStart, unquoted, quoted, afterQuote }
    var state = State.fieldStart
    var line = 1
    var openedOn = 1
    var problems: [ProvisioningProblem] = []
    var reportedLine = 0
    func report(_ message: String, on problemLine: Int) {
      guard problemLine != reportedLine else { return }  // one quoting problem per line
      reportedLine = problemLine
      problems.append(ProvisioningProblem(line: problemLine, message: message))
    }
    var previousCR = false
    for scalar in text.unicodeScalars {
      let isBreak = scalar == "\n" || scalar == "\r"
      let newLine = scalar == "\r" || (scalar == "\n" && !previousCR)
      previousCR = scalar == "\r"
      switch state {
      case .fieldStart, .unquoted:
        if scalar == "\"" {
          if state == .fieldStart {
            state = .quoted
            openedOn = line
          } else {
            report("a double quote inside an unquoted field (RFC 4180: quote the field and double the quote)", on: line)
          }
        } else if scalar == "," || isBreak {
          state = .fieldStart
        } else {
          state = .unquoted
        }
      case .quoted:
        if scalar == "\"" { state = .afterQuote }
      case .afterQuote:
        if scalar == "\"" {
          state = .quoted  // a doubled quote
        } else if scalar == "," || isBreak {
          state = .fieldStart
        } else {
          report("text after the closing quote of a field", on: line)
          state = .unquoted
        }
      }
      if newLine { line += 1 }
    }
    if state == .quoted {
      report("a quoted field opened here is never closed", on: openedOn)
    }
    return problems
  }
}
