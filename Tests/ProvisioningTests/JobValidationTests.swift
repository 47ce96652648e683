import Testing
@testable import Provisioning

private func csv(_ text: String) -> RowsFile { RowsFile.parse(Array(text.utf8), format: .csv) }
private func jsonl(_ text: String) -> RowsFile { RowsFile.parse(Array(text.utf8), format: .jsonLines) }
private func url(_ source: String) throws -> MessageTemplate { .url(try Template(source)) }
private func lines(_ validation: JobValidation) -> [String] { validation.problems.map(\.description) }

@Suite("Job validation") struct JobValidationTests {
  @Test func aGoodJobHasNoProblems() throws {
    let validation = JobValidation(rows: csv("id,path\n1,a\n2,bb\n"), template: try url("https://e.com/{path}"), mirror: nil)
    #expect(validation.problems.isEmpty)
    #expect(validation.messageSizes.map(\.bytes) == [12, 13])  // D1 01 LL 55 04 + "e.com/a"
    #expect(validation.largestMessage == 13)
  }

  @Test func aColumnMissingFromTheHeaderIsOneProblem() throws {
    let validation = JobValidation(rows: csv("id,url\n1,a\n2,b\n"), template: try url("https://{host}/{link}"), mirror: nil)
    #expect(lines(validation) == [
      "line 1: the template uses {host}, which is not a column of the header",
      "line 1: the template uses {link}, which is not a column of the header",
    ])
  }

  @Test func aFileWhoseHeaderCannotBeReadIsNotBlamedForItsColumns() throws {
    // The file's own problem is the cause; its header was never read, so no column is missing.
    let quoting = JobValidation(rows: csv("id,name\n1,\"Ada\n"), template: try url("https://e.com/{name}"), mirror: nil)
    #expect(lines(quoting).count == 1)
    #expect(!lines(quoting).contains { $0.contains("not a column") }, "\(lines(quoting))")
    let garbage = RowsFile.parse([0xFF, 0xFE, 0x00, 0x41, 0x0A], format: .csv)
    let binary = JobValidation(rows: garbage, template: try url("https://e.com/{name}"), mirror: nil)
    #expect(lines(binary) == ["line 1: not valid UTF-8 (byte 1 of the file)"])
  }

  @Test func columnsWithoutARowsFile() throws {
    let validation = JobValidation(rows: .counted(2), template: try url("https://e.com/{n}/{x}"), mirror: nil)
    #expect(lines(validation) == ["the template uses {x}, but the job has no rows file"])
    #expect(JobValidation(rows: .counted(2), template: try url("https://e.com/{n:04}"), mirror: nil).problems.isEmpty)
  }

  @Test func jsonLinesRowsMissingAFieldAreNamed() throws {
    let validation = JobValidation(rows: jsonl("{\"id\":\"a\",\"u\":\"x\"}\n{\"id\":\"b\"}\n"), template: try url("https://{u}"), mirror: nil)
    #expect(lines(validation) == ["row b (line 2): no field \"u\" for {u}"])
  }

  @Test func malformedRenderedMessages() throws {
    let validation = JobValidation(rows: csv("id,url\n1,https://a\n2,\n3,https://c\n"), template: try url("{url}"), mirror: nil)
    #expect(lines(validation) == ["row 2 (line 3): the URL is empty"])
    #expect(validation.messageSizes.map(\.row.id) == ["1", "3"])
  }

  @Test func aURLThatIsNotAURIIsRefusedPerRow() throws {
    let validation = JobValidation(rows: csv("id,url\n1,https://a\n2,https://a b\n3,https://c\n"), template: try url("{url}"), mirror: nil)
    #expect(lines(validation) == [#"row 2 (line 3): the URL "https://a b" is not a valid URI: it holds a space (character 10)"#])
  }

  @Test func everyProblemInFileOrder() throws {
    let rows = csv("id,url\n1,https://a\nA,\nA,https://b\n4,x,y\n")
    let validation = JobValidation(rows: rows, template: try url("{url}{mirror}"), mirror: nil)
    #expect(lines(validation) == [
      "the template holds {mirror} but no mirror mode is set",
      "row A (line 4): the id \"A\" is also the id of the row on line 3",
      "row 4 (line 5): 3 fields, the header has 2",
    ])
  }

  @Test func mirrorRules() throws {
    let rows = csv("id\n1\n")
    func problems(_ template: MessageTemplate, _ mirror: MirrorMode?) -> [String] {
      lines(JobValidation(rows: rows, template: template, mirror: mirror))
    }
    #expect(problems(try url("https://e.com/"), .uid) == ["the mirror (uid) needs {mirror} in the URL template"])
    #expect(problems(try url("https://e.com/{mirror}{mirror}"), .counter) == [
      "{mirror} appears 2 times; the mirror needs it exactly once",
    ])
    #expect(problems(try url("https://e.com/{mirror}"), nil) == ["the template holds {mirror} but no mirror mode is set"])
    #expect(problems(.text(try Template("n={mirror}")), .uid) == ["{mirror} stands in the text template, not in a URL"])
    #expect(problems(try url("https://e.com/{mirror}"), .uidAndCounter) == [])
  }

  @Test func capacityUsesAWorstCaseUIDAndTheMirrorRoom() throws {
    let rows = csv("id\n1\n22\n333\n")
    let template = try url("https://e.com/{uid}/{id}?m={mirror}")
    let validation = JobValidation(rows: rows, template: template, mirror: .counter)
    #expect(validation.problems.isEmpty)
    // 5 header bytes + "e.com/" (6) + 14 UID characters + "/" + id + "?m=" (3) + 6 room bytes
    #expect(validation.messageSizes.map(\.bytes) == [36, 37, 38])
    #expect(validation.problems(forCapacity: 36).map(\.description) == [
      "row 22 (line 3): the message is 37 bytes; the tag holds 36",
      "row 333 (line 4): the message is 38 bytes; the tag holds 36",
    ])
    #expect(validation.problems(forCapacity: 38).isEmpty)
    let shortUID = JobValidation(rows: rows, template: template, mirror: .counter, uidLength: 4)
    #expect(shortUID.messageSizes.map(\.bytes) == [30, 31, 32])
  }
}
