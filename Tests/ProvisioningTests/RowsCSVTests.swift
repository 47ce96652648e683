import Foundation
import Testing
@testable import Provisioning

private func csv(_ text: String) -> RowsFile { RowsFile.parse(Array(text.utf8), format: .csv) }
private func problems(_ file: RowsFile) -> [String] { file.problems.map(\.description) }

@Suite("Rows: CSV") struct RowsCSVTests {
  @Test func headerNamesColumnsAndIDColumnNamesRows() {
    let file = csv("id,url\n7,https://a.example\n8,https://b.example\n")
    #expect(file.problems.isEmpty)
    #expect(file.format == .csv)
    #expect(file.columns == ["id", "url"])
    #expect(file.rows.map(\.id) == ["7", "8"])
    #expect(file.rows.map(\.sequence) == [1, 2])
    #expect(file.rows.map(\.line) == [2, 3])
    #expect(file.rows.first?.fields == ["id": "7", "url": "https://a.example"])
    #expect(file.rows.first?.label == "row 7 (line 2)")
  }

  @Test func withoutAnIDColumnRowsAreNumbered() {
    let file = csv("name,age\nAda,36\nBob,7")  // no final line break
    #expect(file.problems.isEmpty)
    #expect(file.rows.map(\.id) == ["1", "2"])
    #expect(file.rows.last?.fields == ["name": "Bob", "age": "7"])
  }

  @Test func byteOrderMarkAndCRLF() {
    let file = RowsFile.parse([0xEF, 0xBB, 0xBF] + Array("name,age\r\nAda,36\r\nBob,7\r\n".utf8), format: .csv)
    #expect(file.problems.isEmpty)
    #expect(file.columns == ["name", "age"])  // the BOM is not part of "name"
    #expect(file.rows.map(\.line) == [2, 3])
    #expect(file.rows.first?.fields["name"] == "Ada")
    #expect(file.rows.first?.fields["age"] == "36")  // no CR left on the last field
  }

  @Test func lonelyCRLineEnds() {
    let file = csv("id,a\r1,x\r2,y\r")
    #expect(file.problems.isEmpty)
    #expect(file.rows.map(\.line) == [2, 3])
    #expect(file.rows.map { $0.fields["a"] } == ["x", "y"])
  }

  @Test func quotedFieldsWithCommasQuotesAndLineBreaks() {
    let file = csv("id,text\n1,\"a, b\"\n2,\"say \"\"hi\"\"\"\n3,\"two\nlines\"\n4,\"\"\n5,\"crlf\r\ninside\"\n6,x\n")
    #expect(file.problems.isEmpty)
    #expect(file.rows.map { $0.fields["text"] } == ["a, b", "say \"hi\"", "two\nlines", "", "crlf\r\ninside", "x"])
    #expect(file.rows.map(\.line) == [2, 3, 4, 6, 7, 9])
  }

  @Test func blankLinesAreSkippedButCounted() {
    let file = csv("id,a\n\n1,x\n\n2,y\n\n")
    #expect(file.problems.isEmpty)
    #expect(file.rows.map(\.line) == [3, 5])
    #expect(file.rows.map(\.sequence) == [1, 2])
  }

