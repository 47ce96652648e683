import Testing
@testable import Provisioning

private func jsonl(_ text: String) -> RowsFile { RowsFile.parse(Array(text.utf8), format: .jsonLines) }

@Suite("Rows: JSON lines") struct RowsJSONLinesTests {
  @Test func valuesBecomeStrings() {
    let file = jsonl("{\"id\":\"a\",\"price\":1.50,\"ok\":true,\"gone\":null}\n\n{\"id\":\"b\",\"ok\":false}\r\n")
    #expect(file.problems.isEmpty)
    #expect(file.format == .jsonLines)
    #expect(file.columns == ["id", "price", "ok", "gone"])
    #expect(file.rows.map(\.id) == ["a", "b"])
    #expect(file.rows.map(\.line) == [1, 3])
    #expect(file.rows.map(\.sequence) == [1, 2])
    #expect(file.rows.first?.fields == ["id": "a", "price": "1.50", "ok": "true"])
    #expect(file.rows.last?.fields == ["id": "b", "ok": "false"])
  }

  @Test func numericIDsAndRowsWithoutID() {
    let file = jsonl("{\"id\":7,\"name\":\"Zoë\"}\n{\"name\":\"x\"}\n")
    #expect(file.rows.map(\.id) == ["7", "2"])
    // The same fields as the CSV "name,id\nZoë,7" give the same hash.
    #expect(file.rows.first?.contentHash == "b8a51418aaa22220090a3314d08befd2dee40247854c36bba1b777dda91d9596")
  }

  @Test func badLinesAreProblemsEachWithItsLine() {
    let file = jsonl("{\"id\":1}\n[1]\n{\"id\":\n{\"id\":\"x\",\"tags\":[\"a\"],\"o\":{}}\n{\"id\":\"\"}\n{\"id\":1}\n")
    #expect(file.problems.map(\.description) == [
      "row 2 (line 2): not a JSON object",
      "row 3 (line 3): invalid JSON at byte 6: unexpected end of input",
      "row x (line 4): \"tags\" is an array; values must be strings, numbers or booleans",
      "row x (line 4): \"o\" is an object; values must be strings, numbers or booleans",
      "row 5 (line 5): the id is empty",
      "row 1 (line 6): the id \"1\" is also the id of the row on line 1",
    ])
    #expect(file.rows.map(\.line) == [1, 6])
  }

  @Test func emptyAndBlankFiles() {
    #expect(jsonl("").problems.map(\.description) == ["the rows file is empty"])
    #expect(jsonl("\n\n").problems.map(\.description) == ["the rows file is empty"])
  }
}
