import Testing
@testable import Provisioning

private func templateError(_ source: String) -> String? {
  do { _ = try Template(source); return nil } catch { return error.description }
}

@Suite("Templates") struct TemplateTests {
  @Test func parsesIntoParts() throws {
    let t = try Template("https://x/{id}?n={n:06}&u={uid}{{}}{n}")
    #expect(t.parts == [
      .literal("https://x/"), .column("id"), .literal("?n="), .sequence(width: 6), .literal("&u="), .uid,
      .literal("{}"), .sequence(width: 0),
    ])
    #expect(t.placeholders == ["id"])
    #expect(t.mirrorCount == 0)
    #expect(!t.isConstant)
    #expect(try Template("plain {{text}}").isConstant)
  }

  @Test func renders() throws {
    let t = try Template("https://x/{id}?n={n:06}&u={uid}{{}}{n}")
    #expect(try t.render(fields: ["id": "7"], uid: "04a1", sequence: 42, mirror: nil) == "https://x/7?n=000042&u=04a1{}42")
    // A number wider than the width is not cut.
    #expect(try Template("{n:03}").render(fields: [:], uid: "", sequence: 12345, mirror: nil) == "12345")
    #expect(try Template("{first name}/{mirror}").render(fields: ["first name": "Ada"], uid: "", sequence: 1, mirror: "000")
            == "Ada/000")
  }

  @Test func renderErrors() throws {
    #expect(throws: TemplateRenderError.missingColumn("x")) {
      try Template("a{x}").render(fields: [:], uid: "", sequence: 1, mirror: nil)
    }
    #expect(throws: TemplateRenderError.mirrorWithoutMode) {
      try Template("{mirror}").render(fields: [:], uid: "", sequence: 1, mirror: nil)
    }
  }

  @Test func parseErrorsNameTheColumn() {
    #expect(templateError("abc{") == "column 4: '{' is not closed (a literal brace is written {{)")
    #expect(templateError("a}b") == "column 2: '}' without '{' (a literal brace is written }})")
    #expect(templateError("x{}") == "column 2: empty placeholder {}")
    #expect(templateError("{:06}") == "column 1: empty placeholder {:06}")
    #expect(templateError("ab{n:6}") == "column 3: {n:6}: the width is written 0 and 1–20 digits, as in {n:06}")
    #expect(templateError("{n:00}") == "column 1: {n:00}: the width is written 0 and 1–20 digits, as in {n:06}")
    #expect(templateError("{n:021}") == "column 1: {n:021}: the width is written 0 and 1–20 digits, as in {n:06}")
    #expect(templateError("{uid:02}") == "column 1: {uid} takes no format")
    #expect(templateError("{mirror:x}") == "column 1: {mirror} takes no format")
    #expect(templateError("{name:x}") == "column 1: {name:x}: a column placeholder takes no format")
    #expect(templateError("{a{b}") == "column 3: '{' inside the placeholder opened at column 1")
    #expect(templateError("héllo wörld {") == "column 13: '{' is not closed (a literal brace is written {{)")
    #expect(templateError("{n:020}") == nil)
  }
}
