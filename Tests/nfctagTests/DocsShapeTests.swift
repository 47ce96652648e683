import Foundation
import Testing

/// The README a user reads in two minutes, and an architecture map whose lines a reader can
/// follow (CONTRIBUTING.md, docs/architecture.md): at most 120 lines, the first commands a user
/// with a reader types within its first 30, and no line of docs/architecture.md over 200 characters.
@Suite struct DocsShape {
  func lines(_ path: String) throws -> [Substring] {
    let text = try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
    return text.split(separator: "\n", omittingEmptySubsequences: false)
  }

  @Test func theREADMEIsShortAndStartsWithTheCommands() throws {
    let readme = try lines("README.md")
    #expect(readme.count <= 120, "README.md has \(readme.count) lines")
    let head = readme.prefix(30).joined(separator: "\n")
    for command in ["nfctag doctor", "nfctag scan", "nfctag read", "nfctag write url"] {
      #expect(head.contains(command), "\(command) is not in the README's first 30 lines")
    }
    #expect(readme.joined(separator: "\n").contains("make demo") && readme.joined(separator: "\n").contains("make test"))
  }

  @Test func noArchitectureLineIsOver200Characters() throws {
    for (number, line) in try lines("docs/architecture.md").enumerated() where line.count > 200 {
      Issue.record("docs/architecture.md:\(number + 1) has \(line.count) characters")
    }
  }
}