  @Test func raggedRowsAreProblemsWithTheirLines() {
    let file = csv("id,a,b\n1,x\n2,x,y,z\n3,p,q\n")
    #expect(problems(file) == [
      "row 1 (line 2): 2 fields, the header has 3",
      "row 2 (line 3): 4 fields, the header has 3",
    ])
    #expect(file.rows.map(\.id) == ["3"])
    #expect(file.rows.first?.sequence == 3)
  }

  @Test func duplicateIDsNameBothLines() {
    let file = csv("id,a\nA,1\nB,2\nA,3\nB,4\n")
    #expect(problems(file) == [
      "row A (line 4): the id \"A\" is also the id of the row on line 2",
      "row B (line 5): the id \"B\" is also the id of the row on line 3",
    ])
  }

  @Test func emptyIDAndDuplicateColumn() {
    #expect(problems(csv("id,a\n,x\n")) == ["row 1 (line 2): the id is empty"])
    #expect(problems(csv("a,a\n1,2\n")) == ["line 1: the column \"a\" appears more than once in the header"])
  }

  @Test func emptyFiles() {
    #expect(problems(csv("")) == ["the rows file is empty"])
    #expect(problems(csv("\n \r\n")) == ["the rows file is empty"])
    #expect(problems(RowsFile.parse([0xEF, 0xBB, 0xBF], format: .csv)) == ["the rows file is empty"])
    #expect(problems(csv("id,a\n")) == ["the rows file has a header but no data rows"])
  }

  @Test func invalidUTF8NamesTheLineAndByte() {
    let file = RowsFile.parse(Array("id,a\n1,".utf8) + [0xFF] + Array("\n".utf8), format: .csv)
    #expect(problems(file) == ["line 2: not valid UTF-8 (byte 8 of the file)"])
    #expect(file.rows.isEmpty)
  }

  @Test func quotingMistakesAreRefusedWithTheirLines() {
    #expect(problems(csv("id,a\n1,\"abc\"x\n2,ok\n")) == ["line 2: text after the closing quote of a field"])
    #expect(problems(csv("id,a\n1,ok\n2,\"abc\n3,ok\n")) == ["line 3: a quoted field opened here is never closed"])
    #expect(problems(csv("id,a\n1,ab\"c\n")) == [
      "line 2: a double quote inside an unquoted field (RFC 4180: quote the field and double the quote)",
    ])
    #expect(csv("id,a\n1,\"abc\"x\n").rows.isEmpty)
  }

  @Test func contentHashIsSHA256OfTheCanonicalFields() {
    // python3: sha256(b"".join(len(s).to_bytes(4,"big")+s for k in sorted(f) for s in (k, f[k])))
    let file = csv("name,id\nZoë,7\n")
    #expect(file.rows.first?.contentHash == "b8a51418aaa22220090a3314d08befd2dee40247854c36bba1b777dda91d9596")
    #expect(ProvisioningRow.contentHash(of: [:]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    let input = file.rows.first?.ledgerInput
    #expect(input?.id == "7")
    #expect(input?.sequence == 1)
    #expect(input?.contentHash == file.rows.first?.contentHash)
  }

  @Test func countedRows() {
    let file = RowsFile.counted(3)
    #expect(file.problems.isEmpty)
    #expect(file.format == .counted)
    #expect(file.rows.map(\.id) == ["1", "2", "3"])
    #expect(file.rows.allSatisfy { $0.fields.isEmpty && $0.line == 0 })
    #expect(file.rows.last?.label == "row 3")
    #expect(problems(RowsFile.counted(0)) == ["the count must be at least 1, not 0"])
  }

  @Test func loadReadsAFileAndRefusesOneTooLarge() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ProvisioningTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let csvPath = directory.appendingPathComponent("rows.csv").path
    try Data("id,url\n1,https://a\n".utf8).write(to: URL(fileURLWithPath: csvPath))
    let loaded = RowsFile.load(path: csvPath)
    #expect(loaded.problems.isEmpty)
    #expect(loaded.rows.map(\.id) == ["1"])
    #expect(problems(RowsFile.load(path: csvPath, maxBytes: 10)) == ["the rows file is larger than 10 bytes"])
    let jsonPath = directory.appendingPathComponent("rows.JSONL").path
    try Data("{\"id\":\"a\"}\n".utf8).write(to: URL(fileURLWithPath: jsonPath))
    #expect(RowsFile.load(path: jsonPath).format == .jsonLines)
    #expect(RowsFile.load(path: jsonPath).rows.map(\.id) == ["a"])
    let missing = RowsFile.load(path: directory.appendingPathComponent("none.csv").path)
    #expect(missing.rows.isEmpty)
    #expect(missing.problems.count == 1)
    #expect(missing.problems.first?.message.hasPrefix("cannot read the rows file: ") == true)
  }
}
