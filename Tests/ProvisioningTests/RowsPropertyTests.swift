import Testing
@testable import Provisioning

/// A small deterministic generator (SplitMix64), so a failure can be replayed.
private struct SplitMix: RandomNumberGenerator {
  var state: UInt64
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// RFC 4180 quoting, written independently of the code under test.
private func quoted(_ field: String) -> String {
  let needs = field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
  return needs ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
}

private extension String {
  func replacingOccurrences(of target: String, with replacement: String) -> String {
    split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
  }
}

@Suite("Rows: generated files") struct RowsPropertyTests {
  /// Random fields (commas, quotes, CR, LF, CRLF, braces, non-ASCII) written with RFC 4180
  /// quoting come back unchanged, each row with the line it starts on.
  @Test func csvRoundTrip() {
    var random = SplitMix(state: 0x5EED)
    let pieces = ["a", "b", ",", "\"", "\n", "\r\n", "\r", "é", "{", " ", "x1", "😀"]
    for _ in 0..<300 {
      let columns = Int.random(in: 1...4, using: &random)
      let header = ["id"] + (1..<max(1, columns)).map { "c\($0)" }
      let rowCount = Int.random(in: 1...6, using: &random)
      var text = header.joined(separator: ",") + "\r\n"
      var expected: [(line: Int, fields: [String: String])] = []
      for index in 0..<rowCount {
        var values = ["r\(index)"]
        for _ in 1..<header.count {
          let count = Int.random(in: 0...5, using: &random)
          values.append((0..<count).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &random)] }.joined())
        }
        // A row whose only field is empty would be a blank line; every row has an id here.
        // The row starts on the line after every line break written so far (CRLF is one Character).
        let line = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).count
        expected.append((line, Dictionary(uniqueKeysWithValues: zip(header, values))))
        let record = values.map(quoted).joined(separator: ",")
        text += record + (Bool.random(using: &random) ? "\n" : "\r\n")
      }
      let file = RowsFile.parse(Array(text.utf8), format: .csv)
      #expect(file.problems.isEmpty, "\(text.debugDescription)")
      #expect(file.rows.map(\.fields) == expected.map(\.fields), "\(text.debugDescription)")
      #expect(file.rows.map(\.line) == expected.map(\.line), "\(text.debugDescription)")
    }
  }

  /// Arbitrary bytes never trap: every outcome is rows or problems.
  @Test func arbitraryInputNeverTraps() {
    var random = SplitMix(state: 0xF00D)
    let alphabet: [UInt8] = Array(",\"\r\n{}:[]id0a ".utf8) + [0xC3, 0xA9, 0xFF, 0xEF, 0xBB, 0xBF]
    for _ in 0..<2000 {
      let bytes = (0..<Int.random(in: 0...40, using: &random)).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] }
      for format in [RowsFile.Format.csv, .jsonLines] {
        let file = RowsFile.parse(bytes, format: format)
        #expect(!file.rows.isEmpty || !file.problems.isEmpty)
        #expect(file.rows.map(\.line) == file.rows.map(\.line).sorted())
      }
      let text = String(decoding: bytes, as: UTF8.self)
      if let template = try? Template(text) {
        _ = try? template.render(fields: ["id": "1"], uid: "04", sequence: 1, mirror: "000000")
      }
      _ = try? MessageJSONTemplate(parsing: bytes)
    }
  }
}
