// JSON-lines rows files, parsed by NDEFJSON's strict JSON parser.
import NDEFJSON

extension RowsFile {
  /// Parses JSON lines (UTF-8 already checked): one object per line; strings, numbers (as
  /// written) and booleans (`true`/`false`) become field values, `null` leaves the field out.
  /// Lines end in LF or CRLF; blank lines are skipped.
  static func parseJSONLines(_ body: ArraySlice<UInt8>) -> RowsFile {
    var problems: [ProvisioningProblem] = []
    var rows: [ProvisioningRow] = []
    var columns: [String] = []
    var known = Set<String>()
    var sequence = 0
    for (index, rawLine) in body.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
      let line = index + 1
      var bytes = rawLine
      if bytes.last == 0x0D { bytes = bytes.dropLast() }
      guard bytes.contains(where: { !isSpace($0) }) else { continue }
      sequence += 1
      let value: JSONValue
      do {
        value = try JSONParser.parse(Array(bytes))
      } catch {
        problems.append(ProvisioningProblem(line: line, row: String(sequence), message: error.description))
        continue
      }
      guard case .object(let members) = value else {
        problems.append(ProvisioningProblem(line: line, row: String(sequence), message: "not a JSON object"))
        continue
      }
      var fields: [String: String] = [:]
      var bad: [String] = []
      for (name, member) in members {
        switch member {
        case .string(let text): fields[name] = text
        case .number(let text): fields[name] = text
        case .bool(let flag): fields[name] = flag ? "true" : "false"
        case .null: fields[name] = nil
        case .array: bad.append("\"\(name)\" is an array")
        case .object: bad.append("\"\(name)\" is an object")
        }
        if known.insert(name).inserted { columns.append(name) }
      }
      let name = rowID(fields, sequence: sequence) ?? String(sequence)
      for message in bad {
        problems.append(ProvisioningProblem(line: line, row: name,
                                            message: "\(message); values must be strings, numbers or booleans"))
      }
      guard bad.isEmpty else { continue }
      guard let id = rowID(fields, sequence: sequence) else {
        problems.append(ProvisioningProblem(line: line, row: String(sequence), message: "the id is empty"))
        continue
      }
      rows.append(ProvisioningRow(id: id, sequence: sequence, line: line, fields: fields))
    }
    return RowsFile(format: .jsonLines, columns: columns, rows: rows, problems: problems)
  }
}
