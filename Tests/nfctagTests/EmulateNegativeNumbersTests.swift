import Testing

/// `emulate`'s number options take the word after them whatever it looks like, so a negative
/// number reaches the option's own check and is refused in one line with 64, not answered
/// "Missing value" (as `value --init -5`, EverydayCLITests).
@Suite struct EmulateNegativeNumbersTests {
  @Test(arguments: [
    (["emulate", "--tag", "ntag215", "--remove-after", "-5"], "--remove-after must be at least 1"),
    (["emulate", "--tag", "ntag215", "--feed", "-5"], "--feed takes 1 to"),
    (["emulate", "--tag", "ntag215", "--feed", "2", "--hand-ms", "-5"], "--hand-ms takes 0 to 600000"),
    (["emulate", "--tag", "ntag215", "--feed", "2", "--seed", "-5"], "--seed"),
  ])
  func aNegativeNumberIsRefusedByTheOptionsOwnCheck(arguments: [String], words: String) throws {
    let r = try runTool(arguments)
    #expect(r.status == 64, "\(arguments): \(r.stderr)")
    #expect(r.stderr.contains(words) && !r.stderr.contains("Missing value"), "\(arguments): \(r.stderr)")
    #expect(r.stderr.hasPrefix("nfctag: ") && r.stderr.split(separator: "\n").count == 1, "\(arguments): \(r.stderr)")
  }
}
